package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/browserd/browserd/internal/browser"
	"github.com/browserd/browserd/internal/recovery"
	"github.com/browserd/browserd/internal/sessions"
	"github.com/browserd/browserd/internal/store"
)

// The recovery actions: list_sessions, session_resume and the resume of a
// session a call names (open); the recovery itself is internal/recovery.

// open returns the live session for a call that names a session that is
// not live here (or parked by the idle policy, or no longer in the store):
// it resumes a recoverable one, refuses one another daemon holds, and
// otherwise starts a new one. Call with resumeMu not held.
func (e *Engine) open(ctx context.Context, c *call, s *sessions.Session, id, profile string) (*sessions.Session, error) {
	e.ResumeMu.Lock()
	defer e.ResumeMu.Unlock()
	e.Mu.Lock()
	if cur := e.Sessions[id]; cur != nil && cur.Stored && !cur.Parked {
		e.Mu.Unlock()
		if c.inj != nil && c.inj.Fresh {
			return nil, c.inj.Taken(sessions.BareName(id))
		}
		return cur, nil // made live meanwhile
	} else if cur != nil {
		s = cur
	}
	e.Mu.Unlock()
	row, err := e.Store.GetSession(ctx, id)
	switch {
	case errors.Is(err, store.ErrNotFound):
	case err != nil:
		return nil, fmt.Errorf("reading session %q from the store: %w", id, err)
	case row.State == store.Recoverable || row.State == store.Active:
		return e.resumeStored(ctx, c, s, id, row)
	default:
		c.res.Notes = append(c.res.Notes, fmt.Sprintf("an earlier session %q was %s; this is a new session under the same name", id, row.State))
	}
	if s != nil && s.Profile == "" {
		// A closed ephemeral session's context still holds its cookies:
		// a new session under its name starts clean.
		e.Discard(ctx, s)
		s = nil
	}
	if s == nil {
		s = e.NewSession(id, profile)
	}
	if dir := c.in.UserDataDir; dir != "" {
		e.Mu.Lock()
		err := e.CheckFolder(id, dir)
		e.Mu.Unlock()
		if err != nil {
			return nil, err
		}
	}
	// Its proxy (launch's, or the daemon's) before it is open for any
	// request.
	if err := c.applyProxy(s); err != nil {
		return nil, err
	}
	if err := c.applyClientCerts(ctx, s, true); err != nil {
		return nil, err
	}
	if err := e.record(ctx, id, s); err != nil {
		return nil, err
	}
	e.Mu.Lock()
	s.Stored, s.Parked, s.Rehydrate, s.Closing = true, false, false, false
	s.LastCapture = time.Time{}
	// A new session (perhaps on a profile's reused one) starts with the
	// daemon's environment, or the one it is created with.
	s.Width, s.Height, s.Emu, s.Headed = 0, 0, browser.Emulation{}, nil
	// A session made anew under an earlier one's name runs where this call
	// says.
	s.Dir = c.in.UserDataDir
	if c.inj != nil {
		s.Emu = c.inj.Emu
	}
	if h := c.in.Headless; h != nil && c.in.Action == "launch" && e.Cfg.CDP == "" {
		s.Headed = new(!*h)
	}
	c.opened = true
	e.Sessions[id] = s
	e.Mu.Unlock()
	return s, nil
}

// resumeStored brings back a session the store holds as recoverable or
// active (taking its lease), for the call that names it; a launch is
// refused (session_resume resumes) and a close closes it in the store.
func (e *Engine) resumeStored(ctx context.Context, c *call, s *sessions.Session, id string, row store.Session) (*sessions.Session, error) {
	if row.State == store.Active {
		if ok, err := e.Store.AcquireLease(ctx, id, e.Node, time.Now(), e.LeaseTTL()); err != nil {
			return nil, err
		} else if !ok {
			return nil, sessions.Held("session %q is active in another browserd on this store; use it there, or pick another session name", id)
		}
	}
	switch c.in.Action {
	case "launch":
		_ = e.Store.ReleaseLease(ctx, id, e.Node)
		return nil, fail("session %q is %s from an earlier run (last capture %s): resume it with session_resume, or close it to start afresh", id, row.State, recovery.Ago(row.LastCaptureAt))
	case "close":
		if err := e.Store.SetState(ctx, id, store.Closed, "closed by the agent before it was resumed"); err != nil {
			return nil, err
		}
		_ = e.Store.ReleaseLease(ctx, id, e.Node)
		return nil, recovery.ErrClosedStored
	}
	var skip *recovery.TabRef
	switch c.in.Action {
	case "navigate":
		// The call is about to load another page in its tab: loading
		// the captured one first would be waste.
		skip = &recovery.TabRef{Task: cmp.Or(c.in.Task, "default"), Tab: c.in.Tab}
	case "tab_new":
		// The call opens a tab of its own: the task's captured tabs all
		// load when they are used, none now.
		skip = &recovery.TabRef{Task: cmp.Or(c.in.Task, "default"), Away: true}
	}
	live, rep, err := e.ResumeLocked(ctx, s, row, skip, nil)
	if err != nil {
		return nil, err
	}
	c.res.Notes = append(c.res.Notes, fmt.Sprintf("session %q was resumed from a %s-old capture; %s", id, time.Since(rep.Taken).Round(time.Second), recovery.NotRestored))
	c.res.Details = append(c.res.Details, rep.Problems...)
	return live, nil
}

// record creates the session in the store and takes its lease.
func (e *Engine) record(ctx context.Context, id string, s *sessions.Session) error {
	owner, _ := sessions.SplitName(id)
	if err := e.Store.CreateSession(ctx, store.Session{ID: id, Owner: owner, Profile: s.Profile}); err != nil {
		if errors.Is(err, store.ErrConflict) {
			return fail("session %q is in use (%v); pick another session name", id, err)
		}
		return fmt.Errorf("recording session %q in the store: %w", id, err)
	}
	if _, err := e.Store.AcquireLease(ctx, id, e.Node, time.Now(), e.LeaseTTL()); err != nil {
		return err
	}
	return nil
}

// listSessions is the list_sessions action (internal/status).
func (c *call) listSessions(ctx context.Context) (err error) {
	if c.in.Session != "" {
		if c.res.Captures, c.res.Content, err = c.e.CaptureList(ctx, c.in.Session); err == nil {
			c.res.Session = c.in.Session
		}
		return err
	}
	c.res.Sessions, c.res.Content, err = c.e.SessionList(ctx, c.owner, c.in.Filter)
	return err
}

// resume is the session_resume action.
func (c *call) resume(ctx context.Context) error {
	id := c.in.Session
	c.res.Session = id
	s, rep, err := c.e.ResumeFrom(ctx, id, true, c.in.Capture)
	if err != nil {
		return err
	}
	c.res.Tabs = rep.Tabs
	c.res.Details = rep.Problems
	which := "its capture"
	if rep.Capture != 0 {
		which = fmt.Sprintf("its capture %d", rep.Capture)
	}
	c.res.Content = fmt.Sprintf("resumed session %q from %s of %s: %d tabs", id, which, recovery.Ago(rep.Taken), len(rep.Tabs))
	c.res.Notes = append(c.res.Notes, recovery.NotRestored)
	// Is it still logged in? Out of the resume's lock: a slow page holds
	// up no other resume.
	c.addLoginRun(c.e.DueLoginCheck(ctx, s))
	return nil
}
