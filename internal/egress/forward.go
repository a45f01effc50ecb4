package egress

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/textproto"
	"strings"
	"sync"
	"time"
)

// BlockedHeader is the response header that names the rule of a refusal.
const BlockedHeader = "X-Browserd-Blocked"

func (s *Session) serveHTTP(w http.ResponseWriter, r *http.Request) {
	s.wg.Add(1)
	defer s.wg.Done()
	switch {
	case r.Method == http.MethodConnect:
		s.connect(w, r)
	case r.URL.IsAbs() && r.URL.Host != "":
		s.forward(w, r)
	default:
		http.Error(w, "browserd egress proxy: only proxy requests (absolute URL or CONNECT)", http.StatusBadRequest)
	}
}

// decide checks a request against the session's policy, records and logs
// the verdict.
func (s *Session) decide(reqCtx context.Context, host, port, target string) Decision {
	ctx, cancel := context.WithTimeout(reqCtx, s.p.opts.DialTimeout)
	defer cancel()
	d := s.pol.Load().check(ctx, s.p.opts.Resolver, host, port)
	d.URL = target
	if d.Allowed && s.p.isOwn(d.Addr, d.Port) {
		d.Allowed, d.Rule = false, RuleProxyItself
		d.Reason = fmt.Sprintf("%s is the egress proxy itself", netip.AddrPortFrom(d.Addr, parsePortNum(d.Port)))
	}
	if rt := s.rt.Load(); d.Allowed && rt != nil {
		if h, err := parseHost(host); err == nil && rt.isProxy(ctx, s.p.opts.Resolver, h.key, d.Addr, d.Port) {
			d.Allowed, d.Rule = false, RuleUpstream
			d.Reason = fmt.Sprintf("%s is the upstream proxy, which only browserd itself uses", hostPort(h.key, d.Port))
		}
	}
	if d.Allowed {
		via := "direct"
		if rt := s.rt.Load().via(d); rt != nil {
			via = rt.display
		}
		s.p.log.Debug("egress: allowed", "session", s.addr, "target", d.URL, "addr", d.Addr, "via", via)
		return d
	}
	s.p.log.Info("egress: refused", "session", s.addr, "target", d.URL, "rule", d.Rule, "addr", d.Addr)
	if d.Rule == RuleNoResolve {
		if reqCtx.Err() == nil { // not abandoned by the browser
			s.p.forwarded(false)
		}
		s.recordUnresolved(d)
	} else {
		s.record(d)
		s.p.refused(RefusalKind(d))
	}
	return d
}

func parsePortNum(p string) uint16 {
	var n uint16
	for i := 0; i < len(p); i++ {
		n = n*10 + uint16(p[i]-'0')
	}
	return n
}

// refusalStatus is 502 for a host that does not resolve (a gateway error,
// like a browser's own DNS error) and 403 for a policy refusal.
func refusalStatus(d Decision) int {
	if d.Rule == RuleNoResolve {
		return http.StatusBadGateway
	}
	return http.StatusForbidden
}

const blockedPage = `<!doctype html>
<html><head><meta charset="utf-8"><title>Blocked by browserd</title></head>
<body><h1>Blocked by browserd</h1><p>%s</p><p>Rule: %s</p></body></html>
`

// refuseHTTP answers a refused plain HTTP request with a tiny HTML page, so
// a refused top-level navigation shows why.
func refuseHTTP(w http.ResponseWriter, d Decision) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	status := refusalStatus(d)
	if status == http.StatusForbidden {
		h.Set(BlockedHeader, d.Rule)
	}
	w.WriteHeader(status)
	fmt.Fprintf(w, blockedPage, html.EscapeString(d.Error()), html.EscapeString(d.Rule))
}

// target spells a request for logs and Decisions: scheme://host/path,
// without userinfo or query, at most 256 bytes.
func target(scheme, host, path string) string {
	if path == "" {
		path = "/"
	}
	t := scheme + "://" + host + path
	if len(t) > 256 {
		t = t[:256] + "..."
	}
	return t
}

func (s *Session) forward(w http.ResponseWriter, r *http.Request) {
	scheme := strings.ToLower(r.URL.Scheme)
	upgrade := isUpgrade(r.Header)
	switch {
	case scheme == "http":
	case scheme == "ws" && upgrade:
	default:
		s.p.refused(RefusedScheme)
		http.Error(w, fmt.Sprintf("browserd egress proxy: scheme %q is not proxied (use CONNECT for https)", scheme), http.StatusBadRequest)
		return
	}
	ctx := r.Context()
	d := s.decide(ctx, r.URL.Hostname(), r.URL.Port(), target(scheme, r.URL.Host, r.URL.EscapedPath()))
	if !d.Allowed {
		refuseHTTP(w, d)
		return
	}
	if upgrade {
		s.upgrade(w, r, d)
		return
	}

	out := r.Clone(ctx)
	out.RequestURI = ""
	out.URL.Scheme = "http"
	// The pool is keyed by the checked address: a connection is only ever
	// reused for a request whose host was just checked to that address.
	out.URL.Host = netip.AddrPortFrom(d.Addr, parsePortNum(d.Port)).String()
	out.URL.User = nil
	out.Host = r.Host
	out.Close = false
	if r.ContentLength == 0 {
		out.Body = nil
	}
	prepareRequestHeader(out.Header)
	out.Header.Del("Expect") // the server already answered 100-continue to the browser

	tr := s.tr
	if rt := s.rt.Load().via(d); rt != nil {
		// Through the upstream proxy: a tunnel to the checked address,
		// from the route's own pool.
		tr = rt.tr
	}
	resp, err := tr.RoundTrip(out)
	if err != nil {
		if ctx.Err() == nil {
			s.p.forwarded(false)
			s.p.log.Debug("egress: upstream failed", "target", d.URL, "err", failWords(err))
			s.upstreamFailed(d.URL, err)
			http.Error(w, "browserd egress proxy: "+d.URL+": "+failWords(err), http.StatusBadGateway)
		}
		return
	}
	s.p.forwarded(true)
	defer resp.Body.Close()
	copyResponse(w, resp)
}

var bufPool = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// copyResponse streams an upstream response back to the browser.
func copyResponse(w http.ResponseWriter, resp *http.Response) {
	if resp.StatusCode < 200 {
		http.Error(w, "browserd egress proxy: unexpected informational response", http.StatusBadGateway)
		return
	}
	removeHopHeaders(resp.Header)
	h := w.Header()
	for k, vv := range resp.Header {
		h[k] = append([]string(nil), vv...)
	}
	w.WriteHeader(resp.StatusCode)
	flush := resp.ContentLength == -1 || strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream")
	rc := http.NewResponseController(w)
	bp := bufPool.Get().(*[]byte)
	defer bufPool.Put(bp)
	buf := *bp
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return
			}
			if flush {
				rc.Flush()
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			// Abort so the browser does not take a truncated body for a
			// complete one.
			panic(http.ErrAbortHandler)
		}
	}
	for k, vv := range resp.Trailer {
		h[http.TrailerPrefix+k] = vv
	}
}

// dialChecked dials the address a Decision checked (never a name),
// directly or through the session's upstream proxy, and tracks the
// connection for Close; on failure it has answered w already.
func (s *Session) dialChecked(w http.ResponseWriter, r *http.Request, d Decision, what string) (net.Conn, bool) {
	target := netip.AddrPortFrom(d.Addr, parsePortNum(d.Port))
	var up net.Conn
	var err error
	if rt := s.rt.Load().via(d); rt != nil {
		up, err = s.p.dialVia(r.Context(), rt, target)
	} else {
		up, err = s.p.dialAddr(r.Context(), "tcp", target.String())
	}
	if err != nil {
		if r.Context().Err() == nil {
			s.p.forwarded(false)
			s.upstreamFailed(d.URL, err)
		}
		http.Error(w, "browserd egress proxy: "+what+": "+failWords(err), http.StatusBadGateway)
		return nil, false
	}
	if !s.track(up) {
		return nil, false
	}
	return up, true
}

// failWords says why a request failed, in browserd's words: an upstream
// proxy's failure as its UpstreamError words it, anything else by its kind
// only — net/http's errors quote what the other end sent ("malformed HTTP
// response ..."), which may be an upstream proxy's bytes, and no byte a
// proxy sent is ever shown to a page, an agent or a log.
func failWords(err error) string {
	var ue *UpstreamError
	if errors.As(err, &ue) {
		return ue.Error()
	}
	var ne net.Error
	var oe *net.OpError
	switch {
	case errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout():
		return "the site did not answer in time"
	case errors.As(err, &oe) && oe.Op == "dial":
		return "the site cannot be reached (the connection was refused or did not open)"
	}
	return "the site's answer could not be read (it is not HTTP, or the connection broke)"
}

// upstreamFailed records err when an upstream proxy caused it.
func (s *Session) upstreamFailed(target string, err error) {
	var ue *UpstreamError
	if errors.As(err, &ue) {
		s.recordFailure(target, ue)
	}
}

// hijack takes the browser's connection over from net/http for a tunnel
// and tracks it for Close; the caller untracks it.
func (s *Session) hijack(w http.ResponseWriter) (net.Conn, *bufio.ReadWriter, bool) {
	conn, brw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return nil, nil, false
	}
	if !s.track(conn) {
		return nil, nil, false
	}
	conn.SetDeadline(time.Time{})
	return conn, brw, true
}

// upgrade forwards a plain-HTTP Upgrade (WebSocket) request to the checked
// address and, on 101, splices the two connections.
func (s *Session) upgrade(w http.ResponseWriter, r *http.Request, d Decision) {
	ctx := r.Context()
	up, ok := s.dialChecked(w, r, d, d.URL)
	if !ok {
		return
	}
	defer s.untrack(up)

	out := r.Clone(ctx)
	out.RequestURI = ""
	out.URL.Scheme = "http"
	out.URL.User = nil
	out.Host = r.Host
	if r.ContentLength == 0 {
		out.Body = nil
	}
	kind := r.Header.Get("Upgrade")
	prepareRequestHeader(out.Header)
	out.Header.Set("Connection", "Upgrade")
	out.Header.Set("Upgrade", kind)

	up.SetDeadline(time.Now().Add(upgradeTimeout))
	bw := bufio.NewWriter(up)
	err := out.Write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		s.p.forwarded(false)
		http.Error(w, "browserd egress proxy: "+d.URL+": "+failWords(err), http.StatusBadGateway)
		return
	}
	br := bufio.NewReader(up)
	resp, err := http.ReadResponse(br, out)
	if err != nil {
		s.p.forwarded(false)
		http.Error(w, "browserd egress proxy: "+d.URL+": "+failWords(err), http.StatusBadGateway)
		return
	}
	s.p.forwarded(true)
	if resp.StatusCode != http.StatusSwitchingProtocols {
		defer resp.Body.Close()
		copyResponse(w, resp)
		return
	}
	upKind := resp.Header.Get("Upgrade")
	up.SetDeadline(time.Time{})

	conn, brw, ok := s.hijack(w)
	if !ok {
		return
	}
	defer s.untrack(conn)
	removeHopHeaders(resp.Header)
	resp.Header.Set("Connection", "Upgrade")
	resp.Header.Set("Upgrade", upKind)
	cw := bufio.NewWriter(conn)
	fmt.Fprintf(cw, "HTTP/1.1 101 %s\r\n", http.StatusText(http.StatusSwitchingProtocols))
	resp.Header.Write(cw)
	cw.WriteString("\r\n")
	if err := cw.Flush(); err != nil {
		return
	}
	splice(conn, brw.Reader, up, br)
}

// connect opens a checked CONNECT tunnel.
func (s *Session) connect(w http.ResponseWriter, r *http.Request) {
	host, port, err := net.SplitHostPort(r.Host)
	if err != nil {
		http.Error(w, "browserd egress proxy: CONNECT needs host:port", http.StatusBadRequest)
		return
	}
	ctx := r.Context()
	d := s.decide(ctx, host, port, r.Host)
	if !d.Allowed {
		h := w.Header()
		h.Set("Content-Type", "text/plain; charset=utf-8")
		if status := refusalStatus(d); status == http.StatusForbidden {
			h.Set(BlockedHeader, d.Rule)
		}
		w.WriteHeader(refusalStatus(d))
		io.WriteString(w, d.Error()+"\n")
		return
	}
	up, ok := s.dialChecked(w, r, d, r.Host)
	if !ok {
		return
	}
	s.p.forwarded(true)
	defer s.untrack(up)
	if cc := s.clientCert(host, port); cc != nil {
		s.bridge(w, r, up, host, cc)
		return
	}
	conn, brw, ok := s.hijack(w)
	if !ok {
		return
	}
	defer s.untrack(conn)
	if _, err := io.WriteString(conn, "HTTP/1.1 200 Connection Established\r\n\r\n"); err != nil {
		return
	}
	splice(conn, brw.Reader, up, up)
}

// splice copies a's reads (ar) to b and b's reads (br) to a until either
// side ends, then closes both and returns after both copies stopped.
func splice(a net.Conn, ar io.Reader, b net.Conn, br io.Reader) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		io.Copy(b, ar)
		a.Close()
		b.Close()
	}()
	io.Copy(a, br)
	a.Close()
	b.Close()
	<-done
}

var hopHeaders = []string{
	"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate",
	"Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade",
}

// removeHopHeaders deletes hop-by-hop headers, those named by Connection,
// and every Proxy-* header.
func removeHopHeaders(h http.Header) {
	for _, v := range h["Connection"] {
		for f := range strings.SplitSeq(v, ",") {
			if f = textproto.TrimString(f); f != "" {
				h.Del(f)
			}
		}
	}
	for _, k := range hopHeaders {
		h.Del(k)
	}
	for k := range h {
		if strings.HasPrefix(http.CanonicalHeaderKey(k), "Proxy-") {
			delete(h, k)
		}
	}
}

// prepareRequestHeader readies a browser request's header for upstream.
func prepareRequestHeader(h http.Header) {
	trailers := tokenIn(h["Te"], "trailers")
	removeHopHeaders(h)
	if trailers {
		h.Set("Te", "trailers")
	}
	if _, ok := h["User-Agent"]; !ok {
		h["User-Agent"] = []string{""} // keep net/http from adding its own
	}
}

func isUpgrade(h http.Header) bool {
	return h.Get("Upgrade") != "" && tokenIn(h["Connection"], "upgrade")
}

func tokenIn(values []string, token string) bool {
	for _, v := range values {
		for f := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(textproto.TrimString(f), token) {
				return true
			}
		}
	}
	return false
}
