package daemon_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/browserd/browserd/internal/auth"
	"github.com/browserd/browserd/internal/client"
	"github.com/browserd/browserd/internal/config"
	"github.com/browserd/browserd/internal/daemon"
	"github.com/browserd/browserd/internal/freeport"
	"github.com/browserd/browserd/internal/metrics"
	"github.com/browserd/browserd/internal/tool"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fakeEngine answers every action with success and records Close.
type fakeEngine struct {
	mu     sync.Mutex
	inputs []tool.Input
	closed int
}

func (f *fakeEngine) Do(_ context.Context, in tool.Input) (tool.Result, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.inputs = append(f.inputs, in)
	return tool.Result{Action: in.Action, Success: true, Title: "Fake", Content: "page"}, nil
}

func (f *fakeEngine) Close(context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed++
	return nil
}

func (f *fakeEngine) got() []tool.Input {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]tool.Input(nil), f.inputs...)
}

func (f *fakeEngine) closeCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.closed
}

// testConfig is a resolved config on a fresh data dir, socket only.
func testConfig(t *testing.T) config.Config {
	t.Helper()
	// Short path: Unix socket paths are limited to 107 bytes.
	dir, err := os.MkdirTemp("", "bd")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	cfg := config.Default()
	cfg.Data = filepath.Join(dir, "data")
	cfg.Listen = ""
	if err := cfg.Resolve(); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// start runs the daemon in a goroutine and returns its stop function, which
// cancels it and returns Run's error.
func start(t *testing.T, cfg config.Config, eng daemon.Engine) (stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- daemon.Run(ctx, cfg, eng, nil) }()
	c := client.New(cfg.SocketPath())
	defer c.Close()
	deadline := time.Now().Add(5 * time.Second)
	for c.Health(ctx) != nil {
		select {
		case err := <-done:
			cancel()
			t.Fatalf("daemon exited while starting: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			cancel()
			t.Fatal("daemon did not answer within 5s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	var once sync.Once
	var err error
	stop = func() error {
		once.Do(func() { cancel(); err = <-done })
		return err
	}
	t.Cleanup(func() { stop() })
	return stop
}

func TestLifecycle(t *testing.T) {
	cfg := testConfig(t)
	eng := &fakeEngine{}
	stop := start(t, cfg, eng)
	ctx := context.Background()

	st, err := os.Stat(cfg.SocketPath())
	if err != nil {
		t.Fatal(err)
	}
	if mode := st.Mode().Perm(); mode != 0o600 {
		t.Errorf("socket mode = %o, want 600", mode)
	}
	if st, err := os.Stat(cfg.Data); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("data dir: %v, mode %v; want 0700", err, st.Mode().Perm())
	}

	c := client.New(cfg.SocketPath())
	defer c.Close()
	h, err := c.HealthInfo(ctx)
	if err != nil {
		t.Fatalf("health: %v", err)
	}
	if h.PID != os.Getpid() || h.Version == "" {
		t.Errorf("health = %+v, want this pid and a version", h)
	}
	pid, running, err := client.DaemonPID(cfg.Data)
	if err != nil || !running || pid != os.Getpid() {
		t.Errorf("DaemonPID = %d, %v, %v; want %d, true", pid, running, err, os.Getpid())
	}

	res, err := c.Do(ctx, tool.Input{Action: "navigate", URL: "https://example.com/", Task: "t"})
	if err != nil {
		t.Fatalf("action: %v", err)
	}
	if !res.Success || res.Title != "Fake" || res.Content != "page" {
		t.Errorf("result = %+v", res)
	}
	if got := eng.got(); len(got) != 1 || got[0].URL != "https://example.com/" || got[0].Task != "t" {
		t.Errorf("engine got %+v", got)
	}

	// An action the daemon refuses before the engine sees it.
	res, err = c.Do(ctx, tool.Input{Action: "click"})
	if err != nil || res.Success || !strings.Contains(res.Error, "needs a target") {
		t.Errorf("click without target: %+v, %v", res, err)
	}

	// A second daemon on the same data dir is refused, and closes its engine.
	eng2 := &fakeEngine{}
	err = daemon.Run(ctx, cfg, eng2, nil)
	var re *daemon.RunningError
	if !errors.As(err, &re) {
		t.Fatalf("second Run: %v, want a RunningError", err)
	}
	want := "another browserd (pid " + strconv.Itoa(os.Getpid()) + ") is already running for " + cfg.Data +
		"; stop it with: browserd stop --data " + cfg.Data
	if err.Error() != want {
		t.Errorf("second Run error:\n got %s\nwant %s", err, want)
	}
	if eng2.closeCount() != 1 {
		t.Errorf("second engine closed %d times, want 1", eng2.closeCount())
	}
	// RunWith does not even make the engine: recovery must not run
	// against a live daemon's sessions.
	err = daemon.RunWith(ctx, cfg, func() (daemon.Engine, error) {
		t.Error("RunWith made an engine while another daemon holds the data directory")
		return &fakeEngine{}, nil
	}, nil)
	if !errors.As(err, &re) {
		t.Errorf("second RunWith: %v, want a RunningError", err)
	}

	c.Close()
	if err := stop(); err != nil {
		t.Errorf("Run returned %v after cancel, want nil", err)
	}
	if eng.closeCount() != 1 {
		t.Errorf("engine closed %d times, want 1", eng.closeCount())
	}
	for _, f := range []string{cfg.SocketPath(), cfg.Path("browserd.pid")} {
		if _, err := os.Stat(f); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s still there after stop (%v)", f, err)
		}
	}
	if _, running, _ := client.DaemonPID(cfg.Data); running {
		t.Error("lock still held after stop")
	}
	if err := c.Health(ctx); !errors.Is(err, client.ErrUnreachable) {
		t.Errorf("health after stop: %v, want ErrUnreachable", err)
	}
}

func TestStaleSocketReplaced(t *testing.T) {
	cfg := testConfig(t)
	if err := os.MkdirAll(cfg.Data, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg.SocketPath(), []byte("stale"), 0o600); err != nil {
		t.Fatal(err)
	}
	stop := start(t, cfg, &fakeEngine{})
	if err := stop(); err != nil {
		t.Fatal(err)
	}
}

func TestHTTPListener(t *testing.T) {
	cfg := testConfig(t)
	cfg.Listen = freePort(t)
	start(t, cfg, &fakeEngine{})
	resp, body := getHealth(t, cfg.Listen)
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"ok":true`) {
		t.Errorf("GET /api/health: %d %s", resp.StatusCode, body)
	}
	// Without a token store nothing but health is served over TCP.
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	for _, path := range []string{"/mcp", "/api/sessions"} {
		resp, err := hc.Get("http://" + cfg.Listen + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("GET %s with no token store: %d, want 401", path, resp.StatusCode)
		}
	}
}

// memTokens is an in-memory auth.Store.
type memTokens struct {
	mu sync.Mutex
	m  map[string]auth.Token // by hash
}

func (m *memTokens) CreateToken(_ context.Context, t auth.Token) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.m == nil {
		m.m = map[string]auth.Token{}
	}
	m.m[t.Hash] = t
	return nil
}

func (m *memTokens) TokenByHash(_ context.Context, h string) (auth.Token, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.m[h]
	if !ok {
		return t, auth.ErrUnknown
	}
	return t, nil
}

func (m *memTokens) ListTokens(context.Context, string) ([]auth.Token, error) { return nil, nil }

func (m *memTokens) RevokeToken(_ context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for h, t := range m.m {
		if t.ID == id {
			delete(m.m, h)
			return nil
		}
	}
	return auth.ErrUnknown
}

// tokenEngine is a fakeEngine that keeps tokens and records each call's owner.
type tokenEngine struct {
	fakeEngine
	tokens memTokens
	owners []string
}

func (e *tokenEngine) Tokens() auth.Store { return &e.tokens }

func (e *tokenEngine) Do(ctx context.Context, in tool.Input) (tool.Result, error) {
	e.mu.Lock()
	e.owners = append(e.owners, auth.Owner(ctx))
	e.mu.Unlock()
	return e.fakeEngine.Do(ctx, in)
}

func TestBearerTokens(t *testing.T) {
	cfg := testConfig(t)
	cfg.Listen = freePort(t)
	eng := &tokenEngine{}
	start(t, cfg, eng)
	// First start: admin's token in <data>/token, 0600.
	fi, err := os.Stat(cfg.Path("token"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v %v", fi, err)
	}
	b, _ := os.ReadFile(cfg.Path("token"))
	admin := strings.TrimSpace(string(b))
	bob, _, err := auth.New(t.Context(), &eng.tokens, "bob", "")
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	post := func(token string) int {
		req, _ := http.NewRequest("POST", "http://"+cfg.Listen+"/api/actions", strings.NewReader(`{"action":"status"}`))
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, tc := range []struct {
		token string
		want  int
	}{{"", 401}, {"bd_wrong", 401}, {"Basic x", 401}, {admin, 200}, {bob, 200}} {
		if got := post(tc.token); got != tc.want {
			t.Errorf("token %.8q: %d, want %d", tc.token, got, tc.want)
		}
	}
	eng.mu.Lock()
	owners := strings.Join(eng.owners, ",")
	eng.mu.Unlock()
	if owners != "admin,bob" {
		t.Errorf("calls ran as %q, want admin,bob", owners)
	}
	// Revoked: refused on the next request.
	tok, _ := eng.tokens.TokenByHash(t.Context(), auth.Hash(bob))
	if err := eng.tokens.RevokeToken(t.Context(), tok.ID); err != nil {
		t.Fatal(err)
	}
	if got := post(bob); got != 401 {
		t.Errorf("revoked token: %d, want 401", got)
	}
	// /mcp with a token reaches the stateless MCP handler (GET: 405).
	req, _ := http.NewRequest("GET", "http://"+cfg.Listen+"/mcp", nil)
	req.Header.Set("Authorization", "Bearer "+admin)
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET /mcp with a token: %d, want 405", resp.StatusCode)
	}
}

func TestListenBusy(t *testing.T) {
	cfg := testConfig(t)
	cfg.Listen = freePort(t)
	start(t, cfg, &fakeEngine{})
	other := testConfig(t)
	other.Listen = cfg.Listen
	eng := &fakeEngine{}
	err := daemon.Run(context.Background(), other, eng, nil)
	if err == nil || !strings.Contains(err.Error(), "--listen") {
		t.Errorf("Run on a busy port: %v, want an error naming --listen", err)
	}
	if eng.closeCount() != 1 {
		t.Errorf("engine closed %d times, want 1", eng.closeCount())
	}
	for _, f := range []string{other.SocketPath(), other.Path("browserd.pid")} {
		if _, err := os.Stat(f); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s left behind after a failed start", f)
		}
	}
}

// freePort returns a loopback address that was free a moment ago.
func freePort(t *testing.T) string {
	t.Helper()
	return freeport.Addr(t)
}

// The daemon reports its effective settings over the Unix socket, so that a
// client can tell it runs with other settings than it was given; over TCP,
// where health needs no token, it says no more than that it is up.
func TestHealthReportsSettings(t *testing.T) {
	cfg := testConfig(t)
	cfg.Listen = freePort(t)
	cfg.AllowHosts = []string{"10.0.0.5"}
	cfg.Headed = true
	start(t, cfg, &fakeEngine{})

	c := client.New(cfg.SocketPath())
	defer c.Close()
	h, err := c.HealthInfo(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := []config.Setting{{Flag: "allow-host", Values: []string{"10.0.0.5"}}, {Flag: "listen", Values: []string{cfg.Listen}}, {Flag: "headed"}}
	if !reflect.DeepEqual(h.Settings, want) {
		t.Errorf("settings over the socket = %+v, want %+v", h.Settings, want)
	}

	resp, body := getHealth(t, cfg.Listen)
	if resp.StatusCode != 200 || strings.Contains(string(body), "settings") || strings.Contains(string(body), "10.0.0.5") {
		t.Errorf("GET /api/health over TCP: %d %s; want ok without the settings", resp.StatusCode, body)
	}
}

// getHealth is GET /api/health over TCP at addr: the response and its body.
func getHealth(t *testing.T, addr string) (*http.Response, []byte) {
	t.Helper()
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := hc.Get("http://" + addr + "/api/health")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, body
}

// metricsEngine is a tokenEngine with metrics of its own, and a
// metrics.Source.
type metricsEngine struct {
	tokenEngine
	set *metrics.Set
}

func (e *metricsEngine) Metrics() *metrics.Set { return e.set }

func (e *metricsEngine) Stats(context.Context) metrics.Stats {
	return metrics.Stats{SessionsByState: map[string]int{"active": 1}, Tasks: 2, Tabs: 3}
}

// /metrics is admin's on --listen and the socket, and anyone's on
// --metrics-listen, which serves nothing else; both close with the daemon.
func TestMetrics(t *testing.T) {
	cfg := testConfig(t)
	cfg.Listen = freePort(t)
	cfg.MetricsListen = freePort(t)
	eng := &metricsEngine{set: metrics.New()}
	eng.set.Action("navigate", true, 40*time.Millisecond)
	stop := start(t, cfg, eng)
	b, _ := os.ReadFile(cfg.Path("token"))
	admin := strings.TrimSpace(string(b))
	bob, _, err := auth.New(t.Context(), &eng.tokens, "bob", "")
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	get := func(url, token string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest("GET", url, nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatalf("GET %s: %v", url, err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	wantMetrics := func(where, body string) {
		t.Helper()
		for _, line := range []string{
			`browserd_actions_total{action="navigate",outcome="ok"} 1`,
			`browserd_sessions{state="active"} 1`,
			`browserd_tabs 3`,
		} {
			if !strings.Contains(body, "\n"+line+"\n") {
				t.Errorf("%s: the metrics lack %q", where, line)
			}
		}
	}

	for _, tc := range []struct {
		token string
		want  int
	}{{"", 401}, {"bd_wrong", 401}, {bob, 403}, {admin, 200}} {
		status, body := get("http://"+cfg.Listen+"/metrics", tc.token)
		if status != tc.want {
			t.Errorf("GET /metrics on --listen with token %.8q: %d %s, want %d", tc.token, status, body, tc.want)
		}
		if status == 403 && !strings.Contains(body, "--metrics-listen") {
			t.Errorf("403 on /metrics does not say where else to scrape: %s", body)
		}
		if status == 200 {
			wantMetrics("--listen with admin's token", body)
		}
	}

	status, body := get("http://"+cfg.MetricsListen+"/metrics", "")
	if status != 200 {
		t.Fatalf("GET /metrics on --metrics-listen: %d %s", status, body)
	}
	wantMetrics("--metrics-listen", body)
	for _, path := range []string{"/api/health", "/api/sessions", "/mcp", "/"} {
		if status, _ := get("http://"+cfg.MetricsListen+path, admin); status != http.StatusNotFound {
			t.Errorf("GET %s on --metrics-listen: %d, want 404", path, status)
		}
	}

	// Over the socket callers are admin.
	uc := &http.Client{Transport: &http.Transport{
		DisableKeepAlives: true,
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", cfg.SocketPath())
		},
	}}
	resp, err := uc.Get("http://browserd/metrics")
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("GET /metrics over the socket: %d", resp.StatusCode)
	}
	wantMetrics("the socket", string(b))

	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := net.Dial("tcp", cfg.MetricsListen); err == nil {
		t.Error("--metrics-listen still listens after the daemon stopped")
	}
}

// Without metrics of the engine's own the daemon still serves the Go
// runtime's and the process's.
func TestMetricsOfTheDaemon(t *testing.T) {
	cfg := testConfig(t)
	cfg.MetricsListen = freePort(t)
	start(t, cfg, &fakeEngine{})
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := hc.Get("http://" + cfg.MetricsListen + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(b), "\ngo_goroutines ") || !strings.Contains(string(b), "browserd_lease_takeovers_total 0") {
		t.Errorf("GET /metrics: %d %.300s", resp.StatusCode, b)
	}
}

// A busy --metrics-listen stops the start, naming the flag, and leaves
// nothing behind.
func TestMetricsListenBusy(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	cfg := testConfig(t)
	cfg.Listen = freePort(t)
	cfg.MetricsListen = ln.Addr().String()
	eng := &fakeEngine{}
	err = daemon.Run(context.Background(), cfg, eng, nil)
	if err == nil || !strings.Contains(err.Error(), "--metrics-listen") {
		t.Errorf("Run with a busy --metrics-listen: %v, want an error naming --metrics-listen", err)
	}
	if eng.closeCount() != 1 {
		t.Errorf("engine closed %d times, want 1", eng.closeCount())
	}
	if c, err := net.Dial("tcp", cfg.Listen); err == nil {
		c.Close()
		t.Error("--listen left open after a failed start")
	}
	for _, f := range []string{cfg.SocketPath(), cfg.Path("browserd.pid")} {
		if _, err := os.Stat(f); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s left behind after a failed start", f)
		}
	}
}

// TestStoppingSaysWhy: the daemon's "stopping" line says what ended it —
// a signal's name when one did — so that a daemon that stops unasked (a
// stray SIGTERM) is told from one that failed.
func TestStoppingSaysWhy(t *testing.T) {
	cfg := testConfig(t)
	var buf syncBuffer
	log := slog.New(slog.NewJSONHandler(&buf, nil))
	ctx, cancel := context.WithCancelCause(context.Background())
	done := make(chan error, 1)
	go func() { done <- daemon.Run(ctx, cfg, &fakeEngine{}, log) }()
	for deadline := time.Now().Add(5 * time.Second); !strings.Contains(buf.String(), "browserd started"); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			cancel(nil)
			t.Fatalf("no start logged in 5 s:\n%s", buf.String())
		}
	}
	cancel(errors.New("terminated signal received"))
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"msg":"browserd stopping","cause":"terminated signal received"`) {
		t.Errorf("the stopping line does not say why:\n%s", buf.String())
	}
}

// syncBuffer is a bytes.Buffer safe for a logger and a reader at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
