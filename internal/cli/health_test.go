package cli

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestLocalURL(t *testing.T) {
	for listen, want := range map[string]string{
		"0.0.0.0:8765":   "http://127.0.0.1:8765",
		":8765":          "http://127.0.0.1:8765",
		"[::]:8765":      "http://[::1]:8765",
		"10.0.0.5:9000":  "http://10.0.0.5:9000",
		"127.0.0.1:8765": "http://127.0.0.1:8765",
		"node1:8765":     "http://node1:8765",
	} {
		if got, err := localURL(listen); err != nil || got != want {
			t.Errorf("localURL(%q) = %q, %v; want %q", listen, got, err, want)
		}
	}
	if _, err := localURL("8765"); err == nil {
		t.Error("localURL(8765): no error")
	}
}

// TestHealth: health asks GET /api/health at --listen's address (its
// wildcard as loopback) or --url, exits 1 when the daemon is not ok or
// does not answer, and never connects to (so never starts) a daemon.
func TestHealth(t *testing.T) {
	ok := true
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/health" || r.Header.Get("Authorization") != "" {
			http.NotFound(w, r)
			return
		}
		if !ok {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
		w.Write([]byte(`{"ok":` + map[bool]string{true: "true", false: "false"}[ok] + `,"pid":42,"version":"v9"}`))
	}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "http://"))

	d := &fakeDaemon{}
	for _, args := range [][]string{
		{"health", "--url", srv.URL},
		{"health", "--url", srv.URL + "/"},
		{"--listen", "0.0.0.0:" + port, "health"},
	} {
		code, stdout, stderr := runWith(t, d, args...)
		if code != 0 || !strings.HasPrefix(stdout, "ok: browserd v9 (pid 42) at http://127.0.0.1:"+port+"/api/health") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
	}
	if code, stdout, _ := runWith(t, d, "--json", "health", "--url", srv.URL); code != 0 || !strings.Contains(stdout, `"pid":42`) {
		t.Errorf("--json health: exit %d, stdout %q", code, stdout)
	}

	ok = false
	if code, _, stderr := runWith(t, d, "health", "--url", srv.URL); code != 1 || !strings.Contains(stderr, "is not ok: HTTP 503") {
		t.Errorf("not ok: exit %d, stderr %q", code, stderr)
	}
	srv.Close()
	if code, _, stderr := runWith(t, d, "health", "--url", srv.URL, "--timeout", "2s"); code != 1 || !strings.Contains(stderr, "does not answer at "+srv.URL+"/api/health") {
		t.Errorf("gone: exit %d, stderr %q", code, stderr)
	}
	// --listen '': the Unix socket, where no daemon runs here.
	if code, _, stderr := runWith(t, d, "--listen", "", "health"); code != 1 || !strings.Contains(stderr, "unreachable") {
		t.Errorf("socket: exit %d, stderr %q", code, stderr)
	}
	if code, _, stderr := runWith(t, d, "health", "--url", "localhost:8765"); code != 2 {
		t.Errorf("bad --url: exit %d, stderr %q", code, stderr)
	}
	if d.cfg.Data != "" {
		t.Error("health connected to a daemon (and would have started one)")
	}
}
