package secrets

import (
	"slices"
	"strings"
	"testing"
)

func TestCheckName(t *testing.T) {
	for _, ok := range []string{"a", "GITHUB_PASSWORD", "bank.pin", "x-1", strings.Repeat("a", 64)} {
		if err := CheckName(ok); err != nil {
			t.Errorf("CheckName(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"", "1abc", "_a", ".a", "-a", "a b", "a/b", "a~b", "é", "a\x00", strings.Repeat("a", 65)} {
		if err := CheckName(bad); err == nil {
			t.Errorf("CheckName(%q) accepted it", bad)
		}
	}
}

func TestCheckValue(t *testing.T) {
	for _, ok := range []string{"abcd", "hunter2", "пароль", strings.Repeat("x", 4096)} {
		if err := CheckValue(ok); err != nil {
			t.Errorf("CheckValue(%d bytes) = %v", len(ok), err)
		}
	}
	for _, bad := range []string{"", "abc", strings.Repeat("x", 4097), "ab\xffcd", "ab\x00cd"} {
		err := CheckValue(bad)
		if err == nil {
			t.Errorf("CheckValue(%q) accepted it", bad)
			continue
		}
		if bad != "" && strings.Contains(err.Error(), bad) {
			t.Errorf("CheckValue's error shows the value: %v", err)
		}
	}
	if err := CheckValue("abc"); !strings.Contains(err.Error(), "blank out") {
		t.Errorf("a short value's error does not say why: %v", err)
	}
}

func TestOrigin(t *testing.T) {
	for in, want := range map[string]string{
		"https://example.com":           "https://example.com",
		"https://Example.COM/":          "https://example.com",
		"HTTPS://example.com:443":       "https://example.com",
		"http://example.com:80":         "http://example.com",
		"http://example.com:443":        "http://example.com:443",
		"https://example.com:08443":     "https://example.com:8443",
		"http://[::1]:80":               "http://[::1]",
		"http://[0:0:0:0:0:0:0:1]:8080": "http://[::1]:8080",
		"http://127.0.0.1:8765":         "http://127.0.0.1:8765",
		"https://my_host.internal":      "https://my_host.internal",
		// Issue 47 point 5: IPv4 as a browser reads it.
		"http://0x7f.1:8765": "http://127.0.0.1:8765",
		"http://2130706433":  "http://127.0.0.1",
		"http://0177.0.0.1":  "http://127.0.0.1",
		"http://127.1":       "http://127.0.0.1",
		"http://0x7F000001":  "http://127.0.0.1",
		"https://10.0.258":   "https://10.0.1.2",
		"https://1.2.3.4":    "https://1.2.3.4",
	} {
		got, err := Origin(in)
		if err != nil || got != want {
			t.Errorf("Origin(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{
		"", "example.com", "ftp://example.com", "https://", "https:example.com", "https://u:p@example.com",
		"https://example.com/login", "https://example.com?x", "https://example.com#f", "https://example.com:0",
		"https://example.com:99999", "https://example.com:", "https://bücher.de", "https://a..b", "https://.a",
		"https://a.", "https://[fe80::1%25eth0]", "https://a b", "https://a!b", "javascript:alert(1)",
		"http://256.0.0.1", "http://1.2.3.4.5", "http://4294967296", "http://09.1", "http://1.2.3.0x100", "https://host.example.0x",
	} {
		if got, err := Origin(bad); err == nil {
			t.Errorf("Origin(%q) = %q, want an error", bad, got)
		} else if !strings.Contains(err.Error(), "e.g. https://") {
			t.Errorf("Origin(%q)'s error does not say what to give: %v", bad, err)
		}
	}
}

func TestOrigins(t *testing.T) {
	got, err := Origins([]string{"https://a.example", "https://A.example:443/", "http://a.example"})
	if err != nil || !slices.Equal(got, []string{"https://a.example", "http://a.example"}) {
		t.Errorf("Origins = %q, %v", got, err)
	}
	if got, err := Origins(nil); err != nil || got != nil {
		t.Errorf("Origins(nil) = %q, %v; want none", got, err)
	}
	var many []string
	for i := range 17 {
		many = append(many, "https://h"+string(rune('a'+i))+".example")
	}
	if _, err := Origins(many); err == nil || !strings.Contains(err.Error(), "at most 16") {
		t.Errorf("17 origins: %v", err)
	}
	if _, err := Origins(many[:16]); err != nil {
		t.Errorf("16 origins: %v", err)
	}
	if _, err := Origins([]string{"https://ok.example", "nope"}); err == nil {
		t.Error("a bad origin among good ones was accepted")
	}
}

func TestAllows(t *testing.T) {
	bound := []string{"https://accounts.example.com", "http://localhost:8080"}
	for url, want := range map[string]bool{
		"https://accounts.example.com/login?next=/":  true,
		"https://ACCOUNTS.example.com:443/x":         true,
		"http://localhost:8080/":                     true,
		"https://evil.example/accounts.example.com":  false,
		"http://accounts.example.com/login":          false,
		"https://accounts.example.com.evil.example/": false,
		"about:blank":       false,
		"data:text/html,hi": false,
	} {
		if got := Allows(bound, url); got != want {
			t.Errorf("Allows(%q) = %v, want %v", url, got, want)
		}
	}
	if !Allows(nil, "about:blank") {
		t.Error("a secret bound to no origin is refused")
	}
}

// FuzzOrigin: Origin never panics, and what it returns is an origin it
// returns unchanged (normalizing twice changes nothing), with no path,
// query, fragment or upper case.
func FuzzOrigin(f *testing.F) {
	for _, s := range []string{"https://a.example", "http://[::1]:80", "https://a:b@c", "%zz", "http://x:99999",
		"HTTPS://A.EXAMPLE:443/", "http://[::ffff:1.2.3.4]:8080", "https://a..b", "https://xn--bcher-kva.de"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := Origin(s)
		if err != nil {
			return
		}
		again, err := Origin(got)
		if err != nil || again != got {
			t.Fatalf("%q → %q → %q, %v", s, got, again, err)
		}
		rest, ok := strings.CutPrefix(got, "http://")
		if !ok {
			rest, ok = strings.CutPrefix(got, "https://")
		}
		if !ok || rest == "" || strings.ContainsAny(rest, "/?#@") || strings.ToLower(got) != got {
			t.Fatalf("%q → %q: not a normalized origin", s, got)
		}
		if o, ok := OriginOf(got + "/some/path?q#f"); !ok || o != got {
			t.Fatalf("OriginOf(%q/some/path) = %q, %v", got, o, ok)
		}
	})
}

// FuzzCheckName: a name CheckName accepts is one the API's path and the
// store take as it is: ASCII letters, digits, '_', '.', '-', a letter
// first, 1 to 64 bytes.
func FuzzCheckName(f *testing.F) {
	for _, s := range []string{"GITHUB_PASSWORD", "a", "1a", "a/b", "é", "a..b", strings.Repeat("a", 65)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if CheckName(s) != nil {
			return
		}
		if len(s) < 1 || len(s) > MaxName {
			t.Fatalf("%q accepted: %d bytes", s, len(s))
		}
		if c := s[0]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			t.Fatalf("%q accepted: it does not start with a letter", s)
		}
		if strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") != "" {
			t.Fatalf("%q accepted: a character outside [A-Za-z0-9_.-]", s)
		}
	})
}
