package testsite

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// TestProxy: the test proxy forwards absolute-URI requests and opens
// tunnels with the right login only, and logs what it was asked.
func TestProxy(t *testing.T) {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "site "+r.Host) }))
	defer site.Close()
	p := NewProxy("ada", "pw", func(target string) string {
		if strings.HasPrefix(target, "shop.test:") {
			return site.Listener.Addr().String()
		}
		return ""
	})
	defer p.Close()
	client := func(user, pass string) *http.Client {
		u, _ := url.Parse(p.URL)
		if user != "" {
			u.User = url.UserPassword(user, pass)
		}
		tr := &http.Transport{Proxy: http.ProxyURL(u)}
		t.Cleanup(tr.CloseIdleConnections)
		return &http.Client{Transport: tr}
	}
	resp, err := client("ada", "pw").Get("http://shop.test/x")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(b) != "site shop.test" || resp.Header.Get(ProxyHeader) != p.Addr {
		t.Errorf("absolute-URI: %d %q %v", resp.StatusCode, b, resp.Header)
	}
	for _, tc := range []struct {
		user, pass, url string
		want            int
	}{
		{"ada", "nope", "http://shop.test/x", http.StatusProxyAuthRequired},
		{"ada", "pw", "http://elsewhere.test/", http.StatusForbidden},
	} {
		resp, err := client(tc.user, tc.pass).Get(tc.url)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("%s as %s:%s: %d, want %d", tc.url, tc.user, tc.pass, resp.StatusCode, tc.want)
		}
	}
	want := "GET http://shop.test/x as ada|GET http://shop.test/x as ada (407)|GET http://elsewhere.test/ as ada (403)"
	if got := strings.Join(p.Requests(), "|"); got != want {
		t.Errorf("Requests() = %q, want %q", got, want)
	}
}
