// Package takeover lets a person take a tab from the agent (internal/live's
// "Take control"): while they hold it, the agent's actions that would touch
// the page fail at once with a clear result, so the two never interleave;
// when they hand it back, the agent's next action on the tab says a person
// acted and answers with the whole page. The engine's handoff action asks
// for a person; this package keeps who holds what.
package takeover

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/browserd/browserd/internal/browser"
	"github.com/browserd/browserd/internal/sessions"
	"github.com/browserd/browserd/internal/store"
	"github.com/browserd/browserd/internal/tool"
)

// Desk keeps the holds on tabs and the dashboard's URL, and finds the tab
// a person watches.
type Desk struct {
	*sessions.Registry
	Waker Waker
}

// Waker opens and loads a tab a resume left unloaded (internal/recovery).
type Waker interface {
	Wake(ctx context.Context, tb *sessions.Tab, skip bool, limit time.Duration) string
}

// ReadOnly are the actions a person's hold lets through: they read the
// page and send it nothing.
var ReadOnly = map[string]bool{
	"snapshot": true, "screenshot": true, "extract": true, "console": true, "pdf": true,
}

// Hold gives tab of the caller's session to a person (who names them in
// what the agent is told). It fails when someone else holds it.
func (e *Desk) Hold(ctx context.Context, session, tab, who string) (*browser.Page, error) {
	pg, _, err := e.TabPage(ctx, session, tab)
	if err != nil {
		return nil, err
	}
	_, q, _ := e.LiveSession(ctx, session)
	e.Mu.Lock()
	defer e.Mu.Unlock()
	tb := e.Tabs[sessions.TabKey{Sess: q, Tab: tab}]
	if tb == nil {
		return nil, fmt.Errorf("%w: no tab %s in session %q", store.ErrNotFound, tab, session)
	}
	if tb.Held != nil && tb.Held.Who != who {
		return nil, fmt.Errorf("%s has controlled tab %s since %s", tb.Held.Who, tab, tb.Held.Since.Format("15:04:05"))
	}
	if tb.Held == nil {
		tb.Held = &sessions.Hold{Who: who, Since: time.Now()}
	}
	return pg, nil
}

// Release hands tab back to the agent; its next action is told.
func (e *Desk) Release(ctx context.Context, session, tab string) {
	_, q, err := e.LiveSession(ctx, session)
	if err != nil {
		return
	}
	e.Mu.Lock()
	defer e.Mu.Unlock()
	tb := e.Tabs[sessions.TabKey{Sess: q, Tab: tab}]
	if tb == nil || tb.Held == nil {
		return
	}
	tb.HandedBack = &sessions.Handback{From: tb.Held.Since, To: time.Now()}
	tb.Held = nil
}

// SetDashboard tells the engine the dashboard's URL (internal/live), for
// the live-view URLs of tabs in status, tabs and handoff notifications.
func (e *Desk) SetDashboard(base string) {
	e.Mu.Lock()
	defer e.Mu.Unlock()
	e.Dashboard = strings.TrimSuffix(base, "/")
}

// LiveURL is the live view of tab of session (qualified) on the
// dashboard, "" without one. Call with Engine.mu held.
func (e *Desk) LiveURL(session, tab string) string {
	if e.Dashboard == "" {
		return ""
	}
	_, name := sessions.SplitName(session)
	return e.Dashboard + "/dashboard/live?session=" + url.QueryEscape(name) + "&tab=" + url.QueryEscape(tab)
}

// HeldBy says who holds tb and since when ("" when nobody does).
func (e *Desk) HeldBy(tb *sessions.Tab) (string, time.Time) {
	e.Mu.Lock()
	defer e.Mu.Unlock()
	if tb.Held == nil {
		return "", time.Time{}
	}
	return tb.Held.Who, tb.Held.Since
}

// TabPage is tab of the caller's live session (its front tab when tab is
// ""), and the tab's id, for a person to watch (internal/live);
// store.ErrNotFound when the session is not live here or has no such tab
// — another owner's tab is not found either.
func (e *Desk) TabPage(ctx context.Context, session, tab string) (*browser.Page, string, error) {
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
		e.Waker.Wake(ctx, tb, false, e.Cfg.NavTime)
	}
	if tb.Page == nil || tb.Page.Closed() {
		return nil, "", fmt.Errorf("%w: tab %s of session %q is closed, or could not be opened", store.ErrNotFound, tb.ID, session)
	}
	return tb.Page, tb.ID, nil
}

// frontTab is the session's tab a person sees first: the default task's
// in front, else the first task's (by name) in front. Call with the registry's
// Mu held.
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

// PersonGate is what a person's hold on tb lets action do before it
// runs: with nobody holding it, or for an action that only reads
// (ReadOnly), nil; a wait with human waits for the hand-back (until ctx
// ends); any other action fails at once, saying what to do.
func (e *Desk) PersonGate(ctx context.Context, tb *sessions.Tab, action string, human bool) error {
	who, since := e.HeldBy(tb)
	if who == "" || ReadOnly[action] {
		return nil
	}
	if action != "wait" || !human {
		return tool.Fail("a person (%s) controls tab %s since %s — call wait with human: true to wait until they hand it back, or try later", who, tb.ID, since.Format("15:04:05"))
	}
	if !Poll(ctx, func() bool { who, _ := e.HeldBy(tb); return who == "" }) {
		return tool.Fail("the person still controls tab %s; wait again, or try later", tb.ID)
	}
	return nil
}

// TakeHandBack is tb's hand-back the agent is yet to be told of, nil for
// none: the agent is told once.
func (e *Desk) TakeHandBack(tb *sessions.Tab) *sessions.Handback {
	e.Mu.Lock()
	defer e.Mu.Unlock()
	hb := tb.HandedBack
	tb.HandedBack = nil
	return hb
}

// AskPerson is the handoff action's wait: tb shows on the dashboard as
// waiting for a person, with the agent's reason; asked runs once it does
// (the notification), then AskPerson waits until handedBack reports true
// (nil) or ctx ends (an error that says whether a person still holds the
// tab, and what to do).
func (e *Desk) AskPerson(ctx context.Context, tb *sessions.Tab, reason string, asked func(), handedBack func() bool) error {
	e.Mu.Lock()
	tb.Waiting = reason
	e.Mu.Unlock()
	defer func() {
		e.Mu.Lock()
		tb.Waiting = ""
		e.Mu.Unlock()
	}()
	e.Log.Info("an agent asks a person for help", "tab", tb.ID)
	asked()
	if Poll(ctx, handedBack) {
		return nil
	}
	if who, since := e.HeldBy(tb); who != "" {
		return tool.Fail("a person (%s) still controls tab %s since %s; call handoff or wait with human: true again to keep waiting", who, tb.ID, since.Format("15:04:05"))
	}
	return tool.Fail("nobody took tab %s within the time given; the page is as it was — call handoff again to keep waiting, or go on without a person", tb.ID)
}

// Poll calls done every 100 ms until it reports true (Poll then reports
// true) or ctx ends (false).
func Poll(ctx context.Context, done func() bool) bool {
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
