package egress

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/browserd/browserd/internal/testsite"
)

// The public addresses the tests' names resolve to. Nothing is ever
// dialled there: the test proxies route them to local servers, and a
// direct dial of one fails the test (see chainEnv.dial).
const (
	sitePublic   = "93.184.216.34" // site.example.com: only through the proxy
	directPublic = "93.184.216.35" // a.direct.test: bypassed, direct
)

// chainEnv is a proxy chained behind an upstream proxy: a site reachable
// through the upstream only, a site reachable direct only, an internal
// server nobody may reach.
type chainEnv struct {
	site, tlsSite, direct, internal *upstream
	res                             *fakeResolver
	up                              *testsite.Proxy
	p                               *Proxy
	s                               *Session
	c                               *http.Client
	logs                            *lockedBuffer
}

// routeTo maps the site's public address to the test servers, as the
// Internet behind a proxy would; anything else is refused.
func (e *chainEnv) routeTo(target string) string {
	switch target {
	case sitePublic + ":80":
		return e.site.addr
	case sitePublic + ":443":
		return e.tlsSite.addr
	}
	return ""
}

func newChainEnv(t *testing.T, login bool, upstreamFor func(e *chainEnv) *Upstream) *chainEnv {
	e := &chainEnv{logs: &lockedBuffer{}}
	e.site = startUpstream(t, "127.0.0.1", false)
	e.tlsSite = startUpstream(t, "127.0.0.1", true)
	e.direct = startUpstream(t, "127.0.0.1", false)
	e.internal = startUpstream(t, "127.0.0.2", false)
	t.Cleanup(func() {
		if n := e.internal.hits.Load(); n != 0 {
			t.Errorf("internal server received %d requests", n)
		}
	})
	user, pass := "", ""
	if login {
		user, pass = "ada", "s3cret-pw"
	}
	e.up = testsite.NewProxy(user, pass, e.routeTo)
	t.Cleanup(e.up.Close)
	e.res = newResolver(map[string][]string{
		"site.example.com": {sitePublic},
		"a.direct.test":    {directPublic},
		"internal.test":    {"127.0.0.2"},
	})
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		switch addr {
		case directPublic + ":80":
			addr = e.direct.addr
		case sitePublic + ":80", sitePublic + ":443":
			t.Errorf("dialled %s directly: it is reachable through the upstream proxy only", addr)
			return nil, errors.New("no route")
		}
		var d net.Dialer
		return d.DialContext(ctx, network, addr)
	}
	e.p = newProxy(t, Options{Resolver: e.res, Dial: dial, Upstream: upstreamFor(e),
		Log: slog.New(slog.NewTextHandler(e.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	e.s = newSession(t, e.p, Policy{AllowHosts: []string{e.direct.addr}})
	e.c = proxyClient(t, e.s.URL(), e.tlsSite.Client().Transport.(*http.Transport).TLSClientConfig.Clone())
	return e
}

func upstreamOf(t *testing.T, raw, user, pass string, bypass ...string) *Upstream {
	t.Helper()
	u, err := ParseUpstream(raw)
	if err != nil {
		t.Fatal(err)
	}
	u.Username, u.Password, u.Bypass = user, pass, bypass
	return &u
}

// TestUpstreamChain: the guard decides first; what it allows goes through
// the upstream proxy with the login, as a tunnel to the checked address
// (plain http too, Host kept); a refused target, loopback and bypassed
// hosts never reach the proxy; the proxy's own address is refused to
// pages.
func TestUpstreamChain(t *testing.T) {
	e := newChainEnv(t, true, func(e *chainEnv) *Upstream {
		return upstreamOf(t, e.up.URL, "ada", "s3cret-pw", "*.direct.test")
	})

	resp, body := get(t, e.c, "http://site.example.com/page?q=1")
	if resp.StatusCode != 200 || body != "hello host=site.example.com uri=/page?q=1" {
		t.Fatalf("plain http through the proxy: %d %q", resp.StatusCode, body)
	}
	resp, body = get(t, e.c, "https://site.example.com/tls")
	if resp.StatusCode != 200 || body != "hello host=site.example.com uri=/tls" || resp.TLS == nil {
		t.Fatalf("https through the proxy: %d %q", resp.StatusCode, body)
	}
	want := []string{"CONNECT " + sitePublic + ":80 as ada", "CONNECT " + sitePublic + ":443 as ada"}
	if got := e.up.Requests(); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("the proxy saw %q, want %q", got, want)
	}
	// A second plain request reuses the tunnel: the route pools it.
	get(t, e.c, "http://site.example.com/again")
	if n := len(e.up.Requests()); n != 2 {
		t.Errorf("the proxy saw %d requests after a second plain one, want 2 (pooled)", n)
	}
	// A plain WebSocket goes through a tunnel of its own.
	conn, br, resp := wsDial(t, e.s.Addr(), "ws://site.example.com/ws")
	defer conn.Close()
	if resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("WebSocket through the proxy: %d", resp.StatusCode)
	}
	wsEcho(t, conn, br, "through")
	if got := e.up.Requests(); len(got) != 3 || got[2] != "CONNECT "+sitePublic+":80 as ada" {
		t.Errorf("the proxy saw %q for the WebSocket", got)
	}

	before := len(e.up.Requests())
	// Refused by the guard: the proxy sees nothing.
	for _, u := range []string{"http://internal.test:" + portOf(e.internal.addr) + "/", "http://" + e.internal.addr + "/", "http://10.0.0.5/", "http://169.254.169.254/latest/meta-data/"} {
		if resp, _ := get(t, e.c, u); resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s: %d, want 403", u, resp.StatusCode)
		}
	}
	if _, err := e.c.Get("https://" + e.internal.addr + "/"); err == nil {
		t.Error("a CONNECT to the internal server succeeded")
	}
	// Loopback (allowed here) and a bypassed host go direct.
	if resp, body := get(t, e.c, "http://"+e.direct.addr+"/lo"); resp.StatusCode != 200 || !strings.Contains(body, "uri=/lo") {
		t.Errorf("loopback: %d %q", resp.StatusCode, body)
	}
	if resp, body := get(t, e.c, "http://a.direct.test/by"); resp.StatusCode != 200 || body != "hello host=a.direct.test uri=/by" {
		t.Errorf("bypassed host: %d %q", resp.StatusCode, body)
	}
	// The proxy itself, even where loopback is allowed.
	e.s.SetPolicy(Policy{AllowPrivate: true})
	resp, body = get(t, e.c, e.up.URL+"/")
	if resp.StatusCode != http.StatusForbidden || resp.Header.Get(BlockedHeader) != RuleUpstream || !strings.Contains(body, "upstream proxy") {
		t.Errorf("the proxy's own address: %d %q %q", resp.StatusCode, resp.Header.Get(BlockedHeader), body)
	}
	if got := e.up.Requests(); len(got) != before {
		t.Errorf("the proxy saw what it should not: %q", got[before:])
	}
	bl := e.s.Blocked()
	if len(bl) == 0 || bl[len(bl)-1].Rule != RuleUpstream || RefusalKind(bl[len(bl)-1]) != RefusedUpstream {
		t.Errorf("Blocked() = %v", bl)
	}
	if strings.Contains(e.logs.String(), "s3cret-pw") {
		t.Error("the log holds the proxy's password")
	}
	if srv, own := e.s.Upstream(); srv != e.up.URL || own {
		t.Errorf("Upstream() = %q, %v", srv, own)
	}
}

// TestUpstreamLogin: a proxy that wants a login and gets none, or a wrong
// one, fails the request with a 502 that says so; the failure is recorded
// for the session and the password is never logged nor repeated.
func TestUpstreamLogin(t *testing.T) {
	for _, tc := range []struct {
		name, user, pass, want string
	}{
		{"none", "", "", "asks for a login (407 Proxy Authentication Required) and none was given"},
		{"wrong", "ada", "wrong-pw", "refused the login (407 Proxy Authentication Required)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newChainEnv(t, true, func(e *chainEnv) *Upstream { return upstreamOf(t, e.up.URL, tc.user, tc.pass) })
			resp, body := get(t, e.c, "http://site.example.com/")
			if resp.StatusCode != http.StatusBadGateway || !strings.Contains(body, tc.want) || !strings.Contains(body, "the upstream proxy "+e.up.URL) {
				t.Errorf("plain: %d %q", resp.StatusCode, body)
			}
			if _, err := e.c.Get("https://site.example.com/"); err == nil {
				t.Error("https through a proxy that refused the login succeeded")
			}
			f := e.s.UpstreamFailures()
			if len(f) != 2 || f[0].URL != "http://site.example.com/" || f[1].URL != "site.example.com:443" {
				t.Fatalf("UpstreamFailures() = %v", f)
			}
			for _, x := range f {
				if !x.Err.Login || x.Err.Status != 407 || !strings.Contains(x.Err.Error(), tc.want) {
					t.Errorf("failure %+v: %v", x, x.Err)
				}
			}
			if strings.Contains(e.logs.String(), "wrong-pw") || strings.Contains(body, "wrong-pw") {
				t.Error("the password was logged or repeated")
			}
		})
	}
}

// TestUpstreamRefusesTunnel: a proxy's 403 to a tunnel says what to
// change, for plain http (a tunnel to port 80) especially.
func TestUpstreamRefusesTunnel(t *testing.T) {
	e := newChainEnv(t, false, func(e *chainEnv) *Upstream { return upstreamOf(t, e.up.URL, "", "") })
	e.res.m["elsewhere.test"] = [][]string{{"93.184.216.36"}}
	resp, body := get(t, e.c, "http://elsewhere.test/")
	if resp.StatusCode != http.StatusBadGateway || !strings.Contains(body, "refused the tunnel (403 Forbidden)") || !strings.Contains(body, "port 80") {
		t.Errorf("%d %q", resp.StatusCode, body)
	}
}

// TestUpstreamUnreachable: a proxy that does not run fails the request
// with a 502 that says so.
func TestUpstreamUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := ln.Addr().String()
	ln.Close()
	e := newChainEnv(t, false, func(*chainEnv) *Upstream { return upstreamOf(t, "http://"+dead, "", "") })
	resp, body := get(t, e.c, "http://site.example.com/")
	if resp.StatusCode != http.StatusBadGateway || !strings.Contains(body, "cannot be reached") {
		t.Errorf("%d %q", resp.StatusCode, body)
	}
	if f := e.s.UpstreamFailures(); len(f) != 1 || f[0].Err.Login {
		t.Errorf("UpstreamFailures() = %v", f)
	}
}

// TestUpstreamHTTPS: an https:// proxy is reached over TLS.
func TestUpstreamHTTPS(t *testing.T) {
	var e *chainEnv
	up := testsite.NewTLSProxy("ada", "pw", func(target string) string { return e.routeTo(target) })
	t.Cleanup(up.Close)
	e = newChainEnv(t, false, func(*chainEnv) *Upstream { return upstreamOf(t, up.URL, "ada", "pw") })
	pool := x509.NewCertPool()
	pool.AddCert(up.Certificate())
	e.p.opts.TLSConfig = &tls.Config{RootCAs: pool}
	resp, body := get(t, e.c, "http://site.example.com/x")
	if resp.StatusCode != 200 || body != "hello host=site.example.com uri=/x" {
		t.Fatalf("%d %q", resp.StatusCode, body)
	}
	if got := up.Requests(); len(got) != 1 || got[0] != "CONNECT "+sitePublic+":80 as ada" {
		t.Errorf("the TLS proxy saw %q", got)
	}
	// An http:// proxy given as https:// fails the handshake, and says so.
	e2 := newChainEnv(t, false, func(e *chainEnv) *Upstream { return upstreamOf(t, "https://"+e.up.Addr, "", "") })
	if resp, body := get(t, e2.c, "http://site.example.com/"); resp.StatusCode != http.StatusBadGateway || !strings.Contains(body, "TLS handshake") {
		t.Errorf("https:// to a plain proxy: %d %q", resp.StatusCode, body)
	}
}

// TestSessionUpstream: each session may have its own upstream proxy, and
// gives the default back when it drops it.
func TestSessionUpstream(t *testing.T) {
	e := newChainEnv(t, true, func(*chainEnv) *Upstream { return nil })
	other := testsite.NewProxy("bob", "pw2", e.routeTo)
	t.Cleanup(other.Close)
	// The proxies are on loopback: a session's own proxy passes its
	// policy as any destination does (TestSessionProxyGuarded).
	e.s.SetPolicy(Policy{AllowHosts: []string{e.direct.addr, e.up.Addr}})
	s2 := newSession(t, e.p, Policy{AllowHosts: []string{other.Addr, e.up.Addr}})
	c2 := proxyClient(t, s2.URL(), nil)
	if err := e.s.SetUpstream(upstreamOf(t, e.up.URL, "ada", "s3cret-pw")); err != nil {
		t.Fatal(err)
	}
	if err := s2.SetUpstream(upstreamOf(t, other.URL, "bob", "pw2")); err != nil {
		t.Fatal(err)
	}
	get(t, e.c, "http://site.example.com/one")
	get(t, c2, "http://site.example.com/two")
	if a, b := e.up.Requests(), other.Requests(); len(a) != 1 || len(b) != 1 || !strings.HasSuffix(a[0], "as ada") || !strings.HasSuffix(b[0], "as bob") {
		t.Errorf("each session's proxy: %q and %q", a, b)
	}
	if srv, own := s2.Upstream(); srv != other.URL || !own {
		t.Errorf("Upstream() = %q, %v", srv, own)
	}
	// A tunnel open on a route is closed when the route changes (not when
	// it is set again the same), so the browser reconnects through the new.
	conn, err := net.Dial("tcp", s2.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprint(conn, "CONNECT site.example.com:443 HTTP/1.1\r\nHost: site.example.com:443\r\n\r\n")
	br := bufio.NewReader(conn)
	if resp, err := http.ReadResponse(br, nil); err != nil || resp.StatusCode != 200 {
		t.Fatalf("CONNECT: %v %v", resp, err)
	}
	if err := s2.SetUpstream(upstreamOf(t, other.URL, "bob", "pw2")); err != nil {
		t.Fatal(err)
	}
	conn.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	if _, err := br.ReadByte(); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("the same route set again closed the tunnel: %v", err)
	}
	if err := s2.SetUpstream(upstreamOf(t, e.up.URL, "ada", "s3cret-pw")); err != nil {
		t.Fatal(err)
	}
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := br.ReadByte(); err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("a tunnel on the old route stayed open: %v", err)
	}
	// Back to the default (none): direct, which this site is not.
	if err := s2.SetUpstream(nil); err != nil {
		t.Fatal(err)
	}
	if srv, own := s2.Upstream(); srv != "" || own {
		t.Errorf("Upstream() after SetUpstream(nil) = %q, %v", srv, own)
	}
	if err := s2.SetUpstream(&Upstream{Scheme: "ftp", Host: "x:1"}); err == nil {
		t.Error("an ftp proxy was taken")
	}
}

// socksServer is a SOCKS5 server for tests, with a username and password
// (RFC 1929) and a log of the CONNECTs it was asked for.
type socksServer struct {
	ln         net.Listener
	user, pass string
	route      func(string) string
	mu         sync.Mutex
	log        []string
	wg         sync.WaitGroup
}

func startSOCKS(t *testing.T, user, pass string, route func(string) string) *socksServer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &socksServer{ln: ln, user: user, pass: pass, route: route}
	s.wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.wg.Go(func() { s.serve(c) })
		}
	})
	t.Cleanup(func() { ln.Close(); s.wg.Wait() })
	return s
}

func (s *socksServer) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.log...)
}

func (s *socksServer) serve(c net.Conn) {
	defer c.Close()
	var b [262]byte
	if _, err := io.ReadFull(c, b[:2]); err != nil || b[0] != 5 {
		return
	}
	methods := make([]byte, b[1])
	io.ReadFull(c, methods)
	if !bytes.Contains(methods, []byte{2}) {
		c.Write([]byte{5, 0xff})
		return
	}
	c.Write([]byte{5, 2})
	io.ReadFull(c, b[:2])
	user := make([]byte, b[1])
	io.ReadFull(c, user)
	io.ReadFull(c, b[:1])
	pass := make([]byte, b[0])
	io.ReadFull(c, pass)
	if string(user) != s.user || string(pass) != s.pass {
		c.Write([]byte{1, 1})
		return
	}
	c.Write([]byte{1, 0})
	if _, err := io.ReadFull(c, b[:4]); err != nil || b[1] != 1 {
		return
	}
	var addr netip.Addr
	switch b[3] {
	case 1:
		io.ReadFull(c, b[:4])
		addr = netip.AddrFrom4([4]byte(b[:4]))
	case 4:
		io.ReadFull(c, b[:16])
		addr = netip.AddrFrom16([16]byte(b[:16]))
	default:
		c.Write([]byte{5, 8, 0, 1, 0, 0, 0, 0, 0, 0})
		return
	}
	io.ReadFull(c, b[:2])
	target := netip.AddrPortFrom(addr, binary.BigEndian.Uint16(b[:2])).String()
	s.mu.Lock()
	s.log = append(s.log, "CONNECT "+target+" as "+string(user))
	s.mu.Unlock()
	to := s.route(target)
	if to == "" {
		c.Write([]byte{5, 2, 0, 1, 0, 0, 0, 0, 0, 0})
		return
	}
	up, err := net.Dial("tcp", to)
	if err != nil {
		c.Write([]byte{5, 5, 0, 1, 0, 0, 0, 0, 0, 0})
		return
	}
	defer up.Close()
	c.Write([]byte{5, 0, 0, 1, 127, 0, 0, 1, 0, 0})
	go func() { io.Copy(up, c); up.Close() }()
	io.Copy(c, up)
}

// TestUpstreamSOCKS5: a socks5 proxy with a username and password, for
// plain http and tunnels; a wrong login and a target the proxy's rules
// refuse say so; a refused target never reaches it.
func TestUpstreamSOCKS5(t *testing.T) {
	var e *chainEnv
	socks := startSOCKS(t, "ada", "socks-pw", func(target string) string { return e.routeTo(target) })
	e = newChainEnv(t, false, func(*chainEnv) *Upstream {
		return upstreamOf(t, "socks5://"+socks.ln.Addr().String(), "ada", "socks-pw")
	})
	resp, body := get(t, e.c, "http://site.example.com/s")
	if resp.StatusCode != 200 || body != "hello host=site.example.com uri=/s" {
		t.Fatalf("plain: %d %q", resp.StatusCode, body)
	}
	resp, body = get(t, e.c, "https://site.example.com/t")
	if resp.StatusCode != 200 || body != "hello host=site.example.com uri=/t" {
		t.Fatalf("https: %d %q", resp.StatusCode, body)
	}
	if resp, _ := get(t, e.c, "http://internal.test:"+portOf(e.internal.addr)+"/"); resp.StatusCode != http.StatusForbidden {
		t.Errorf("internal: %d", resp.StatusCode)
	}
	want := []string{"CONNECT " + sitePublic + ":80 as ada", "CONNECT " + sitePublic + ":443 as ada"}
	if got := socks.requests(); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("the SOCKS5 proxy saw %q, want %q", got, want)
	}
	e.res.m["elsewhere.test"] = [][]string{{"93.184.216.36"}}
	if resp, body := get(t, e.c, "http://elsewhere.test/"); resp.StatusCode != http.StatusBadGateway || !strings.Contains(body, "SOCKS5: connection not allowed by its rules") {
		t.Errorf("refused by the proxy's rules: %d %q", resp.StatusCode, body)
	}

	if err := e.s.SetUpstream(upstreamOf(t, "socks5://"+socks.ln.Addr().String(), "ada", "nope")); err != nil {
		t.Fatal(err)
	}
	resp, body = get(t, e.c, "http://site.example.com/")
	if resp.StatusCode != http.StatusBadGateway || !strings.Contains(body, "refused the login") || strings.Contains(body, "nope") {
		t.Errorf("wrong login: %d %q", resp.StatusCode, body)
	}
	if err := e.s.SetUpstream(upstreamOf(t, "socks5://"+socks.ln.Addr().String(), "", "")); err != nil {
		t.Fatal(err)
	}
	if resp, body := get(t, e.c, "http://site.example.com/"); resp.StatusCode != http.StatusBadGateway || !strings.Contains(body, "accepts none of the ways browserd can sign in") {
		t.Errorf("no login: %d %q", resp.StatusCode, body)
	}
}

func TestParseUpstream(t *testing.T) {
	for _, tc := range []struct{ in, want, user, pass, err string }{
		{in: "http://proxy.example.com:3128", want: "http://proxy.example.com:3128"},
		{in: "proxy.example.com:3128", want: "http://proxy.example.com:3128"},
		{in: "HTTPS://Proxy.Example.com", want: "https://proxy.example.com:443"},
		{in: "socks5://10.0.0.1", want: "socks5://10.0.0.1:1080"},
		{in: "http://[::1]:8080/", want: "http://[::1]:8080"},
		{in: "http://ann:pw@proxy:3128", want: "http://proxy:3128", user: "ann", pass: "pw"},
		{in: "socks5h://proxy:1080", err: "socks5h"},
		{in: "ftp://proxy", err: `scheme "ftp"`},
		{in: "http://proxy:3128/path", err: "no path"},
		{in: "http://proxy:99999", err: "proxy port"},
		{in: "http://pro xy:80", err: "not a proxy address"},
		{in: "", err: "no proxy address"},
		{in: "http://user:hunter2@:80", err: "proxy host"},
	} {
		u, err := ParseUpstream(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseUpstream(%q) = %v, %v; want error %q", tc.in, u, err, tc.err)
			}
			if err != nil && strings.Contains(err.Error(), "hunter2") {
				t.Errorf("ParseUpstream(%q): the error repeats the password: %v", tc.in, err)
			}
			continue
		}
		if err != nil || u.String() != tc.want || u.Username != tc.user || u.Password != tc.pass {
			t.Errorf("ParseUpstream(%q) = %q (%q, %q), %v; want %q", tc.in, u.String(), u.Username, u.Password, err, tc.want)
		}
	}
	u := Upstream{Scheme: "http", Host: "p:3128", Username: "ann", Password: "hunter2"}
	var buf bytes.Buffer
	slog.New(slog.NewJSONHandler(&buf, nil)).Info("x", "proxy", u, "ptr", &u)
	if out := fmt.Sprintf("%v %+v %#v %s", u, u, u, &u) + buf.String(); strings.Contains(out, "hunter2") {
		t.Errorf("an Upstream prints its password: %s", out)
	}
	for _, tc := range []struct {
		u   Upstream
		err string
	}{
		{Upstream{Scheme: "http", Host: "p:80", Username: "a:b"}, "colon"},
		{Upstream{Scheme: "http", Host: "p:80", Password: "a\r\nX: y"}, "control characters"},
		{Upstream{Scheme: "socks5", Host: "p:1080", Username: strings.Repeat("u", 256)}, "255 bytes"},
		{Upstream{Scheme: "http", Host: "p:80", Bypass: []string{"http://x"}}, "not a URL"},
	} {
		if err := tc.u.Validate(); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("Validate(%+v) = %v, want %q", tc.u, err, tc.err)
		}
	}
}

func TestBypass(t *testing.T) {
	type req struct {
		host, port, addr string
	}
	for _, tc := range []struct {
		entry       string
		match, miss []req
		err         string
	}{
		{entry: "example.com", match: []req{{"example.com", "443", ""}, {"a.example.com", "80", ""}}, miss: []req{{"notexample.com", "80", ""}, {"example.org", "80", ""}}},
		{entry: ".example.com", match: []req{{"a.example.com", "80", ""}}, miss: []req{{"example.com", "80", ""}}},
		{entry: "*.Example.COM", match: []req{{"b.a.example.com", "80", ""}}, miss: []req{{"example.com", "80", ""}}},
		{entry: "example.com:8080", match: []req{{"example.com", "8080", ""}}, miss: []req{{"example.com", "80", ""}}},
		{entry: "10.0.0.0/8", match: []req{{"10.1.2.3", "80", ""}, {"intranet", "80", "10.9.9.9"}}, miss: []req{{"11.0.0.1", "80", ""}, {"x.test", "80", "11.0.0.1"}}},
		{entry: "192.168.1.5", match: []req{{"192.168.1.5", "80", ""}, {"printer", "80", "192.168.1.5"}}, miss: []req{{"192.168.1.6", "80", ""}}},
		{entry: "[2001:db8::1]:443", match: []req{{"[2001:db8::1]", "443", ""}}, miss: []req{{"[2001:db8::1]", "80", ""}}},
		{entry: "2001:db8::/32", match: []req{{"[2001:db8::5]", "80", ""}}},
		{entry: "<local>", match: []req{{"intranet", "80", ""}}, miss: []req{{"intranet.corp", "80", ""}, {"10.0.0.1", "80", ""}}},
		{entry: "*", match: []req{{"anything.example", "80", ""}, {"1.2.3.4", "80", ""}}},
		{entry: "http://example.com", err: "not a URL"},
		{entry: "ex*ample.com", err: "wildcard"},
		{entry: "10.0.0.0/33", err: "CIDR"},
		{entry: "example.com:0", err: "port"},
		{entry: "*.10.0.0.1", err: "needs a name"},
		{entry: " ", err: "empty"},
	} {
		b, err := parseBypass(tc.entry)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("parseBypass(%q) = %v, want error %q", tc.entry, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("parseBypass(%q): %v", tc.entry, err)
			continue
		}
		check := func(r req, want bool) {
			h, err := parseHost(r.host)
			if err != nil {
				t.Fatalf("parseHost(%q): %v", r.host, err)
			}
			var a netip.Addr
			if r.addr != "" {
				a = netip.MustParseAddr(r.addr)
			} else if h.isIP {
				a = h.ip
			}
			if got := b.matches(h, r.port, a); got != want {
				t.Errorf("%q matches %s:%s (%s) = %v, want %v", tc.entry, r.host, r.port, r.addr, got, want)
			}
		}
		for _, r := range tc.match {
			check(r, true)
		}
		for _, r := range tc.miss {
			check(r, false)
		}
	}
	if got := SplitBypass(" a.com, .b.com;c.com  10.0.0.0/8,,"); fmt.Sprint(got) != "[a.com .b.com c.com 10.0.0.0/8]" {
		t.Errorf("SplitBypass = %q", got)
	}
}
