package egress

import (
	"context"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Upstream proxies. The guard decides first, exactly as it does without
// one: a refused request never leaves browserd. An allowed request then
// goes direct or, when its session has an upstream proxy (its own, set by
// launch, or the daemon's --proxy) and its host is not bypassed, through
// that proxy. browserd asks the proxy for the address the guard checked
// (the pinned IP:port), never for the name, so that the proxy — which
// often shares an internal network with browserd — cannot be led to an
// internal address by a DNS answer that changed after the check; TLS SNI
// and the Host header still carry the name, so HTTPS and virtual hosts
// work. Plain-http requests go through a CONNECT tunnel too: an
// absolute-URI request would either name the host (the proxy resolves it
// again) or the address (proxies rewrite Host from it). Loopback targets
// always go direct: the proxy's loopback is not browserd's. The proxy's
// own address is dialled by browserd only: a page's request for it is
// refused (RuleUpstream).
//
// A session's own proxy (launch's, SetUpstream) is a destination like any
// other: its address passes the session's policy before every dial — its
// name resolved once, every answer checked, the checked address dialled —
// so an internal address cannot be a proxy unless --allow-host names it
// (CheckUpstream says so at launch; the dial checks again, as DNS may have
// changed). The daemon's own proxy (Options.Upstream, set by its
// operator) is trusted, as is a session's that names the same address.
//
// Nothing a proxy sends is ever quoted: its failures are worded by
// browserd (UpstreamError), with at most the status code of a refused
// CONNECT, never its reason phrase, headers, body or stray bytes.

// Upstream is a proxy that the guard's allowed requests are sent through.
type Upstream struct {
	// Scheme is "http", "https" (TLS to the proxy) or "socks5".
	Scheme string
	// Host is the proxy's HOST:PORT: a name or an IP literal (IPv6 in
	// brackets).
	Host string
	// Username and Password are the proxy's login, sent as Basic
	// Proxy-Authorization to an http or https proxy and as RFC 1929
	// username/password to a socks5 one; empty: none. The password is
	// never logged nor shown.
	Username, Password string
	// Bypass lists the hosts that go direct instead, still through the
	// guard (see CheckBypass for the forms). Loopback always goes direct.
	Bypass []string
}

// Default ports of the proxy schemes.
var upstreamPorts = map[string]string{"http": "80", "https": "443", "socks5": "1080"}

// ParseUpstream reads a proxy address: scheme://HOST[:PORT] with scheme
// http, https or socks5; HOST:PORT alone is http, as in Playwright. A
// login in the URL (user:password@) is returned in Username and Password:
// callers that must not take one from where it was given (a command line)
// refuse an Upstream that has one. Errors never repeat the input, which
// may hold a password.
func ParseUpstream(raw string) (Upstream, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return Upstream{}, errors.New("no proxy address: want scheme://HOST:PORT, e.g. http://proxy.example.com:3128")
	}
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil {
		return Upstream{}, errors.New("not a proxy address: want scheme://HOST:PORT with scheme http, https or socks5, e.g. http://proxy.example.com:3128")
	}
	scheme := strings.ToLower(u.Scheme)
	switch scheme {
	case "http", "https", "socks5":
	case "socks5h":
		return Upstream{}, errors.New("socks5h:// is not supported: browserd resolves names itself, checks the address and asks the proxy for that address; use socks5://")
	default:
		return Upstream{}, fmt.Errorf("scheme %q is not supported: use http://, https:// or socks5://", scheme)
	}
	if u.Host == "" || u.Opaque != "" {
		return Upstream{}, errors.New("no proxy host: want scheme://HOST:PORT, e.g. http://proxy.example.com:3128")
	}
	if (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return Upstream{}, errors.New("a proxy address has no path, query or fragment: want scheme://HOST:PORT")
	}
	up := Upstream{Scheme: scheme}
	host, port := u.Hostname(), u.Port()
	if port == "" {
		if strings.HasSuffix(u.Host, ":") {
			return Upstream{}, errors.New("empty proxy port: want scheme://HOST:PORT")
		}
		port = upstreamPorts[scheme]
	}
	if err := up.setHost(host, port); err != nil {
		return Upstream{}, err
	}
	if u.User != nil {
		up.Username = u.User.Username()
		up.Password, _ = u.User.Password()
	}
	return up, nil
}

func (u *Upstream) setHost(host, port string) error {
	h, err := parseHost(host)
	if err != nil {
		return fmt.Errorf("proxy host: %v", err)
	}
	p, ok := parsePort(port)
	if !ok {
		return fmt.Errorf("proxy port %q: want 1 to 65535", port)
	}
	u.Host = net.JoinHostPort(strings.Trim(h.key, "[]"), p)
	return nil
}

// String is the proxy's address, scheme://HOST:PORT, never its login.
func (u Upstream) String() string { return u.Scheme + "://" + u.Host }

// GoString is String, so that no fmt verb prints the password.
func (u Upstream) GoString() string { return u.String() }

// LogValue is String, so that slog never logs the password.
func (u Upstream) LogValue() slog.Value { return slog.StringValue(u.String()) }

// HasLogin reports whether u carries a username or a password.
func (u Upstream) HasLogin() bool { return u.Username != "" || u.Password != "" }

// Validate checks the scheme, the address, the login (no control
// characters; no colon in a Basic username; at most 255 bytes each for
// socks5) and every Bypass entry. Errors never repeat the password.
func (u Upstream) Validate() error {
	if _, ok := upstreamPorts[u.Scheme]; !ok {
		return fmt.Errorf("proxy scheme %q is not supported: use http, https or socks5", u.Scheme)
	}
	host, port, err := net.SplitHostPort(u.Host)
	if err != nil {
		return fmt.Errorf("proxy address %q: want HOST:PORT", u.Host)
	}
	if err := (&Upstream{}).setHost(host, port); err != nil {
		return err
	}
	ctl := func(s string) bool {
		return strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f })
	}
	if ctl(u.Username) || ctl(u.Password) {
		return errors.New("the proxy's username and password must not hold control characters")
	}
	if u.Scheme == "socks5" {
		if len(u.Username) > 255 || len(u.Password) > 255 {
			return errors.New("a socks5 proxy takes a username and a password of at most 255 bytes each")
		}
		if u.Password != "" && u.Username == "" {
			return errors.New("a socks5 proxy's login needs a username with the password")
		}
	} else {
		if strings.Contains(u.Username, ":") {
			return errors.New("the proxy's username must not hold a colon (Basic authentication joins username and password with one)")
		}
		if len(u.Username)+len(u.Password) > 4096 {
			return errors.New("the proxy's username and password are at most 4096 bytes together")
		}
	}
	for _, b := range u.Bypass {
		if strings.TrimSpace(b) == "" {
			continue
		}
		if err := CheckBypass(b); err != nil {
			return err
		}
	}
	return nil
}

// SplitBypass splits a bypass list as Playwright's proxy.bypass and
// NO_PROXY write it: entries separated by commas, semicolons or spaces.
func SplitBypass(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ';' || r == ' ' || r == '\t' || r == '\n' })
}

// bypassRule is one parsed Bypass entry.
type bypassRule struct {
	all     bool         // "*": everything
	local   bool         // "<local>": names without a dot
	name    string       // a domain (key form)
	subOnly bool         // ".domain" or "*.domain": its sub-domains only
	prefix  netip.Prefix // an IP address or a CIDR block
	port    string       // "" = any port
}

// CheckBypass reports whether entry is a valid Bypass entry:
//
//   - "example.com": that host and its sub-domains;
//   - ".example.com" or "*.example.com": its sub-domains only;
//   - "HOST:PORT": that host (any of the forms above) on that port only;
//   - an IP address ("10.0.0.5", "::1", "[::1]:8080") or a CIDR block
//     ("10.0.0.0/8"): matched against a literal address in the URL and
//     against the address the guard resolved the name to;
//   - "<local>": host names without a dot;
//   - "*": every host.
func CheckBypass(entry string) error {
	_, err := parseBypass(entry)
	return err
}

func parseBypass(entry string) (bypassRule, error) {
	s := strings.ToLower(strings.TrimSpace(entry))
	bad := func(why string) (bypassRule, error) {
		return bypassRule{}, fmt.Errorf("proxy bypass entry %q: %s; give HOST, .DOMAIN, *.DOMAIN, HOST:PORT, an IP address, a CIDR block, <local> or *", strings.TrimSpace(entry), why)
	}
	switch s {
	case "":
		return bad("empty")
	case "*":
		return bypassRule{all: true}, nil
	case "<local>":
		return bypassRule{local: true}, nil
	}
	if strings.Contains(s, "://") {
		return bad("not a URL")
	}
	if strings.Contains(s, "/") {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return bad("not a CIDR block")
		}
		if p.Addr().Is4In6() {
			p = netip.PrefixFrom(p.Addr().Unmap(), max(p.Bits()-96, 0))
		}
		return bypassRule{prefix: p.Masked()}, nil
	}
	host, port := s, ""
	switch {
	case strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]"):
		host = s[1 : len(s)-1]
	case strings.HasPrefix(s, "["):
		h, p, err := net.SplitHostPort(s)
		if err != nil {
			return bad("not [IPv6]:PORT")
		}
		host, port = h, p
	case strings.Count(s, ":") == 1:
		h, p, err := net.SplitHostPort(s)
		if err != nil {
			return bad("not HOST:PORT")
		}
		host, port = h, p
	}
	var r bypassRule
	if port != "" {
		p, ok := parsePort(port)
		if !ok {
			return bad("the port is not 1 to 65535")
		}
		r.port = p
	}
	if a, err := netip.ParseAddr(host); err == nil {
		a = unmap(a).WithZone("")
		r.prefix = netip.PrefixFrom(a, a.BitLen())
		return r, nil
	}
	switch {
	case strings.HasPrefix(host, "*."):
		host, r.subOnly = host[2:], true
	case strings.HasPrefix(host, "."):
		host, r.subOnly = host[1:], true
	}
	if strings.Contains(host, "*") {
		return bad("a wildcard is allowed only as *.DOMAIN")
	}
	h, err := parseHost(host)
	if err != nil {
		return bad(err.Error())
	}
	if h.isIP {
		if r.subOnly {
			return bad("a domain wildcard needs a name, not an address")
		}
		a := h.ip.WithZone("")
		r.prefix = netip.PrefixFrom(a, a.BitLen())
		return r, nil
	}
	r.name = h.key
	return r, nil
}

// matches reports whether the rule sends a request for h:port, which the
// guard resolved to addr, direct.
func (b bypassRule) matches(h host, port string, addr netip.Addr) bool {
	if b.port != "" && b.port != port {
		return false
	}
	switch {
	case b.all:
		return true
	case b.local:
		return !h.isIP && !strings.Contains(h.key, ".")
	case b.prefix.IsValid():
		if h.isIP && b.prefix.Contains(h.ip.WithZone("")) {
			return true
		}
		return addr.IsValid() && b.prefix.Contains(unmap(addr).WithZone(""))
	case h.isIP:
		return false
	case h.key == b.name:
		return !b.subOnly
	}
	return strings.HasSuffix(h.key, "."+b.name)
}

// route is an upstream proxy as a session uses it: parsed, with its own
// connection pool for plain-http requests tunnelled through it.
type route struct {
	up      Upstream
	display string // scheme://HOST:PORT
	host    string // the proxy's host (key form, no brackets)
	port    uint16
	auth    string // Proxy-Authorization, "" without a login
	bypass  []bypassRule
	tr      *http.Transport
	// guard is the policy of the session whose own proxy this is: the
	// proxy's address must pass it before each dial. nil: the daemon's
	// proxy, which its operator set, trusted.
	guard *atomic.Pointer[compiled]

	mu       sync.Mutex
	addrs    []netip.Addr // the proxy's addresses as last resolved
	resolved time.Time
}

// How long the proxy's resolved addresses are used before looking its
// name up again.
const upstreamTTL = 30 * time.Second

// trusted reports whether u is the daemon's own proxy (Options.Upstream,
// set by its operator), whose address the guard does not check.
func (p *Proxy) trusted(u *Upstream) bool {
	return u != nil && p.opts.Upstream != nil && u.String() == p.opts.Upstream.String()
}

// newRoute prepares u for a session; nil for nil (direct). guard is the
// policy the proxy's own address must pass before each dial; nil trusts it.
func (p *Proxy) newRoute(u *Upstream, guard *atomic.Pointer[compiled]) (*route, error) {
	if u == nil {
		return nil, nil
	}
	if err := u.Validate(); err != nil {
		return nil, err
	}
	host, port, _ := net.SplitHostPort(u.Host)
	r := &route{up: *u, display: u.String(), host: host, port: parsePortNum(port)}
	if !p.trusted(u) {
		r.guard = guard
	}
	r.up.Bypass = append([]string(nil), u.Bypass...)
	if u.HasLogin() && u.Scheme != "socks5" {
		r.auth = "Basic " + base64.StdEncoding.EncodeToString([]byte(u.Username+":"+u.Password))
	}
	for _, s := range u.Bypass {
		if strings.TrimSpace(s) == "" {
			continue
		}
		b, err := parseBypass(s)
		if err != nil {
			return nil, err
		}
		r.bypass = append(r.bypass, b)
	}
	if a, err := netip.ParseAddr(host); err == nil {
		r.addrs = []netip.Addr{unmap(a)}
	}
	r.tr = &http.Transport{
		Proxy: nil,
		DialContext: func(ctx context.Context, _, addr string) (net.Conn, error) {
			ap, err := netip.ParseAddrPort(addr)
			if err != nil {
				return nil, fmt.Errorf("egress: refusing to dial %q: not a checked address: %w", addr, err)
			}
			return p.dialVia(ctx, r, ap)
		},
		DisableCompression:     true,
		MaxIdleConns:           64,
		MaxIdleConnsPerHost:    8,
		IdleConnTimeout:        idleTimeout,
		MaxResponseHeaderBytes: 1 << 20,
	}
	return r, nil
}

// via returns the route a request the guard allowed takes: r, or nil to
// go direct (no proxy, a loopback target, a bypassed host).
func (r *route) via(d Decision) *route {
	if r == nil {
		return nil
	}
	if d.Addr.IsLoopback() || unmap(d.Addr).IsLoopback() {
		return nil
	}
	h, err := parseHost(d.Host)
	if err != nil {
		return nil
	}
	if !h.isIP && (h.key == "localhost" || strings.HasSuffix(h.key, ".localhost")) {
		return nil
	}
	for _, b := range r.bypass {
		if b.matches(h, d.Port, d.Addr) {
			return nil
		}
	}
	return r
}

// lookup returns the proxy's addresses, resolving its name when the last
// answer is older than upstreamTTL.
func (r *route) lookup(ctx context.Context, res Resolver) ([]netip.Addr, error) {
	r.mu.Lock()
	addrs, fresh := r.addrs, time.Since(r.resolved) < upstreamTTL
	isIP := r.resolved.IsZero() && len(r.addrs) > 0 // a literal address
	r.mu.Unlock()
	if isIP || (fresh && len(addrs) > 0) {
		return addrs, nil
	}
	got, err := res.LookupNetIP(ctx, "ip", r.host)
	if err != nil {
		return nil, err
	}
	if len(got) == 0 {
		return nil, errors.New("no addresses")
	}
	got = append([]netip.Addr(nil), got...)
	for i := range got {
		got[i] = unmap(got[i])
	}
	r.mu.Lock()
	r.addrs, r.resolved = got, time.Now()
	r.mu.Unlock()
	return got, nil
}

// isProxy reports whether a request for host (key form) on port, checked
// to addr, is for the proxy itself.
func (r *route) isProxy(ctx context.Context, res Resolver, host string, addr netip.Addr, port string) bool {
	if r == nil || parsePortNum(port) != r.port {
		return false
	}
	if strings.Trim(host, "[]") == r.host {
		return true
	}
	addrs, _ := r.lookup(ctx, res)
	for _, a := range addrs {
		if a == unmap(addr).WithZone("") {
			return true
		}
	}
	return false
}

// same reports whether r and q send requests the same way (nil: direct).
func (r *route) same(q *route) bool {
	if r == nil || q == nil {
		return r == q
	}
	return r.display == q.display && r.auth == q.auth && r.up.Username == q.up.Username &&
		r.up.Password == q.up.Password && slices.Equal(r.up.Bypass, q.up.Bypass) &&
		(r.guard == nil) == (q.guard == nil)
}

func (r *route) close() {
	if r != nil {
		r.tr.CloseIdleConnections()
	}
}

// UpstreamError is a failure of an upstream proxy: the guard refused its
// address, it could not be reached, refused the login, or refused to
// connect to the target. Its message is browserd's own words: it names the
// proxy (never its login) and says what to check; it does not name the
// target, and it never quotes what the proxy sent (a status code at most).
type UpstreamError struct {
	// Proxy is the proxy's scheme://HOST:PORT.
	Proxy string
	// Status is the HTTP status with which an http or https proxy refused
	// the tunnel (407: the login), 0 otherwise.
	Status int
	// Login is set when the proxy refused the login, or asked for one and
	// was given none.
	Login bool
	// Rule is set when browserd's guard refused the proxy's own address,
	// so nothing was sent to it: the guard's rule, as in Decision.Rule.
	Rule string
	msg  string
	err  error
}

func (e *UpstreamError) Error() string { return "the upstream proxy " + e.Proxy + " " + e.msg }

func (e *UpstreamError) Unwrap() error { return e.err }

func (r *route) fail(err error, format string, args ...any) *UpstreamError {
	return &UpstreamError{Proxy: r.display, msg: fmt.Sprintf(format, args...), err: err}
}

// refusedBy is the failure of a proxy whose address the guard refused.
func (r *route) refusedBy(d Decision) *UpstreamError {
	msg := "is refused by browserd's guard, as a page's request for that address would be: " + d.Reason
	if d.Hint != "" {
		msg += "; " + d.Hint
	}
	return &UpstreamError{Proxy: r.display, Rule: d.Rule, msg: msg}
}

// fixedAddrs is a Resolver that answers the addresses already resolved,
// so that the guard checks the very addresses that are then dialled.
type fixedAddrs []netip.Addr

func (f fixedAddrs) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	return f, nil
}

// checkProxy decides on a proxy at host:port (key form) resolved to addrs,
// as on any destination: pol's rules on every address, and none of the
// guard's own listeners.
func (p *Proxy) checkProxy(ctx context.Context, pol *compiled, host string, port uint16, addrs []netip.Addr) Decision {
	ps := strconv.Itoa(int(port))
	d := pol.check(ctx, fixedAddrs(addrs), host, ps)
	if !d.Allowed {
		return d
	}
	for _, a := range addrs {
		if p.isOwn(a, ps) {
			d.Allowed, d.Rule, d.Addr, d.Hint = false, RuleProxyItself, a, ""
			d.Reason = fmt.Sprintf("%s is the egress proxy itself", netip.AddrPortFrom(a, port))
			return d
		}
	}
	return d
}

// CheckUpstream reports whether a session whose policy is pol may use u
// as its own proxy: nil when u's address passes pol as any destination
// would (its name resolved once, every answer checked) or u is the
// daemon's own proxy; an *UpstreamError naming the rule and the flag
// that would allow it otherwise. Nothing is sent to the proxy, so the
// answer is the same whether its port is closed, filtered or open.
func (p *Proxy) CheckUpstream(ctx context.Context, pol Policy, u *Upstream) error {
	if u == nil || p.trusted(u) {
		return nil
	}
	if err := u.Validate(); err != nil {
		return err
	}
	host, port, _ := net.SplitHostPort(u.Host)
	r := &route{display: u.String(), host: host, port: parsePortNum(port)}
	if a, err := netip.ParseAddr(host); err == nil {
		r.addrs = []netip.Addr{unmap(a)}
	}
	ctx, cancel := context.WithTimeout(ctx, p.opts.DialTimeout)
	defer cancel()
	addrs, err := r.lookup(ctx, p.opts.Resolver)
	if err != nil {
		return r.fail(err, "does not resolve (%v): check its name", err)
	}
	if d := p.checkProxy(ctx, compile(pol), r.host, r.port, addrs); !d.Allowed {
		return r.refusedBy(d)
	}
	return nil
}

// UpstreamFailure is a request an upstream proxy failed: URL as the
// guard names requests (Decision.URL).
type UpstreamFailure struct {
	URL string
	Err *UpstreamError
}

// dialProxy connects to the proxy itself (over TLS for https).
func (p *Proxy) dialProxy(ctx context.Context, r *route) (net.Conn, error) {
	addrs, err := r.lookup(ctx, p.opts.Resolver)
	if err != nil {
		return nil, r.fail(err, "does not resolve (%v): check its name", err)
	}
	if r.guard != nil {
		// The session's own proxy: its address passes the session's
		// policy now, and only the addresses checked are dialled.
		if d := p.checkProxy(ctx, r.guard.Load(), r.host, r.port, addrs); !d.Allowed {
			p.log.Info("egress: upstream proxy refused", "proxy", r.display, "rule", d.Rule, "addr", d.Addr)
			p.refused(RefusalKind(d))
			return nil, r.refusedBy(d)
		}
	}
	var conn net.Conn
	for _, a := range addrs {
		conn, err = p.opts.Dial(ctx, "tcp", netip.AddrPortFrom(a, r.port).String())
		if err == nil {
			break
		}
	}
	if err != nil {
		return nil, r.fail(err, "cannot be reached (%v): check that it runs and that this machine can reach it", err)
	}
	if r.up.Scheme != "https" {
		return conn, nil
	}
	cfg := &tls.Config{}
	if p.opts.TLSConfig != nil {
		cfg = p.opts.TLSConfig.Clone()
	}
	cfg.ServerName = r.host
	tc := tls.Client(conn, cfg)
	if err := tc.HandshakeContext(ctx); err != nil {
		conn.Close()
		// The error may quote what the proxy sent (its certificate's
		// names, a record's bytes): worded by its kind only.
		var rh tls.RecordHeaderError
		var cv *tls.CertificateVerificationError
		var ne net.Error
		switch {
		case errors.As(err, &rh):
			return nil, r.fail(nil, "failed the TLS handshake (it does not answer in TLS): give it as http://, or check its port")
		case errors.As(err, &cv):
			return nil, r.fail(nil, "failed the TLS handshake (its certificate is not trusted for %s): check its certificate, or give it as http://", r.host)
		case ctx.Err() != nil || errors.As(err, &ne) && ne.Timeout():
			return nil, r.fail(nil, "failed the TLS handshake (it did not answer in time): check that it runs and is not overloaded")
		}
		return nil, r.fail(nil, "failed the TLS handshake: check that it speaks TLS (an https:// proxy), or give it as http://")
	}
	return tc, nil
}

// dialVia opens a connection to target (a checked address) through r's
// proxy, within the dial timeout.
func (p *Proxy) dialVia(ctx context.Context, r *route, target netip.AddrPort) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, p.opts.DialTimeout)
	defer cancel()
	conn, err := p.dialProxy(ctx, r)
	if err != nil {
		return nil, err
	}
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl)
	}
	// A browser that gives up ends the handshake at once.
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Unix(1, 0)) })
	tunnel := conn
	if r.up.Scheme == "socks5" {
		err = socksConnect(conn, r, target)
	} else {
		tunnel, err = httpConnect(conn, r, target)
	}
	if !stop() && err == nil {
		err = r.fail(ctx.Err(), "did not answer in time: check that it runs and is not overloaded")
	}
	if err != nil {
		conn.Close()
		if ue := (*UpstreamError)(nil); !errors.As(err, &ue) {
			// An I/O error of the exchange: worded by its kind.
			if ctx.Err() != nil {
				err = r.fail(nil, "did not answer in time: check that it runs and is not overloaded")
			} else {
				err = r.fail(nil, "broke the connection during the handshake: check that it is a %s proxy", r.up.Scheme)
			}
		}
		return nil, err
	}
	conn.SetDeadline(time.Time{})
	return tunnel, nil
}
