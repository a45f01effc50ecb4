package engine

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/browserd/browserd/internal/browser"
	"github.com/browserd/browserd/internal/storagestate"
	"github.com/browserd/browserd/internal/store"
)

// readTabJS reads, in one turn of the page's event loop (so a navigation
// cannot come between them), what a capture keeps of a tab: its URL and
// title, its viewport, and its origin's localStorage and the tab's
// sessionStorage.
const readTabJS = `(() => { const r = {url: location.href, title: document.title, origin: location.origin, w: innerWidth, h: innerHeight};
  try { r.local = Object.entries(localStorage); } catch (e) {}
  try { r.session = Object.entries(sessionStorage).filter(([k]) => !k.startsWith('__browserd_')); } catch (e) {}
  return r; })()`

type tabRead struct {
	URL     string      `json:"url"`
	Title   string      `json:"title"`
	Origin  string      `json:"origin"`
	W       int         `json:"w"`
	H       int         `json:"h"`
	Local   [][2]string `json:"local"`
	Session [][2]string `json:"session"`
}

// capture takes a session's state and writes it to the store. A session
// whose browser is gone, or that waits to be rehydrated, is not captured:
// its last good capture must stay the newest.
// saveKind is a kind of background save of a session.
type saveKind int

const (
	saveCapture saveKind = iota // the session's capture, in the store
	saveProfile                 // the profile's saved state, a file
)

// noteSave records how a background save of s went: the session's next
// actions say so while a save of any kind fails.
func (e *Engine) noteSave(s *session, kind saveKind, err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err == nil {
		delete(s.saveErr, kind)
		return
	}
	if s.saveErr == nil {
		s.saveErr = map[saveKind]string{}
	}
	s.saveErr[kind] = err.Error()
}

// saveFailures is why s's background saves fail, "" when they work. Call
// with Engine.mu held.
func (s *session) saveFailures() string {
	var out []string
	for _, k := range []saveKind{saveCapture, saveProfile} {
		if msg := s.saveErr[k]; msg != "" {
			out = append(out, msg)
		}
	}
	return strings.Join(out, "; ")
}

func (e *Engine) capture(ctx context.Context, s *session) error {
	if e.cfg.NoCapture {
		return nil
	}
	s.capMu.Lock()
	defer s.capMu.Unlock()
	type item struct {
		task   string
		tb     *tab
		active bool
		review bool
	}
	e.mu.Lock()
	if !s.stored || s.parked || s.rehydrate {
		e.mu.Unlock()
		return nil
	}
	var items []item
	for _, t := range s.tasks {
		for _, tb := range t.tabs {
			items = append(items, item{t.name, tb, tb == t.active, t.ended})
		}
	}
	ctxID, prev := s.ctxID, s.lastTabs
	s.capDirty = false
	e.mu.Unlock()
	ok := false
	defer func() {
		if !ok {
			e.mu.Lock()
			s.capDirty = true
			e.mu.Unlock()
		}
	}()
	br := e.browserOf(s)
	if br == nil || isDone(br.Done()) {
		return nil
	}
	taken := time.Now()
	defer func() { e.metrics.Capture(ok, time.Since(taken)) }()
	cookies, err := contextCookies(ctx, br, ctxID)
	if err != nil {
		return err
	}
	e.mu.Lock()
	emu := s.emu
	injected := slices.Clone(s.injected)
	creds := make([]store.Credential, len(s.creds))
	for i, cr := range s.creds {
		creds[i] = store.Credential(cr)
	}
	e.mu.Unlock()
	c := store.Capture{SessionID: s.id, Node: e.node, Taken: taken, Cookies: cookies,
		UserAgent: emu.UserAgent, Timezone: emu.Timezone, Geolocation: (*store.Geolocation)(emu.Geolocation), Credentials: creds, InjectedDomains: injected}
	var st storagestate.State
	seen := map[string]capturedTab{}
	slices.SortFunc(items, func(a, b item) int { return cmp.Compare(tabNum(a.tb.id), tabNum(b.tb.id)) })
	for _, it := range items {
		t, read := e.readTab(ctx, it.tb.page)
		if !read {
			// Closed, crashed, blocked by a dialog or between documents:
			// keep what the last capture knew of the tab.
			if p, found := prev[it.tb.id]; found {
				t = p
			}
		}
		if t.Origin != "" {
			st.MergeOrigins([]storagestate.Origin{{Origin: t.Origin, LocalStorage: t.local}})
		}
		t.Tab.ID, t.Tab.Task, t.Tab.Active, t.Tab.Review = it.tb.id, it.task, it.active, it.review
		c.Tabs = append(c.Tabs, t.Tab)
		seen[it.tb.id] = t
	}
	c.Origins = st.Origins
	if err := e.store.SaveCapture(ctx, c, e.cfg.MaxSessionSnapshots); err != nil {
		// ErrLeaseLost: another node runs the session now; the next
		// lease renewal lets it go here.
		return err
	}
	ok = true
	e.mu.Lock()
	s.lastCapture = taken
	s.lastTabs = seen
	e.mu.Unlock()
	return nil
}

// capturedTab is a tab as captured, with the localStorage of its origin
// (which the capture keeps per origin, not per tab).
type capturedTab struct {
	store.Tab
	Origin string
	local  []storagestate.NameValue
}

// readTab reads a tab for a capture; false when it cannot be read now.
func (e *Engine) readTab(ctx context.Context, pg *browser.Page) (capturedTab, bool) {
	var t capturedTab
	// A tab whose next document is on its way cannot answer until it
	// commits (Chromium holds commands to it): it keeps what the last
	// capture knew, at once, rather than holding up every session's
	// capture for the read's two seconds.
	if pg.Closed() || pg.Crashed() || pg.Dialog() != nil || pg.NavPending() {
		return t, false
	}
	rctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	var r tabRead
	if err := pg.Run(rctx, readTabJS, &r); err != nil {
		return t, false
	}
	t.URL, t.Title, t.Width, t.Height = r.URL, r.Title, r.W, r.H
	if r.Origin == "null" || originOf(r.URL) == "" {
		return t, true // about:blank, data: and the like keep no storage
	}
	t.Origin = r.Origin
	for _, kv := range r.Local {
		t.local = append(t.local, storagestate.NameValue{Name: kv[0], Value: kv[1]})
	}
	for _, kv := range r.Session {
		t.SessionStorage = append(t.SessionStorage, storagestate.NameValue{Name: kv[0], Value: kv[1]})
	}
	return t, true
}

// changed notes a state-changing action: the session is captured soon,
// at once when the last capture is older than the interval.
func (e *Engine) changed(s *session) {
	e.mu.Lock()
	s.capDirty = true
	due := time.Since(s.lastCapture) >= e.cfg.SnapshotInterval
	e.mu.Unlock()
	if due {
		select {
		case e.capWake <- struct{}{}:
		default:
		}
	}
}

// captureDue captures the sessions that changed and whose last capture is
// older than the interval.
func (e *Engine) captureDue(now time.Time) {
	var due []*session
	e.mu.Lock()
	for _, s := range e.sessions {
		if !s.stored || s.parked {
			continue
		}
		if s.capDirty && !s.rehydrate && now.Sub(s.lastCapture) >= e.cfg.SnapshotInterval {
			due = append(due, s)
		}
	}
	e.mu.Unlock()
	for _, s := range due {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err := e.capture(ctx, s)
		if err != nil {
			e.log.Warn("capturing session state failed; the last good capture stays", "session", s.id, "err", err)
		}
		e.noteSave(s, saveCapture, err)
		cancel()
	}
}

// Capture captures a live session now, whatever the interval (benchmarks
// and tools that need a fresh capture use it).
func (e *Engine) Capture(ctx context.Context, sessionID string) error {
	e.mu.Lock()
	s := e.sessions[sessionID]
	e.mu.Unlock()
	if s == nil {
		return fmt.Errorf("no live session %q", sessionID)
	}
	return e.capture(ctx, s)
}
