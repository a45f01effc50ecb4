package urlpolicy

import (
	"context"
	"errors"
	"net/netip"
	"strings"
	"testing"
)

func TestCheckURL(t *testing.T) {
	p, err := New([]string{"127.0.0.1:3000", "intranet.test"})
	if err != nil {
		t.Fatal(err)
	}
	p.Resolve = func(_ context.Context, host string) ([]netip.Addr, error) {
		switch host {
		case "public.test":
			return []netip.Addr{netip.MustParseAddr("93.184.216.34")}, nil
		case "rebind.test", "intranet.test":
			return []netip.Addr{netip.MustParseAddr("10.1.2.3")}, nil
		}
		return nil, errors.New("no such host")
	}
	cases := []struct {
		url, want string // want "" = allowed, else a substring of the error
	}{
		{"about:blank", ""},
		{"http://public.test/x", ""},
		{"https://public.test", ""},
		{"public.test/path", ""},
		{"http://127.0.0.1:3000/", ""},
		{"http://intranet.test/", ""},
		{"http://127.0.0.1:3001/", "--allow-host 127.0.0.1:3001"},
		{"http://127.0.0.1/", "loopback"},
		{"http://rebind.test/", "resolves to 10.1.2.3"},
		{"http://169.254.169.254/latest/meta-data", "metadata"},
		{"http://[::1]/", "loopback"},
		{"http://[::ffff:10.0.0.1]/", "private"},
		{"http://[64:ff9b::a00:1]/", "private (RFC 1918) (embedded in IPv6)"},
		{"http://[fd00::1]/", "unique local"},
		{"http://0.0.0.0/", "this network"},
		{"http://100.64.0.1/", "carrier-grade"},
		{"http://224.0.0.1/", "multicast"},
		{"http://255.255.255.255/", "broadcast"},
		{"file:///etc/passwd", "scheme \"file\""},
		{"data:text/html,hi", "scheme \"data\""},
		{"javascript:alert(1)", "scheme \"javascript\""},
		{"chrome://settings", "scheme \"chrome\""},
		{"view-source:http://public.test", "scheme \"view-source\""},
		{"ftp://public.test", "scheme \"ftp\""},
		{"http://user:pw@public.test/", "credentials"},
		{"http://nowhere.test/", "does not resolve"},
		{"http:///path", "no host"},
	}
	for _, c := range cases {
		_, err := p.CheckURL(context.Background(), c.url)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: refused: %v", c.url, err)
		case c.want != "" && err == nil:
			t.Errorf("%s: allowed, want refusal with %q", c.url, c.want)
		case c.want != "" && !strings.Contains(err.Error(), c.want):
			t.Errorf("%s: error %q does not contain %q", c.url, err, c.want)
		}
	}
}

func TestNewRejectsURL(t *testing.T) {
	if _, err := New([]string{"http://x/"}); err == nil {
		t.Fatal("want an error for a URL given as a host")
	}
}

func FuzzCheckURL(f *testing.F) {
	for _, s := range []string{"http://a.test/", "about:blank", "file:///x", "http://[::1]:80/", "%zz", "http://127.1/"} {
		f.Add(s)
	}
	p, _ := New(nil)
	p.Resolve = func(context.Context, string) ([]netip.Addr, error) {
		return []netip.Addr{netip.MustParseAddr("10.0.0.1")}, nil
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, err := p.CheckURL(context.Background(), s)
		if err == nil && out != "about:blank" && !strings.HasPrefix(out, "http://") && !strings.HasPrefix(out, "https://") {
			t.Fatalf("allowed %q as %q", s, out)
		}
	})
}
