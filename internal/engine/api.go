package engine

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/browserd/browserd/internal/auth"
	"github.com/browserd/browserd/internal/browser"
	"github.com/browserd/browserd/internal/inject"
	"github.com/browserd/browserd/internal/sessions"
	"github.com/browserd/browserd/internal/storagestate"
	"github.com/browserd/browserd/internal/store"
	"github.com/browserd/browserd/internal/tool"
)

// What the HTTP API's session endpoints need beyond the browser tool.
// Every method acts for the owner in ctx (auth.Owner) and takes bare
// names; another owner's session is store.ErrNotFound.

// SessionInfo is one session of the caller: its listing and, when it is
// live here, its tabs.
func (e *Engine) SessionInfo(ctx context.Context, id string) (tool.SessionInfo, []tool.Tab, error) {
	s, q, err := e.LiveSession(ctx, id)
	if err != nil {
		return tool.SessionInfo{}, nil, err
	}
	row, err := e.Store.GetSession(ctx, q)
	if err != nil {
		return tool.SessionInfo{}, nil, err
	}
	info := tool.SessionInfo{ID: id, State: string(row.State), Profile: sessions.BareName(row.Profile), Reason: strings.ReplaceAll(row.Reason, auth.Owner(ctx)+sessions.OwnerSep, ""),
		Tabs: row.Tabs, URL: row.URL, Created: row.CreatedAt, Updated: row.UpdatedAt, LastCapture: row.LastCaptureAt, Login: e.LastLogin(q)}
	var tabs []tool.Tab
	if s != nil {
		e.Mu.Lock()
		tasks := make([]*sessions.Task, 0, len(s.Tasks))
		for _, t := range s.Tasks {
			tasks = append(tasks, t)
		}
		e.Mu.Unlock()
		for _, t := range tasks {
			tabs = append(tabs, e.tabsOf(ctx, t)...)
		}
		info.Tabs = len(tabs)
	}
	// Titles and URLs are the page's: its echo of a secret too.
	red := e.Redactor(ctx, auth.Owner(ctx))
	info.URL = red.String(info.URL)
	for i := range tabs {
		tabs[i].Title, tabs[i].URL = red.String(tabs[i].Title), red.String(tabs[i].URL)
	}
	return info, tabs, nil
}

// StoreSession keeps the caller's session's current state as a stored
// session (POST /api/sessions/{id}/capture).
func (e *Engine) StoreSession(ctx context.Context, id, name string, expiresAt time.Time) (store.StoredSession, error) {
	st, err := e.ExportState(ctx, id)
	if err != nil {
		return store.StoredSession{}, err
	}
	return e.SaveStored(ctx, cmp.Or(name, id), st, expiresAt)
}

// SaveStored stores st for the caller under a new id.
func (e *Engine) SaveStored(ctx context.Context, name string, st *storagestate.State, expiresAt time.Time) (store.StoredSession, error) {
	b := make([]byte, 8)
	rand.Read(b)
	ss := store.StoredSession{ID: "ss_" + hex.EncodeToString(b), Owner: auth.Owner(ctx), Name: name, ExpiresAt: expiresAt, Created: time.Now().UTC(), State: st}
	if err := e.Store.SaveStored(ctx, ss); err != nil {
		return store.StoredSession{}, err
	}
	ss.Describe()
	ss.Created = ss.Created.Truncate(time.Millisecond)
	return ss, nil
}

// StoredSessions are the stored sessions (every method takes the owner).
func (e *Engine) StoredSessions() store.StoredSessions { return e.Store }

// Tokens keeps the API's bearer tokens.
func (e *Engine) Tokens() auth.Store {
	if ts, ok := e.Store.(auth.Store); ok {
		return ts
	}
	return nil
}

// ErrSessionClosed ends the calls that run when their session is closed.
var ErrSessionClosed = errors.New("the session was closed while this call ran")

// CloseSession closes every task of the caller's session and marks it
// closed (DELETE /api/sessions/{id}); a session only in the store (such
// as a recoverable one) is closed there. Calls running in it end at once
// with ErrSessionClosed.
func (e *Engine) CloseSession(ctx context.Context, id string) error {
	started := time.Now()
	s, q, err := e.LiveSession(ctx, id)
	if err != nil {
		return err
	}
	row, err := e.Store.GetSession(ctx, q)
	if err != nil {
		return err
	}
	if s == nil {
		if row.State == store.Active {
			if ok, err := e.Store.AcquireLease(ctx, q, e.Node, time.Now(), e.LeaseTTL()); err != nil {
				return err
			} else if !ok {
				return fmt.Errorf("%w: session %q is active in another browserd on this store", store.ErrConflict, id)
			}
			defer e.Store.ReleaseLease(context.WithoutCancel(ctx), q, e.Node)
		}
		if row.State == store.Closed {
			return nil
		}
		e.Recorder.DropSession(q)
		return e.Store.SetState(ctx, q, store.Closed, "closed over the API")
	}
	// Running actions finish first (in the order actions take the locks:
	// the tasks', then resumeMu), and no resume runs meanwhile; calls that
	// arrive meanwhile are refused, calls that wait give up.
	e.Mu.Lock()
	s.Closing = true
	tasks := make([]*sessions.Task, 0, len(s.Tasks))
	for _, t := range s.Tasks {
		tasks = append(tasks, t)
		if t.Stop != nil {
			t.Stop(ErrSessionClosed) // a call stuck on the page ends now
		}
	}
	e.Mu.Unlock()
	slices.SortFunc(tasks, func(a, b *sessions.Task) int { return strings.Compare(a.Name, b.Name) })
	for _, t := range tasks {
		t.Run.Lock()
		defer t.Run.Unlock()
	}
	e.ResumeMu.Lock()
	defer e.ResumeMu.Unlock()
	if err := e.CaptureSession(ctx, s); err != nil {
		e.Log.Warn("capturing a session on close failed", "session", s.ID, "err", err)
	}
	e.Mu.Lock()
	s.Stored = false
	e.Mu.Unlock()
	defer func() {
		e.Mu.Lock()
		s.Closing = false // a profile's session reopens on its next call
		e.Mu.Unlock()
	}()
	if s.Profile == "" {
		e.Discard(ctx, s)
	} else {
		e.CloseSessionTabs(ctx, s)
	}
	if err := e.Store.SetState(ctx, q, store.Closed, "closed over the API"); err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	e.Recorder.DropSession(q)
	err = e.Store.ReleaseLease(context.WithoutCancel(ctx), q, e.Node)
	// The browser exits with its last session, as on the close action.
	e.Mu.Lock()
	key := e.SlotKey(s)
	e.Mu.Unlock()
	e.StopUnused(context.WithoutCancel(ctx), key, started)
	return err
}

// SessionHint is source 003 FR-5's prompt block for the caller's session
// (default: the default profile's) or stored session.
func (e *Engine) SessionHint(ctx context.Context, session, stored string) (string, error) {
	if stored != "" {
		ss, err := e.Store.GetStored(ctx, auth.Owner(ctx), stored)
		if err != nil {
			return "", err
		}
		return inject.StoredHint(stored, ss.State, inject.Domains(ss.State)), nil
	}
	if session == "" {
		session = "default"
	}
	st, injected, err := e.SessionState(ctx, session)
	if err != nil {
		return "", err
	}
	return inject.Hint(session, st, injected, inject.Domains(st)), nil
}

// TabPage is tab of the caller's live session (its front tab when tab is
// ""), and the tab's id, for a person to watch (internal/live);
// store.ErrNotFound when the session is not live here or has no such tab
// — another owner's tab is not found either.
func (e *Engine) TabPage(ctx context.Context, session, tab string) (*browser.Page, string, error) {
	s, q, err := e.LiveSession(ctx, session)
	if err != nil {
		return nil, "", err
	}
	if s == nil {
		return nil, "", fmt.Errorf("%w: session %q is not running here", store.ErrNotFound, session)
	}
	e.Mu.Lock()
	tb := e.Tabs[sessions.TabKey{Sess: q, Tab: tab}]
	if tab == "" {
		tb = frontTab(s)
	}
	e.Mu.Unlock()
	if tb == nil {
		if tab == "" {
			return nil, "", fmt.Errorf("%w: session %q has no open tab", store.ErrNotFound, session)
		}
		return nil, "", fmt.Errorf("%w: no tab %s in session %q", store.ErrNotFound, tab, session)
	}
	// A person watches what the tab shows: one a resume left unloaded
	// opens and loads first.
	e.Mu.Lock()
	lazy := tb.Lazy != nil
	e.Mu.Unlock()
	if lazy {
		e.Wake(ctx, tb, false, e.Cfg.NavTime)
	}
	if tb.Page == nil || tb.Page.Closed() {
		return nil, "", fmt.Errorf("%w: tab %s of session %q is closed, or could not be opened", store.ErrNotFound, tb.ID, session)
	}
	return tb.Page, tb.ID, nil
}

// frontTab is the session's tab a person sees first: the default task's
// in front, else the first task's (by name) in front. Call with Engine.mu
// held.
func frontTab(s *sessions.Session) *sessions.Tab {
	if t := s.Tasks["default"]; t != nil && t.Active != nil {
		return t.Active
	}
	names := make([]string, 0, len(s.Tasks))
	for n := range s.Tasks {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		if t := s.Tasks[n]; t.Active != nil {
			return t.Active
		}
	}
	return nil
}
