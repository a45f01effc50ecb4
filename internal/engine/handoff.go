package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/browserd/browserd/internal/auth"
	"github.com/browserd/browserd/internal/notify"
	"github.com/browserd/browserd/internal/sessions"
	"github.com/browserd/browserd/internal/store"
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
// hand-back instead; takeover.Desk.PersonGate); after a hand-back, the
// action's answer says so and shows the whole page.
func (c *call) personGate(ctx context.Context) error {
	if c.in.Action == "handoff" {
		return nil // it waits for the person itself
	}
	if err := c.e.PersonGate(ctx, c.tab, c.in.Action, c.in.Human); err != nil {
		return err
	}
	c.tellHandBack("; this answer shows the whole page")
	return nil
}

// tellHandBack notes on the answer a hand-back the agent is yet to be told
// of, and makes the answer show the whole page; it reports whether there
// was one.
func (c *call) tellHandBack(tail string) bool {
	tb := c.tab
	hb := c.e.TakeHandBack(tb)
	if hb == nil {
		return false
	}
	c.res.Notes = append(c.res.Notes, fmt.Sprintf("a person controlled tab %s from %s to %s%s", tb.ID, hb.From.Format("15:04:05"), hb.To.Format("15:04:05"), tail))
	tb.LastSnap, tb.LastFrames, tb.Journal = "", nil, 0
	return true
}

// HandoffTime is how long handoff waits for a person by default.
const HandoffTime = 10 * time.Minute

// handoff hands the tab to a person and waits until one takes control and
// hands it back (takeover.Desk.AskPerson). The answer says what the person
// did and shows the whole page.
func (c *call) handoff(ctx context.Context) error {
	return c.e.AskPerson(ctx, c.tab, c.in.Reason, func() { c.notify(ctx) }, func() bool { return c.tellHandBack(" and handed it back") })
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
