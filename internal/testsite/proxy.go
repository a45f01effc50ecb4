package testsite

import (
	"context"
	"crypto/x509"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
)

// Proxy is a forward HTTP proxy on loopback for tests of browserd's
// upstream proxies: it opens CONNECT tunnels and forwards absolute-URI
// requests, asks for a Basic login when it has one (407 without it or
// with a wrong one), and logs every request it gets.
type Proxy struct {
	// Addr is "127.0.0.1:PORT"; URL is "http://" + Addr.
	Addr, URL string

	user, password string
	route          func(target string) string
	srv            *httptest.Server

	mu    sync.Mutex
	log   []string
	conns map[net.Conn]bool // tunnels' connections, closed by Close
	shut  bool
	wg    sync.WaitGroup // tunnels
}

// ProxyHeader is the response header the proxy adds to the requests it
// forwards itself (absolute-URI ones; a tunnel's bytes are not its to
// change): its address.
const ProxyHeader = "X-Test-Proxy"

// NewProxy starts a proxy. With a user, every request needs the login
// user:password. route maps the HOST:PORT a request asks for to the
// address the proxy connects to instead (nil: the one asked for); ""
// refuses the request with 403, as a proxy's rules would.
func NewProxy(user, password string, route func(target string) string) *Proxy {
	return newProxy(user, password, route, false)
}

// NewTLSProxy starts a proxy that speaks TLS (an https:// proxy), with a
// certificate for 127.0.0.1 that Certificate returns.
func NewTLSProxy(user, password string, route func(target string) string) *Proxy {
	return newProxy(user, password, route, true)
}

func newProxy(user, password string, route func(target string) string, useTLS bool) *Proxy {
	p := &Proxy{user: user, password: password, route: route, conns: map[net.Conn]bool{}}
	p.srv = httptest.NewUnstartedServer(http.HandlerFunc(p.serve))
	scheme := "http://"
	if useTLS {
		p.srv.StartTLS()
		scheme = "https://"
	} else {
		p.srv.Start()
	}
	p.Addr = p.srv.Listener.Addr().String()
	p.URL = scheme + p.Addr
	return p
}

// Certificate is the TLS proxy's certificate (nil for a plain one).
func (p *Proxy) Certificate() *x509.Certificate { return p.srv.Certificate() }

// Close stops the proxy and every tunnel it has open.
func (p *Proxy) Close() {
	p.srv.CloseClientConnections()
	p.srv.Close()
	p.mu.Lock()
	p.shut = true
	for c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
}

func (p *Proxy) track(c net.Conn, on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if on && p.shut {
		c.Close()
	} else if on {
		p.conns[c] = true
	} else {
		delete(p.conns, c)
	}
}

// Requests are the requests the proxy got, one line each: "CONNECT
// HOST:PORT" or "GET http://…", followed by " as USER" when it came with
// a login and " (407)" or " (403)" when it was refused.
func (p *Proxy) Requests() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.log...)
}

func (p *Proxy) note(line string) {
	p.mu.Lock()
	p.log = append(p.log, line)
	p.mu.Unlock()
}

// login checks the request's Proxy-Authorization; it returns the user it
// names (or "") and whether the request may go on.
func (p *Proxy) login(r *http.Request) (string, bool) {
	h := r.Header.Get("Proxy-Authorization")
	var user, pass string
	if b64, ok := strings.CutPrefix(h, "Basic "); ok {
		if raw, err := base64.StdEncoding.DecodeString(b64); err == nil {
			user, pass, _ = strings.Cut(string(raw), ":")
		}
	}
	if p.user == "" {
		return user, true
	}
	return user, user == p.user && pass == p.password
}

func (p *Proxy) serve(w http.ResponseWriter, r *http.Request) {
	line := r.Method + " " + r.RequestURI
	user, ok := p.login(r)
	if user != "" {
		line += " as " + user
	}
	if !ok {
		p.note(line + " (407)")
		w.Header().Set("Proxy-Authenticate", `Basic realm="test proxy"`)
		http.Error(w, "proxy login needed", http.StatusProxyAuthRequired)
		return
	}
	target := r.Host
	if r.Method != http.MethodConnect {
		if !r.URL.IsAbs() {
			p.note(line + " (400)")
			http.Error(w, "not a proxy request", http.StatusBadRequest)
			return
		}
		target = r.URL.Host
		if r.URL.Port() == "" {
			target += ":80"
		}
	}
	to := target
	if p.route != nil {
		to = p.route(target)
	}
	if to == "" {
		p.note(line + " (403)")
		http.Error(w, "not allowed by the proxy's rules", http.StatusForbidden)
		return
	}
	p.note(line)
	if r.Method == http.MethodConnect {
		p.tunnel(w, to)
		return
	}
	out := r.Clone(r.Context())
	out.RequestURI = ""
	out.Header.Del("Proxy-Authorization")
	out.Header.Del("Proxy-Connection")
	tr := &http.Transport{DisableKeepAlives: true, DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, to)
	}}
	defer tr.CloseIdleConnections()
	resp, err := tr.RoundTrip(out)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, vv := range resp.Header {
		w.Header()[k] = vv
	}
	w.Header().Set(ProxyHeader, p.Addr)
	w.WriteHeader(resp.StatusCode)
	io.Copy(w, resp.Body)
}

func (p *Proxy) tunnel(w http.ResponseWriter, to string) {
	p.wg.Add(1)
	defer p.wg.Done()
	up, err := net.DialTimeout("tcp", to, 5*time.Second)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer up.Close()
	conn, brw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return
	}
	defer conn.Close()
	p.track(conn, true)
	p.track(up, true)
	defer p.track(conn, false)
	defer p.track(up, false)
	fmt.Fprint(conn, "HTTP/1.1 200 Connection Established\r\n\r\n")
	done := make(chan struct{})
	go func() {
		defer close(done)
		io.Copy(up, brw.Reader)
		up.Close()
	}()
	io.Copy(conn, up)
	conn.Close()
	<-done
}
