//go:build linux

package e2e

import (
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/browserd/browserd/internal/config"
	"github.com/browserd/browserd/internal/engine"
	"github.com/browserd/browserd/internal/sealkey"
	"github.com/browserd/browserd/internal/storagestate"
	"github.com/browserd/browserd/internal/store"
	"github.com/browserd/browserd/internal/store/sqlite"
	"github.com/browserd/browserd/internal/tool"
)

// openStore opens the store of a test config, as the engine does.
func openStore(t *testing.T, cfg config.Config) *sqlite.Store {
	t.Helper()
	box, err := sealkey.Load(cfg.SecretKeyFile)
	if err != nil {
		t.Fatal(err)
	}
	st, err := sqlite.Open(cfg.DB, box)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// siteLogin logs user in to the test site over plain HTTP and returns the
// session cookie's value.
func siteLogin(t testing.TB, user string) string {
	t.Helper()
	hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := hc.PostForm(site.URL("/login"), url.Values{"username": {user}, "password": {"pw"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	for _, c := range resp.Cookies() {
		if c.Name == "sid" {
			return c.Value
		}
	}
	t.Fatal("the test site set no sid cookie")
	return ""
}

// loggedInCapture is a capture of one tab on the account page, logged in
// as user with a session-only cookie, localStorage and sessionStorage.
func loggedInCapture(t *testing.T, id, user string, taken time.Time) store.Capture {
	u, _ := url.Parse(site.URL("/"))
	return store.Capture{
		SessionID: id, Taken: taken,
		Tabs: []store.Tab{{ID: "t7", Task: "x", URL: site.URL("/account"), Title: "Account", Width: 800, Height: 600, Active: true,
			SessionStorage: []storagestate.NameValue{{Name: "tabid", Value: "tab-" + user}}}},
		Cookies: []storagestate.Cookie{{Name: "sid", Value: siteLogin(t, user), Domain: u.Hostname(), Path: "/", Expires: -1, HTTPOnly: true, SameSite: "Lax"}},
		Origins: []storagestate.Origin{{Origin: strings.TrimSuffix(site.URL("/"), "/"), LocalStorage: []storagestate.NameValue{{Name: "acct", Value: user}}}},
	}
}

func newEngine(t *testing.T, cfg config.Config) (*engine.Engine, func(tool.Input) tool.Result) {
	t.Helper()
	e, err := engine.New(cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := e.Close(context.Background()); err != nil {
			t.Errorf("closing the engine: %v", err)
		}
		waitNoChromium(t, cfg.Data)
	})
	return e, func(in tool.Input) tool.Result {
		t.Helper()
		r, err := e.Do(context.Background(), in)
		if err != nil {
			t.Fatalf("%s: %v", in.Action, err)
		}
		return r
	}
}

func states(r tool.Result) map[string]tool.SessionInfo {
	m := map[string]tool.SessionInfo{}
	for _, s := range r.Sessions {
		m[s.ID] = s
	}
	return m
}

// TestRecoveryStates: source 002's start-up algorithm over sessions an
// earlier run left active — no capture → closed, old capture → stale,
// damaged capture → failed (only that one), fresh → recoverable and
// resumable, another live node's → left alone — and what each state lets
// an agent do next.
func TestRecoveryStates(t *testing.T) {
	cfg := testConfig(t)
	st := openStore(t, cfg)
	ctx := context.Background()
	now := time.Now()
	navCapture := loggedInCapture(t, "nav", "nina", now.Add(-time.Minute))
	navCapture.Tabs[0].ID = "t17"
	navCapture.Tabs = append(navCapture.Tabs, store.Tab{ID: "t18", Task: "x", URL: site.URL("/form"), Title: "Form", Width: 800, Height: 600})
	for _, id := range []string{"nocap", "old", "bad", "good", "elsewhere", "nav"} {
		if err := st.CreateSession(ctx, store.Session{ID: id, Owner: "admin", CreatedAt: now.Add(-time.Hour)}); err != nil {
			t.Fatal(err)
		}
	}
	for id, c := range map[string]store.Capture{
		"old":       loggedInCapture(t, "old", "olga", now.Add(-48*time.Hour)),
		"bad":       loggedInCapture(t, "bad", "bert", now.Add(-time.Minute)),
		"good":      loggedInCapture(t, "good", "alice", now.Add(-time.Minute)),
		"elsewhere": loggedInCapture(t, "elsewhere", "eve", now.Add(-time.Minute)),
		"nav":       navCapture,
	} {
		if err := st.SaveCapture(ctx, c, 10); err != nil {
			t.Fatalf("%s: %v", id, err)
		}
	}
	if err := st.CorruptLatest(ctx, "bad"); err != nil {
		t.Fatal(err)
	}
	if ok, err := st.AcquireLease(ctx, "elsewhere", "another-node", now, time.Hour); err != nil || !ok {
		t.Fatalf("lease: %v %v", ok, err)
	}
	st.Close()

	_, do := newEngine(t, cfg)
	got := states(do(tool.Input{Action: "list_sessions", Filter: "all"}))
	for id, want := range map[string]string{"nocap": "closed", "old": "stale", "bad": "failed", "good": "recoverable", "elsewhere": "active"} {
		if got[id].State != want {
			t.Errorf("%s is %q (%s), want %s", id, got[id].State, got[id].Reason, want)
		}
	}
	if r := got["bad"].Reason; !strings.Contains(r, "capture") {
		t.Errorf("failed session's reason %q does not name the capture", r)
	}
	if r := do(tool.Input{Action: "list_sessions", Filter: "recoverable"}); len(r.Sessions) != 2 || !slices.ContainsFunc(r.Sessions, func(s tool.SessionInfo) bool { return s.ID == "good" }) {
		t.Errorf("recoverable filter: %+v", r.Sessions)
	}

	for id, wantErr := range map[string]string{
		"bad":       "failed",
		"old":       "stale",
		"nocap":     "closed",
		"elsewhere": "another browserd",
		"nosuch":    "no session",
	} {
		if r := do(tool.Input{Action: "session_resume", Session: id}); r.Success || !strings.Contains(r.Error, wantErr) {
			t.Errorf("session_resume %s: success=%v error=%q, want an error with %q", id, r.Success, r.Error, wantErr)
		}
	}
	// A recoverable id cannot be launched anew (a conflict) ...
	if r := do(tool.Input{Action: "launch", Session: "good"}); r.Success || !strings.Contains(r.Error, "session_resume") {
		t.Errorf("launch of a recoverable session: %+v", r)
	}
	// ... nor can an id another daemon holds.
	if r := do(tool.Input{Action: "navigate", Session: "elsewhere", URL: site.URL("/form")}); r.Success || !strings.Contains(r.Error, "another browserd") {
		t.Errorf("navigate in another node's session: %+v", r)
	}
	r := do(tool.Input{Action: "session_resume", Session: "good"})
	if !r.Success || len(r.Tabs) != 1 || r.Tabs[0].ID != "t7" {
		t.Fatalf("session_resume good: %+v", r)
	}
	want := tabState{Tab: "t7", Task: "x", URL: site.URL("/account"), Status: "Logged in as alice", Local: "alice", Session: "tab-alice"}
	if got := readTab(t, do, "good", "x", "t7"); got != want {
		t.Errorf("resumed tab:\n got %+v\nwant %+v", got, want)
	}
	if r := do(tool.Input{Action: "evaluate", Session: "good", Task: "x", Expression: "innerWidth + 'x' + innerHeight"}); text(r) != `"800x600"` && text(r) != "800x600" {
		t.Errorf("viewport after resume = %s, want 800x600", text(r))
	}
	// A navigate that resumes its session does not first load the captured
	// page of the tab it is about to take elsewhere (its history holds the
	// blank page it opened on and the new page, not the captured one: 3);
	// the task's other tab is back at its URL.
	r = do(tool.Input{Action: "navigate", Session: "nav", Task: "x", URL: site.URL("/links")})
	if !r.Success || r.Tab != "t17" || !strings.Contains(strings.Join(r.Notes, " "), "resumed") {
		t.Fatalf("navigate resuming a session: tab %s, %v %v", r.Tab, r.Error, r.Notes)
	}
	if r := do(tool.Input{Action: "evaluate", Session: "nav", Task: "x", Expression: "history.length"}); text(r) != "2" {
		t.Errorf("the resumed tab loaded its captured page before the navigate: history.length = %s", text(r))
	}
	if got := readTab(t, do, "nav", "x", "t18"); got.URL != site.URL("/form") {
		t.Errorf("the other resumed tab: %+v", got)
	}
	// A stale id is free: an action starts a new session under it.
	r = do(tool.Input{Action: "navigate", Session: "old", URL: site.URL("/account")})
	if !r.Success || !strings.Contains(strings.Join(r.Notes, " "), "was stale") {
		t.Errorf("navigate in a stale session's name: %v %v", r.Error, r.Notes)
	}
	if got := readTab(t, do, "old", "", r.Tab); got.Status != "Not logged in" {
		t.Errorf("the new session under a stale name inherited the old login: %+v", got)
	}
	// Closing the last task closes the session in the store.
	if r := do(tool.Input{Action: "close", Session: "old"}); !r.Success {
		t.Fatal(r.Error)
	}
	if got := states(do(tool.Input{Action: "list_sessions"})); got["old"].State != "closed" || got["good"].State != "active" {
		t.Errorf("after close: old %+v, good %+v", got["old"], got["good"])
	}
}

// TestIdleCloseResumes: a session closed by the idle policy is captured
// first and becomes recoverable; the next action on it brings its tabs
// back and says so.
func TestIdleCloseResumes(t *testing.T) {
	cfg := testConfig(t)
	cfg.IdleTimeout = 2 * time.Second
	_, do := newEngine(t, cfg)
	r := do(tool.Input{Action: "navigate", Session: "idle", Task: "k", URL: site.URL("/account?idle")})
	if !r.Success {
		t.Fatal(r.Error)
	}
	tab := r.Tab
	do(tool.Input{Action: "evaluate", Session: "idle", Task: "k", Expression: "sessionStorage.setItem('tabid', 'kept'), 1"})
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(250 * time.Millisecond) {
		if s := states(do(tool.Input{Action: "list_sessions"}))["idle"]; s.State == "recoverable" {
			if s.Tabs != 1 {
				t.Errorf("idle capture holds %d tabs, want 1", s.Tabs)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the idle session did not become recoverable")
		}
	}
	r = do(tool.Input{Action: "tabs", Session: "idle", Task: "k"})
	if !r.Success || len(r.Tabs) != 1 || r.Tabs[0].ID != tab || !strings.Contains(r.Tabs[0].URL, "/account?idle") {
		t.Fatalf("tabs after the idle close: %+v %s", r.Tabs, r.Error)
	}
	if !strings.Contains(strings.Join(r.Notes, " "), "was resumed") {
		t.Errorf("the result does not say the session was resumed: %v", r.Notes)
	}
	if got := readTab(t, do, "idle", "k", tab); got.Session != "kept" {
		t.Errorf("sessionStorage after the idle resume: %+v", got)
	}
}

// TestTwoDaemonsOneStore: two daemons (own data dirs, one store file, one
// key) never rehydrate the same session: when both resume the same
// sessions at once, exactly one wins each; a third daemon starting on the
// store leaves their live sessions alone.
func TestTwoDaemonsOneStore(t *testing.T) {
	shared := t.TempDir()
	mk := func() config.Config {
		cfg := testConfig(t)
		cfg.DB = shared + "/browserd.db"
		cfg.SecretKeyFile = shared + "/secret.key"
		return cfg
	}
	cfgA, cfgB := mk(), mk()
	st := openStore(t, cfgA)
	ctx := context.Background()
	ids := []string{"m1", "m2", "m3", "m4"}
	for _, id := range ids {
		if err := st.CreateSession(ctx, store.Session{ID: id, Owner: "admin"}); err != nil {
			t.Fatal(err)
		}
		c := loggedInCapture(t, id, "user-"+id, time.Now())
		if err := st.SaveCapture(ctx, c, 10); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	_, doA := newEngine(t, cfgA)
	_, doB := newEngine(t, cfgB)

	wins := map[string]int{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, id := range ids {
		for _, do := range []func(tool.Input) tool.Result{doA, doB} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := do(tool.Input{Action: "session_resume", Session: id})
				mu.Lock()
				defer mu.Unlock()
				if r.Success {
					wins[id]++
				} else if !strings.Contains(r.Error, "another browserd") {
					t.Errorf("losing resume of %s: %s", id, r.Error)
				}
			}()
		}
	}
	wg.Wait()
	for _, id := range ids {
		if wins[id] != 1 {
			t.Errorf("%s was resumed %d times, want exactly once", id, wins[id])
		}
	}
	// A third daemon on the store: its start-up recovery must not take
	// the live sessions of the other two.
	cfgC := mk()
	_, doC := newEngine(t, cfgC)
	got := states(doC(tool.Input{Action: "list_sessions"}))
	for _, id := range ids {
		if got[id].State != "active" {
			t.Errorf("after a third daemon started, %s is %s (%s)", id, got[id].State, got[id].Reason)
		}
	}
}

// TestCaptureRacingNavigation: captures taken while the tab navigates
// (every action is due: --snapshot-interval 0) always hold one document's
// URL with that document's title — never a URL of one page and the title
// of another.
func TestCaptureRacingNavigation(t *testing.T) {
	cfg := testConfig(t)
	cfg.SnapshotInterval = 0
	_, do := newEngine(t, cfg)
	pages := map[string]string{site.URL("/form"): "Sign up", site.URL("/login"): "Log in", site.URL("/table"): "Users table", site.URL("/account"): "Account"}
	var urls []string
	for u := range pages {
		urls = append(urls, u)
	}
	st := openStore(t, cfg)
	defer st.Close()
	stop := make(chan struct{})
	var checked int
	var bad []string
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			c, err := st.LatestCapture(context.Background(), "race")
			if err == nil {
				for _, tb := range c.Tabs {
					if title, ok := pages[tb.URL]; ok && tb.Title != title && tb.Title != "" {
						bad = append(bad, tb.URL+" with title "+tb.Title)
						if len(bad) > 5 {
							return
						}
					}
				}
				checked++
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	no := false
	for i := 0; i < 40; i++ {
		if r := do(tool.Input{Action: "navigate", Session: "race", URL: urls[i%len(urls)], Snapshot: &no}); !r.Success {
			t.Fatal(r.Error)
		}
	}
	close(stop)
	wg.Wait()
	if checked == 0 {
		t.Fatal("no capture was read while navigating")
	}
	if len(bad) > 0 {
		t.Errorf("captures mixed documents: %v", bad)
	}
}
