// Package egress is browserd's SSRF guard: a forward HTTP proxy that every
// request of the browser goes through (Chromium is started with
// --proxy-server=<Session.URL> and --proxy-bypass-list=<-loopback>, so
// navigations, redirects, sub-resources, fetch/XHR, WebSocket, EventSource,
// workers and downloads all reach it).
//
// Threat model: a page (or an agent steered by one) must not reach internal
// networks. The proxy refuses any host that is, or resolves to, a loopback,
// private, CGNAT, link-local, cloud-metadata, multicast, reserved or other
// internal address (classified by urlpolicy.Internal, IPv4 embedded in IPv6
// included) unless the operator allowed it. Each host is resolved exactly
// once, every answer is checked, and the proxy dials the checked IP address
// itself, never the name, so DNS rebinding between check and connect cannot
// slip through; pooled upstream connections are keyed by that IP. HTTPS and
// WebSocket tunnels (CONNECT) are checked the same way before they open.
//
// An allowed request may then leave through an upstream proxy (Upstream:
// the daemon's --proxy as Options.Upstream, or a session's own through
// Session.SetUpstream), which is asked for the checked address, never the
// name. A session's own proxy is a destination too: its address passes the
// session's policy before every dial (CheckUpstream says so at launch), and
// nothing a proxy sends is ever quoted; see upstream.go.
//
// Sessions are identified by port: Chromium's --proxy-server (and CDP's
// per-browser-context proxyServer) cannot carry credentials, so each Session
// listens on its own 127.0.0.1 port bound to its policy. Any local process
// can reach that port, but it only ever gets what the policy allows.
package egress
