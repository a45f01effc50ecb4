package egress

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
)

// The two ways of asking an upstream proxy for a connection: an HTTP
// CONNECT tunnel (http and https proxies) and a SOCKS5 CONNECT (RFC 1928,
// with RFC 1929's username and password). Both ask for the checked
// address, never a name. I/O errors are returned as they are (dialVia
// words them); what the proxy answered is an *UpstreamError in browserd's
// words, which never quote the proxy's bytes: a status code at most.

// httpConnect asks an http(s) proxy for a tunnel to target. It returns
// the connection to use: conn, or conn with what the proxy sent after its
// answer in front.
func httpConnect(conn net.Conn, r *route, target netip.AddrPort) (net.Conn, error) {
	addr := target.String()
	req := "CONNECT " + addr + " HTTP/1.1\r\nHost: " + addr + "\r\n"
	if r.auth != "" {
		req += "Proxy-Authorization: " + r.auth + "\r\n"
	}
	req += "\r\n"
	if _, err := io.WriteString(conn, req); err != nil {
		return nil, err
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect, URL: &url.URL{Opaque: addr}})
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return nil, r.fail(err, "closed the connection without answering the CONNECT: check that it is an http proxy (%s://)", r.up.Scheme)
		}
		var ne net.Error
		if errors.As(err, &ne) {
			return nil, err
		}
		// net/http's error quotes the answer: not repeated.
		return nil, r.fail(nil, "answered with something that is not HTTP: check that it is an http proxy, or give its scheme (http://, https:// or socks5://)")
	}
	if resp.StatusCode/100 == 2 {
		// The body of a tunnel's answer is the tunnel: not read.
		if br.Buffered() > 0 {
			return &bufferedConn{Conn: conn, r: br}, nil
		}
		return conn, nil
	}
	// The refusal's body is not read: a proxy that sends it until it
	// closes would hold the request; the caller closes the connection.
	// The status code only, with Go's words for it: never the proxy's
	// reason phrase, headers or body.
	status := fmt.Sprintf("status %d", resp.StatusCode)
	if txt := http.StatusText(resp.StatusCode); txt != "" {
		status = fmt.Sprintf("%d %s", resp.StatusCode, txt)
	}
	var ue *UpstreamError
	switch {
	case resp.StatusCode == http.StatusProxyAuthRequired && r.auth == "":
		ue = r.fail(nil, "asks for a login (%s) and none was given: give its username and password", status)
		ue.Login = true
	case resp.StatusCode == http.StatusProxyAuthRequired:
		ue = r.fail(nil, "refused the login (%s): check its username and password", status)
		ue.Login = true
	case target.Port() != 443:
		ue = r.fail(nil, "refused the tunnel (%s); browserd sends plain-http requests through a CONNECT tunnel too (to the checked address, never the name), and a proxy that opens tunnels to port 443 only (Squid's default SSL_ports) refuses them: let it open tunnels to port %d", status, target.Port())
	default:
		ue = r.fail(nil, "refused the tunnel (%s): check that the proxy lets this machine reach the site", status)
	}
	ue.Status = resp.StatusCode
	return nil, ue
}

// bufferedConn is a connection whose first bytes were read into r.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *bufferedConn) Read(p []byte) (int, error) {
	if c.r.Buffered() > 0 {
		return c.r.Read(p)
	}
	return c.Conn.Read(p)
}

// SOCKS5 (RFC 1928) and its username/password authentication (RFC 1929).
const (
	socksVersion     = 5
	socksNoAuth      = 0x00
	socksUserPass    = 0x02
	socksNoMethod    = 0xff
	socksCmdConnect  = 0x01
	socksIPv4        = 0x01
	socksName        = 0x03
	socksIPv6        = 0x04
	socksAuthVersion = 0x01
)

// socksReplies words the REP field of a SOCKS5 reply.
var socksReplies = map[byte]string{
	1: "general failure",
	2: "connection not allowed by its rules",
	3: "network unreachable",
	4: "host unreachable",
	5: "connection refused by the target",
	6: "TTL expired",
	7: "command not supported",
	8: "address type not supported",
}

// socksConnect asks a socks5 proxy for a connection to target.
func socksConnect(conn net.Conn, r *route, target netip.AddrPort) error {
	login := r.up.HasLogin()
	methods := []byte{socksNoAuth}
	if login {
		methods = []byte{socksNoAuth, socksUserPass}
	}
	if _, err := conn.Write(append([]byte{socksVersion, byte(len(methods))}, methods...)); err != nil {
		return err
	}
	var b [2]byte
	if _, err := io.ReadFull(conn, b[:]); err != nil {
		return socksReadErr(r, err)
	}
	if b[0] != socksVersion {
		return r.fail(nil, "did not answer as a SOCKS5 proxy: check its scheme (http://, https:// or socks5://)")
	}
	switch b[1] {
	case socksNoAuth:
	case socksUserPass:
		if !login {
			ue := r.fail(nil, "asks for a login (SOCKS5 username and password) and none was given: give its username and password")
			ue.Login = true
			return ue
		}
		u, p := r.up.Username, r.up.Password
		msg := make([]byte, 0, 3+len(u)+len(p))
		msg = append(msg, socksAuthVersion, byte(len(u)))
		msg = append(msg, u...)
		msg = append(msg, byte(len(p)))
		msg = append(msg, p...)
		if _, err := conn.Write(msg); err != nil {
			return err
		}
		if _, err := io.ReadFull(conn, b[:]); err != nil {
			return socksReadErr(r, err)
		}
		if b[1] != 0 {
			ue := r.fail(nil, "refused the login (SOCKS5 username and password): check its username and password")
			ue.Login = true
			return ue
		}
	case socksNoMethod:
		ue := r.fail(nil, "accepts none of the ways browserd can sign in (no login, or a username and password)")
		ue.Login = true
		return ue
	default:
		return r.fail(nil, "chose a way of signing in browserd does not know (a SOCKS5 method other than none or username and password)")
	}

	a := target.Addr().Unmap()
	req := []byte{socksVersion, socksCmdConnect, 0}
	if a.Is4() {
		ip := a.As4()
		req = append(append(req, socksIPv4), ip[:]...)
	} else {
		ip := a.As16()
		req = append(append(req, socksIPv6), ip[:]...)
	}
	req = append(req, byte(target.Port()>>8), byte(target.Port()))
	if _, err := conn.Write(req); err != nil {
		return err
	}
	var head [4]byte
	if _, err := io.ReadFull(conn, head[:]); err != nil {
		return socksReadErr(r, err)
	}
	if head[0] != socksVersion {
		return r.fail(nil, "did not answer as a SOCKS5 proxy: check its scheme (http://, https:// or socks5://)")
	}
	if head[1] != 0 {
		why, ok := socksReplies[head[1]]
		if !ok {
			why = "a reply browserd does not know"
		}
		return r.fail(nil, "could not connect to the site (SOCKS5: %s)", why)
	}
	// The address the proxy bound: read and dropped.
	var n int
	switch head[3] {
	case socksIPv4:
		n = 4
	case socksIPv6:
		n = 16
	case socksName:
		var l [1]byte
		if _, err := io.ReadFull(conn, l[:]); err != nil {
			return socksReadErr(r, err)
		}
		n = int(l[0])
	default:
		return r.fail(nil, "answered with an address type browserd does not know: check that it is a socks5 proxy")
	}
	if _, err := io.ReadFull(conn, make([]byte, n+2)); err != nil {
		return socksReadErr(r, err)
	}
	return nil
}

func socksReadErr(r *route, err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return r.fail(err, "closed the connection during the SOCKS5 handshake: check that it is a socks5 proxy and that it lets this machine in")
	}
	return err
}
