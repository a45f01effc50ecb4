package egress

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// ErrClosed is returned by Session after the proxy was closed.
var ErrClosed = errors.New("egress: proxy closed")

const (
	defaultDialTimeout = 10 * time.Second
	readHeaderTimeout  = 10 * time.Second // for requests from the browser
	idleTimeout        = 90 * time.Second // browser keep-alive and upstream idle connections
	upgradeTimeout     = 30 * time.Second // WebSocket handshake with the upstream
	maxBlocked         = 256              // refusals kept per session between Blocked calls
)

// Options configure a Proxy.
type Options struct {
	// Resolver looks host names up; nil means net.DefaultResolver.
	Resolver Resolver
	// DialTimeout bounds each name lookup and each upstream dial; 0 means 10s.
	DialTimeout time.Duration
	// Log receives one line per refusal (Info) and per allowed request
	// (Debug): scheme://host/path, rule and address, never query strings,
	// headers, cookies or bodies. nil discards.
	Log *slog.Logger
	// Policy is the policy of the listener New opens (Proxy.Default).
	Policy Policy
	// Dial connects to an upstream; nil means a net.Dialer. addr is always
	// a checked IP:port, never a name. Tests use it to observe dials.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// PeerUID finds the user owning the other end of a connection to a
	// listener; nil reads /proc/net/tcp. Tests use it to play another user.
	PeerUID func(local, remote netip.AddrPort) (int, error)
	// OnRefuse, when set, is called once for every request, tunnel or
	// connection the proxy refuses, with the kind of rule that refused it
	// (one of RefusalKinds; see RefusalKind). A host that does not resolve
	// is not a refusal: OnForward reports it. It must be quick and safe for
	// concurrent use; browserd counts refusals for its metrics with it.
	OnRefuse func(kind string)
	// OnForward, when set, is called once for every request or tunnel the
	// policy allows: ok when the upstream answered (a response, a
	// WebSocket handshake, an open tunnel), false when it could not be
	// reached (its name did not resolve, the dial or the exchange failed).
	// Requests the browser abandons first are not reported. It must be
	// quick and safe for concurrent use.
	OnForward func(ok bool)
	// Upstream, when set, is the proxy every session's allowed requests
	// go through (the daemon's --proxy) unless the session has its own
	// (Session.SetUpstream) or the host is bypassed; nil: direct.
	Upstream *Upstream
	// TLSConfig is the TLS configuration for an https:// upstream proxy
	// (its ServerName is set to the proxy's host); nil: the system's
	// roots. Tests use it to trust their proxy.
	TLSConfig *tls.Config
}

// Proxy is the egress proxy: a set of listeners on 127.0.0.1, one per
// Session, each bound to its own Policy.
type Proxy struct {
	opts   Options
	log    *slog.Logger
	ctx    context.Context
	cancel context.CancelFunc
	def    *Session
	mitm   *mitm // the client-certificate bridge's key (clientcert.go)

	// uidOf finds the user of a connection's other end (see peer.go).
	uidOf func(local, remote netip.AddrPort) (int, error)

	mu       sync.Mutex
	closed   bool
	sessions map[*Session]struct{}
}

// New starts a proxy with one listener on 127.0.0.1:0 that applies
// opts.Policy (see Default). Close stops it.
func New(opts Options) (*Proxy, error) {
	if err := opts.Policy.Validate(); err != nil {
		return nil, err
	}
	if opts.Upstream != nil {
		if err := opts.Upstream.Validate(); err != nil {
			return nil, fmt.Errorf("egress: upstream proxy %s: %w", opts.Upstream, err)
		}
		u := *opts.Upstream
		opts.Upstream = &u
	}
	if opts.DialTimeout <= 0 {
		opts.DialTimeout = defaultDialTimeout
	}
	if opts.Resolver == nil {
		opts.Resolver = net.DefaultResolver
	}
	if opts.Dial == nil {
		d := &net.Dialer{Timeout: opts.DialTimeout, KeepAlive: 30 * time.Second}
		opts.Dial = d.DialContext
	}
	log := opts.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	m, err := newMITM()
	if err != nil {
		cancel()
		return nil, fmt.Errorf("egress: making the client-certificate bridge's key: %w", err)
	}
	p := &Proxy{opts: opts, log: log, ctx: ctx, cancel: cancel, sessions: map[*Session]struct{}{}, uidOf: opts.PeerUID, mitm: m}
	if p.uidOf == nil {
		p.uidOf = procPeerUID
	}
	def, err := p.Session(opts.Policy)
	if err != nil {
		cancel()
		return nil, err
	}
	p.def = def
	return p, nil
}

// Default is the session of the listener New opened, with Options.Policy.
func (p *Proxy) Default() *Session { return p.def }

// Addr is the default listener's "127.0.0.1:PORT".
func (p *Proxy) Addr() string { return p.def.Addr() }

// URL is the default listener's "http://127.0.0.1:PORT".
func (p *Proxy) URL() string { return p.def.URL() }

// Upstream is the address of the proxy's default upstream proxy
// (Options.Upstream: scheme://HOST:PORT, never its login), "" for none.
func (p *Proxy) Upstream() string {
	if p.opts.Upstream == nil {
		return ""
	}
	return p.opts.Upstream.String()
}

// Close stops every listener, closes every connection (tunnels included)
// and returns after all of the proxy's goroutines finished.
func (p *Proxy) Close() error {
	p.mu.Lock()
	p.closed = true
	ss := make([]*Session, 0, len(p.sessions))
	for s := range p.sessions {
		ss = append(ss, s)
	}
	p.mu.Unlock()
	for _, s := range ss {
		s.Close()
	}
	p.cancel()
	return nil
}

// Session opens a new listener on 127.0.0.1:0 that applies pol, and
// returns its handle; give Chromium (or a CDP browser context) its URL as
// proxy server. A port identifies the session because Chromium's
// --proxy-server cannot carry credentials. pol is used as given: to bound
// it by a server policy, pass server.Narrow(pol).
func (p *Proxy) Session(pol Policy) (*Session, error) {
	if err := pol.Validate(); err != nil {
		return nil, err
	}
	tl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("egress: listen: %w", err)
	}
	ln := &peerListener{Listener: tl, log: p.log, uidOf: p.uidOf, refused: func() { p.refused(RefusedOtherUser) }}
	ctx, cancel := context.WithCancel(p.ctx)
	s := &Session{
		p:         p,
		ln:        ln,
		addr:      ln.Addr().String(),
		ctx:       ctx,
		cancel:    cancel,
		serveDone: make(chan struct{}),
		conns:     map[net.Conn]struct{}{},
	}
	if ap, err := netip.ParseAddrPort(s.addr); err == nil {
		s.port = strconv.Itoa(int(ap.Port()))
	}
	s.pol.Store(compile(pol))
	rt, err := p.newRoute(p.opts.Upstream, nil)
	if err != nil {
		ln.Close()
		cancel()
		return nil, err
	}
	s.rt.Store(rt)
	s.tr = &http.Transport{
		Proxy:                  nil, // never the environment's proxy
		DialContext:            p.dialAddr,
		DisableCompression:     true, // pass Accept-Encoding and bodies through untouched
		MaxIdleConns:           64,
		MaxIdleConnsPerHost:    8,
		IdleConnTimeout:        idleTimeout,
		MaxResponseHeaderBytes: 1 << 20,
	}
	s.srv = &http.Server{
		Handler:           http.HandlerFunc(s.serveHTTP),
		ReadHeaderTimeout: readHeaderTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    1 << 20,
		ErrorLog:          slog.NewLogLogger(p.log.Handler(), slog.LevelDebug),
		BaseContext:       func(net.Listener) context.Context { return ctx },
		ConnState:         s.connState,
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		cancel()
		ln.Close()
		return nil, ErrClosed
	}
	p.sessions[s] = struct{}{}
	p.mu.Unlock()
	go func() {
		defer close(s.serveDone)
		s.srv.Serve(ln)
	}()
	return s, nil
}

// dialAddr dials a checked IP:port with the dial timeout. It refuses
// anything that is not an IP literal, so no dial can trigger a lookup.
func (p *Proxy) dialAddr(ctx context.Context, network, addr string) (net.Conn, error) {
	if _, err := netip.ParseAddrPort(addr); err != nil {
		return nil, fmt.Errorf("egress: refusing to dial %q: not a checked address: %w", addr, err)
	}
	ctx, cancel := context.WithTimeout(ctx, p.opts.DialTimeout)
	defer cancel()
	return p.opts.Dial(ctx, network, addr)
}

// isOwn reports whether a connection to a:port would reach one of the
// proxy's own listeners.
func (p *Proxy) isOwn(a netip.Addr, port string) bool {
	a = a.Unmap()
	if a != netip.AddrFrom4([4]byte{127, 0, 0, 1}) && !a.IsUnspecified() {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for s := range p.sessions {
		if s.port == port {
			return true
		}
	}
	return false
}

func (p *Proxy) remove(s *Session) {
	p.mu.Lock()
	delete(p.sessions, s)
	p.mu.Unlock()
}

// Session is one listener of the proxy with its policy and its record of
// refusals. Its methods are safe for concurrent use.
type Session struct {
	p         *Proxy
	ln        net.Listener
	addr      string // 127.0.0.1:PORT
	port      string
	ctx       context.Context
	cancel    context.CancelFunc
	srv       *http.Server
	tr        *http.Transport
	pol       atomic.Pointer[compiled]
	rt        atomic.Pointer[route]                  // the upstream proxy; nil: direct
	certs     atomic.Pointer[map[string]*ClientCert] // by host:port (clientcert.go)
	wg        sync.WaitGroup                         // server connections and handlers
	serveDone chan struct{}
	closeOnce sync.Once

	mu      sync.Mutex
	closed  bool
	blocked []Decision
	// recent are the latest refusals, kept after Blocked took them, for
	// Refusal (the network log marks its refused requests).
	recent []Decision
	// unresolved are the requests whose host did not resolve (Unresolved).
	unresolved []Decision
	// certFailed are the client-certificate handshakes that failed
	// (CertFailures).
	certFailed []string
	conns      map[net.Conn]struct{} // hijacked browser connections and tunnel upstreams
	// ownRoute is set when the session's upstream is its own
	// (SetUpstream), not the proxy's default.
	ownRoute bool
	// oldRoutes are the routes SetUpstream replaced: their idle
	// connections are closed with the session.
	oldRoutes []*route
	// failed are the requests an upstream proxy failed since the last
	// UpstreamFailures call.
	failed []UpstreamFailure
}

// Addr is "127.0.0.1:PORT".
func (s *Session) Addr() string { return s.addr }

// URL is "http://127.0.0.1:PORT", the value for Chromium's --proxy-server.
func (s *Session) URL() string { return "http://" + s.addr }

// Policy returns the session's current policy.
func (s *Session) Policy() Policy {
	c := s.pol.Load().pol
	return compile(c).pol // a copy the caller may modify
}

// SetPolicy replaces the session's policy for requests that arrive from
// now on; open tunnels and requests in flight keep the verdict they got.
// Validate pol first: entries that do not parse match nothing.
func (s *Session) SetPolicy(pol Policy) {
	s.pol.Store(compile(pol))
}

// SetUpstream makes u the upstream proxy of the requests that arrive from
// now on; nil gives the session the proxy's default back (Options.Upstream,
// or none). u's own address must pass the session's policy when it is
// dialled, as any destination's (see CheckUpstream), unless it is the
// default's. When that changes the route, the tunnels open (HTTPS,
// WebSocket) are closed, so that the browser's next requests take the
// new one rather than a connection kept alive on the old; requests in
// flight finish on the old route. u is validated and copied.
func (s *Session) SetUpstream(u *Upstream) error {
	own := u != nil
	guard := &s.pol // a session's own proxy passes its policy
	if u == nil {
		u, guard = s.p.opts.Upstream, nil
	}
	r, err := s.p.newRoute(u, guard)
	if err != nil {
		return err
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		r.close()
		return ErrClosed
	}
	s.ownRoute = own
	if cur := s.rt.Load(); cur.same(r) {
		s.mu.Unlock()
		r.close()
		return nil
	}
	old := s.rt.Swap(r)
	if old != nil {
		s.oldRoutes = append(s.oldRoutes, old)
	}
	conns := make([]net.Conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	old.close()
	for _, c := range conns {
		c.Close()
	}
	return nil
}

// Upstream is the address of the session's upstream proxy
// (scheme://HOST:PORT, never its login), "" when its requests go direct;
// own says it is the session's own (SetUpstream), not the default.
func (s *Session) Upstream() (server string, own bool) {
	s.mu.Lock()
	own = s.ownRoute
	s.mu.Unlock()
	if r := s.rt.Load(); r != nil {
		return r.display, own
	}
	return "", own
}

// IsUpstream reports whether a request the policy allowed (d, from
// Policy.Check) is for the session's upstream proxy, which the proxy
// refuses to pages (RuleUpstream): for an early, clear error.
func (s *Session) IsUpstream(ctx context.Context, d Decision) bool {
	rt := s.rt.Load()
	h, err := parseHost(d.Host)
	return d.Allowed && rt != nil && err == nil && rt.isProxy(ctx, s.p.opts.Resolver, h.key, d.Addr, d.Port)
}

// UpstreamFailures returns the requests an upstream proxy failed since the
// last call (at most the latest 256) and forgets them.
func (s *Session) UpstreamFailures() []UpstreamFailure {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.failed
	s.failed = nil
	return f
}

func (s *Session) recordFailure(target string, ue *UpstreamError) {
	s.p.log.Info("egress: upstream proxy failed", "session", s.addr, "target", target, "err", ue.Error())
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.failed) >= maxBlocked {
		s.failed = append(s.failed[:0], s.failed[1:]...)
	}
	s.failed = append(s.failed, UpstreamFailure{URL: target, Err: ue})
}

// Blocked returns the requests refused since the last call (at most the
// latest 256) and forgets them. Requests whose host did not resolve are
// not listed: that is not the guard's doing.
func (s *Session) Blocked() []Decision {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.blocked
	s.blocked = nil
	return b
}

// Close stops the listener, closes its connections and tunnels, and
// returns after the session's goroutines finished.
func (s *Session) Close() error {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closed = true
		conns := make([]net.Conn, 0, len(s.conns))
		for c := range s.conns {
			conns = append(conns, c)
		}
		s.mu.Unlock()
		s.cancel()
		s.srv.Close()
		s.ln.Close()
		for _, c := range conns {
			c.Close()
		}
		<-s.serveDone
		s.wg.Wait()
		s.tr.CloseIdleConnections()
		s.rt.Load().close()
		s.mu.Lock()
		old := s.oldRoutes
		s.oldRoutes = nil
		s.mu.Unlock()
		for _, r := range old {
			r.close()
		}
		s.p.remove(s)
	})
	return nil
}

func (s *Session) connState(_ net.Conn, st http.ConnState) {
	switch st {
	case http.StateNew:
		s.wg.Add(1)
	case http.StateHijacked, http.StateClosed:
		s.wg.Done()
	}
}

// Unresolved returns the requests whose host did not resolve since the
// last call (at most the latest 256) and forgets them: not the guard's
// doing, but a page that led its tab to one did not load.
func (s *Session) Unresolved() []Decision {
	s.mu.Lock()
	defer s.mu.Unlock()
	u := s.unresolved
	s.unresolved = nil
	return u
}

func (s *Session) recordUnresolved(d Decision) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.unresolved) >= maxBlocked {
		s.unresolved = append(s.unresolved[:0], s.unresolved[1:]...)
	}
	s.unresolved = append(s.unresolved, d)
}

func (s *Session) record(d Decision) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.blocked) >= maxBlocked {
		s.blocked = append(s.blocked[:0], s.blocked[1:]...)
	}
	s.blocked = append(s.blocked, d)
	if len(s.recent) >= maxBlocked {
		s.recent = append(s.recent[:0], s.recent[1:]...)
	}
	s.recent = append(s.recent, d)
}

// Refusal is the latest of the session's last refusals of url
// (scheme://host[:port]/path without query for plain HTTP, host:port for
// a tunnel), if it is among them.
func (s *Session) Refusal(url string) (Decision, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := len(s.recent) - 1; i >= 0; i-- {
		if s.recent[i].URL == url {
			return s.recent[i], true
		}
	}
	return Decision{}, false
}

// track registers connections so Close can close them. If the session is
// closing it closes them and returns false.
func (s *Session) track(cs ...net.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		for _, c := range cs {
			c.Close()
		}
		return false
	}
	for _, c := range cs {
		s.conns[c] = struct{}{}
	}
	return true
}

// untrack closes connections and forgets them.
func (s *Session) untrack(cs ...net.Conn) {
	s.mu.Lock()
	for _, c := range cs {
		delete(s.conns, c)
	}
	s.mu.Unlock()
	for _, c := range cs {
		c.Close()
	}
}
