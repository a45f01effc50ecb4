package profiles

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/browserd/browserd/internal/recovery"
	"github.com/browserd/browserd/internal/sessions"
	"github.com/browserd/browserd/internal/storagestate"
	"github.com/browserd/browserd/internal/store"
)

// Exports: a session's cookies and storage as a storageState, and the
// session whole (its tabs too), from its live browser or, when it is not
// running, from its newest capture.

// ExportState is the caller's session's storageState: read from its
// browser when live here, else from its last capture.
func (e *Keeper) ExportState(ctx context.Context, id string) (*storagestate.State, error) {
	st, _, err := e.SessionState(ctx, id)
	return st, err
}

// SessionState is ExportState, with the domains of the states injected
// into the session.
func (e *Keeper) SessionState(ctx context.Context, id string) (*storagestate.State, []string, error) {
	s, q, err := e.LiveSession(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	row, err := e.Store.GetSession(ctx, q)
	if err != nil {
		return nil, nil, err
	}
	if s != nil {
		e.Mu.Lock()
		injected := slices.Clone(s.Injected)
		e.Mu.Unlock()
		if st, ok, err := e.liveState(ctx, s); ok || err != nil {
			return st, injected, err
		}
	}
	c, err := e.exportedCapture(ctx, id, q, row)
	if err != nil {
		return nil, nil, err
	}
	return &storagestate.State{Cookies: c.Cookies, Origins: c.Origins}, c.InjectedDomains, nil
}

// exportedCapture is the newest capture of a session that does not run
// here, for an export: a closed session's credentials are not handed out
// again. (Stale and failed sessions' are: they ended against their
// owner's will.)
func (e *Keeper) exportedCapture(ctx context.Context, id, q string, row store.Session) (store.Capture, error) {
	if row.State == store.Closed {
		return store.Capture{}, fmt.Errorf("%w: session %q is %s; its state is no longer exported", store.ErrNotFound, id, row.State)
	}
	c, err := e.Store.LatestCapture(ctx, q)
	if err != nil {
		return store.Capture{}, fmt.Errorf("session %q is not running and has no readable capture: %w", id, err)
	}
	return c, nil
}

// ExportSession is GET /api/sessions/{id}/state: the caller's session's
// storageState with where its tabs are and each tab's sessionStorage —
// read from its browser when it runs here, else from its newest capture,
// which the answer names with its time.
func (e *Keeper) ExportSession(ctx context.Context, id string) (*storagestate.Export, error) {
	s, q, err := e.LiveSession(ctx, id)
	if err != nil {
		return nil, err
	}
	row, err := e.Store.GetSession(ctx, q)
	if err != nil {
		return nil, err
	}
	if s != nil {
		st, ok, err := e.liveState(ctx, s)
		if err != nil {
			return nil, err
		}
		if ok {
			x := &storagestate.Export{State: *st, Source: "browser", Tabs: e.liveTabs(ctx, s)}
			x.Front()
			return x, nil
		}
	}
	c, err := e.exportedCapture(ctx, id, q, row)
	if err != nil {
		return nil, err
	}
	taken := c.Taken
	x := &storagestate.Export{State: storagestate.State{Cookies: c.Cookies, Origins: slices.Clone(c.Origins)}, Source: "capture", CapturedAt: &taken}
	for _, t := range c.Tabs {
		x.Tabs = append(x.Tabs, storagestate.ExportTab{ID: t.ID, Task: t.Task, URL: t.URL, Title: t.Title, Active: t.Active, SessionStorage: t.SessionStorage})
	}
	x.AddTabStorage(recovery.OriginOf)
	x.Front()
	return x, nil
}

// liveTabs reads every tab of a live session as a capture would, in tab
// order; a tab that cannot be read now (between documents, blocked by a
// dialog) is shown as the last capture knew it.
func (e *Keeper) liveTabs(ctx context.Context, s *sessions.Session) []storagestate.ExportTab {
	type item struct {
		task   string
		tb     *sessions.Tab
		active bool
	}
	e.Mu.Lock()
	var items []item
	for _, t := range s.Tasks {
		for _, tb := range t.Tabs {
			items = append(items, item{t.Name, tb, tb == t.Active})
		}
	}
	prev := s.LastTabs
	e.Mu.Unlock()
	slices.SortFunc(items, func(a, b item) int { return cmp.Compare(sessions.TabNum(a.tb.ID), sessions.TabNum(b.tb.ID)) })
	out := make([]storagestate.ExportTab, 0, len(items))
	for _, it := range items {
		t, ok := e.ReadLoaded(ctx, it.tb)
		if !ok {
			if p, found := prev[it.tb.ID]; found {
				t = p
			} else {
				url, title := e.TabInfo(ctx, it.tb)
				t.URL, t.Title = url.Unwrap(), title.Unwrap()
			}
		}
		out = append(out, storagestate.ExportTab{ID: it.tb.ID, Task: it.task, URL: t.URL, Title: t.Title, Active: it.active, SessionStorage: t.SessionStorage})
	}
	return out
}

// liveState reads a live session's state from its browser; ok is false
// when the browser cannot answer for it now (not running, or the session
// is waiting to be brought back after a crash), and the last capture is
// the truth.
func (e *Keeper) liveState(ctx context.Context, s *sessions.Session) (*storagestate.State, bool, error) {
	s.CapMu.Lock()
	defer s.CapMu.Unlock()
	e.Mu.Lock()
	stale := s.Rehydrate || (s.Profile == "" && s.Dir == "" && s.CtxID == "" && e.Cfg.CDP == "")
	e.Mu.Unlock()
	br := e.BrowserOf(s)
	if stale || br == nil {
		return nil, false, nil
	}
	select {
	case <-br.Done():
		return nil, false, nil
	default:
	}
	st, err := e.CaptureState(ctx, br, s)
	if err != nil {
		return nil, false, err
	}
	if s.Profile != "" {
		if old, _, err := e.LoadProfileState(ctx, s.Profile); err == nil && old != nil {
			old.Cookies = st.Cookies
			old.MergeOrigins(st.Origins)
			st = old
		}
	}
	return st, true, nil
}
