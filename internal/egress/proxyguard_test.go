package egress

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// The tests of issue 36 point 3: a session's own upstream proxy is a
// destination like any other (its address passes the session's policy),
// and nothing a proxy sends is ever quoted.

// rawServer accepts connections on ip:0, counts them, and answers each
// with answer (nil: reads what comes and says nothing).
type rawServer struct {
	ln    net.Listener
	addr  string
	conns atomic.Int64
}

func startRaw(t *testing.T, ip string, answer func(net.Conn)) *rawServer {
	t.Helper()
	ln, err := net.Listen("tcp", ip+":0")
	if err != nil {
		t.Fatal(err)
	}
	s := &rawServer{ln: ln, addr: ln.Addr().String()}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.conns.Add(1)
			go func() {
				defer c.Close()
				c.SetDeadline(time.Now().Add(10 * time.Second))
				if answer != nil {
					answer(c)
					return
				}
				io.Copy(io.Discard, c)
			}()
		}
	}()
	t.Cleanup(func() { ln.Close(); <-done })
	return s
}

// readHead reads a request's head (up to the blank line).
func readHead(c net.Conn) *bufio.Reader {
	br := bufio.NewReader(c)
	for {
		line, err := br.ReadString('\n')
		if err != nil || line == "\r\n" || line == "\n" {
			return br
		}
	}
}

// TestSessionProxyGuarded: a session's own proxy whose address the guard
// refuses is refused by CheckUpstream (launch) with the flag that would
// allow it, and at every dial (DNS may have changed since): the internal
// server behind it sees no connection at all. Names are resolved once and
// every answer is checked; the session's own lists narrow it too; the
// refusal's wording is the same whether the port is closed or open; the
// daemon's --proxy stays trusted.
func TestSessionProxyGuarded(t *testing.T) {
	internal := startRaw(t, "127.0.0.2", nil)
	t.Cleanup(func() {
		if n := internal.conns.Load(); n != 0 {
			t.Errorf("the internal server received %d connections", n)
		}
	})
	site := startUpstream(t, "127.0.0.1", false)
	res := newResolver(map[string][]string{
		"site.example.com":  {sitePublic},
		"proxy.internal":    {"127.0.0.2"},
		"proxy.mixed":       {"93.184.216.40", "127.0.0.2"},
		"metadata.internal": {"169.254.169.254"},
	})
	res.m["proxy.rebind"] = [][]string{{"93.184.216.41"}, {"127.0.0.2"}}
	logs := &lockedBuffer{}
	p := newProxy(t, Options{Resolver: res, DialTimeout: 3 * time.Second,
		Dial: func(ctx context.Context, network, addr string) (net.Conn, error) {
			if strings.HasPrefix(addr, "93.184.216.") {
				return nil, errors.New("no route to the test's public addresses")
			}
			var d net.Dialer
			return d.DialContext(ctx, network, addr)
		},
		Log: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	ctx := context.Background()
	port := portOf(internal.addr)

	// At launch: refused with the rule and the flag, nothing dialled.
	for _, tc := range []struct{ server, rule, flag string }{
		{"http://" + internal.addr, "loopback", "--allow-host " + internal.addr},
		{"socks5://" + internal.addr, "loopback", "--allow-host " + internal.addr},
		{"https://proxy.internal:" + port, "loopback", "--allow-host proxy.internal:" + port},
		{"http://proxy.mixed:" + port, "loopback", "--allow-host proxy.mixed:" + port},
		{"http://169.254.169.254:80", "cloud metadata", "--allow-host 169.254.169.254"},
		{"http://metadata.internal:8080", "cloud metadata", "--allow-host metadata.internal:8080"},
		{"http://[::ffff:127.0.0.2]:" + port, "loopback", "--allow-host"},
		{"http://10.1.2.3:3128", "private", "--allow-host 10.1.2.3:3128"},
	} {
		err := p.CheckUpstream(ctx, Policy{}, upstreamOf(t, tc.server, "", ""))
		var ue *UpstreamError
		if !errors.As(err, &ue) || !strings.Contains(ue.Rule, tc.rule) || !strings.Contains(err.Error(), tc.flag) ||
			!strings.Contains(err.Error(), "refused by browserd's guard") {
			t.Errorf("CheckUpstream(%s) = %v, want rule %q naming %q", tc.server, err, tc.rule, tc.flag)
		}
	}
	// A port that is closed, one that is open but no proxy, one filtered:
	// the same words (the port aside), since nothing is dialled.
	closed := startRaw(t, "127.0.0.2", nil)
	closed.ln.Close()
	words := func(hostPort string) string {
		err := p.CheckUpstream(ctx, Policy{}, upstreamOf(t, "http://"+hostPort, "", ""))
		if err == nil {
			t.Fatalf("CheckUpstream(%s) allowed it", hostPort)
		}
		_, port, _ := net.SplitHostPort(hostPort)
		return strings.ReplaceAll(err.Error(), port, "PORT")
	}
	if a, b, c := words(internal.addr), words(closed.addr), words("127.0.0.2:9"); a != b || b != c {
		t.Errorf("the refusal tells ports apart:\n%s\n%s\n%s", a, b, c)
	}
	// Allowed by --allow-host (by address, or by name), by --allow-private,
	// or a public address: passes.
	for _, tc := range []struct {
		server string
		pol    Policy
	}{
		{"http://" + internal.addr, Policy{AllowHosts: []string{internal.addr}}},
		{"http://" + internal.addr, Policy{AllowHosts: []string{"127.0.0.2"}}},
		{"http://proxy.internal:" + port, Policy{AllowHosts: []string{"proxy.internal"}}},
		{"http://" + internal.addr, Policy{AllowPrivate: true}},
		{"http://93.184.216.40:3128", Policy{}},
	} {
		if err := p.CheckUpstream(ctx, tc.pol, upstreamOf(t, tc.server, "", "")); err != nil {
			t.Errorf("CheckUpstream(%s, %+v) = %v", tc.server, tc.pol, err)
		}
	}
	// The session's own lists narrow it.
	allow := []string{internal.addr}
	for _, pol := range []Policy{
		{AllowHosts: allow, BlockHosts: []string{"127.0.0.2"}},
		{AllowHosts: allow, OnlyHosts: []string{"site.example.com"}},
	} {
		if err := p.CheckUpstream(ctx, pol, upstreamOf(t, "http://"+internal.addr, "", "")); err == nil {
			t.Errorf("CheckUpstream with %+v allowed the proxy", pol)
		}
	}
	// The guard's own listener is no proxy either.
	own := newSession(t, p, Policy{})
	if err := p.CheckUpstream(ctx, Policy{AllowHosts: []string{"127.0.0.1"}}, upstreamOf(t, own.URL(), "", "")); err == nil ||
		!strings.Contains(err.Error(), "the egress proxy itself") {
		t.Errorf("the guard's own listener as a proxy: %v", err)
	}
	// A name that does not resolve.
	if err := p.CheckUpstream(ctx, Policy{}, upstreamOf(t, "http://nowhere.test:3128", "", "")); err == nil || !strings.Contains(err.Error(), "does not resolve") {
		t.Errorf("a proxy that does not resolve: %v", err)
	}

	// At the dial: a session given such a proxy anyway (a resume, a
	// policy narrowed since, a name that resolves elsewhere now) never
	// dials it, and says why in browserd's words.
	if err := p.CheckUpstream(ctx, Policy{}, upstreamOf(t, "http://proxy.rebind:"+port, "", "")); err != nil {
		t.Fatalf("proxy.rebind at first resolves to a public address: %v", err)
	}
	for _, server := range []string{"http://" + internal.addr, "socks5://" + internal.addr, "https://proxy.internal:" + port, "http://proxy.rebind:" + port} {
		s := newSession(t, p, Policy{AllowHosts: []string{site.addr}})
		c := proxyClient(t, s.URL(), nil)
		if err := s.SetUpstream(upstreamOf(t, server, "", "")); err != nil {
			t.Fatal(err)
		}
		resp, body := get(t, c, "http://site.example.com/")
		if resp.StatusCode != http.StatusBadGateway || !strings.Contains(body, "refused by browserd's guard") || !strings.Contains(body, "--allow-host") {
			t.Errorf("%s, plain: %d %q", server, resp.StatusCode, body)
		}
		if _, err := c.Get("https://site.example.com/"); err == nil {
			t.Errorf("%s: https through a refused proxy succeeded", server)
		}
		f := s.UpstreamFailures()
		if len(f) != 2 || f[0].Err.Rule != "loopback" || f[1].Err.Rule != "loopback" {
			t.Errorf("%s: UpstreamFailures() = %v", server, f)
		}
		// Loopback targets go direct, as always.
		if resp, _ := get(t, c, "http://"+site.addr+"/"); resp.StatusCode != 200 {
			t.Errorf("%s: a loopback target the session allows: %d", server, resp.StatusCode)
		}
	}
	// A session narrowed after its proxy was given: the next dial is
	// refused.
	ok := startRaw(t, "127.0.0.1", func(c net.Conn) { readHead(c); io.WriteString(c, "HTTP/1.1 403 Forbidden\r\n\r\n") })
	s := newSession(t, p, Policy{AllowHosts: []string{ok.addr}})
	c := proxyClient(t, s.URL(), nil)
	if err := s.SetUpstream(upstreamOf(t, "http://"+ok.addr, "", "")); err != nil {
		t.Fatal(err)
	}
	if resp, body := get(t, c, "http://site.example.com/"); resp.StatusCode != http.StatusBadGateway || !strings.Contains(body, "refused the tunnel (403 Forbidden)") {
		t.Errorf("an allowed proxy: %d %q", resp.StatusCode, body)
	}
	s.SetPolicy(Policy{AllowHosts: []string{ok.addr}, BlockHosts: []string{"127.0.0.1"}})
	before := ok.conns.Load()
	if resp, body := get(t, c, "http://site.example.com/again"); resp.StatusCode != http.StatusBadGateway || !strings.Contains(body, "matches --block-host 127.0.0.1") {
		t.Errorf("a proxy the session blocks now: %d %q", resp.StatusCode, body)
	}
	if n := ok.conns.Load(); n != before {
		t.Errorf("a proxy the session blocks was dialled %d times", n-before)
	}

	// The daemon's own --proxy (its operator's) is trusted, on any
	// address, and so is a session's that names it.
	dp := newProxy(t, Options{Resolver: res, Upstream: upstreamOf(t, "http://"+ok.addr, "", "")})
	ds := newSession(t, dp, Policy{})
	if err := dp.CheckUpstream(ctx, Policy{}, upstreamOf(t, "http://"+ok.addr, "ann", "pw")); err != nil {
		t.Errorf("a session naming the daemon's proxy: %v", err)
	}
	before = ok.conns.Load()
	if resp, body := get(t, proxyClient(t, ds.URL(), nil), "http://site.example.com/"); resp.StatusCode != http.StatusBadGateway || !strings.Contains(body, "refused the tunnel (403 Forbidden)") {
		t.Errorf("the daemon's proxy: %d %q", resp.StatusCode, body)
	}
	if ok.conns.Load() == before {
		t.Error("the daemon's proxy was not dialled")
	}
	if strings.Contains(logs.String(), "site.example.com/?") {
		t.Error("a query string was logged")
	}
}

// marker is what the hostile proxies below send; it must never reach the
// client, a recorded failure, nor the log.
const marker = "MARKER-7f3a9c"

// selfSigned is a TLS certificate for marker's names, trusted by pool.
func selfSigned(t *testing.T) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: marker, Organization: []string{marker}},
		DNSNames:     []string{strings.ToLower(marker) + ".example"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		IsCA:         true,
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},

		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, pool
}

// TestUpstreamBytesNeverQuoted: a proxy (allowed by --allow-host) that
// answers with something else than a proxy's answer — garbage, a refusal
// with a reason phrase, headers and a body, an answer cut short, a tunnel
// whose far end is not HTTP, a TLS certificate for other names, a SOCKS5
// reply browserd does not know — fails the request in browserd's own
// words: the marker it sends is in no answer to the browser, no recorded
// failure and no log line.
func TestUpstreamBytesNeverQuoted(t *testing.T) {
	cert, pool := selfSigned(t)
	answers := []struct {
		name, scheme string
		answer       func(net.Conn)
		want         string
	}{
		{"garbage", "http", func(c net.Conn) {
			readHead(c)
			io.WriteString(c, marker+"-garbage-"+marker+"\r\n\r\n") // net/http quotes a line without a space whole
		}, "answered with something that is not HTTP"},
		{"internal page", "http", func(c net.Conn) {
			readHead(c)
			io.WriteString(c, "<html><body>"+marker+"</body></html>\n<p>secret internal page</p>\n")
		}, "not HTTP"},
		{"bad status", "http", func(c net.Conn) {
			readHead(c)
			io.WriteString(c, "HTTP/1.1 2"+marker+"\r\n\r\n")
		}, "not HTTP"},
		{"bad header", "http", func(c net.Conn) {
			readHead(c)
			io.WriteString(c, "HTTP/1.1 200 OK\r\n"+marker+" no colon\r\n\r\n")
		}, "not HTTP"},
		{"refusal", "http", func(c net.Conn) {
			readHead(c)
			io.WriteString(c, "HTTP/1.1 403 "+marker+" reason\r\nX-Why: "+marker+"\r\nContent-Length: 13\r\n\r\n"+marker)
		}, "refused the tunnel (403 Forbidden)"},
		{"odd status", "http", func(c net.Conn) {
			readHead(c)
			io.WriteString(c, "HTTP/1.1 599 "+marker+"\r\n\r\n"+marker)
		}, "refused the tunnel (status 599)"},
		{"login", "http", func(c net.Conn) {
			readHead(c)
			io.WriteString(c, "HTTP/1.1 407 "+marker+"\r\nProxy-Authenticate: Basic realm=\""+marker+"\"\r\n\r\n"+marker)
		}, "asks for a login (407 Proxy Authentication Required)"},
		{"tunnel to garbage", "http", func(c net.Conn) {
			readHead(c)
			io.WriteString(c, "HTTP/1.1 200 "+marker+"\r\n\r\n")
			readHead(c)
			io.WriteString(c, marker+" not http either\r\n\r\n")
		}, "the site's answer could not be read"},
		{"tls garbage", "https", func(c net.Conn) {
			c.Read(make([]byte, 512))
			io.WriteString(c, marker+" not TLS\r\n\r\n")
		}, "it does not answer in TLS"},
		{"tls names", "https", func(c net.Conn) {
			tc := tls.Server(c, &tls.Config{Certificates: []tls.Certificate{cert}})
			tc.Handshake()
			tc.Close()
		}, "its certificate is not trusted for"},
		{"socks garbage", "socks5", func(c net.Conn) {
			c.Read(make([]byte, 3))
			io.WriteString(c, marker)
		}, "did not answer as a SOCKS5 proxy"},
		{"socks reply", "socks5", func(c net.Conn) {
			c.Read(make([]byte, 3))
			c.Write([]byte{5, 0})
			c.Read(make([]byte, 10))
			c.Write([]byte{5, 0x77, 0, 0x1f})
			io.WriteString(c, marker)
		}, "SOCKS5: a reply browserd does not know"},
		{"socks address", "socks5", func(c net.Conn) {
			c.Read(make([]byte, 3))
			c.Write([]byte{5, 0})
			c.Read(make([]byte, 10))
			c.Write([]byte{5, 0, 0, 0x4d})
			io.WriteString(c, marker)
		}, "an address type browserd does not know"},
	}
	for _, tc := range answers {
		t.Run(tc.name, func(t *testing.T) {
			hostile := startRaw(t, "127.0.0.2", tc.answer)
			res := newResolver(map[string][]string{"site.example.com": {sitePublic}, "tlsproxy.test": {"127.0.0.2"}})
			logs := &lockedBuffer{}
			p := newProxy(t, Options{Resolver: res, DialTimeout: 5 * time.Second, TLSConfig: &tls.Config{RootCAs: pool},
				Log: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
			server := tc.scheme + "://" + hostile.addr
			if tc.scheme == "https" {
				server = "https://tlsproxy.test:" + portOf(hostile.addr)
			}
			pol := Policy{AllowHosts: []string{hostile.addr, "tlsproxy.test"}}
			if err := p.CheckUpstream(context.Background(), pol, upstreamOf(t, server, "", "")); err != nil {
				t.Fatalf("CheckUpstream: %v", err)
			}
			s := newSession(t, p, pol)
			if err := s.SetUpstream(upstreamOf(t, server, "", "")); err != nil {
				t.Fatal(err)
			}
			c := proxyClient(t, s.URL(), nil)
			var seen []string
			resp, body := get(t, c, "http://site.example.com/page")
			seen = append(seen, fmt.Sprint(resp.StatusCode, resp.Header), body)
			if resp.StatusCode != http.StatusBadGateway || !strings.Contains(body, tc.want) {
				t.Errorf("plain: %d %q, want a 502 saying %q", resp.StatusCode, body, tc.want)
			}
			// A tunnel: the browser's CONNECT, answered by the guard.
			conn, err := net.Dial("tcp", s.Addr())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			conn.SetDeadline(time.Now().Add(10 * time.Second))
			fmt.Fprint(conn, "CONNECT site.example.com:443 HTTP/1.1\r\nHost: site.example.com:443\r\n\r\n")
			cr, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatalf("CONNECT: %v", err)
			}
			if cr.StatusCode == 200 {
				// The proxy opened the tunnel: what comes through it is the
				// browser's to read as TLS, which it is not.
				if tc.name != "tunnel to garbage" {
					t.Errorf("CONNECT through a proxy that failed: 200")
				}
			} else {
				raw, _ := io.ReadAll(cr.Body)
				seen = append(seen, string(raw))
				if cr.StatusCode != http.StatusBadGateway || !strings.Contains(string(raw), tc.want) && tc.name != "tunnel to garbage" {
					t.Errorf("CONNECT: %d %q", cr.StatusCode, raw)
				}
			}
			for _, f := range s.UpstreamFailures() {
				seen = append(seen, f.Err.Error(), fmt.Sprintf("%v %+v %#v", f.Err, f.Err, f.Err))
				if errors.Unwrap(f.Err) != nil {
					seen = append(seen, errors.Unwrap(f.Err).Error())
				}
			}
			seen = append(seen, logs.String())
			for _, s := range seen {
				if strings.Contains(strings.ToLower(s), strings.ToLower(marker)) {
					t.Errorf("the proxy's bytes were quoted: %q", s)
				}
			}
			if hostile.conns.Load() == 0 {
				t.Error("the allowed proxy was never dialled")
			}
		})
	}
}
