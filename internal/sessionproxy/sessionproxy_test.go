package sessionproxy

import (
	"context"
	"strings"
	"testing"

	"github.com/browserd/browserd/internal/config"
	"github.com/browserd/browserd/internal/egress"
	"github.com/browserd/browserd/internal/sessions"
	"github.com/browserd/browserd/internal/tool"
)

// TestParseProxy: a browser browserd attaches to, or a daemon without its
// guard, cannot take a session's proxy; a login in the server's URL is
// refused (it would be shown); no proxy is none.
func TestParseProxy(t *testing.T) {
	p := &Proxies{Registry: &sessions.Registry{Cfg: config.Default()}}
	if u, err := p.ParseProxy(context.Background(), &tool.Input{}); u != nil || err != nil {
		t.Fatalf("no proxy: %v %v", u, err)
	}
	in := &tool.Input{Proxy: &tool.Proxy{Server: "http://user:pw@proxy.test:3128"}}
	if _, err := p.ParseProxy(context.Background(), in); err == nil || !strings.Contains(err.Error(), "holds a login") {
		t.Fatalf("a login in the URL: %v", err)
	}
	p.NoProxy = true
	if _, err := p.ParseProxy(context.Background(), in); err == nil || !strings.Contains(err.Error(), "runs without") {
		t.Fatalf("without the guard: %v", err)
	}
	p.Cfg.CDP = "http://127.0.0.1:9222"
	if _, err := p.ParseProxy(context.Background(), in); err == nil || !strings.Contains(err.Error(), "--cdp") {
		t.Fatalf("attached: %v", err)
	}
}

// TestSameProxy: a running session keeps its proxy; asking for the same
// passes, another is refused without its password.
func TestSameProxy(t *testing.T) {
	p := &Proxies{Registry: &sessions.Registry{}}
	u, err := egress.ParseUpstream("http://proxy.test:3128")
	if err != nil {
		t.Fatal(err)
	}
	u.Username, u.Password = "ann", "pw-secret"
	s := &sessions.Session{ID: "bob~s1", Proxy: &u}
	same := u
	if err := p.SameProxy(s, &same); err != nil {
		t.Fatalf("the same proxy: %v", err)
	}
	if err := p.SameProxy(s, nil); err != nil {
		t.Fatalf("no proxy asked: %v", err)
	}
	other := u
	other.Password = "other"
	err = p.SameProxy(s, &other)
	if err == nil || !strings.Contains(err.Error(), "another login") || strings.Contains(err.Error(), "pw-secret") || !strings.Contains(err.Error(), `session "s1"`) {
		t.Fatalf("another login: %v", err)
	}
}

func TestNoteAndFailure(t *testing.T) {
	u, _ := egress.ParseUpstream("socks5://proxy.test:1080")
	u.Username, u.Password, u.Bypass = "ann", "pw-secret", []string{".internal.test"}
	n := Note(&u)
	if strings.Contains(n, "pw-secret") || !strings.Contains(n, "login ann") || !strings.Contains(n, ".internal.test") {
		t.Errorf("Note = %q", n)
	}
	login := &egress.UpstreamError{Proxy: "http://proxy.test:3128", Status: 407, Login: true}
	if got := Failure(true, login); !strings.Contains(got, "launch's proxy") {
		t.Errorf("the session's login: %q", got)
	}
	if got := Failure(false, login); !strings.Contains(got, "--proxy-login-file") {
		t.Errorf("the daemon's login: %q", got)
	}
}
