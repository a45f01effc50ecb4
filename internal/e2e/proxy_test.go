//go:build linux

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/browserd/browserd/internal/testsite"
	"github.com/browserd/browserd/internal/tool"
)

// shopAddr is the site's address: a documentation address (TEST-NET-1)
// nothing answers on, so the site loads only when a proxy routes it to
// the test's server.
const shopAddr = "192.0.2.10"

// proxiedShop starts a proxy with a login whose only destination is a
// page saying name, at shopAddr on any port.
func proxiedShop(t *testing.T, name, user, password string) *testsite.Proxy {
	t.Helper()
	shop := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "<!doctype html><title>Shop</title><h1>Shop through proxy %s</h1>", name)
	}))
	t.Cleanup(shop.Close)
	p := testsite.NewProxy(user, password, func(target string) string {
		if host, _, _ := net.SplitHostPort(target); host == shopAddr {
			return shop.Listener.Addr().String()
		}
		return ""
	})
	t.Cleanup(p.Close)
	return p
}

func loginFile(t *testing.T, login string) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "login")
	if err := os.WriteFile(f, []byte(login+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return f
}

// TestUpstreamProxy (issue 28 point 3): one daemon with a --proxy whose
// login is in a file, driven through MCP, the HTTP API and the CLI, with
// real Chromium and real proxies on loopback. The daemon's proxy carries
// a session that has none of its own (MCP); a launch proxy with a login
// carries its session alone (HTTP API, then the CLI's --session-proxy);
// a target the guard refuses, and the proxy's own address, never reach a
// proxy; a refused login says so; no password is shown or kept in the
// clear.
func TestUpstreamProxy(t *testing.T) {
	a := proxiedShop(t, "A", "ada", "pw-for-a")
	b := proxiedShop(t, "B", "bob", "pw-for-b")
	shop := fmt.Sprintf("http://%s:8080/", shopAddr)

	// MCP: the daemon's proxy.
	d := newMCPDriver(t, "--allow-host", shopAddr, "--proxy", a.URL, "--proxy-login-file", loginFile(t, "ada:pw-for-a"))
	r := d.do(t, tool.Input{Action: "navigate", Session: "via-a", URL: shop})
	if !r.Success || !strings.Contains(r.Content, "Shop through proxy A") {
		t.Fatalf("MCP through the daemon's proxy: %s %s", r.Error, r.Content)
	}
	if got := a.Requests(); !slices.Contains(got, "CONNECT "+shopAddr+":8080 as ada") {
		t.Errorf("proxy A saw %q", got)
	}

	// The HTTP API: a session's own proxy, with a login.
	start := time.Now()
	api := func(in tool.Input) (tool.Result, string) {
		raw := postAction(t, d.data, in)
		if strings.Contains(raw, "pw-for-b") || strings.Contains(raw, "not-the-pw") {
			t.Errorf("%s answered with a proxy password: %s", in.Action, raw)
		}
		var r tool.Result
		if err := json.Unmarshal([]byte(raw), &r); err != nil {
			t.Fatalf("%s: %q: %v", in.Action, raw, err)
		}
		return r, raw
	}
	r, raw := api(tool.Input{Action: "launch", Session: "via-b", Proxy: &tool.Proxy{Server: b.URL, Username: "bob", Password: "pw-for-b"}})
	if !r.Success || !strings.Contains(raw, "through proxy "+b.URL+" (login bob)") {
		t.Fatalf("launch with a proxy: %s", raw)
	}
	if r, raw = api(tool.Input{Action: "navigate", Session: "via-b", URL: shop}); !r.Success || !strings.Contains(raw, "Shop through proxy B") {
		t.Fatalf("the HTTP API through the session's proxy: %s", raw)
	}
	if got := b.Requests(); len(got) != 1 || got[0] != "CONNECT "+shopAddr+":8080 as bob" {
		t.Errorf("proxy B saw %q", got)
	}
	r, raw = api(tool.Input{Action: "status"})
	if !strings.Contains(raw, "session via-b: through proxy "+b.URL+" (its own, login bob)") ||
		!strings.Contains(raw, "session via-a: through proxy "+a.URL+" (the daemon's)") {
		t.Errorf("status: %s", r.Content)
	}
	// A launch on the running session with another proxy is refused.
	if r, raw = api(tool.Input{Action: "launch", Session: "via-b", Proxy: &tool.Proxy{Server: a.URL}}); r.Success || !strings.Contains(r.Error, "close it first") {
		t.Errorf("another proxy for a running session: %s", raw)
	}

	// Refused by the guard: an internal address, and the proxy itself
	// (loopback is allowed to this daemon). Neither proxy hears of them.
	na, nb := len(a.Requests()), len(b.Requests())
	if r, raw = api(tool.Input{Action: "navigate", Session: "via-b", URL: "http://10.0.0.5:8080/"}); r.Success || !strings.Contains(r.Error, "refused") {
		t.Errorf("an internal address: %s", raw)
	}
	if r, raw = api(tool.Input{Action: "navigate", Session: "via-b", URL: b.URL + "/"}); r.Success || !strings.Contains(r.Error, "refused: it is the session's upstream proxy") {
		t.Errorf("the proxy's own address: %s", raw)
	}
	if len(a.Requests()) != na || len(b.Requests()) != nb {
		t.Errorf("a refused target reached a proxy: A %q, B %q", a.Requests()[na:], b.Requests()[nb:])
	}

	// A login the proxy refuses.
	api(tool.Input{Action: "launch", Session: "wrong", Proxy: &tool.Proxy{Server: b.URL, Username: "bob", Password: "not-the-pw"}})
	if r, raw = api(tool.Input{Action: "navigate", Session: "wrong", URL: shop}); r.Success || !strings.Contains(r.Error, "refused the login (407 Proxy Authentication Required)") ||
		!strings.Contains(r.Error, "launch it again") || !strings.HasPrefix(r.Error, "navigation to "+shop+" failed") {
		t.Errorf("a refused login: %s", raw)
	}

	// The CLI: --session-proxy with its login from a file (the default
	// profile's session, created by this launch).
	cliRun := func(args ...string) (tool.Result, string) {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		var stdout, stderr bytes.Buffer
		cmd := exec.CommandContext(ctx, browserdBin(t), append([]string{"--json", "--data", d.data, "--listen", ""}, args...)...)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		_ = cmd.Run()
		var r tool.Result
		if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
			t.Fatalf("browserd %v: %q %q", args, stdout.String(), stderr.String())
		}
		return r, stdout.String() + stderr.String()
	}
	if r, out := cliRun("launch", "--session-proxy", b.URL, "--session-proxy-login-file", loginFile(t, "bob:pw-for-b")); !r.Success || !strings.Contains(out, "through proxy "+b.URL) {
		t.Fatalf("CLI launch --session-proxy: %s", out)
	}
	if r, out := cliRun("open", shop); !r.Success || !strings.Contains(r.Content, "Shop through proxy B") {
		t.Fatalf("CLI open through the session's proxy: %s", out)
	}

	// Passwords: in no answer, and sealed at rest (captures) or nowhere
	// (the daemon's log).
	waitCapture(t, socketDo(t, d.data), "via-b", start, shop, 10*time.Second)
	_ = filepath.WalkDir(d.data, func(path string, de fs.DirEntry, err error) error {
		if err != nil || de.IsDir() {
			return nil
		}
		if b, err := os.ReadFile(path); err == nil && (bytes.Contains(b, []byte("pw-for-a")) || bytes.Contains(b, []byte("pw-for-b"))) {
			t.Errorf("%s holds a proxy password in plain text", path)
		}
		return nil
	})
}

// TestUpstreamProxyResume: a session's proxy, login included, is kept in
// its captures (sealed) and comes back with it: after kill -9 and a
// restart, the resumed tab loads through the proxy again.
func TestUpstreamProxyResume(t *testing.T) {
	t.Parallel() // its own daemon or engine: waits more than it works, beside others (make test's budget)
	b := proxiedShop(t, "B", "bob", "pw-for-b")
	shop := fmt.Sprintf("http://%s:8080/", shopAddr)
	data := t.TempDir()
	flags := []string{"--allow-host", shopAddr, "--proxy", "none"}
	d := startDaemon(t, data, flags...)
	do := socketDo(t, data)
	if r := do(tool.Input{Action: "launch", Session: "keep", Proxy: &tool.Proxy{Server: b.URL, Username: "bob", Password: "pw-for-b"}}); !r.Success {
		t.Fatal(r.Error)
	}
	since := time.Now()
	if r := do(tool.Input{Action: "navigate", Session: "keep", URL: shop}); !r.Success || !strings.Contains(r.Content, "Shop through proxy B") {
		t.Fatalf("navigate: %s %s", r.Error, r.Content)
	}
	waitCapture(t, do, "keep", since, shop, 10*time.Second)

	_, do = killAndRestart(t, d, data, flags...)
	if r := do(tool.Input{Action: "session_resume", Session: "keep"}); !r.Success {
		t.Fatalf("session_resume: %s", r.Error)
	}
	r := do(tool.Input{Action: "snapshot", Session: "keep"})
	if !r.Success || !strings.Contains(r.Content, "Shop through proxy B") {
		t.Errorf("the resumed tab: %s %s", r.Error, r.Content)
	}
	if got := b.Requests(); len(got) != 2 || got[1] != "CONNECT "+shopAddr+":8080 as bob" {
		t.Errorf("proxy B saw %q, want the resumed tab's load with the login", got)
	}
	if r := do(tool.Input{Action: "status"}); !strings.Contains(r.Content, "session keep: through proxy "+b.URL+" (its own, login bob)") {
		t.Errorf("status after the resume:\n%s", r.Content)
	}
}
