//go:build linux

package e2e

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/browserd/browserd/internal/store"
	"github.com/browserd/browserd/internal/tool"
)

// TestLoginCheck (issue 28 point 5): is the login still good? A profile
// logged in to the test site gets a login check through the CLI (launch
// --login-check-url …/account --login-check-text "Logged in as …"): it
// runs at once, in a tab of its own that is closed after, and says
// "still logged in"; status (CLI) and GET /api/sessions (the HTTP API)
// show it. An ephemeral session's own check, to an address the guard
// refuses, says it could not check, and why. The site then forgets the
// login and the daemon restarts: session_resume over MCP runs the
// profile's check, kept in the store, and says the login has lapsed —
// with where the page ended inside the envelope, not in the note —, and
// status over MCP and the HTTP API's listing say so too; the ephemeral
// session's check came back with its capture. --no-login-check removes
// the profile's.
func TestLoginCheck(t *testing.T) {
	t.Parallel() // waits more than it works: run beside another (make test's budget)
	data := t.TempDir()
	addr := freeAddr(t)
	d := startDaemon(t, data, "--listen", addr)
	// No other test logs in as Lin; the check's text is the page's in
	// other case (case aside).
	const user = "Lin Checker"
	account, shows := site.URL("/account"), "logged in as "+strings.ToLower(user)
	api := tcpAPI(t, addr, adminToken(t, data))
	act := func(in map[string]any) tool.Result {
		t.Helper()
		var r tool.Result
		api.expect(200, "POST", "/api/actions", in, &r)
		if !r.Success {
			t.Fatalf("%v: %s", in, r.Error)
		}
		return r
	}
	hasNote := func(r tool.Result, want string) bool {
		for _, n := range r.Notes {
			if strings.Contains(n, want) {
				return true
			}
		}
		return false
	}
	listed := func() map[string]tool.SessionInfo {
		t.Helper()
		var list struct{ Sessions []tool.SessionInfo }
		api.expect(200, "GET", "/api/sessions", nil, &list)
		m := map[string]tool.SessionInfo{}
		for _, s := range list.Sessions {
			m[s.ID] = s
		}
		return m
	}

	// Logged in to the site, over the HTTP API.
	act(map[string]any{"action": "navigate", "profile": "lc", "url": site.URL("/login"), "snapshot": false})
	act(map[string]any{"action": "type", "profile": "lc", "selector": "#username", "text": user, "snapshot": false})
	act(map[string]any{"action": "click", "profile": "lc", "role": "button", "name": "Log in", "snapshot": false})

	// The CLI sets the profile's check: it runs now.
	r := cli(t, data, "--profile", "lc", "launch", "--login-check-url", account, "--login-check-text", shows, "--login-check-name", "the test site")
	if !r.Success || !hasNote(r, "profile lc's login check is kept") || !hasNote(r, "still logged in to the test site (checked ") {
		t.Fatalf("launch with a login check: %+v", r)
	}
	if st := cli(t, data, "--profile", "lc", "status"); !strings.Contains(st.Content, "session lc: still logged in to the test site (checked ") {
		t.Errorf("status does not show the login check:\n%s", st.Content)
	}
	if tabs := act(map[string]any{"action": "tabs", "profile": "lc"}).Tabs; len(tabs) != 1 {
		t.Errorf("the check's tab stayed open, or took the agent's: %+v", tabs)
	}
	if l := listed()["lc"].Login; l == nil || l.State != tool.LoginOK || l.Site != "the test site" || l.Checked.IsZero() {
		t.Errorf("GET /api/sessions: login %+v, want ok for the test site", l)
	}

	// An ephemeral session's own check, over the HTTP API: the guard
	// refuses its page, and the answer says why.
	r = act(map[string]any{"action": "launch", "session": "eph", "loginCheck": map[string]any{"url": "http://10.1.2.3/me", "selector": "#me"}})
	if !hasNote(r, "could not check the login to 10.1.2.3: navigation to http://10.1.2.3/me refused: 10.1.2.3 is a private") {
		t.Fatalf("a check the guard refuses: %+v", r.Notes)
	}

	// The site forgets the login; the daemon restarts.
	if n := site.Forget(user); n == 0 {
		t.Fatal("the site had no login of " + user)
	}
	stopDaemon(t, data)
	_, _ = d.Process.Wait()
	waitNoChromium(t, data)
	startDaemon(t, data, "--listen", addr)

	// MCP: session_resume runs the profile's check, kept in the store.
	c := mcp.NewClient(&mcp.Implementation{Name: "e2e-login", Version: "1"}, nil)
	sess, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: "http://" + addr + "/mcp",
		HTTPClient: bearerClient(adminToken(t, data))}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	m := &mcpDriver{sess: sess, data: data}
	r = ok(t, m, tool.Input{Action: "session_resume", Session: "lc"})
	lapsed := "the login to the test site has lapsed: " + account + ` does not show "` + shows + `" (checked `
	if !hasNote(r, lapsed) || !hasNote(r, "log in again") {
		t.Fatalf("session_resume: notes %q, want %q", r.Notes, lapsed)
	}
	if !strings.Contains(r.Content, "the login check's page ended at "+account) {
		t.Errorf("where the page ended is not inside the envelope:\n%s", r.Content)
	}
	if st := ok(t, m, tool.Input{Action: "status"}); !strings.Contains(st.Content, "session lc: "+lapsed) {
		t.Errorf("status over MCP:\n%s", st.Content)
	}
	r = ok(t, m, tool.Input{Action: "session_resume", Session: "eph"})
	if !hasNote(r, "could not check the login to 10.1.2.3: navigation to http://10.1.2.3/me refused") {
		t.Errorf("the ephemeral session's check did not come back with its capture: %q", r.Notes)
	}
	got := listed()
	if l := got["lc"].Login; l == nil || l.State != tool.LoginLapsed || !strings.HasPrefix(l.Message, lapsed) {
		t.Errorf("GET /api/sessions: lc's login %+v, want lapsed", l)
	}
	if l := got["eph"].Login; l == nil || l.State != tool.LoginError || l.Site != "10.1.2.3" {
		t.Errorf("GET /api/sessions: eph's login %+v, want error", l)
	}

	// Removed: no check, nothing shown.
	r = cli(t, data, "--profile", "lc", "launch", "--no-login-check")
	if !r.Success || !hasNote(r, "profile lc's login check is removed") || strings.Contains(r.Content, "session lc: ") {
		t.Errorf("launch --no-login-check: %+v", r)
	}
	if l := listed()["lc"].Login; l != nil {
		t.Errorf("a removed check is still listed: %+v", l)
	}
}

// TestLoginCheckPages: what a login check makes of pages that are not
// plainly logged in or out — a name drawn by a script after the load
// counts, a server error or a dialog is no answer about the login, a
// selector that is not CSS says so — each within its bound, in one
// ephemeral session whose check launch replaces; and a profile's check
// runs when the profile's browser starts again, not on every action.
func TestLoginCheckPages(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/late":
			fmt.Fprint(w, `<p id="who"></p><script>setTimeout(() => { document.getElementById('who').textContent = 'Signed in as  ADA' }, 400)</script>`)
		case "/down":
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprint(w, `<p>Signed in as Ada</p>`)
		case "/alert":
			fmt.Fprint(w, `<script>alert('hi')</script><p>Signed in as Ada</p>`)
		default:
			fmt.Fprint(w, `<a id="logout" href="/bye">Log out</a>`)
		}
	}))
	defer srv.Close()
	_, do := newEngine(t, testConfig(t))
	for _, c := range []struct {
		check tool.LoginCheck
		want  string
	}{
		{tool.LoginCheck{URL: srv.URL + "/late", Text: "signed in as ada"}, "still logged in to 127.0.0.1:"},
		{tool.LoginCheck{URL: srv.URL + "/home", Selector: "a#logout", Name: "home"}, "still logged in to home"},
		{tool.LoginCheck{URL: srv.URL + "/down", Text: "Ada", Name: "down"}, "could not check the login to down: " + srv.URL + "/down answered HTTP 503"},
		{tool.LoginCheck{URL: srv.URL + "/alert", Text: "Ada", Name: "alert"}, "could not check the login to alert: " + srv.URL + "/alert opened a dialog"},
		{tool.LoginCheck{URL: srv.URL + "/home", Selector: "a[", Name: "bad"}, "could not check the login to bad: the selector a[ is not valid CSS"},
	} {
		r := do(tool.Input{Action: "launch", Session: "pages", LoginCheck: &c.check})
		if !r.Success || !slices.ContainsFunc(r.Notes, func(n string) bool { return strings.Contains(n, c.want) }) {
			t.Errorf("%s: %v %q, want a note with %q", c.check.URL, r.Error, r.Notes, c.want)
		}
	}
	if tabs := do(tool.Input{Action: "tabs", Session: "pages"}).Tabs; len(tabs) != 0 {
		t.Errorf("the checks' tabs stayed: %+v", tabs)
	}

	// A profile's check runs when its browser starts: closed, the
	// profile's browser exits; the next action starts it, and says.
	home := &tool.LoginCheck{URL: srv.URL + "/home", Selector: "a#logout", Name: "home"}
	if r := do(tool.Input{Action: "launch", Profile: "p", LoginCheck: home}); !slices.ContainsFunc(r.Notes, func(n string) bool { return strings.HasPrefix(n, "still logged in to home") }) {
		t.Fatalf("launch: %v %q", r.Error, r.Notes)
	}
	if r := do(tool.Input{Action: "navigate", Profile: "p", URL: srv.URL + "/late", Snapshot: new(bool)}); !r.Success || slices.ContainsFunc(r.Notes, func(n string) bool { return strings.Contains(n, "logged in") }) {
		t.Errorf("an action on a running browser ran the check again: %v %q", r.Error, r.Notes)
	}
	if r := do(tool.Input{Action: "close", Profile: "p"}); !strings.Contains(r.Content, "the browser exited") {
		t.Fatalf("close: %v %s", r.Error, r.Content)
	}
	r := do(tool.Input{Action: "navigate", Profile: "p", URL: srv.URL + "/late", Snapshot: new(bool)})
	if !r.Success || !slices.ContainsFunc(r.Notes, func(n string) bool { return strings.HasPrefix(n, "still logged in to home (checked ") }) {
		t.Errorf("the profile's browser started again without its check: %v %q", r.Error, r.Notes)
	}
}

// TestLoginCheckAutoRehydrate: --auto-rehydrate brings back a session
// whose capture holds its login check, and runs it: list_sessions says
// it is still logged in, with no call to answer.
func TestLoginCheckAutoRehydrate(t *testing.T) {
	cfg := testConfig(t)
	cfg.AutoRehydrate = true
	st := openStore(t, cfg)
	ctx := context.Background()
	if err := st.CreateSession(ctx, store.Session{ID: "auto", Owner: "admin"}); err != nil {
		t.Fatal(err)
	}
	c := loggedInCapture(t, "auto", "Auto Ann", time.Now().Add(-time.Minute))
	c.LoginCheck = &store.LoginCheck{URL: site.URL("/account"), Text: "Logged in as Auto Ann"}
	if err := st.SaveCapture(ctx, c, 10); err != nil {
		t.Fatal(err)
	}
	st.Close()
	_, do := newEngine(t, cfg)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		r := do(tool.Input{Action: "list_sessions", Filter: "all"})
		if l := states(r)["auto"].Login; l != nil {
			if l.State != tool.LoginOK || !strings.Contains(r.Content, "still logged in to 127.0.0.1:") {
				t.Errorf("after --auto-rehydrate: %+v\n%s", l, r.Content)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no login check after --auto-rehydrate: %+v", r.Sessions)
		}
	}
}
