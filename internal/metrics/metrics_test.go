package metrics_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/browserd/browserd/internal/egress"
	"github.com/browserd/browserd/internal/metrics"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// scrape fetches the Set's metrics through its Handler in the text format.
func scrape(t *testing.T, s *metrics.Set) string {
	t.Helper()
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /metrics: %d %s", rec.Code, rec.Body)
	}
	return rec.Body.String()
}

// has reports whether the scrape has the sample line exactly.
func has(body, line string) bool {
	for l := range strings.SplitSeq(body, "\n") {
		if l == line {
			return true
		}
	}
	return false
}

func wantLines(t *testing.T, body string, lines ...string) {
	t.Helper()
	for _, l := range lines {
		if !has(body, l) {
			t.Errorf("scrape lacks %q", l)
		}
	}
}

func TestCountersMove(t *testing.T) {
	s := metrics.New()
	body := scrape(t, s)
	// Known, few series start at zero.
	wantLines(t, body,
		`browserd_captures_total{outcome="ok"} 0`,
		`browserd_captures_total{outcome="error"} 0`,
		`browserd_resumes_total{outcome="error"} 0`,
		`browserd_egress_requests_total{outcome="ok"} 0`,
		`browserd_guard_refusals_total{rule="loopback"} 0`,
		`browserd_guard_refusals_total{rule="other_user"} 0`,
		`browserd_store_errors_total{op="save_capture"} 0`,
		`browserd_lease_takeovers_total 0`,
	)
	// The Go and process collectors are there.
	for _, name := range []string{"go_goroutines", "process_resident_memory_bytes"} {
		if !strings.Contains(body, "\n"+name+" ") {
			t.Errorf("scrape lacks %s", name)
		}
	}

	s.Action("navigate", true, 1200*time.Millisecond)
	s.Action("navigate", false, 3*time.Millisecond)
	s.Action("click", true, 80*time.Millisecond)
	s.Capture(true, 20*time.Millisecond)
	s.Capture(false, time.Second)
	s.Resume(true)
	s.LeaseTakeover()
	s.LeaseTakeover()
	s.Egress(true)
	s.Egress(false)
	s.GuardRefused(egress.RefusedMetadata)
	s.StoreError("save_capture")

	body = scrape(t, s)
	wantLines(t, body,
		`browserd_actions_total{action="navigate",outcome="ok"} 1`,
		`browserd_actions_total{action="navigate",outcome="error"} 1`,
		`browserd_actions_total{action="click",outcome="ok"} 1`,
		`browserd_action_seconds_bucket{action="navigate",le="0.005"} 1`,
		`browserd_action_seconds_bucket{action="navigate",le="1"} 1`,
		`browserd_action_seconds_bucket{action="navigate",le="2.5"} 2`,
		`browserd_action_seconds_bucket{action="navigate",le="60"} 2`,
		`browserd_action_seconds_count{action="navigate"} 2`,
		`browserd_action_seconds_count{action="click"} 1`,
		`browserd_captures_total{outcome="ok"} 1`,
		`browserd_captures_total{outcome="error"} 1`,
		`browserd_capture_seconds_count 2`,
		`browserd_capture_seconds_bucket{le="0.025"} 1`,
		`browserd_resumes_total{outcome="ok"} 1`,
		`browserd_resumes_total{outcome="error"} 0`,
		`browserd_lease_takeovers_total 2`,
		`browserd_egress_requests_total{outcome="ok"} 1`,
		`browserd_egress_requests_total{outcome="error"} 1`,
		`browserd_guard_refusals_total{rule="cloud_metadata"} 1`,
		`browserd_store_errors_total{op="save_capture"} 1`,
	)
}

// Label values outside their fixed lists count as "other", so that no
// caller can grow the number of series.
func TestLabelsAreBounded(t *testing.T) {
	s := metrics.New()
	for i := range 50 {
		name := strings.Repeat("x", i+1)
		s.Action(name, true, time.Millisecond)
		s.GuardRefused("loopback (" + name + ")")
		s.StoreError(name)
	}
	s.Action("", false, time.Millisecond)
	s.GuardRefused("") // what egress.RefusalKind says of an allowed request
	body := scrape(t, s)
	wantLines(t, body,
		`browserd_actions_total{action="other",outcome="ok"} 50`,
		`browserd_actions_total{action="other",outcome="error"} 1`,
		`browserd_action_seconds_count{action="other"} 51`,
		`browserd_guard_refusals_total{rule="other"} 50`,
		`browserd_store_errors_total{op="other"} 50`,
	)
	if strings.Contains(body, "xx") {
		t.Error("an unknown label value reached the scrape")
	}
}

// A nil *Set does nothing, and serves nothing.
func TestNilSet(t *testing.T) {
	var s *metrics.Set
	s.Action("navigate", true, time.Second)
	s.Capture(true, time.Second)
	s.Resume(false)
	s.LeaseTakeover()
	s.Egress(true)
	s.GuardRefused(egress.RefusedLoopback)
	s.StoreError("close")
	s.SetSource(nil)
	// Method values of a nil *Set are safe hooks for egress.Options.
	var onRefuse func(string) = s.GuardRefused
	onRefuse(egress.RefusedBlocked)
	if s.Registry() != nil {
		t.Error("nil Set has a registry")
	}
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != http.StatusNotFound {
		t.Errorf("nil Set's handler: %d, want 404", rec.Code)
	}
	st := &fakeStore{}
	if got := s.WrapStore(st); got != st {
		t.Errorf("nil Set's WrapStore wrapped the store")
	}
}

// fakeSource is a Source that counts its calls.
type fakeSource struct {
	mu    sync.Mutex
	stats metrics.Stats
	calls int
}

func (f *fakeSource) Stats(ctx context.Context) metrics.Stats {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	if _, ok := ctx.Deadline(); !ok {
		panic("Stats called without a deadline")
	}
	return f.stats
}

func (f *fakeSource) set(st metrics.Stats) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.stats = st
}

// The gauges are read from the Source at each scrape.
func TestSource(t *testing.T) {
	s := metrics.New()
	if body := scrape(t, s); strings.Contains(body, "browserd_tabs") {
		t.Error("gauges reported without a Source")
	}
	src := &fakeSource{}
	src.set(metrics.Stats{
		SessionsByState:   map[string]int{"active": 2, "recoverable": 1, "parked": 3, "weird": 1},
		Tasks:             4,
		Tabs:              7,
		ChromiumProcesses: 9,
		ChromiumRSSBytes:  512 << 20,
	})
	s.SetSource(src)
	body := scrape(t, s)
	wantLines(t, body,
		`browserd_sessions{state="active"} 2`,
		`browserd_sessions{state="recoverable"} 1`,
		`browserd_sessions{state="stale"} 0`,
		`browserd_sessions{state="closed"} 0`,
		`browserd_sessions{state="failed"} 0`,
		`browserd_sessions{state="other"} 4`,
		`browserd_tasks 4`,
		`browserd_tabs 7`,
		`browserd_chromium_processes 9`,
		`browserd_chromium_memory_bytes 5.36870912e+08`,
	)
	src.set(metrics.Stats{Tabs: 1})
	body = scrape(t, s)
	wantLines(t, body, `browserd_tabs 1`, `browserd_sessions{state="active"} 0`)
	if strings.Contains(body, `state="other"`) {
		t.Error(`state="other" reported with no such session`)
	}
	src.mu.Lock()
	calls := src.calls
	src.mu.Unlock()
	if calls != 2 {
		t.Errorf("Stats called %d times for 2 scrapes", calls)
	}
	s.SetSource(nil)
	if body := scrape(t, s); strings.Contains(body, "browserd_tabs") {
		t.Error("gauges reported after SetSource(nil)")
	}
}

// The handler speaks the plain text format a Prometheus scraper asks for
// by default.
func TestHandlerFormat(t *testing.T) {
	s := metrics.New()
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	resp, err := srv.Client().Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Errorf("Content-Type %q, want text/plain", ct)
	}
	if !strings.Contains(string(b), "# TYPE browserd_actions_total counter") &&
		!strings.Contains(string(b), "# HELP browserd_lease_takeovers_total") {
		t.Errorf("scrape lacks browserd's metrics:\n%.500s", b)
	}
	srv.Client().CloseIdleConnections()
}
