package egress

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// upstream is a test server with a hit counter.
type upstream struct {
	*httptest.Server
	hits atomic.Int64
	addr string // host:port
}

// startUpstream starts a server on ip (127.0.0.1 = "allowed" upstream,
// 127.0.0.2 = "internal" upstream that must never be reached).
func startUpstream(t testing.TB, ip string, useTLS bool) *upstream {
	t.Helper()
	u := &upstream{}
	u.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u.hits.Add(1)
		upstreamHandler(w, r)
	}))
	ln, err := net.Listen("tcp", ip+":0")
	if err != nil {
		t.Fatal(err)
	}
	u.Listener.Close()
	u.Listener = ln
	if useTLS {
		u.StartTLS()
	} else {
		u.Start()
	}
	u.addr = ln.Addr().String()
	t.Cleanup(u.Close)
	return u
}

func upstreamHandler(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/redirect":
		http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
	case "/echo":
		b, _ := io.ReadAll(r.Body)
		w.Write(b)
	case "/stream":
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: first\n\n")
		http.NewResponseController(w).Flush()
		<-r.Context().Done()
	case "/ws":
		if !isUpgrade(r.Header) {
			http.Error(w, "want upgrade", http.StatusBadRequest)
			return
		}
		conn, brw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		brw.WriteString("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n")
		brw.Flush()
		io.Copy(conn, brw.Reader)
	default:
		var saw []string
		for _, k := range []string{"Connection", "Proxy-Connection", "Proxy-Authorization", "Keep-Alive", "X-Hop", "Upgrade"} {
			if _, ok := r.Header[k]; ok {
				saw = append(saw, k)
			}
		}
		w.Header().Set("X-Saw", strings.Join(saw, ","))
		w.Header().Set("Connection", "X-Resp-Hop")
		w.Header().Set("X-Resp-Hop", "1")
		w.Header().Set("Proxy-Foo", "1")
		fmt.Fprintf(w, "hello host=%s uri=%s", r.Host, r.URL.RequestURI())
	}
}

func newProxy(t testing.TB, opts Options) *Proxy {
	t.Helper()
	p, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func newSession(t testing.TB, p *Proxy, pol Policy) *Session {
	t.Helper()
	s, err := p.Session(pol)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func proxyClient(t testing.TB, proxyURL string, tlsConf *tls.Config) *http.Client {
	t.Helper()
	u, err := url.Parse(proxyURL)
	if err != nil {
		t.Fatal(err)
	}
	tr := &http.Transport{Proxy: http.ProxyURL(u), TLSClientConfig: tlsConf}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: 10 * time.Second}
}

func get(t testing.TB, c *http.Client, u string) (*http.Response, string) {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: reading body: %v", u, err)
	}
	return resp, string(b)
}

// env is the usual set-up: an allowed and an internal upstream, a proxy
// with a fake resolver, and a session allowing only the allowed upstream.
type env struct {
	allowed, internal *upstream
	res               *fakeResolver
	p                 *Proxy
	s                 *Session
	c                 *http.Client
}

func newEnv(t *testing.T) *env {
	e := &env{}
	e.allowed = startUpstream(t, "127.0.0.1", false)
	e.internal = startUpstream(t, "127.0.0.2", false)
	t.Cleanup(func() {
		if n := e.internal.hits.Load(); n != 0 {
			t.Errorf("internal upstream received %d requests", n)
		}
	})
	e.res = newResolver(map[string][]string{
		"internal.test": {"127.0.0.2"},
		"allowed.test":  {"127.0.0.1"},
	})
	e.p = newProxy(t, Options{Resolver: e.res})
	e.s = newSession(t, e.p, Policy{AllowHosts: []string{e.allowed.addr}})
	e.c = proxyClient(t, e.s.URL(), nil)
	return e
}

func TestProxyGETAllowed(t *testing.T) {
	e := newEnv(t)
	u, _ := url.Parse(e.s.URL())
	u.User = url.UserPassword("user", "secret") // makes the client send Proxy-Authorization
	tr := &http.Transport{Proxy: http.ProxyURL(u)}
	defer tr.CloseIdleConnections()
	req, _ := http.NewRequest("GET", "http://"+e.allowed.addr+"/path?q=1", nil)
	req.Header.Set("Connection", "X-Hop")
	req.Header.Set("X-Hop", "1")
	req.Header.Set("Keep-Alive", "timeout=5")
	req.Header.Set("Proxy-Connection", "keep-alive")
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	if want := "hello host=" + e.allowed.addr + " uri=/path?q=1"; string(body) != want {
		t.Errorf("body %q, want %q", body, want)
	}
	if saw := resp.Header.Get("X-Saw"); saw != "" {
		t.Errorf("upstream received hop-by-hop or proxy headers: %s", saw)
	}
	if resp.Header.Get("X-Resp-Hop") != "" || resp.Header.Get("Proxy-Foo") != "" {
		t.Errorf("hop-by-hop response headers forwarded: %v", resp.Header)
	}
	if b := e.s.Blocked(); len(b) != 0 {
		t.Errorf("Blocked() = %v", b)
	}
	// Allowing 127.0.0.1:PORT does not allow a name that resolves to it:
	// matching is on the requested name.
	resp, _ = get(t, e.c, "http://allowed.test:"+portOf(e.allowed.addr)+"/")
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("allowed.test (127.0.0.1, not in AllowHosts by name): status %d, want 403", resp.StatusCode)
	}
}

func portOf(hostport string) string {
	_, p, _ := net.SplitHostPort(hostport)
	return p
}

func TestProxyGETInternalRefused(t *testing.T) {
	e := newEnv(t)
	target := "http://" + e.internal.addr + "/secret/path?token=hunter2"
	resp, body := get(t, e.c, target)
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("status %d, want 403", resp.StatusCode)
	}
	if got := resp.Header.Get(BlockedHeader); got != "loopback" {
		t.Errorf("%s = %q, want loopback", BlockedHeader, got)
	}
	if !strings.Contains(resp.Header.Get("Content-Type"), "text/html") || !strings.Contains(body, "refused") ||
		!strings.Contains(body, "--allow-host "+e.internal.addr) {
		t.Errorf("block page: %s", body)
	}
	if strings.Contains(body, "hunter2") {
		t.Error("block page repeats the query string")
	}
	b := e.s.Blocked()
	if len(b) != 1 {
		t.Fatalf("Blocked() = %v, want one", b)
	}
	d := b[0]
	if d.Allowed || d.Rule != "loopback" || d.Addr != netip.MustParseAddr("127.0.0.2") ||
		d.URL != "http://"+e.internal.addr+"/secret/path" || d.Host != "127.0.0.2" {
		t.Errorf("Blocked()[0] = %+v", d)
	}
	if b := e.s.Blocked(); len(b) != 0 {
		t.Errorf("Blocked() not drained: %v", b)
	}

	// A name the resolver maps to the internal address.
	resp, _ = get(t, e.c, "http://internal.test:"+portOf(e.internal.addr)+"/")
	if resp.StatusCode != http.StatusForbidden || resp.Header.Get(BlockedHeader) != "loopback" {
		t.Fatalf("internal.test: status %d %q", resp.StatusCode, resp.Header.Get(BlockedHeader))
	}
	if b := e.s.Blocked(); len(b) != 1 || !strings.Contains(b[0].Error(), "internal.test resolves to 127.0.0.2") {
		t.Errorf("Blocked() = %v", b)
	}
	// Unresolvable names are a gateway error, not a refusal to report.
	resp, _ = get(t, e.c, "http://nxdomain.test/")
	if resp.StatusCode != http.StatusBadGateway || resp.Header.Get(BlockedHeader) != "" {
		t.Errorf("nxdomain: status %d", resp.StatusCode)
	}
	if b := e.s.Blocked(); len(b) != 0 {
		t.Errorf("Blocked() lists a DNS failure: %v", b)
	}
}

func TestProxyRedirectToInternal(t *testing.T) {
	e := newEnv(t)
	to := "http://" + e.internal.addr + "/"
	resp, _ := get(t, e.c, "http://"+e.allowed.addr+"/redirect?to="+url.QueryEscape(to))
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("status %d, want 403 after redirect", resp.StatusCode)
	}
	if resp.Request.URL.String() != to {
		t.Errorf("final URL %s", resp.Request.URL)
	}
	if e.allowed.hits.Load() != 1 {
		t.Errorf("allowed hits %d", e.allowed.hits.Load())
	}
	if b := e.s.Blocked(); len(b) != 1 || b[0].URL != to {
		t.Errorf("Blocked() = %v", b)
	}
}

// TestProxyRebinding: the resolver answers a public address first, then a
// loopback one. The proxy must look up once per request and dial exactly
// the address it checked.
func TestProxyRebinding(t *testing.T) {
	allowed := startUpstream(t, "127.0.0.1", false)
	internal := startUpstream(t, "127.0.0.2", false)
	res := newResolver(nil)
	res.m["rebind.test"] = [][]string{{"93.184.216.34"}, {"127.0.0.2"}, {"93.184.216.34"}}
	var mu sync.Mutex
	var dialed []string
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		mu.Lock()
		dialed = append(dialed, addr)
		mu.Unlock()
		ap, err := netip.ParseAddrPort(addr)
		if err != nil {
			t.Errorf("dialed a name: %q", addr)
			return nil, err
		}
		switch ap.Addr().String() {
		case "93.184.216.34": // stands for a public server
			addr = allowed.addr
		case "127.0.0.2":
			addr = internal.addr
		}
		var d net.Dialer
		return d.DialContext(ctx, network, addr)
	}
	p := newProxy(t, Options{Resolver: res, Dial: dial})
	c := proxyClient(t, p.URL(), nil)

	resp, body := get(t, c, "http://rebind.test/x")
	if resp.StatusCode != 200 || body != "hello host=rebind.test uri=/x" {
		t.Fatalf("first request: %d %q", resp.StatusCode, body)
	}
	if n := res.count("rebind.test"); n != 1 {
		t.Errorf("%d lookups for one request", n)
	}
	resp, _ = get(t, c, "http://rebind.test/x")
	if resp.StatusCode != http.StatusForbidden || resp.Header.Get(BlockedHeader) != "loopback" {
		t.Fatalf("second request (rebound to 127.0.0.2): %d", resp.StatusCode)
	}
	if n := res.count("rebind.test"); n != 2 {
		t.Errorf("%d lookups for two requests", n)
	}
	resp, _ = get(t, c, "http://rebind.test/x")
	if resp.StatusCode != 200 {
		t.Fatalf("third request: %d", resp.StatusCode)
	}
	if n := res.count("rebind.test"); n != 3 {
		t.Errorf("%d lookups for three requests", n)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(dialed) == 0 {
		t.Fatal("nothing dialed")
	}
	for _, a := range dialed {
		if a != "93.184.216.34:80" {
			t.Errorf("dialed %s, want only the checked 93.184.216.34:80", a)
		}
	}
	if n := internal.hits.Load(); n != 0 {
		t.Errorf("internal upstream received %d requests", n)
	}
	if b := p.Default().Blocked(); len(b) != 1 || b[0].Addr != netip.MustParseAddr("127.0.0.2") {
		t.Errorf("Blocked() = %v", b)
	}
}

func TestProxyCONNECT(t *testing.T) {
	allowed := startUpstream(t, "127.0.0.1", true)
	internal := startUpstream(t, "127.0.0.2", true)
	p := newProxy(t, Options{Resolver: newResolver(nil)})
	s := newSession(t, p, Policy{AllowHosts: []string{allowed.addr}})
	tlsConf := allowed.Client().Transport.(*http.Transport).TLSClientConfig.Clone()
	c := proxyClient(t, s.URL(), tlsConf)

	resp, body := get(t, c, allowed.URL+"/tls")
	if resp.StatusCode != 200 || !strings.HasPrefix(body, "hello host=") {
		t.Fatalf("CONNECT allowed: %d %q", resp.StatusCode, body)
	}
	if resp.TLS == nil {
		t.Error("response did not come over TLS")
	}

	if _, err := c.Get(internal.URL + "/"); err == nil {
		t.Fatal("CONNECT to internal succeeded")
	}
	// The raw answer: 403, rule header, a sentence.
	conn, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", internal.addr, internal.addr)
	r, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(io.LimitReader(r.Body, 4096))
	if r.StatusCode != http.StatusForbidden || r.Header.Get(BlockedHeader) != "loopback" ||
		!strings.HasPrefix(string(b), "request to "+internal.addr+" refused: 127.0.0.2 is a loopback address") {
		t.Errorf("CONNECT internal: %d %q %q", r.StatusCode, r.Header.Get(BlockedHeader), b)
	}
	if n := internal.hits.Load(); n != 0 {
		t.Errorf("internal upstream received %d requests", n)
	}
	if bl := s.Blocked(); len(bl) != 2 || bl[0].URL != internal.addr {
		t.Errorf("Blocked() = %v", bl)
	}
}

// wsDial sends a WebSocket upgrade through the proxy and returns the
// connection and the response.
func wsDial(t *testing.T, proxyAddr, target string) (net.Conn, *bufio.Reader, *http.Response) {
	t.Helper()
	conn, err := net.Dial("tcp", proxyAddr)
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(target)
	fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n", target, u.Host)
	br := bufio.NewReader(conn)
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		conn.Close()
		t.Fatal(err)
	}
	return conn, br, resp
}

func wsEcho(t *testing.T, conn net.Conn, br *bufio.Reader, msg string) {
	t.Helper()
	if _, err := io.WriteString(conn, msg); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, len(msg))
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.ReadFull(br, buf); err != nil {
		t.Fatal(err)
	}
	if string(buf) != msg {
		t.Fatalf("echo %q, want %q", buf, msg)
	}
}

func TestProxyWebSocket(t *testing.T) {
	e := newEnv(t)
	conn, br, resp := wsDial(t, e.s.Addr(), "http://"+e.allowed.addr+"/ws")
	defer conn.Close()
	if resp.StatusCode != http.StatusSwitchingProtocols || resp.Header.Get("Upgrade") != "websocket" {
		t.Fatalf("upgrade: %d %v", resp.StatusCode, resp.Header)
	}
	wsEcho(t, conn, br, "hello")
	wsEcho(t, conn, br, "again")

	conn2, _, resp2 := wsDial(t, e.s.Addr(), "http://"+e.internal.addr+"/ws")
	defer conn2.Close()
	if resp2.StatusCode != http.StatusForbidden || resp2.Header.Get(BlockedHeader) != "loopback" {
		t.Fatalf("upgrade to internal: %d", resp2.StatusCode)
	}
	// ws:// absolute-form works too.
	conn3, br3, resp3 := wsDial(t, e.s.Addr(), "ws://"+e.allowed.addr+"/ws")
	defer conn3.Close()
	if resp3.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("ws:// upgrade: %d", resp3.StatusCode)
	}
	wsEcho(t, conn3, br3, "ws")
}

func TestSessionsHaveTheirOwnPolicy(t *testing.T) {
	allowed := startUpstream(t, "127.0.0.1", false)
	p := newProxy(t, Options{})
	s1 := newSession(t, p, Policy{AllowHosts: []string{allowed.addr}})
	s2 := newSession(t, p, Policy{})
	if s1.Addr() == s2.Addr() || s1.Addr() == p.Addr() {
		t.Fatalf("sessions share a port: %s %s %s", s1.Addr(), s2.Addr(), p.Addr())
	}
	target := "http://" + allowed.addr + "/"
	if resp, _ := get(t, proxyClient(t, s1.URL(), nil), target); resp.StatusCode != 200 {
		t.Errorf("session 1: %d, want 200", resp.StatusCode)
	}
	c2 := proxyClient(t, s2.URL(), nil)
	if resp, _ := get(t, c2, target); resp.StatusCode != 403 {
		t.Errorf("session 2: %d, want 403", resp.StatusCode)
	}
	if len(s1.Blocked()) != 0 || len(s2.Blocked()) != 1 {
		t.Error("refusal recorded in the wrong session")
	}
	s2.SetPolicy(Policy{AllowPrivate: true})
	if resp, _ := get(t, c2, target); resp.StatusCode != 200 {
		t.Errorf("session 2 after SetPolicy: %d, want 200", resp.StatusCode)
	}
	if !s2.Policy().AllowPrivate {
		t.Error("Policy() does not reflect SetPolicy")
	}
	if err := s2.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := net.Dial("tcp", s2.Addr()); err == nil {
		t.Error("closed session still listens")
	}
	if resp, _ := get(t, proxyClient(t, s1.URL(), nil), target); resp.StatusCode != 200 {
		t.Errorf("session 1 after closing session 2: %d", resp.StatusCode)
	}
}

func TestProxyRefusesItself(t *testing.T) {
	p := newProxy(t, Options{Policy: Policy{AllowPrivate: true}})
	c := proxyClient(t, p.URL(), nil)
	for _, u := range []string{p.URL() + "/", "http://0.0.0.0:" + portOf(p.Addr()) + "/"} {
		resp, _ := get(t, c, u)
		if resp.StatusCode != 403 || resp.Header.Get(BlockedHeader) != RuleProxyItself {
			t.Errorf("%s: %d %q", u, resp.StatusCode, resp.Header.Get(BlockedHeader))
		}
	}
}

func TestProxyBadRequests(t *testing.T) {
	e := newEnv(t)
	for _, raw := range []string{
		"GET / HTTP/1.1\r\nHost: " + e.allowed.addr + "\r\n\r\n",          // origin-form: not a proxy request
		"GET https://" + e.allowed.addr + "/ HTTP/1.1\r\nHost: x\r\n\r\n", // https must use CONNECT
		"CONNECT nohostport HTTP/1.1\r\nHost: nohostport\r\n\r\n",
	} {
		conn, err := net.Dial("tcp", e.s.Addr())
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(conn, raw)
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		conn.Close()
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%q: status %d, want 400", raw, resp.StatusCode)
		}
	}
}

func TestProxyBodiesAndStreaming(t *testing.T) {
	e := newEnv(t)
	payload := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB
	resp, err := e.c.Post("http://"+e.allowed.addr+"/echo", "application/octet-stream", bytes.NewReader(payload))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !bytes.Equal(got, payload) {
		t.Fatalf("echoed %d bytes, want %d", len(got), len(payload))
	}

	// An event stream must arrive before the upstream ends the response.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", "http://"+e.allowed.addr+"/stream", nil)
	resp, err = e.c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	if err != nil || line != "data: first\n" {
		t.Fatalf("stream: %q %v", line, err)
	}
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestProxyLogsNoSecrets(t *testing.T) {
	allowed := startUpstream(t, "127.0.0.1", false)
	internal := startUpstream(t, "127.0.0.2", false)
	var buf lockedBuffer
	log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	p := newProxy(t, Options{Log: log, Policy: Policy{AllowHosts: []string{allowed.addr}}})
	c := proxyClient(t, p.URL(), nil)
	for _, u := range []string{allowed.URL, internal.URL} {
		req, _ := http.NewRequest("GET", u+"/some/path?token=s3cr3t", nil)
		req.Header.Set("Cookie", "session=c00kie")
		req.Header.Set("Authorization", "Bearer b34rer")
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	out := buf.String()
	if !strings.Contains(out, "/some/path") || !strings.Contains(out, "egress: refused") {
		t.Errorf("log lacks the requests:\n%s", out)
	}
	for _, secret := range []string{"s3cr3t", "c00kie", "b34rer"} {
		if strings.Contains(out, secret) {
			t.Errorf("log contains %q:\n%s", secret, out)
		}
	}
}

func TestSessionAfterClose(t *testing.T) {
	p, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	p.Close()
	if _, err := p.Session(Policy{}); !errors.Is(err, ErrClosed) {
		t.Fatalf("Session after Close: %v", err)
	}
	if _, err := New(Options{Policy: Policy{AllowHosts: []string{"http://x/"}}}); err == nil {
		t.Fatal("New accepted an invalid policy")
	}
}

// TestCloseWithOpenTunnels closes the proxy while a CONNECT tunnel and a
// WebSocket are open: Close must end them and leave no goroutine behind.
func TestCloseWithOpenTunnels(t *testing.T) {
	// Servers are closed explicitly before the leak check.
	allowed := httptest.NewTLSServer(http.HandlerFunc(upstreamHandler))
	plain := httptest.NewServer(http.HandlerFunc(upstreamHandler))
	p, err := New(Options{Policy: Policy{AllowHosts: []string{
		strings.TrimPrefix(allowed.URL, "https://"), strings.TrimPrefix(plain.URL, "http://"),
	}}})
	if err != nil {
		t.Fatal(err)
	}

	// A CONNECT tunnel with a live TLS connection in it.
	tunnel, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	target := strings.TrimPrefix(allowed.URL, "https://")
	fmt.Fprintf(tunnel, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target)
	tbr := bufio.NewReader(tunnel)
	resp, err := http.ReadResponse(tbr, &http.Request{Method: "CONNECT"})
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("CONNECT: %v %v", resp, err)
	}
	tlsConf := allowed.Client().Transport.(*http.Transport).TLSClientConfig.Clone()
	tlsConf.ServerName = "example.com"
	tc := tls.Client(tunnel, tlsConf)
	io.WriteString(tc, "GET / HTTP/1.1\r\nHost: "+target+"\r\n\r\n")
	resp, err = http.ReadResponse(bufio.NewReader(tc), nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("request in tunnel: %v %v", resp, err)
	}
	resp.Body.Close()

	// A WebSocket.
	ws, wbr, wresp := wsDial(t, p.Addr(), plain.URL+"/ws")
	if wresp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("upgrade: %d", wresp.StatusCode)
	}
	wsEcho(t, ws, wbr, "ping")

	// A plain request in flight (an event stream the upstream never ends).
	sc := proxyClient(t, p.URL(), nil)
	sresp, err := sc.Get(plain.URL + "/stream")
	if err != nil {
		t.Fatal(err)
	}
	sbr := bufio.NewReader(sresp.Body)
	if line, err := sbr.ReadString('\n'); err != nil || line != "data: first\n" {
		t.Fatalf("stream: %q %v", line, err)
	}

	closed := make(chan struct{})
	go func() { p.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not return with open tunnels")
	}
	// Both client ends see the close.
	tunnel.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := tc.Read(make([]byte, 1)); err == nil {
		t.Error("tunnel still open after Close")
	}
	ws.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := wbr.ReadByte(); err == nil {
		t.Error("WebSocket still open after Close")
	}
	if _, err := io.ReadAll(sbr); err == nil {
		t.Error("event stream ended cleanly although the proxy closed it")
	}
	sresp.Body.Close()
	sc.CloseIdleConnections()
	tunnel.Close()
	ws.Close()
	allowed.Close()
	plain.Close()
	goleak.VerifyNone(t)
}
