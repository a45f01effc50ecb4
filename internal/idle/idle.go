// Package idle closes what nobody uses any more: the tabs of tasks idle
// past --idle-timeout (their session captured first, and parked when no
// task of it is left, so that it can be resumed), the tabs a task left for
// review past --review-grace, ephemeral sessions with no task left, and
// the browsers no session uses (browsers.Pool.StopUnused).
package idle

import (
	"context"
	"fmt"
	"time"

	"github.com/browserd/browserd/internal/browsers"
	"github.com/browserd/browserd/internal/recovery"
	"github.com/browserd/browserd/internal/sessions"
	"github.com/browserd/browserd/internal/store"
)

// Janitor closes idle tasks, sessions and browsers; Run is its goroutine.
type Janitor struct {
	*sessions.Registry
	*browsers.Pool
	*recovery.Recovery
}

// Run closes tabs of tasks idle longer than the idle timeout, and the
// browser when no tab is left.
func (e *Janitor) Run() {
	every := min(max(e.Cfg.IdleTimeout/4, time.Second), 30*time.Second)
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-e.Stop:
			return
		case <-tick.C:
			e.Reap(time.Now())
		}
	}
}

func (e *Janitor) Reap(now time.Time) {
	if e.Cfg.IdleTimeout <= 0 {
		return
	}
	var idle []*sessions.Task
	e.Mu.Lock()
	for _, s := range e.Sessions {
		for _, t := range s.Tasks {
			if e.Expired(t, now) {
				idle = append(idle, t)
			}
		}
	}
	e.Mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	captured := map[*sessions.Session]bool{} // once, before the first idle task goes
	for _, t := range idle {
		if !t.Run.TryLock() {
			continue // busy right now, so not idle
		}
		e.closeTask(ctx, t, now, captured)
		t.Run.Unlock()
	}
	e.dropEphemeral(ctx, now)
	e.dropLeftovers(now)
	// A browser none of whose sessions has a tab left is closed.
	e.StopUnused(ctx, "", now.Add(-e.Cfg.IdleTimeout))
}

// Expired reports whether t's tabs are due to close: a working task's
// after the idle timeout, an ended task's (left for review) after the
// review grace (never when it is 0). Call with mu held.
func (e *Janitor) Expired(t *sessions.Task, now time.Time) bool {
	if t.Ended {
		return e.Cfg.ReviewGrace > 0 && now.Sub(t.EndedAt) > e.Cfg.ReviewGrace
	}
	return now.Sub(t.LastUsed) > e.Cfg.IdleTimeout
}

// closeTask closes the tabs of a task that is still idle (call with its
// Run lock held), capturing its session first (once per reap); the
// session is parked when no task of it is left.
func (e *Janitor) closeTask(ctx context.Context, t *sessions.Task, now time.Time, captured map[*sessions.Session]bool) {
	e.Mu.Lock()
	tabs := append([]*sessions.Tab(nil), t.Tabs...)
	still := e.Expired(t, now)
	e.Mu.Unlock()
	if !still {
		return
	}
	// Always captured before an idle close: the session can come
	// back as it was.
	if !captured[t.Sess] {
		captured[t.Sess] = true
		if err := e.CaptureSession(ctx, t.Sess); err != nil {
			e.Log.Warn("capturing an idle session failed", "session", t.Sess.ID, "err", err)
		}
	}
	e.Mu.Lock()
	hasCapture := !t.Sess.LastCapture.IsZero()
	others := false
	for _, x := range t.Sess.Tasks {
		others = others || x != t && len(x.Tabs) > 0
	}
	e.Mu.Unlock()
	if !others {
		// No profile save may read the jar as the last tabs close.
		e.EndTabs(t.Sess)
	}
	for _, tb := range tabs {
		if tb.Page != nil {
			_ = tb.Page.Close(ctx)
		}
		e.RemoveTab(tb)
	}
	e.Recorder.DropTask(t.Sess.ID, t.Name)
	e.Mu.Lock()
	delete(t.Sess.Tasks, t.Name)
	park := len(t.Sess.Tasks) == 0 && t.Sess.Stored && !t.Sess.Parked
	if park {
		t.Sess.Parked = true
	}
	e.Mu.Unlock()
	switch {
	case park && hasCapture:
		if err := e.Store.SetState(ctx, t.Sess.ID, store.Recoverable, fmt.Sprintf("closed after %s idle; resume it with session_resume or any action on it", e.Cfg.IdleTimeout)); err != nil {
			e.Log.Warn("marking an idle session recoverable failed", "session", t.Sess.ID, "err", err)
		}
		_ = e.Store.ReleaseLease(ctx, t.Sess.ID, e.Node)
	case park: // nothing to resume from (--no-capture)
		e.Mu.Lock()
		t.Sess.Parked, t.Sess.Stored = false, false
		e.Mu.Unlock()
		if err := e.Store.SetState(ctx, t.Sess.ID, store.Closed, fmt.Sprintf("closed after %s idle, without a capture", e.Cfg.IdleTimeout)); err != nil {
			e.Log.Warn("marking an idle session closed failed", "session", t.Sess.ID, "err", err)
		}
		_ = e.Store.ReleaseLease(ctx, t.Sess.ID, e.Node)
	default:
		e.Changed(t.Sess) // its other tasks live on: capture them without this one
	}
	e.Log.Info("closed idle task", "session", t.Sess.ID, "task", t.Name, "tabs", len(tabs))
}

// dropEphemeral ends the ephemeral sessions with no task left: their
// context is disposed and their guard listener closed.
func (e *Janitor) dropEphemeral(ctx context.Context, now time.Time) {
	e.Mu.Lock()
	var gone []*sessions.Session
	for id, s := range e.Sessions {
		if e.ephemeralGone(s, now) {
			delete(e.Sessions, id)
			delete(e.Dirty, s)
			gone = append(gone, s)
		}
	}
	e.Mu.Unlock()
	for _, s := range gone {
		if br := e.BrowserOf(s); br != nil && s.CtxID != "" {
			_ = br.DisposeContext(ctx, s.CtxID)
		}
		if s.Egress != nil && s.Egress != e.Proxy.Default() {
			s.Egress.Close()
		}
	}
}

// ephemeralGone reports whether s is an ephemeral session with no task
// left, created longer than the idle timeout ago — but not one being
// resumed: its tasks come when its browser and tabs are open, which can
// take longer than a short idle timeout. Call with mu held.
func (e *Janitor) ephemeralGone(s *sessions.Session, now time.Time) bool {
	return s.Profile == "" && len(s.Tasks) == 0 && s.Resuming == nil && now.Sub(s.Created) > e.Cfg.IdleTimeout
}

// dropLeftovers closes the tabs a resume brought back that nobody used
// since — lazy tabs, which have no page yet — once the review grace has
// passed since the resume (never when it is 0). They are tabs an earlier
// run left open; the captures taken before still hold them, so a
// session_resume with an older capture brings them back.
func (e *Janitor) dropLeftovers(now time.Time) {
	grace := e.Cfg.ReviewGrace
	if grace <= 0 {
		return
	}
	type leftover struct {
		t  *sessions.Task
		tb *sessions.Tab
	}
	var old []leftover
	e.Mu.Lock()
	for _, s := range e.Sessions {
		for _, t := range s.Tasks {
			for _, tb := range t.Tabs {
				if lz := tb.Lazy; lz != nil && lz.Woken == nil && now.Sub(lz.Since) > grace {
					old = append(old, leftover{t, tb})
				}
			}
		}
	}
	e.Mu.Unlock()
	for _, o := range old {
		if !o.t.Run.TryLock() {
			continue // an action runs in the task: it may be about to use the tab
		}
		e.Mu.Lock()
		still := o.tb.Lazy != nil && o.tb.Lazy.Woken == nil && e.Tabs[o.tb.Key()] == o.tb
		e.Mu.Unlock()
		if still {
			e.RemoveTab(o.tb)
			e.Changed(o.t.Sess)
			e.Log.Info("closed a tab nobody used since the resume", "session", o.t.Sess.ID, "task", o.t.Name, "tab", o.tb.ID)
		}
		o.t.Run.Unlock()
	}
}
