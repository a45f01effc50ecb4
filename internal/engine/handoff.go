package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/browserd/browserd/internal/auth"
	"github.com/browserd/browserd/internal/notify"
	"github.com/browserd/browserd/internal/sessions"
	"github.com/browserd/browserd/internal/store"
	"github.com/browserd/browserd/internal/takeover"
	"github.com/browserd/browserd/internal/tool"
)

// The agent's side of a person's hold on a tab (internal/takeover): the
// gate an action passes, the handoff action that asks for a person, and
// the tab a person closes from the dashboard.

// CloseTab closes a tab an ended task left for review (from the
// dashboard); the agent's tabs of a running task are the agent's to
// close. Closing a task's last tab closes the task, and the session when
// no task of it has a tab left.
func (e *Engine) CloseTab(ctx context.Context, session, tab string) error {
	s, q, err := e.LiveSession(ctx, session)
	if err != nil {
		return err
	}
	if s == nil {
		return fmt.Errorf("%w: session %q is not running here", store.ErrNotFound, session)
	}
	e.Mu.Lock()
	tb := e.Tabs[sessions.TabKey{Sess: q, Tab: tab}]
	e.Mu.Unlock()
	if tb == nil {
		return fmt.Errorf("%w: no tab %s in session %q", store.ErrNotFound, tab, session)
	}
	t := tb.Task
	t.Run.Lock() // never while the agent acts in the task
	defer t.Run.Unlock()
	e.Mu.Lock()
	ended, last, gone := t.Ended, len(t.Tabs) == 1, e.Tabs[sessions.TabKey{Sess: q, Tab: tab}] != tb
	e.Mu.Unlock()
	switch {
	case gone:
		return fmt.Errorf("%w: tab %s of session %q is already closed", store.ErrNotFound, tab, session)
	case !ended:
		return fmt.Errorf("tab %s belongs to task %q, which is still running: only tabs a task left for review (task_end) close here — the agent closes its own tabs", tab, t.Name)
	case last:
		c := &call{e: e, in: tool.Input{Action: "close"}, task: t, owner: auth.Owner(ctx), started: time.Now()}
		return c.closeTask(ctx)
	}
	if err := closePage(ctx, tb); err != nil && !tb.Page.Closed() {
		return fmt.Errorf("close tab %s: %w", tab, err)
	}
	e.RemoveTab(tb)
	e.MarkDirty(s)
	return nil
}

// personGate runs before an action on c.tab: an action that would touch a
// page a person holds fails at once (wait with human: true waits for the
// hand-back instead); after a hand-back, the action's answer says so and
// shows the whole page.
func (c *call) personGate(ctx context.Context) error {
	e, tb := c.e, c.tab
	if c.in.Action == "handoff" {
		return nil // it waits for the person itself
	}
	if who, since := e.HeldBy(tb); who != "" && !takeover.ReadOnly[c.in.Action] {
		if c.in.Action != "wait" || !c.in.Human {
			return fail("a person (%s) controls tab %s since %s — call wait with human: true to wait until they hand it back, or try later", who, tb.ID, since.Format("15:04:05"))
		}
		if !poll(ctx, func() bool { who, _ := e.HeldBy(tb); return who == "" }) {
			return fail("the person still controls tab %s; wait again, or try later", tb.ID)
		}
	}
	c.tellHandBack("; this answer shows the whole page")
	return nil
}

// tellHandBack notes on the answer a hand-back the agent is yet to be told
// of, and makes the answer show the whole page; it reports whether there
// was one.
func (c *call) tellHandBack(tail string) bool {
	e, tb := c.e, c.tab
	e.Mu.Lock()
	hb := tb.HandedBack
	tb.HandedBack = nil
	e.Mu.Unlock()
	if hb == nil {
		return false
	}
	c.res.Notes = append(c.res.Notes, fmt.Sprintf("a person controlled tab %s from %s to %s%s", tb.ID, hb.From.Format("15:04:05"), hb.To.Format("15:04:05"), tail))
	tb.LastSnap, tb.LastFrames, tb.Journal = "", nil, 0
	return true
}

// poll calls done every 100 ms until it reports true (poll then reports
// true) or ctx ends (false).
func poll(ctx context.Context, done func() bool) bool {
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for !done() {
		select {
		case <-ctx.Done():
			return false
		case <-t.C:
		}
	}
	return true
}

// HandoffTime is how long handoff waits for a person by default.
const HandoffTime = 10 * time.Minute

// handoff hands the tab to a person and waits until one takes control and
// hands it back: the dashboard shows the tab as waiting, with the agent's
// reason. The answer says what the person did and shows the whole page.
func (c *call) handoff(ctx context.Context) error {
	e, tb := c.e, c.tab
	e.Mu.Lock()
	tb.Waiting = c.in.Reason
	e.Mu.Unlock()
	defer func() {
		e.Mu.Lock()
		tb.Waiting = ""
		e.Mu.Unlock()
	}()
	e.Log.Info("an agent asks a person for help", "tab", tb.ID)
	c.notify(ctx)
	if poll(ctx, func() bool { return c.tellHandBack(" and handed it back") }) {
		return nil
	}
	if who, since := e.HeldBy(tb); who != "" {
		return fail("a person (%s) still controls tab %s since %s; call handoff or wait with human: true again to keep waiting", who, tb.ID, since.Format("15:04:05"))
	}
	return fail("nobody took tab %s within the time given; the page is as it was — call handoff again to keep waiting, or go on without a person", tb.ID)
}

// notify tells the operator's --notify-url that an agent asks for help:
// a JSON POST with the session, task, tab, the agent's reason and the
// tab's live-view URL. A failure is logged and noted on the answer, never
// fatal: the dashboard shows the waiting tab anyway.
func (c *call) notify(ctx context.Context) {
	hook := c.e.Cfg.NotifyURL
	if hook == "" {
		return
	}
	owner, session := sessions.SplitName(c.task.Sess.ID)
	c.e.Mu.Lock()
	live := c.e.LiveURL(c.task.Sess.ID, c.tab.ID)
	c.e.Mu.Unlock()
	err := notify.Post(ctx, hook, map[string]string{"event": "handoff", "owner": owner, "session": session, "task": c.task.Name,
		"tab": c.tab.ID, "reason": c.in.Reason, "liveViewUrl": live})
	if err != nil {
		c.e.Log.Warn("the handoff notification failed", "err", err)
		c.res.Notes = append(c.res.Notes, "the notification to --notify-url failed: "+err.Error()+"; the dashboard shows the tab waiting anyway")
	}
}
