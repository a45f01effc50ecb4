// Package storetest is the contract every store.Store backend passes:
//
//	func TestContract(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) store.Store { return openFresh(t) })
//	}
//
// open must return an empty store each time and close it when the test
// ends (t.Cleanup). Backends may implement Corrupter and Counter to let
// the suite check what it otherwise cannot.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/browserd/browserd/internal/storagestate"
	"github.com/browserd/browserd/internal/store"
)

// Corrupter is implemented by backends that can damage a stored capture,
// for the suite's check that a corrupt capture fails with
// store.ErrCorrupt for its session only.
type Corrupter interface {
	// CorruptLatest overwrites the payload of the session's newest capture
	// with garbage.
	CorruptLatest(ctx context.Context, sessionID string) error
}

// Counter is implemented by backends that can count a session's kept
// captures, for the suite's check of SaveCapture's keep.
type Counter interface {
	CountCaptures(ctx context.Context, sessionID string) (int, error)
}

// t0 is the suite's fixed clock.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// Run runs the contract suite; open returns a fresh, empty store.
func Run(t *testing.T, open func(t *testing.T) store.Store) {
	tests := []struct {
		name string
		fn   func(*testing.T, store.Store)
	}{
		{"Sessions", testSessions},
		{"Conflict", testConflict},
		{"SetState", testSetState},
		{"SaveCaptureKeep", testSaveCaptureKeep},
		{"SaveCaptureOutOfOrder", testSaveCaptureOutOfOrder},
		{"SaveCaptureErrors", testSaveCaptureErrors},
		{"RoundTrip", testRoundTrip},
		{"Recover", testRecover},
		{"Corrupt", testCorrupt},
		{"Leases", testLeases},
		{"LeaseRace", testLeaseRace},
		{"Concurrency", testConcurrency},
		{"Cancel", testCancel},
		{"Stored", testStored},
		{"Tokens", testTokens},
		{"FencedCapture", testFencedCapture},
		{"Nodes", testNodes},
		{"Orphans", testOrphans},
		{"ProfileStates", testProfileStates},
		{"ListCaptures", testListCaptures},
		{"GetCapture", testGetCapture},
		{"Secrets", testSecrets},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.fn(t, open(t)) })
	}
}

var cmpOpts = cmp.Options{cmpopts.EquateEmpty()}

func create(t *testing.T, st store.Store, s store.Session) {
	t.Helper()
	if err := st.CreateSession(t.Context(), s); err != nil {
		t.Fatalf("CreateSession(%q): %v", s.ID, err)
	}
}

func get(t *testing.T, st store.Store, id string) store.Session {
	t.Helper()
	s, err := st.GetSession(t.Context(), id)
	if err != nil {
		t.Fatalf("GetSession(%q): %v", id, err)
	}
	return s
}

func save(t *testing.T, st store.Store, c store.Capture, keep int) {
	t.Helper()
	if err := st.SaveCapture(t.Context(), c, keep); err != nil {
		t.Fatalf("SaveCapture(%q, %v): %v", c.SessionID, c.Taken, err)
	}
}

func latest(t *testing.T, st store.Store, id string) store.Capture {
	t.Helper()
	c, err := st.LatestCapture(t.Context(), id)
	if err != nil {
		t.Fatalf("LatestCapture(%q): %v", id, err)
	}
	return c
}

// small is a one-tab capture whose URL tells it apart.
func small(id string, taken time.Time, n int) store.Capture {
	return store.Capture{
		SessionID: id,
		Taken:     taken,
		Tabs:      []store.Tab{{ID: "T1", Task: "default", URL: fmt.Sprintf("https://example.com/%d", n), Width: 1280, Height: 720, Active: true}},
		Cookies:   []storagestate.Cookie{{Name: "n", Value: fmt.Sprint(n), Domain: "example.com", Path: "/", Expires: -1, SameSite: "Lax"}},
	}
}

// Full is a capture using every field: two tabs, a session-only cookie,
// non-Latin-1 storage in localStorage and sessionStorage. Backends' own
// tests use it too.
func Full(sessionID string, taken time.Time) store.Capture {
	return store.Capture{
		SessionID: sessionID,
		Taken:     taken,
		Tabs: []store.Tab{
			{ID: "T1", Task: "default", URL: "https://example.com/app?q=1#top", Title: "Example — Übersicht", Width: 1280, Height: 720, Active: true, SessionStorage: []storagestate.NameValue{{Name: "step", Value: "2 — ü"}}},
			{ID: "T2", Task: "research", URL: "https://例え.jp/パス", Title: "日本語のページ", Width: 390, Height: 844},
		},
		Cookies: []storagestate.Cookie{
			{Name: "sid", Value: "session-only-9f8e7d6c5b4a", Domain: "example.com", Path: "/", Expires: -1, HTTPOnly: true, Secure: true, SameSite: "Strict"},
			{Name: "pref", Value: "dark", Domain: ".example.com", Path: "/app", Expires: 1893456000.5, SameSite: "Lax"},
			{Name: "jp", Value: "1", Domain: "xn--r8jz45g.jp", Path: "/", Expires: 1893456000, Secure: true, SameSite: "None"},
		},
		Origins: []storagestate.Origin{
			{
				Origin:         "https://example.com",
				LocalStorage:   []storagestate.NameValue{{Name: "token", Value: "eyJhbGciOi.x.y"}, {Name: "emoji", Value: "🦊 ü ß €"}},
				SessionStorage: []storagestate.NameValue{{Name: "draft", Value: "Ωμέγα\n\"quoted\"\t\\ \u2028 a\x00b"}},
			},
			{
				Origin:       "https://xn--r8jz45g.jp",
				LocalStorage: []storagestate.NameValue{{Name: "キー", Value: "値 — 中文 — العربية"}},
			},
		},
		UserAgent:       "Mozilla/5.0 (X11; Linux x86_64) browserd-test",
		Timezone:        "Asia/Tokyo",
		Geolocation:     &store.Geolocation{Latitude: 35.68, Longitude: 139.76, Accuracy: 25},
		InjectedDomains: []string{"app.example.com", "xn--r8jz45g.jp"},
		Locale:          "ja-JP",
		ExcludeDomains:  []string{"ads.example"},
		UserDataDir:     "/srv/work/profil — ü",
		Proxy:           &store.Proxy{Server: "socks5://proxy.example.com:1080", Username: "ada", Password: "prøxy-pw", Bypass: []string{".example.com", "10.0.0.0/8"}},
		LoginCheck:      &store.LoginCheck{URL: "https://app.example.com/account", Text: "Ada Lovelace", Name: "the app"},
	}
}

// Big is a capture of the size the benchmarks write: 3 tabs and 200
// cookies over 20 origins, each with some storage.
func Big(sessionID string, taken time.Time) store.Capture {
	c := store.Capture{SessionID: sessionID, Taken: taken}
	for i := range 3 {
		c.Tabs = append(c.Tabs, store.Tab{ID: fmt.Sprintf("T%d", i), Task: "default", URL: fmt.Sprintf("https://site%d.example.com/page", i), Title: "A page", Width: 1280, Height: 720, Active: i == 0})
	}
	for i := range 200 {
		c.Cookies = append(c.Cookies, storagestate.Cookie{Name: fmt.Sprintf("c%d", i), Value: fmt.Sprintf("%064x", i*7919), Domain: fmt.Sprintf("site%d.example.com", i%20), Path: "/", Expires: 1893456000, Secure: true, SameSite: "Lax"})
	}
	for i := range 20 {
		o := storagestate.Origin{Origin: fmt.Sprintf("https://site%d.example.com", i)}
		for k := range 5 {
			o.LocalStorage = append(o.LocalStorage, storagestate.NameValue{Name: fmt.Sprintf("k%d", k), Value: fmt.Sprintf("%0128d", k)})
		}
		o.SessionStorage = []storagestate.NameValue{{Name: "tab", Value: "state"}}
		c.Origins = append(c.Origins, o)
	}
	return c
}

func testSessions(t *testing.T, st store.Store) {
	ctx := t.Context()
	if _, err := st.GetSession(ctx, "nope"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("GetSession(unknown) = %v, want ErrNotFound", err)
	}
	if got, err := st.ListSessions(ctx, "", ""); err != nil || len(got) != 0 {
		t.Errorf("ListSessions on an empty store = %v, %v", got, err)
	}
	create(t, st, store.Session{ID: "a1", Owner: "alice", Profile: "work", CreatedAt: t0, State: store.Closed, Reason: "ignored"})
	create(t, st, store.Session{ID: "a2", Owner: "alice", CreatedAt: t0.Add(time.Minute)})
	create(t, st, store.Session{ID: "b1", Owner: "bob", Profile: "p", CreatedAt: t0.Add(2 * time.Minute)})
	create(t, st, store.Session{ID: "a3", Owner: "alice", CreatedAt: t0.Add(3 * time.Minute)})

	s := get(t, st, "a1")
	if s.ID != "a1" || s.Owner != "alice" || s.Profile != "work" || s.State != store.Active || s.Reason != "" ||
		!s.CreatedAt.Equal(t0) || s.UpdatedAt.IsZero() || !s.LastCaptureAt.IsZero() || s.Tabs != 0 || s.URL != "" {
		t.Errorf("GetSession(a1) = %+v", s)
	}
	before := time.Now().Add(-time.Second)
	create(t, st, store.Session{ID: "now"})
	if s := get(t, st, "now"); s.CreatedAt.Before(before) || s.CreatedAt.After(time.Now().Add(time.Second)) {
		t.Errorf("zero CreatedAt stored as %v, want about now", s.CreatedAt)
	}
	if err := st.SetState(ctx, "now", store.Closed, ""); err != nil {
		t.Fatal(err)
	}
	if err := st.SetState(ctx, "a2", store.Recoverable, "restart"); err != nil {
		t.Fatal(err)
	}

	ids := func(ss []store.Session) string {
		var b []string
		for _, s := range ss {
			b = append(b, s.ID)
		}
		return strings.Join(b, ",")
	}
	for _, tc := range []struct {
		owner string
		state store.SessionState
		want  string
	}{
		{"", "", "now,a3,b1,a2,a1"},
		{"alice", "", "a3,a2,a1"},
		{"bob", "", "b1"},
		{"carol", "", ""},
		{"", store.Active, "a3,b1,a1"},
		{"alice", store.Active, "a3,a1"},
		{"alice", store.Recoverable, "a2"},
		{"", store.Closed, "now"},
		{"", store.Stale, ""},
	} {
		got, err := st.ListSessions(ctx, tc.owner, tc.state)
		if err != nil {
			t.Fatalf("ListSessions(%q, %q): %v", tc.owner, tc.state, err)
		}
		if ids(got) != tc.want {
			t.Errorf("ListSessions(%q, %q) = %s, want %s", tc.owner, tc.state, ids(got), tc.want)
		}
	}
	all, _ := st.ListSessions(ctx, "alice", store.Recoverable)
	if len(all) == 1 {
		if d := cmp.Diff(get(t, st, "a2"), all[0], cmpOpts); d != "" {
			t.Errorf("ListSessions and GetSession disagree (-get +list):\n%s", d)
		}
	}
}

func testConflict(t *testing.T, st store.Store) {
	ctx := t.Context()
	create(t, st, store.Session{ID: "s", Owner: "alice", CreatedAt: t0})
	err := st.CreateSession(ctx, store.Session{ID: "s", Owner: "bob"})
	if !errors.Is(err, store.ErrConflict) || !strings.Contains(err.Error(), "active") {
		t.Errorf("CreateSession(active id) = %v, want ErrConflict naming active", err)
	}
	if err := st.SetState(ctx, "s", store.Recoverable, ""); err != nil {
		t.Fatal(err)
	}
	err = st.CreateSession(ctx, store.Session{ID: "s", Owner: "bob"})
	if !errors.Is(err, store.ErrConflict) || !strings.Contains(err.Error(), "recoverable") {
		t.Errorf("CreateSession(recoverable id) = %v, want ErrConflict naming recoverable", err)
	}
	if s := get(t, st, "s"); s.Owner != "alice" || s.State != store.Recoverable {
		t.Errorf("a refused CreateSession changed the session: %+v", s)
	}

	for i, state := range []store.SessionState{store.Closed, store.Stale, store.Failed} {
		save(t, st, small("s", t0.Add(time.Duration(i)*time.Hour), i), 10)
		if ok, err := st.AcquireLease(ctx, "s", "n1", t0, time.Hour); err != nil || !ok {
			t.Fatalf("AcquireLease = %v, %v", ok, err)
		}
		if err := st.SetState(ctx, "s", state, "done"); err != nil {
			t.Fatal(err)
		}
		created := t0.Add(time.Duration(i+1) * 24 * time.Hour)
		if err := st.CreateSession(ctx, store.Session{ID: "s", Owner: "bob", Profile: "x", CreatedAt: created}); err != nil {
			t.Fatalf("CreateSession over a %s session: %v", state, err)
		}
		s := get(t, st, "s")
		if s.Owner != "bob" || s.Profile != "x" || s.State != store.Active || s.Reason != "" || !s.CreatedAt.Equal(created) ||
			!s.LastCaptureAt.IsZero() || s.Tabs != 0 || s.URL != "" {
			t.Errorf("session replacing a %s one = %+v", state, s)
		}
		if _, err := st.LatestCapture(ctx, "s"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("LatestCapture after replacing a %s session = %v, want ErrNotFound", state, err)
		}
		if ok, err := st.AcquireLease(ctx, "s", "n2", t0, time.Hour); err != nil || !ok {
			t.Errorf("the replaced session's lease survived: AcquireLease(n2) = %v, %v", ok, err)
		}
		if err := st.ReleaseLease(ctx, "s", "n2"); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.CreateSession(ctx, store.Session{ID: ""}); err == nil {
		t.Error("CreateSession with an empty id succeeded")
	}
}

func testSetState(t *testing.T, st store.Store) {
	ctx := t.Context()
	if err := st.SetState(ctx, "nope", store.Closed, ""); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("SetState(unknown) = %v, want ErrNotFound", err)
	}
	create(t, st, store.Session{ID: "s", CreatedAt: t0})
	if err := st.SetState(ctx, "s", "paused", ""); err == nil {
		t.Error("SetState accepted an unknown state")
	}
	before := get(t, st, "s")
	time.Sleep(5 * time.Millisecond)
	if err := st.SetState(ctx, "s", store.Failed, "chromium would not start: exit status 1"); err != nil {
		t.Fatal(err)
	}
	s := get(t, st, "s")
	if s.State != store.Failed || s.Reason != "chromium would not start: exit status 1" || !s.UpdatedAt.After(before.UpdatedAt) {
		t.Errorf("after SetState(failed): %+v (before: %+v)", s, before)
	}
	if err := st.SetState(ctx, "s", store.Active, ""); err != nil {
		t.Fatal(err)
	}
	if s := get(t, st, "s"); s.State != store.Active || s.Reason != "" {
		t.Errorf("after SetState(active): %+v", s)
	}
}

func count(t *testing.T, st store.Store, id string) (int, bool) {
	t.Helper()
	c, ok := st.(Counter)
	if !ok {
		return 0, false
	}
	n, err := c.CountCaptures(t.Context(), id)
	if err != nil {
		t.Fatalf("CountCaptures(%q): %v", id, err)
	}
	return n, true
}

func testSaveCaptureKeep(t *testing.T, st store.Store) {
	ctx := t.Context()
	create(t, st, store.Session{ID: "s", CreatedAt: t0})
	create(t, st, store.Session{ID: "other", CreatedAt: t0})
	save(t, st, small("other", t0, 100), 3)
	if _, err := st.LatestCapture(ctx, "s"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("LatestCapture before any capture = %v, want ErrNotFound", err)
	}
	if _, err := st.LatestCapture(ctx, "nope"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("LatestCapture(unknown session) = %v, want ErrNotFound", err)
	}
	for i := range 5 {
		c := small("s", t0.Add(time.Duration(i)*time.Second), i)
		c.Tabs = append(c.Tabs, store.Tab{ID: "T2", URL: "about:blank"})
		save(t, st, c, 3)
		s := get(t, st, "s")
		if !s.LastCaptureAt.Equal(c.Taken) || s.Tabs != 2 || s.URL != c.Tabs[0].URL {
			t.Errorf("after capture %d the session is %+v", i, s)
		}
		if got := latest(t, st, "s"); !got.Taken.Equal(c.Taken) || got.Tabs[0].URL != c.Tabs[0].URL {
			t.Errorf("after capture %d LatestCapture is from %v (%s)", i, got.Taken, got.Tabs[0].URL)
		}
	}
	if n, ok := count(t, st, "s"); ok && n != 3 {
		t.Errorf("%d captures kept, want 3", n)
	}
	if n, ok := count(t, st, "other"); ok && n != 1 {
		t.Errorf("another session's captures were pruned: %d kept, want 1", n)
	}
	save(t, st, small("s", t0.Add(time.Hour), 9), 0)
	if n, ok := count(t, st, "s"); ok && n != 1 {
		t.Errorf("keep 0: %d captures kept, want 1", n)
	}
	if got := latest(t, st, "s"); got.Tabs[0].URL != "https://example.com/9" {
		t.Errorf("keep 0 lost the new capture: %+v", got)
	}
	// A zero Taken means now.
	before := time.Now().Add(-time.Second)
	save(t, st, small("s", time.Time{}, 10), 3)
	if got := latest(t, st, "s"); got.Taken.Before(before) || got.Taken.After(time.Now().Add(time.Second)) {
		t.Errorf("zero Taken stored as %v, want about now", got.Taken)
	}
}

func testSaveCaptureOutOfOrder(t *testing.T, st store.Store) {
	create(t, st, store.Session{ID: "s", CreatedAt: t0})
	save(t, st, small("s", t0.Add(2*time.Minute), 2), 10)
	save(t, st, small("s", t0.Add(time.Minute), 1), 10)
	if got := latest(t, st, "s"); got.Tabs[0].URL != "https://example.com/2" {
		t.Errorf("LatestCapture after an older capture = %s, want the newer one", got.Tabs[0].URL)
	}
	if s := get(t, st, "s"); !s.LastCaptureAt.Equal(t0.Add(2*time.Minute)) || s.URL != "https://example.com/2" {
		t.Errorf("an older capture moved the session back: %+v", s)
	}
	if n, ok := count(t, st, "s"); ok && n != 2 {
		t.Errorf("%d captures kept, want 2", n)
	}
}

func testSaveCaptureErrors(t *testing.T, st store.Store) {
	ctx := t.Context()
	if err := st.SaveCapture(ctx, small("nope", t0, 1), 3); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("SaveCapture(unknown session) = %v, want ErrNotFound", err)
	}
	if _, err := st.LatestCapture(ctx, "nope"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a refused capture was kept: %v", err)
	}
	create(t, st, store.Session{ID: "s", CreatedAt: t0})
	save(t, st, small("s", t0, 1), 3)
	before := get(t, st, "s")
	bad := small("s", t0.Add(time.Minute), 2)
	bad.Cookies[0].Expires = math.NaN()
	if err := st.SaveCapture(ctx, bad, 3); err == nil {
		t.Error("SaveCapture with a NaN cookie expiry succeeded")
	}
	if d := cmp.Diff(before, get(t, st, "s"), cmpOpts); d != "" {
		t.Errorf("a failed SaveCapture changed the session (-before +after):\n%s", d)
	}
	if got := latest(t, st, "s"); !got.Taken.Equal(t0) {
		t.Errorf("a failed SaveCapture changed the latest capture: %v", got.Taken)
	}
}

func testRoundTrip(t *testing.T, st store.Store) {
	create(t, st, store.Session{ID: "s", Owner: "alice", CreatedAt: t0})
	want := Full("s", t0.Add(1234*time.Millisecond))
	save(t, st, want, 10)
	got := latest(t, st, "s")
	if d := cmp.Diff(want, got, cmpOpts); d != "" {
		t.Errorf("LatestCapture (-saved +read):\n%s", d)
	}
	if got.Cookies[0].Expires != -1 {
		t.Errorf("session cookie's expires = %v, want -1", got.Cookies[0].Expires)
	}
	s := get(t, st, "s")
	if !s.LastCaptureAt.Equal(want.Taken) || s.Tabs != 2 || s.URL != want.Tabs[0].URL {
		t.Errorf("session after the capture: %+v", s)
	}
	// An empty capture (no tabs) is kept too.
	create(t, st, store.Session{ID: "empty", CreatedAt: t0})
	save(t, st, store.Capture{SessionID: "empty", Taken: t0}, 10)
	if got := latest(t, st, "empty"); len(got.Tabs)+len(got.Cookies)+len(got.Origins) != 0 || got.SessionID != "empty" {
		t.Errorf("empty capture read back as %+v", got)
	}
	if s := get(t, st, "empty"); s.Tabs != 0 || s.URL != "" || !s.LastCaptureAt.Equal(t0) {
		t.Errorf("session after an empty capture: %+v", s)
	}
}

func testRecover(t *testing.T, st store.Store) {
	ctx := t.Context()
	now := t0.Add(48 * time.Hour)
	const maxAge = 24 * time.Hour
	for _, id := range []string{"none", "old", "fresh", "edge", "closed", "recoverable", "leased", "expired", "mine"} {
		create(t, st, store.Session{ID: id, Owner: "alice", CreatedAt: t0})
	}
	save(t, st, small("old", now.Add(-25*time.Hour), 1), 10)
	save(t, st, small("old", now.Add(-30*time.Hour), 0), 10)
	save(t, st, small("fresh", now.Add(-26*time.Hour), 0), 10)
	save(t, st, small("fresh", now.Add(-time.Hour), 1), 10)
	save(t, st, small("edge", now.Add(-maxAge), 1), 10)
	save(t, st, small("closed", now.Add(-time.Hour), 1), 10)
	save(t, st, small("leased", now.Add(-time.Hour), 1), 10)
	save(t, st, small("expired", now.Add(-time.Hour), 1), 10)
	save(t, st, small("mine", now.Add(-time.Hour), 1), 10)
	// "mine" is leased by the recovering node's earlier run: recovered.
	if ok, err := st.AcquireLease(ctx, "mine", "me", now.Add(-time.Minute), time.Hour); err != nil || !ok {
		t.Fatalf("AcquireLease = %v, %v", ok, err)
	}
	if err := st.SetState(ctx, "closed", store.Closed, "closed by the agent"); err != nil {
		t.Fatal(err)
	}
	if err := st.SetState(ctx, "recoverable", store.Recoverable, "earlier"); err != nil {
		t.Fatal(err)
	}
	if ok, err := st.AcquireLease(ctx, "leased", "other", now.Add(-time.Minute), 2*time.Minute); err != nil || !ok {
		t.Fatalf("AcquireLease = %v, %v", ok, err)
	}
	if ok, err := st.AcquireLease(ctx, "expired", "other", now.Add(-2*time.Minute), time.Minute); err != nil || !ok {
		t.Fatalf("AcquireLease = %v, %v", ok, err)
	}

	changed, err := st.Recover(ctx, "me", now, maxAge)
	if err != nil {
		t.Fatalf("Recover: %v", err)
	}
	want := map[string]store.SessionState{
		"none":    store.Closed,
		"old":     store.Stale,
		"fresh":   store.Recoverable,
		"edge":    store.Recoverable,
		"expired": store.Recoverable,
		"mine":    store.Recoverable,
	}
	got := map[string]store.SessionState{}
	for _, s := range changed {
		got[s.ID] = s.State
		if d := cmp.Diff(get(t, st, s.ID), s, cmpOpts); d != "" {
			t.Errorf("Recover returned %s unlike GetSession (-get +returned):\n%s", s.ID, d)
		}
		if (s.State == store.Closed || s.State == store.Stale) && s.Reason == "" {
			t.Errorf("Recover made %s %s without a reason", s.ID, s.State)
		}
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Recover changed (-want +got):\n%s", d)
	}
	for id, state := range map[string]store.SessionState{"closed": store.Closed, "recoverable": store.Recoverable, "leased": store.Active} {
		if s := get(t, st, id); s.State != state {
			t.Errorf("Recover left %s %s, want %s", id, s.State, state)
		}
	}
	if s := get(t, st, "closed"); s.Reason != "closed by the agent" {
		t.Errorf("Recover touched a closed session: %+v", s)
	}
	if s := get(t, st, "old"); s.URL != "https://example.com/1" {
		t.Errorf("stale session lost its listing: %+v", s)
	}
	if c := latest(t, st, "fresh"); c.Tabs[0].URL != "https://example.com/1" {
		t.Errorf("recoverable session's latest capture = %s", c.Tabs[0].URL)
	}
	// The recovered session's old lease is gone: any node may take it.
	if ok, err := st.AcquireLease(ctx, "mine", "other", now, time.Minute); err != nil || !ok {
		t.Errorf("AcquireLease after Recover dropped the lease = %v, %v; want true", ok, err)
	}
	if err := st.ReleaseLease(ctx, "mine", "other"); err != nil {
		t.Fatal(err)
	}

	// Again: nothing left to do while the lease lives.
	if changed, err := st.Recover(ctx, "me", now, maxAge); err != nil || len(changed) != 0 {
		t.Errorf("second Recover = %v, %v; want nothing", changed, err)
	}
	// Once it expires, the leased session is recovered too.
	changed, err = st.Recover(ctx, "me", now.Add(time.Minute), maxAge)
	if err != nil || len(changed) != 1 || changed[0].ID != "leased" || changed[0].State != store.Recoverable {
		t.Errorf("Recover after the lease expired = %+v, %v; want leased recoverable", changed, err)
	}
}

func testCorrupt(t *testing.T, st store.Store) {
	ctx := t.Context()
	c, ok := st.(Corrupter)
	if !ok {
		t.Skip("the backend does not implement storetest.Corrupter")
	}
	create(t, st, store.Session{ID: "bad", CreatedAt: t0})
	create(t, st, store.Session{ID: "good", CreatedAt: t0})
	save(t, st, small("bad", t0, 1), 10)
	save(t, st, small("bad", t0.Add(time.Second), 2), 10)
	save(t, st, small("good", t0, 1), 10)
	if err := c.CorruptLatest(ctx, "bad"); err != nil {
		t.Fatalf("CorruptLatest: %v", err)
	}
	if _, err := st.LatestCapture(ctx, "bad"); !errors.Is(err, store.ErrCorrupt) {
		t.Errorf("LatestCapture(corrupted) = %v, want ErrCorrupt", err)
	}
	if got := latest(t, st, "good"); got.Tabs[0].URL != "https://example.com/1" {
		t.Errorf("another session's capture: %+v", got)
	}
	if s := get(t, st, "bad"); s.URL != "https://example.com/2" {
		t.Errorf("the corrupted session's listing: %+v", s)
	}
	if _, err := st.ListSessions(ctx, "", ""); err != nil {
		t.Errorf("ListSessions with a corrupt capture: %v", err)
	}
	// A new capture supersedes the damaged one.
	save(t, st, small("bad", t0.Add(2*time.Second), 3), 10)
	if got := latest(t, st, "bad"); got.Tabs[0].URL != "https://example.com/3" {
		t.Errorf("after a new capture: %+v", got)
	}
}

func testLeases(t *testing.T, st store.Store) {
	ctx := t.Context()
	acquire := func(node string, now time.Time, want bool) {
		t.Helper()
		ok, err := st.AcquireLease(ctx, "s", node, now, time.Minute)
		if err != nil {
			t.Fatalf("AcquireLease(%s, %v): %v", node, now, err)
		}
		if ok != want {
			t.Errorf("AcquireLease(%s, +%v) = %v, want %v", node, now.Sub(t0), ok, want)
		}
	}
	if _, err := st.AcquireLease(ctx, "nope", "n1", t0, time.Minute); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("AcquireLease(unknown session) = %v, want ErrNotFound", err)
	}
	create(t, st, store.Session{ID: "s", CreatedAt: t0})
	create(t, st, store.Session{ID: "t", CreatedAt: t0})

	acquire("n1", t0, true)
	acquire("n2", t0.Add(30*time.Second), false)
	acquire("n1", t0.Add(50*time.Second), true) // renew until +110s
	acquire("n2", t0.Add(100*time.Second), false)
	if ok, err := st.AcquireLease(ctx, "t", "n2", t0, time.Minute); err != nil || !ok {
		t.Errorf("another session's lease: %v, %v", ok, err)
	}
	acquire("n2", t0.Add(110*time.Second), true) // n1's expired
	acquire("n1", t0.Add(120*time.Second), false)
	if err := st.ReleaseLease(ctx, "s", "n1"); err != nil { // not n1's: no effect
		t.Fatal(err)
	}
	acquire("n1", t0.Add(121*time.Second), false)
	if err := st.ReleaseLease(ctx, "s", "n2"); err != nil {
		t.Fatal(err)
	}
	acquire("n1", t0.Add(122*time.Second), true)
	if err := st.ReleaseLease(ctx, "nope", "n1"); err != nil {
		t.Errorf("ReleaseLease(unknown session) = %v", err)
	}
	if _, err := st.AcquireLease(ctx, "s", "n1", t0, 0); err == nil {
		t.Error("AcquireLease with a zero ttl succeeded")
	}
}

func testLeaseRace(t *testing.T, st store.Store) {
	create(t, st, store.Session{ID: "s", CreatedAt: t0})
	var (
		wg  sync.WaitGroup
		mu  sync.Mutex
		won []string
	)
	for i := range 8 {
		wg.Go(func() {
			node := fmt.Sprintf("node-%d", i)
			ok, err := st.AcquireLease(t.Context(), "s", node, t0, time.Minute)
			if err != nil {
				t.Errorf("AcquireLease(%s): %v", node, err)
			}
			if ok {
				mu.Lock()
				won = append(won, node)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(won) != 1 {
		t.Errorf("%d nodes hold the lease: %v", len(won), won)
	}
}

func testConcurrency(t *testing.T, st store.Store) {
	const (
		writers  = 8
		readers  = 4
		captures = 25
	)
	ctx := t.Context()
	for i := range writers {
		create(t, st, store.Session{ID: fmt.Sprintf("s%d", i), Owner: "alice", CreatedAt: t0.Add(time.Duration(i) * time.Second)})
	}
	var (
		writersWG, readersWG sync.WaitGroup
		done                 = make(chan struct{})
		errs                 = make(chan error, 1000)
	)
	report := func(err error) {
		select {
		case errs <- err:
		default:
		}
	}
	for i := range writers {
		writersWG.Go(func() {
			id := fmt.Sprintf("s%d", i)
			for n := range captures {
				c := Full(id, t0.Add(time.Duration(n)*time.Second))
				c.Tabs[0].URL = fmt.Sprintf("https://example.com/%d", n)
				if err := st.SaveCapture(ctx, c, 3); err != nil {
					report(fmt.Errorf("SaveCapture(%s, %d): %w", id, n, err))
					return
				}
			}
		})
	}
	for r := range readers {
		readersWG.Go(func() {
			for k := 0; ; k++ {
				select {
				case <-done:
					return
				default:
				}
				ss, err := st.ListSessions(ctx, "alice", "")
				if err != nil {
					report(fmt.Errorf("ListSessions: %w", err))
					return
				}
				if len(ss) != writers {
					report(fmt.Errorf("ListSessions listed %d sessions, want %d", len(ss), writers))
				}
				id := fmt.Sprintf("s%d", (r+k)%writers)
				s, err := st.GetSession(ctx, id)
				if err != nil {
					report(fmt.Errorf("GetSession(%s): %w", id, err))
					return
				}
				c, err := st.LatestCapture(ctx, id)
				switch {
				case errors.Is(err, store.ErrNotFound) && s.LastCaptureAt.IsZero():
				case err != nil:
					report(fmt.Errorf("LatestCapture(%s): %w", id, err))
					return
				case c.Taken.Before(s.LastCaptureAt):
					// The row and the capture are written in one
					// transaction: a capture read after the row is never
					// older than the row says.
					report(fmt.Errorf("session %s lists a capture at %v, but the latest is %v", id, s.LastCaptureAt, c.Taken))
				}
			}
		})
	}
	writersWG.Wait()
	close(done)
	readersWG.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
		if s := err.Error(); strings.Contains(s, "SQLITE_BUSY") || strings.Contains(s, "database is locked") {
			t.Error("the store let a busy database through")
		}
	}
	for i := range writers {
		id := fmt.Sprintf("s%d", i)
		want := t0.Add((captures - 1) * time.Second)
		if c := latest(t, st, id); !c.Taken.Equal(want) {
			t.Errorf("%s: latest capture at %v, want %v", id, c.Taken, want)
		}
		if s := get(t, st, id); !s.LastCaptureAt.Equal(want) || s.URL != fmt.Sprintf("https://example.com/%d", captures-1) {
			t.Errorf("%s: %+v", id, s)
		}
		if n, ok := count(t, st, id); ok && n != 3 {
			t.Errorf("%s: %d captures kept, want 3", id, n)
		}
	}
}

func testCancel(t *testing.T, st store.Store) {
	create(t, st, store.Session{ID: "s", CreatedAt: t0})
	save(t, st, small("s", t0, 1), 3)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	calls := map[string]func() error{
		"CreateSession": func() error { return st.CreateSession(ctx, store.Session{ID: "x"}) },
		"GetSession": func() error {
			_, err := st.GetSession(ctx, "s")
			return err
		},
		"ListSessions": func() error {
			_, err := st.ListSessions(ctx, "", "")
			return err
		},
		"SetState":    func() error { return st.SetState(ctx, "s", store.Closed, "") },
		"SaveCapture": func() error { return st.SaveCapture(ctx, small("s", t0.Add(time.Second), 2), 3) },
		"LatestCapture": func() error {
			_, err := st.LatestCapture(ctx, "s")
			return err
		},
		"Recover": func() error {
			_, err := st.Recover(ctx, "n", t0.Add(time.Hour), time.Hour)
			return err
		},
		"AcquireLease": func() error {
			_, err := st.AcquireLease(ctx, "s", "n1", t0, time.Minute)
			return err
		},
		"ReleaseLease": func() error { return st.ReleaseLease(ctx, "s", "n1") },
	}
	for name, call := range calls {
		start := time.Now()
		err := call()
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s with a cancelled context = %v, want context.Canceled", name, err)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("%s with a cancelled context took %v", name, d)
		}
	}
	// Nothing happened, and the store still works.
	if s := get(t, st, "s"); s.State != store.Active || !s.LastCaptureAt.Equal(t0) {
		t.Errorf("cancelled calls changed the session: %+v", s)
	}
	if _, err := st.GetSession(t.Context(), "x"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a cancelled CreateSession created the session: %v", err)
	}

	// A deadline that passes while many writes are under way stops them
	// promptly, and leaves the store usable.
	ctx, cancel = context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			c := Full("s", t0)
			for n := 0; ; n++ {
				c.Taken = t0.Add(time.Duration(i*100000+n) * time.Millisecond)
				if err := st.SaveCapture(ctx, c, 3); err != nil {
					if ctx.Err() == nil {
						t.Errorf("SaveCapture: %v", err)
					}
					return
				}
			}
		})
	}
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	select {
	case <-finished:
	case <-time.After(5 * time.Second):
		t.Fatal("writers did not stop within 5s of their deadline")
	}
	save(t, st, small("s", t0.Add(time.Hour), 7), 3)
	if c := latest(t, st, "s"); c.Tabs[0].URL != "https://example.com/7" {
		t.Errorf("after the deadline: %+v", c)
	}
}

// testFencedCapture: a capture naming its node is written only while no
// other node holds the session's lease.
func testFencedCapture(t *testing.T, st store.Store) {
	ctx := t.Context()
	create(t, st, store.Session{ID: "s", CreatedAt: t0})
	c := small("s", t0, 1)
	c.Node = "n1"
	save(t, st, c, 3) // no lease: nobody else's
	if ok, err := st.AcquireLease(ctx, "s", "n1", t0, time.Minute); err != nil || !ok {
		t.Fatalf("AcquireLease(n1) = %v, %v", ok, err)
	}
	c.Taken = t0.Add(time.Second)
	save(t, st, c, 3) // its own lease
	// n1 stalls past its lease; n2 takes the session over.
	if ok, err := st.AcquireLease(ctx, "s", "n2", t0.Add(2*time.Minute), time.Minute); err != nil || !ok {
		t.Fatalf("AcquireLease(n2) = %v, %v", ok, err)
	}
	late := small("s", t0.Add(3*time.Minute), 9)
	late.Node = "n1"
	if err := st.SaveCapture(ctx, late, 3); !errors.Is(err, store.ErrLeaseLost) {
		t.Fatalf("SaveCapture by the node that lost the lease = %v, want ErrLeaseLost", err)
	}
	got, err := st.LatestCapture(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	if !got.Taken.Equal(t0.Add(time.Second)) {
		t.Errorf("latest capture taken %v, want the last one n1 wrote while it held the lease (%v)", got.Taken, t0.Add(time.Second))
	}
	if s := get(t, st, "s"); !s.LastCaptureAt.Equal(t0.Add(time.Second)) {
		t.Errorf("session's last capture %v after a refused capture, want %v", s.LastCaptureAt, t0.Add(time.Second))
	}
	late.Node = "n2"
	save(t, st, late, 3)
	late.Node = ""
	late.Taken = t0.Add(4 * time.Minute)
	save(t, st, late, 3) // unfenced: written
	other := small("nope", t0, 1)
	other.Node = "n1"
	if err := st.SaveCapture(ctx, other, 3); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("fenced SaveCapture(unknown session) = %v, want ErrNotFound", err)
	}
}

func testNodes(t *testing.T, st store.Store) {
	ctx := t.Context()
	if ns, err := st.ListNodes(ctx); err != nil || len(ns) != 0 {
		t.Fatalf("ListNodes on an empty store = %v, %v", ns, err)
	}
	a := store.Node{ID: "a", URL: "http://10.0.0.1:8765", Instance: "i1", Version: "v1", StartedAt: t0, Heartbeat: t0, Sessions: 2, Tabs: 3, ChromiumBytes: 1 << 30}
	if err := st.Heartbeat(ctx, a, 15*time.Second); err != nil {
		t.Fatal(err)
	}
	b := store.Node{ID: "b", Instance: "j1", StartedAt: t0, Heartbeat: t0}
	if err := st.Heartbeat(ctx, b, 15*time.Second); err != nil {
		t.Fatal(err)
	}
	a.Heartbeat, a.Tabs = t0.Add(5*time.Second), 4
	if err := st.Heartbeat(ctx, a, 15*time.Second); err != nil {
		t.Fatal(err)
	}
	ns, err := st.ListNodes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]store.Node{a, b}, ns, cmpOpts); diff != "" {
		t.Errorf("ListNodes (-want +got):\n%s", diff)
	}
	// Another daemon under a's id while a lives is refused; once a has
	// been silent longer than fresh, it may take the id.
	imp := a
	imp.Instance, imp.Heartbeat = "i2", t0.Add(10*time.Second)
	if err := st.Heartbeat(ctx, imp, 15*time.Second); !errors.Is(err, store.ErrNodeInUse) {
		t.Errorf("Heartbeat by a second daemon under a live node's id = %v, want ErrNodeInUse", err)
	}
	imp.Heartbeat = t0.Add(21 * time.Second)
	if err := st.Heartbeat(ctx, imp, 15*time.Second); err != nil {
		t.Errorf("Heartbeat under a dead node's id: %v", err)
	}
	// RemoveNode drops only its own instance's row.
	if err := st.RemoveNode(ctx, "a", "i1"); err != nil {
		t.Fatal(err)
	}
	if err := st.RemoveNode(ctx, "b", "j1"); err != nil {
		t.Fatal(err)
	}
	ns, err = st.ListNodes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(ns) != 1 || ns[0].ID != "a" || ns[0].Instance != "i2" {
		t.Errorf("after RemoveNode(a, old instance) and RemoveNode(b): %+v, want only a's new instance", ns)
	}
	if err := st.Heartbeat(ctx, store.Node{ID: "", Instance: "x"}, time.Second); err == nil {
		t.Error("Heartbeat without an id succeeded")
	}
}

func testOrphans(t *testing.T, st store.Store) {
	ctx := t.Context()
	if _, _, err := st.LeaseHolder(ctx, "s1"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("LeaseHolder(unknown) = %v, want ErrNotFound", err)
	}
	for _, id := range []string{"s1", "s2", "s3", "s4", "s5"} {
		create(t, st, store.Session{ID: id, CreatedAt: t0})
	}
	for _, id := range []string{"s1", "s2", "s3", "s5"} {
		save(t, st, small(id, t0, 1), 3)
	}
	lease := func(id, node string, ttl time.Duration) {
		t.Helper()
		if ok, err := st.AcquireLease(ctx, id, node, t0, ttl); err != nil || !ok {
			t.Fatalf("AcquireLease(%s, %s) = %v, %v", id, node, ok, err)
		}
	}
	lease("s1", "n1", time.Minute)    // held
	lease("s2", "n1", 10*time.Second) // expires at +10s
	// s3: no lease (handed over); s4: no capture; s5: recoverable.
	if err := st.SetState(ctx, "s5", store.Recoverable, ""); err != nil {
		t.Fatal(err)
	}
	node, until, err := st.LeaseHolder(ctx, "s2")
	if err != nil || node != "n1" || !until.Equal(t0.Add(10*time.Second)) {
		t.Errorf("LeaseHolder(s2) = %q, %v, %v; want n1 until +10s", node, until, err)
	}
	ids := func(now time.Time) []string {
		t.Helper()
		ss, err := st.Orphans(ctx, now)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, s := range ss {
			out = append(out, s.ID)
		}
		return out
	}
	if got := ids(t0.Add(5 * time.Second)); !slices.Equal(got, []string{"s3"}) {
		t.Errorf("Orphans at +5s = %v, want [s3]", got)
	}
	if got := ids(t0.Add(11 * time.Second)); !slices.Equal(got, []string{"s2", "s3"}) {
		t.Errorf("Orphans at +11s = %v, want [s2 s3]", got)
	}
}

func testProfileStates(t *testing.T, st store.Store) {
	ctx := t.Context()
	if _, _, err := st.LoadProfileState(ctx, "alice", "work"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("LoadProfileState(none) = %v, want ErrNotFound", err)
	}
	save := func(plain string, at time.Time) {
		t.Helper()
		if err := st.SaveProfileState(ctx, "alice", "work", []byte(plain), at); err != nil {
			t.Fatal(err)
		}
	}
	load := func() (string, time.Time) {
		t.Helper()
		b, at, err := st.LoadProfileState(ctx, "alice", "work")
		if err != nil {
			t.Fatal(err)
		}
		return string(b), at
	}
	save(`{"cookies":[{"name":"sid"}]}`, t0)
	save(`{"cookies":[{"name":"sid2"}]}`, t0.Add(time.Minute))
	save(`{"stale":true}`, t0.Add(30*time.Second)) // older: ignored
	if got, at := load(); got != `{"cookies":[{"name":"sid2"}]}` || !at.Equal(t0.Add(time.Minute)) {
		t.Errorf("LoadProfileState = %s at %v, want the newest (sid2 at +1m)", got, at)
	}
	// Another owner's profile of the same name is another profile.
	if _, _, err := st.LoadProfileState(ctx, "bob", "work"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("bob's work = %v, want ErrNotFound", err)
	}

	testProfileExcludes(t, st, load)
	testProfileLoginChecks(t, st, load)
}

// testProfileExcludes: excluded domains are none until set; set on a
// profile with or without a saved state; cleared with none; apart from
// the state (load reads alice's work's).
func testProfileExcludes(t *testing.T, st store.Store, load func() (string, time.Time)) {
	ctx := t.Context()
	for _, name := range []string{"work", "fresh"} {
		if got, err := st.ProfileExcludes(ctx, "alice", name); err != nil || got != nil {
			t.Errorf("ProfileExcludes(%s) before any = %v, %v; want none", name, got, err)
		}
		if err := st.SetProfileExcludes(ctx, "alice", name, []string{"lam.example.com", "ads.example"}); err != nil {
			t.Fatal(err)
		}
		got, err := st.ProfileExcludes(ctx, "alice", name)
		if err != nil || !slices.Equal(got, []string{"lam.example.com", "ads.example"}) {
			t.Errorf("ProfileExcludes(%s) = %v, %v", name, got, err)
		}
	}
	if got, _ := load(); got != `{"cookies":[{"name":"sid2"}]}` {
		t.Errorf("setting excluded domains changed the saved state: %s", got)
	}
	if _, _, err := st.LoadProfileState(ctx, "alice", "fresh"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a profile with excluded domains only has a state: %v", err)
	}
	save2 := `{"cookies":[]}`
	if err := st.SaveProfileState(ctx, "alice", "fresh", []byte(save2), t0); err != nil {
		t.Fatal(err)
	}
	if b, _, err := st.LoadProfileState(ctx, "alice", "fresh"); err != nil || string(b) != save2 {
		t.Errorf("state of a profile that had excluded domains first: %s, %v", b, err)
	}
	if err := st.SetProfileExcludes(ctx, "alice", "work", nil); err != nil {
		t.Fatal(err)
	}
	if got, err := st.ProfileExcludes(ctx, "alice", "work"); err != nil || got != nil {
		t.Errorf("ProfileExcludes after clearing = %v, %v", got, err)
	}
	if got, _ := st.ProfileExcludes(ctx, "bob", "fresh"); got != nil {
		t.Errorf("bob's fresh has alice's excluded domains: %v", got)
	}

}

// testProfileLoginChecks: login checks (issue 28 point 5) are none until
// set; set on a profile with or without a row; apart from the state and
// the excluded domains; another owner's profile of the same name has
// none; removed with nil.
func testProfileLoginChecks(t *testing.T, st store.Store, load func() (string, time.Time)) {
	ctx := t.Context()
	check := &store.LoginCheck{URL: "https://app.example.com/account", Text: "Ada Lovelace — ü", Name: "the app"}
	for _, name := range []string{"work", "new"} {
		if got, err := st.ProfileLoginCheck(ctx, "alice", name); err != nil || got != nil {
			t.Errorf("ProfileLoginCheck(%s) before any = %+v, %v; want none", name, got, err)
		}
		if err := st.SetProfileLoginCheck(ctx, "alice", name, check); err != nil {
			t.Fatal(err)
		}
		if got, err := st.ProfileLoginCheck(ctx, "alice", name); err != nil || !cmp.Equal(got, check) {
			t.Errorf("ProfileLoginCheck(%s) = %+v, %v; want %+v", name, got, err, check)
		}
	}
	bySelector := &store.LoginCheck{URL: "http://127.0.0.1:8080/me", Selector: "a[href='/logout']"}
	if err := st.SetProfileLoginCheck(ctx, "alice", "work", bySelector); err != nil {
		t.Fatal(err)
	}
	if got, _ := st.ProfileLoginCheck(ctx, "alice", "work"); !cmp.Equal(got, bySelector) {
		t.Errorf("ProfileLoginCheck after a new one = %+v, want %+v", got, bySelector)
	}
	if got, _ := load(); got != `{"cookies":[{"name":"sid2"}]}` {
		t.Errorf("setting a login check changed the saved state: %s", got)
	}
	if got, _ := st.ProfileExcludes(ctx, "alice", "fresh"); !slices.Equal(got, []string{"lam.example.com", "ads.example"}) {
		t.Errorf("setting a login check changed the excluded domains: %v", got)
	}
	if err := st.SetProfileLoginCheck(ctx, "alice", "fresh", check); err != nil {
		t.Fatal(err)
	}
	if got, _ := st.ProfileExcludes(ctx, "alice", "fresh"); !slices.Equal(got, []string{"lam.example.com", "ads.example"}) {
		t.Errorf("a login check on a profile with excluded domains dropped them: %v", got)
	}
	if got, _ := st.ProfileLoginCheck(ctx, "bob", "work"); got != nil {
		t.Errorf("bob's work has alice's login check: %+v", got)
	}
	if err := st.SetProfileLoginCheck(ctx, "alice", "work", nil); err != nil {
		t.Fatal(err)
	}
	if got, err := st.ProfileLoginCheck(ctx, "alice", "work"); err != nil || got != nil {
		t.Errorf("ProfileLoginCheck after removing it = %+v, %v", got, err)
	}
}

// testListCaptures: a session's kept captures, newest first, with their
// first tab; pruned ones gone; other sessions' apart; a damaged one listed
// with its error.
func testListCaptures(t *testing.T, st store.Store) {
	ctx := t.Context()
	if _, err := st.ListCaptures(ctx, "nope"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("ListCaptures(unknown session) = %v, want ErrNotFound", err)
	}
	create(t, st, store.Session{ID: "s", CreatedAt: t0})
	create(t, st, store.Session{ID: "other", CreatedAt: t0})
	if got, err := st.ListCaptures(ctx, "s"); err != nil || len(got) != 0 {
		t.Errorf("ListCaptures before any capture = %+v, %v; want none", got, err)
	}
	save(t, st, small("other", t0, 100), 3)
	for i := range 5 {
		c := small("s", t0.Add(time.Duration(i)*time.Second), i)
		c.Tabs[0].Title = fmt.Sprintf("Page %d", i)
		if i%2 == 1 {
			c.Tabs = append(c.Tabs, store.Tab{ID: "T2", URL: "about:blank"})
		}
		save(t, st, c, 3)
	}
	// Written out of order: listed by time, not by id.
	save(t, st, small("s", t0.Add(3500*time.Millisecond), 35), 4)
	got, err := st.ListCaptures(ctx, "s")
	if err != nil {
		t.Fatalf("ListCaptures: %v", err)
	}
	var urls []string
	for _, c := range got {
		urls = append(urls, c.URL)
		if c.ID == 0 || c.Err != nil {
			t.Errorf("capture %+v", c)
		}
	}
	want := []string{"https://example.com/4", "https://example.com/35", "https://example.com/3", "https://example.com/2"}
	if !slices.Equal(urls, want) {
		t.Fatalf("ListCaptures URLs = %v, want %v (newest first, the older pruned)", urls, want)
	}
	if c := got[0]; !c.Taken.Equal(t0.Add(4*time.Second)) || c.Tabs != 1 || c.Title != "Page 4" {
		t.Errorf("newest capture listed as %+v", c)
	}
	if c := got[2]; !c.Taken.Equal(t0.Add(3*time.Second)) || c.Tabs != 2 || c.Title != "Page 3" {
		t.Errorf("capture 3 listed as %+v", c)
	}
	ids := map[int64]bool{}
	for _, c := range got {
		ids[c.ID] = true
	}
	if len(ids) != len(got) {
		t.Errorf("ids are not unique: %+v", got)
	}
	// The newest listed is the one LatestCapture reads.
	if l := latest(t, st, "s"); !l.Taken.Equal(got[0].Taken) {
		t.Errorf("LatestCapture is from %v, the list's first from %v", l.Taken, got[0].Taken)
	}
	if o, err := st.ListCaptures(ctx, "other"); err != nil || len(o) != 1 || o[0].URL != "https://example.com/100" || ids[o[0].ID] {
		t.Errorf("another session's captures = %+v, %v", o, err)
	}
	c, ok := st.(Corrupter)
	if !ok {
		return
	}
	if err := c.CorruptLatest(ctx, "s"); err != nil {
		t.Fatal(err)
	}
	got2, err := st.ListCaptures(ctx, "s")
	if err != nil || len(got2) != len(got) {
		t.Fatalf("ListCaptures with a damaged capture = %+v, %v", got2, err)
	}
	if d := got2[0]; !errors.Is(d.Err, store.ErrCorrupt) || d.ID != got[0].ID || !d.Taken.Equal(got[0].Taken) || d.URL != "" {
		t.Errorf("damaged capture listed as %+v", d)
	}
	if got2[1].Err != nil || got2[1].URL != got[1].URL {
		t.Errorf("the capture before the damaged one listed as %+v", got2[1])
	}
}

// testGetCapture: any kept capture reads back whole by its id, and only
// under its own session.
func testGetCapture(t *testing.T, st store.Store) {
	ctx := t.Context()
	create(t, st, store.Session{ID: "s", Owner: "alice", CreatedAt: t0})
	create(t, st, store.Session{ID: "other", CreatedAt: t0})
	old := Full("s", t0.Add(1234*time.Millisecond))
	save(t, st, old, 10)
	save(t, st, small("s", t0.Add(time.Minute), 2), 10)
	save(t, st, small("other", t0, 9), 10)
	list, err := st.ListCaptures(ctx, "s")
	if err != nil || len(list) != 2 {
		t.Fatalf("ListCaptures = %+v, %v", list, err)
	}
	got, err := st.GetCapture(ctx, "s", list[1].ID)
	if err != nil {
		t.Fatalf("GetCapture(older): %v", err)
	}
	if d := cmp.Diff(old, got, cmpOpts); d != "" {
		t.Errorf("GetCapture of the older capture (-saved +read):\n%s", d)
	}
	if got, err := st.GetCapture(ctx, "s", list[0].ID); err != nil || got.Tabs[0].URL != "https://example.com/2" {
		t.Errorf("GetCapture(newest) = %+v, %v", got, err)
	}
	others, err := st.ListCaptures(ctx, "other")
	if err != nil || len(others) != 1 {
		t.Fatalf("ListCaptures(other) = %+v, %v", others, err)
	}
	if _, err := st.GetCapture(ctx, "s", others[0].ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("GetCapture of another session's capture = %v, want ErrNotFound", err)
	}
	if _, err := st.GetCapture(ctx, "nope", list[0].ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("GetCapture(unknown session) = %v, want ErrNotFound", err)
	}
	if _, err := st.GetCapture(ctx, "s", list[0].ID+1000); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("GetCapture(unknown id) = %v, want ErrNotFound", err)
	}
	// Pruned captures are gone.
	for i := range 3 {
		save(t, st, small("s", t0.Add(time.Hour+time.Duration(i)*time.Second), 10+i), 2)
	}
	if _, err := st.GetCapture(ctx, "s", list[1].ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("GetCapture of a pruned capture = %v, want ErrNotFound", err)
	}
	if c, ok := st.(Corrupter); ok {
		if err := c.CorruptLatest(ctx, "s"); err != nil {
			t.Fatal(err)
		}
		now, _ := st.ListCaptures(ctx, "s")
		if _, err := st.GetCapture(ctx, "s", now[0].ID); !errors.Is(err, store.ErrCorrupt) {
			t.Errorf("GetCapture(damaged) = %v, want ErrCorrupt", err)
		}
		if _, err := st.GetCapture(ctx, "s", now[1].ID); err != nil {
			t.Errorf("GetCapture of the capture before the damaged one: %v", err)
		}
	}
}
