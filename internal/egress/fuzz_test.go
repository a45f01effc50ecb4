package egress

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/browserd/browserd/internal/urlpolicy"
)

// anyInternal resolves every name to a private address.
type anyInternal struct{}

func (anyInternal) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	return []netip.Addr{netip.MustParseAddr("10.9.8.7")}, nil
}

// FuzzParseHost: parsing never panics, is idempotent, and a host that is an
// internal address in any spelling is never allowed without AllowHosts or
// AllowPrivate.
func FuzzParseHost(f *testing.F) {
	for _, s := range []string{
		"example.com", "example.com.", "127.0.0.1", "2130706433", "0x7f.1", "0177.0.0.1", "127.1",
		"[::1]", "::1", "[fe80::1%25eth0]", "fe80::1%eth0", "[::ffff:10.0.0.1]", "[::10.0.0.1]",
		"[64:ff9b::a00:1]", "169.254.169.254", "0xa9fea9fe", "1.2.3.999", "0x", "[", "]", "%", "..",
		"localhost.", "a..b", "4294967295", "0x100000000", "[::ffff:0x7f.1]", "07777777777",
	} {
		f.Add(s, "80")
	}
	f.Add("example.com", "0")
	f.Add("example.com", "65536")
	f.Add("example.com", "")
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, in, port string) {
		h, err := parseHost(in)
		if err == nil {
			if h.key == "" {
				t.Fatalf("parseHost(%q): empty key", in)
			}
			again, err := parseHost(h.key)
			if h.isIP && !strings.Contains(h.key, ":") || !h.isIP {
				if err != nil || again.key != h.key || again.isIP != h.isIP {
					t.Fatalf("parseHost(%q) = %+v, but its key parses as %+v, %v", in, h, again, err)
				}
			}
			if h.isIP && h.ip.Is4In6() {
				t.Fatalf("parseHost(%q) kept a mapped address %v", in, h.ip)
			}
		}
		if _, err := parsePattern(in, true); err != nil {
			_ = err // only must not panic
		}

		d := Policy{}.Check(ctx, anyInternal{}, in, port)
		if !d.Allowed {
			if d.Rule == "" || d.Reason == "" {
				t.Fatalf("refusal without rule or reason: %+v", d)
			}
			return
		}
		// Allowed: must be a public literal address, dialed as checked.
		if err != nil || !h.isIP {
			t.Fatalf("Check(%q) allowed a host that is not a public literal (parse err %v): %+v", in, err, d)
		}
		if d.Addr != h.ip || classify(d.Addr) != "" || urlpolicy.Internal(d.Addr.WithZone("")) != "" {
			t.Fatalf("Check(%q) allowed internal address %v", in, d.Addr)
		}
		if a, perr := netip.ParseAddr(strings.Trim(in, "[]")); perr == nil && urlpolicy.Internal(a.WithZone("")) != "" {
			t.Fatalf("Check(%q) allowed a literal internal address", in)
		}
		if d.Port == "" || parsePortNum(d.Port) == 0 {
			t.Fatalf("Check(%q, %q) allowed an invalid port %q", in, port, d.Port)
		}
	})
}

// FuzzUpstream: reading a proxy address never panics, never repeats a
// password in an error, and what it reads prints as an address that reads
// back the same, without the login.
func FuzzUpstream(f *testing.F) {
	for _, s := range []string{
		"http://proxy.example.com:3128", "proxy:3128", "https://p", "socks5://10.0.0.1:1080",
		"socks5h://p:1080", "http://ann:hunter22@p:3128", "http://[::1]:8080/", "ftp://x",
		"http://p:0", "http://p:3128/path?q", "http://%zz", "http://a b", "://", "http://:80",
		"HTTP://P.EXAMPLE.COM.", "http://[fe80::1%25eth0]:3128", "http://0x7f.1:80",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		u, err := ParseUpstream(raw)
		if err != nil {
			if pu, perr := url.Parse(raw); perr == nil && pu.User != nil {
				if pw, ok := pu.User.Password(); ok && len(pw) >= 6 && strings.Contains(err.Error(), pw) {
					t.Fatalf("ParseUpstream(%q): the error repeats the password: %v", raw, err)
				}
			}
			return
		}
		if strings.Contains(u.String(), "@") {
			t.Fatalf("ParseUpstream(%q).String() = %q holds a login", raw, u.String())
		}
		again, err := ParseUpstream(u.String())
		if err != nil || again.String() != u.String() || again.HasLogin() {
			t.Fatalf("ParseUpstream(%q) = %q, which reads back as %q, %v", raw, u.String(), again.String(), err)
		}
		login := u
		login.Username, login.Password = "", ""
		if err := login.Validate(); err != nil {
			t.Fatalf("ParseUpstream(%q) = %q, which does not validate: %v", raw, u.String(), err)
		}
	})
}

// FuzzBypass: a bypass entry never panics; "*" matches every request, and
// an entry never matches a request on another port than its own.
func FuzzBypass(f *testing.F) {
	for _, s := range []string{
		"example.com", ".example.com", "*.example.com", "example.com:8080", "10.0.0.0/8", "10.0.0.5",
		"::1", "[::1]:8080", "2001:db8::/32", "<local>", "*", "http://x", "a*b", "[", "::ffff:10.0.0.0/104",
		"0x7f.1", "*.", ".", ":80", "[::1", "1.2.3.4/0",
	} {
		f.Add(s, "www.example.com", "80", "10.1.2.3")
	}
	f.Fuzz(func(t *testing.T, entry, host, port, addr string) {
		b, err := parseBypass(entry)
		if err != nil {
			return
		}
		h, err := parseHost(host)
		if err != nil {
			return
		}
		a, _ := netip.ParseAddr(addr)
		got := b.matches(h, port, a)
		if b.all && b.port == "" && !got {
			t.Fatalf("%q does not match %q", entry, host)
		}
		if got && b.port != "" && b.port != port {
			t.Fatalf("%q matches %s on port %q", entry, host, port)
		}
	})
}

// FuzzProxyAnswer: whatever an upstream proxy answers to browserd's
// CONNECT (http) or SOCKS5 handshake, browserd never panics, and the
// error it words quotes none of it: every run of 8 bytes the error shares
// with the answer is browserd's own wording (it is in tunnel.go or
// upstream.go), the status code of a refused tunnel aside.
func FuzzProxyAnswer(f *testing.F) {
	var own []byte
	for _, name := range []string{"tunnel.go", "upstream.go"} {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		own = append(own, b...)
	}
	for code := 100; code < 1000; code++ { // "(407 Proxy Authentication Required)": Go's words
		own = fmt.Appendf(own, "\n(%d %s) status %d", code, http.StatusText(code), code)
	}
	for _, s := range []string{
		"HTTP/1.1 200 OK\r\n\r\n", "HTTP/1.1 403 MARKER-secret\r\nX: MARKER-secret\r\n\r\nMARKER-secret",
		"MARKER-secret-MARKER\r\n\r\n", "HTTP/1.1 2MARKER-secret\r\n\r\n", "HTTP/1.1 200 OK\r\nMARKER-secret\r\n\r\n",
		"HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"MARKER-secret\"\r\n\r\n",
		"\x05\x00\x05\x00\x00\x01\x01\x02\x03\x04\x00\x50", "\x05\x02\x01\x01", "\x05\x00\x05\x77\x00\x01MARKER-secret",
		"\x05\x00\x05\x00\x00\x4dMARKER-secret", "\x05\x00\x05\x00\x00\x03\x0dMARKER-secret\x00\x50", "\x04MARKER-secret",
	} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	target := netip.MustParseAddrPort("93.184.216.34:443")
	f.Fuzz(func(t *testing.T, answer []byte, socks bool) {
		scheme := "http"
		if socks {
			scheme = "socks5"
		}
		p := &Proxy{opts: Options{DialTimeout: time.Second}}
		r, err := p.newRoute(&Upstream{Scheme: scheme, Host: "192.0.2.1:3128", Username: "ann", Password: "pw"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		client, server := net.Pipe()
		defer client.Close()
		go func() {
			defer server.Close()
			go io.Copy(io.Discard, server)
			server.Write(answer)
		}()
		client.SetDeadline(time.Now().Add(time.Second))
		if socks {
			err = socksConnect(client, r, target)
		} else {
			_, err = httpConnect(client, r, target)
		}
		var ue *UpstreamError
		if err == nil || !errors.As(err, &ue) {
			return // a tunnel, or an I/O error dialVia words itself
		}
		msg := []byte(ue.Error())
		for i := 0; i+8 <= len(answer); i++ {
			w := answer[i : i+8]
			if bytes.Contains(msg, w) && !bytes.Contains(own, w) && !bytes.Contains([]byte(r.display), w) {
				t.Fatalf("the error quotes the proxy's answer %q: %s", w, msg)
			}
		}
	})
}
