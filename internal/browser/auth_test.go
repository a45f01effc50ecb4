package browser

import (
	"strings"
	"testing"
)

// TestCanonicalOrigin: origins are written as Chromium reports a
// challenger's (default ports dropped, host lower-cased); anything but
// scheme://host[:port] is refused.
func TestCanonicalOrigin(t *testing.T) {
	for in, want := range map[string]string{
		"https://Intranet.Example.com":  "https://intranet.example.com",
		"https://a.example:443/":        "https://a.example",
		"http://127.0.0.1:8080":         "http://127.0.0.1:8080",
		"http://[::1]:80":               "http://[::1]",
		"https://a.example/path":        "",
		"ftp://a.example":               "",
		"https://user:pw@a.example":     "",
		"https://a.example?x=1":         "",
		"a.example":                     "",
		"":                              "",
		"https://a.example:8443/#frag":  "",
		" https://a.example:8443 ":      "https://a.example:8443",
		"HTTP://A.EXAMPLE:80":           "http://a.example",
		"https://a.example:8443/ignore": "",
	} {
		got, err := CanonicalOrigin(in)
		if want == "" {
			if err == nil {
				t.Errorf("%q: got %q, want an error", in, got)
			} else if !strings.Contains(err.Error(), "scheme://host[:port]") {
				t.Errorf("%q: error %q does not say what to send", in, err)
			}
			continue
		}
		if err != nil || got != want {
			t.Errorf("%q: got %q, %v; want %q", in, got, err, want)
		}
	}
}

// FuzzCanonicalOrigin: any input gives an origin or an error, never a
// panic, and an accepted origin is stable.
func FuzzCanonicalOrigin(f *testing.F) {
	for _, s := range []string{"https://a.example", "http://[::1]:80", "https://a:b@c", "%zz", "http://x:99999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := CanonicalOrigin(s)
		if err != nil {
			return
		}
		again, err := CanonicalOrigin(got)
		if err != nil || again != got {
			t.Fatalf("%q → %q → %q, %v", s, got, again, err)
		}
	})
}
