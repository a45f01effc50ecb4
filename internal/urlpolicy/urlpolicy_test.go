package urlpolicy

import (
	"net/netip"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	cases := []struct {
		url, want string // want "" = accepted, else a substring of the error
	}{
		{"about:blank", ""},
		{"http://public.test/x", ""},
		{"https://public.test", ""},
		{"public.test/path", ""},
		{"http://127.0.0.1:3000/", ""}, // hosts are the guard's business
		{"file:///etc/passwd", "scheme \"file\""},
		{"data:text/html,hi", "scheme \"data\""},
		{"javascript:alert(1)", "scheme \"javascript\""},
		{"chrome://settings", "scheme \"chrome\""},
		{"view-source:http://public.test", "scheme \"view-source\""},
		{"ftp://public.test", "scheme \"ftp\""},
		{"blob:http://x/y", "scheme \"blob\""},
		{"ws://x/", "scheme \"ws\""},
		{"http://user:pw@public.test/", "credentials"},
		// The refusal says how to give the login, without echoing it.
		{"https://ann:s3cret@Public.test:8443/a?b=1", `{"action":"launch","httpCredentials":[{"origin":"https://Public.test:8443","username":"…","password":"…"}]} — then navigate to https://Public.test:8443/a?b=1`},
		{"http:///path", "no host"},
		{"not a url", "refused"},
	}
	for _, c := range cases {
		_, err := Parse(c.url)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: refused: %v", c.url, err)
		case c.want != "" && err == nil:
			t.Errorf("%s: accepted, want refusal with %q", c.url, c.want)
		case c.want != "" && !strings.Contains(err.Error(), c.want):
			t.Errorf("%s: error %q does not contain %q", c.url, err, c.want)
		case err != nil && strings.Contains(err.Error(), "s3cret"):
			t.Errorf("%s: error %q shows the password", c.url, err)
		}
	}
}

func TestInternal(t *testing.T) {
	for addr, want := range map[string]string{
		"127.0.0.1":       "loopback",
		"10.1.2.3":        "private",
		"169.254.169.254": "metadata",
		"::1":             "loopback",
		"::ffff:10.0.0.1": "private",
		"64:ff9b::a00:1":  "embedded in IPv6",
		"fd00::1":         "unique local",
		"0.0.0.0":         "this network",
		"100.64.0.1":      "carrier-grade",
		"224.0.0.1":       "multicast",
		"255.255.255.255": "broadcast",
		"93.184.216.34":   "",
		"2606:4700::1":    "",
	} {
		got := Internal(netip.MustParseAddr(addr))
		if (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("Internal(%s) = %q, want %q", addr, got, want)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"http://a.test/", "about:blank", "file:///x", "http://[::1]:80/", "%zz", "javascript:1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := Parse(s)
		if err == nil && u.String() != "about:blank" && u.Scheme != "http" && u.Scheme != "https" {
			t.Fatalf("accepted %q as %q", s, u)
		}
	})
}
