//go:build linux

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/browserd/browserd/internal/auth"
	"github.com/browserd/browserd/internal/daemon"
	"github.com/browserd/browserd/internal/engine"
	"github.com/browserd/browserd/internal/tool"
)

// listingOwner is one owner of TestOwnersListing: what it made, and the
// names that must appear in its own listings and in no one else's.
type listingOwner struct {
	name          string
	e             *engine.Engine
	ctx           context.Context // the engine's calls as this owner
	folder        string          // the user-data-dir folder's real path
	profile       string          // its profile
	session       string          // its named session
	folderSession string          // the folder's own session
	api           *apiClient      // the HTTP API with its token
}

// newListingOwner makes owner's profile, user-data-dir folder launch and
// named session, each with a tab on a page of pages whose URL and title
// name the owner.
func newListingOwner(t *testing.T, e *engine.Engine, data, owner, pages string) *listingOwner {
	t.Helper()
	o := &listingOwner{name: owner, e: e, ctx: auth.WithOwner(context.Background(), owner),
		profile: owner + "-profile-secret", session: owner + "-session-secret"}
	o.folder = filepath.Join(data, "owners", owner, "folders", owner+"-folder-secret")
	if err := os.MkdirAll(o.folder, 0o700); err != nil {
		t.Fatal(err)
	}
	if real, err := filepath.EvalSymlinks(o.folder); err == nil {
		o.folder = real
	}
	for i, in := range o.calls() {
		in.Action = "launch"
		r := o.do(t, in)
		if in.UserDataDir != "" {
			o.folderSession = r.Session
		}
		in.Action, in.URL = "navigate", fmt.Sprintf("%s/%s-url-secret/%d", pages, owner, i)
		o.do(t, in)
	}
	return o
}

// calls are one call naming each of the owner's three sessions (the
// profile's, the folder's, the named one), without an action.
func (o *listingOwner) calls() []tool.Input {
	return []tool.Input{{Profile: o.profile}, {UserDataDir: o.folder}, {Session: o.session}}
}

// secrets are the names no other owner's listing may show: the folder
// (its name, and the owner's folder root), the profile, the sessions, the
// pages' URL and title.
func (o *listingOwner) secrets() []string {
	s := []string{o.name + "-folder-secret", "owners/" + o.name, o.profile, o.session, o.name + "-url-secret", o.name + "-title-secret"}
	if o.folderSession != "" {
		s = append(s, o.folderSession)
	}
	return s
}

// do runs one call through the engine as the owner; it must succeed.
func (o *listingOwner) do(t *testing.T, in tool.Input) tool.Result {
	t.Helper()
	r, err := o.e.Do(o.ctx, in)
	if err != nil || !r.Success {
		t.Fatalf("%s's %s %+v: %v %s", o.name, in.Action, in, err, r.Error)
	}
	return r
}

// holdsNone fails the test when a listing shown to whom names a secret of
// one of others.
func holdsNone(t *testing.T, whom, listing, text string, others ...*listingOwner) {
	t.Helper()
	for _, o := range others {
		for _, s := range o.secrets() {
			if strings.Contains(text, s) {
				t.Errorf("%s's %s names %s's %q:\n%s", whom, listing, o.name, s, text)
			}
		}
	}
}

// holdsAll fails the test unless a listing shown to whom shows every one
// of want: a listing that shows nothing would hide nothing either.
func holdsAll(t *testing.T, whom, listing, text string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("%s's %s does not show its own %q:\n%s", whom, listing, w, text)
		}
	}
}

// asJSON is v as JSON text, to look for names in.
func asJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestOwnersListing (issue 26 point 3): two owners, alice and bob, each
// with a profile, a user-data-dir folder launch and a named session, each
// with a tab on a page of 127.0.0.1. Every listing one of them gets —
// status, tabs, list_sessions and each session's details, through the
// engine, the HTTP API (/api/actions, /api/sessions, /api/stored-sessions)
// and the dashboard (/dashboard/api/sessions) — names nothing of the
// other's: not the folder, the profile, the sessions, the URL or the
// title. The node list and the metrics are admin's alone and name nothing
// of either; admin's own status and list_sessions neither.
func TestOwnersListing(t *testing.T) {
	t.Parallel() // its own daemon or engine: waits more than it works, beside others (make test's budget)
	pages := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		owner, _, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "-")
		fmt.Fprintf(w, "<!doctype html><title>%s-title-secret</title><h1>A page of %[1]s's</h1>", html.EscapeString(owner))
	}))
	defer pages.Close()
	cfg := testConfig(t)
	cfg.Listen = freeAddr(t)
	e, _ := newEngine(t, cfg)
	// The daemon in process, on the same engine: the HTTP API, the
	// dashboard and the metrics as browserd serves them.
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- daemon.Run(ctx, cfg, e, nil) }()
	t.Cleanup(func() {
		stop()
		if err := <-served; err != nil {
			t.Errorf("the daemon: %v", err)
		}
	})
	waitSocket(t, cfg.SocketPath())

	alice := newListingOwner(t, e, cfg.Data, "alice", pages.URL)
	bob := newListingOwner(t, e, cfg.Data, "bob", pages.URL)
	admin := socketAPI(t, cfg.Data)
	for _, o := range []*listingOwner{alice, bob} {
		var tok struct {
			Token string `json:"token"`
		}
		admin.expect(201, "POST", "/api/tokens", map[string]string{"owner": o.name}, &tok)
		o.api = tcpAPI(t, cfg.Listen, tok.Token)
	}
	for _, pair := range [][2]*listingOwner{{alice, bob}, {bob, alice}} {
		engineListings(t, pair[0], pair[1])
		httpListings(t, pair[0], pair[1])
	}
	adminListings(t, e, tcpAPI(t, cfg.Listen, adminToken(t, cfg.Data)), alice, bob)
}

// engineListings checks what the engine lists for o: status, tabs,
// list_sessions and each session's details.
func engineListings(t *testing.T, o, other *listingOwner) {
	t.Helper()
	st := o.do(t, tool.Input{Action: "status"}).Content
	holdsNone(t, o.name, "status (engine)", st, other)
	holdsAll(t, o.name, "status (engine)", st, o.folder, o.profile, o.session)
	for _, in := range o.calls() {
		in.Action = "tabs"
		tabs := asJSON(t, o.do(t, in).Tabs)
		holdsNone(t, o.name, "tabs (engine)", tabs, other)
		holdsAll(t, o.name, "tabs (engine)", tabs, o.name+"-url-secret", o.name+"-title-secret")
	}
	ls := o.do(t, tool.Input{Action: "list_sessions", Filter: "all"})
	holdsNone(t, o.name, "list_sessions (engine)", asJSON(t, ls), other)
	holdsAll(t, o.name, "list_sessions (engine)", asJSON(t, ls), o.profile, o.session, o.folderSession)
	for _, s := range ls.Sessions {
		info, tabs, err := o.e.SessionInfo(o.ctx, s.ID)
		if err != nil {
			t.Fatalf("%s's session %s: %v", o.name, s.ID, err)
		}
		holdsNone(t, o.name, "session "+s.ID+" (engine)", asJSON(t, info)+asJSON(t, tabs), other)
	}
	for _, id := range []string{other.profile, other.session, other.folderSession} {
		if _, _, err := o.e.SessionInfo(o.ctx, id); err == nil {
			t.Errorf("%s reads %s's session %q", o.name, other.name, id)
		}
	}
}

// httpListings checks what the HTTP API and the dashboard list for o.
func httpListings(t *testing.T, o, other *listingOwner) {
	t.Helper()
	action := func(in tool.Input) string {
		t.Helper()
		var res struct {
			Success bool   `json:"success"`
			Error   string `json:"error"`
		}
		raw := o.api.expect(200, "POST", "/api/actions", in, &res)
		if !res.Success {
			t.Fatalf("%s's %s over HTTP: %s", o.name, in.Action, res.Error)
		}
		return string(raw)
	}
	st := action(tool.Input{Action: "status"})
	holdsNone(t, o.name, "status (HTTP)", st, other)
	holdsAll(t, o.name, "status (HTTP)", st, o.profile, o.session, o.name+"-folder-secret")
	for _, in := range o.calls() {
		in.Action = "tabs"
		holdsNone(t, o.name, "tabs (HTTP)", action(in), other)
	}
	holdsNone(t, o.name, "list_sessions (HTTP)", action(tool.Input{Action: "list_sessions", Filter: "all"}), other)
	var list struct {
		Sessions []tool.SessionInfo `json:"sessions"`
	}
	raw := string(o.api.expect(200, "GET", "/api/sessions?state=all", nil, &list))
	holdsNone(t, o.name, "GET /api/sessions", raw, other)
	holdsAll(t, o.name, "GET /api/sessions", raw, o.profile, o.session, o.folderSession)
	for _, s := range list.Sessions {
		holdsNone(t, o.name, "GET /api/sessions/"+s.ID, string(o.api.expect(200, "GET", "/api/sessions/"+s.ID, nil, nil)), other)
	}
	for _, id := range []string{other.profile, other.session, other.folderSession} {
		o.api.expect(404, "GET", "/api/sessions/"+id, nil, nil)
	}
	holdsNone(t, o.name, "GET /api/stored-sessions", string(o.api.expect(200, "GET", "/api/stored-sessions", nil, nil)), other)
	// The node list and the metrics are admin's.
	o.api.expect(403, "GET", "/api/nodes", nil, nil)
	o.api.expect(403, "GET", "/metrics", nil, nil)

	// The dashboard, signed in as o.
	noRedirect := &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp := getWith(t, o.api.base+"/dashboard/api/sessions", signedInCookie(t, o.api, noRedirect))
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("%s's dashboard: %d %v %s", o.name, resp.StatusCode, err, b)
	}
	holdsNone(t, o.name, "dashboard", string(b), other)
	holdsAll(t, o.name, "dashboard", string(b), o.profile, o.session, o.name+"-url-secret")
}

// adminListings checks the node list and the metrics, which only admin
// reads, and admin's own status and list_sessions: none names anything
// of the owners'.
func adminListings(t *testing.T, e *engine.Engine, admin *apiClient, owners ...*listingOwner) {
	t.Helper()
	nodes, err := e.Nodes(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	holdsNone(t, "admin", "node list (engine)", asJSON(t, nodes), owners...)
	holdsNone(t, "admin", "GET /api/nodes", string(admin.expect(200, "GET", "/api/nodes", nil, nil)), owners...)
	metrics := string(admin.expect(200, "GET", "/metrics", nil, nil))
	holdsNone(t, "admin", "metrics", metrics, owners...)
	if !strings.Contains(metrics, "\nbrowserd_tabs 6\n") {
		t.Errorf("the metrics do not count the owners' 6 tabs:\n%s", metrics)
	}
	for _, in := range []tool.Input{{Action: "status"}, {Action: "list_sessions", Filter: "all"}} {
		r, err := e.Do(context.Background(), in)
		if err != nil || !r.Success {
			t.Fatalf("admin's %s: %v %s", in.Action, err, r.Error)
		}
		holdsNone(t, "admin", in.Action+" (engine)", asJSON(t, r), owners...)
	}
}

// waitSocket waits for a daemon's socket to appear.
func waitSocket(t *testing.T, sock string) {
	t.Helper()
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if _, err := os.Stat(sock); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the daemon did not create its socket in 15 s")
		}
	}
}
