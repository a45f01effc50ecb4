//go:build linux

package e2e

import (
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestMetrics (issue #15 point 7): /metrics, scraped with the admin token,
// shows the counters move as an agent works; without a token it is 401.
func TestMetrics(t *testing.T) {
	data := t.TempDir()
	addr := freeAddr(t)
	startDaemon(t, data, "--listen", addr)
	token := adminToken(t, data)
	scrape := func() string {
		t.Helper()
		req, _ := http.NewRequest("GET", "http://"+addr+"/metrics", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("/metrics: %d %s", resp.StatusCode, b)
		}
		return string(b)
	}
	value := func(text, series string) float64 {
		t.Helper()
		m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(series) + ` (\S+)$`).FindStringSubmatch(text)
		if m == nil {
			return 0
		}
		v, _ := strconv.ParseFloat(m[1], 64)
		return v
	}
	if resp, err := http.Get("http://" + addr + "/metrics"); err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("/metrics without a token: %v %v", resp.StatusCode, err)
	}
	before := scrape()
	api := socketAPI(t, data)
	var res struct {
		Success bool   `json:"success"`
		Error   string `json:"error"`
	}
	for range 2 {
		api.expect(200, "POST", "/api/actions", map[string]any{"action": "navigate", "session": "m", "url": site.URL("/form"), "snapshot": false}, &res)
		if !res.Success {
			t.Fatal(res.Error)
		}
	}
	api.expect(200, "POST", "/api/actions", map[string]any{"action": "click", "session": "m", "selector": "#nothing-here", "timeout": 500}, &res)
	after := scrape()
	for _, c := range []struct {
		series string
		want   float64
	}{
		{`browserd_actions_total{action="navigate",outcome="ok"}`, 2},
		{`browserd_actions_total{action="click",outcome="error"}`, 1},
		{`browserd_action_seconds_count{action="navigate"}`, 2},
	} {
		if got := value(after, c.series) - value(before, c.series); got != c.want {
			t.Errorf("%s moved by %v, want %v", c.series, got, c.want)
		}
	}
	if v := value(after, `browserd_egress_requests_total{outcome="ok"}`) - value(before, `browserd_egress_requests_total{outcome="ok"}`); v < 2 {
		t.Errorf("the guard let %v requests through, want the two navigations' at least", v)
	}
	if v := value(after, "browserd_tabs"); v != 1 {
		t.Errorf("browserd_tabs = %v, want 1", v)
	}
	if v := value(after, "browserd_chromium_processes"); v < 1 {
		t.Errorf("browserd_chromium_processes = %v, want Chromium's", v)
	}
	if v := value(after, `browserd_sessions{state="active"}`); v != 1 {
		t.Errorf(`browserd_sessions{state="active"} = %v, want 1`, v)
	}
	if !strings.Contains(after, "browserd_capture_seconds") {
		t.Error("no capture histogram")
	}
}
