package browsers

import (
	"cmp"
	"context"
	"fmt"
	"time"

	"github.com/browserd/browserd/internal/browser"
	"github.com/browserd/browserd/internal/inject"
	"github.com/browserd/browserd/internal/routes"
	"github.com/browserd/browserd/internal/sessions"
)

// A task's tabs opened in its session's browser: a new one, and the
// windows its pages open.

// NewTab opens a tab for the task in its session's browser context.
func (e *Pool) NewTab(ctx context.Context, sl *sessions.Slot, t *sessions.Task) (*sessions.Tab, error) {
	defer e.HoldSlot(sl)()
	br := sl.Br
	ctxID, err := e.ContextFor(ctx, sl, t.Sess)
	if err != nil {
		return nil, err
	}
	e.Mu.Lock()
	opts := browser.PageOptions{Width: cmp.Or(t.Sess.Width, e.Cfg.Width), Height: cmp.Or(t.Sess.Height, e.Cfg.Height), InitScript: t.Sess.InitScript, Emulation: t.Sess.Emu, Credentials: t.Sess.Creds,
		Router: routes.For(&t.Routes, &t.Sess.Routes), NoCache: t.NoCache, Scope: t.Sess.ID}
	e.Mu.Unlock()
	if opts.Emulation.Geolocation != nil {
		// Granted again for every tab: a relaunched browser or a new
		// context forgets it, and the call is idempotent.
		if err := inject.GrantGeolocation(ctx, br, ctxID); err != nil {
			return nil, fmt.Errorf("granting the position: %w", err)
		}
	}
	if br.Attached() && ctxID == "" {
		// Not routed through the egress proxy: vet requests over CDP.
		opts.Guard = e.FetchGuard(t.Sess)
	}
	if ctxID == "" {
		// A task that opens a second tab may well open more: a blank tab
		// is opened ahead for the next (RefillSpare), once this one is.
		if len(t.Tabs) > 0 {
			defer e.RefillSpare(sl, br)
		}
		// The browser's own first tab (about:blank, nobody attached), or
		// the one opened ahead, is ready to use: taking it saves opening
		// one.
		if id := e.SpareTab(sl, br); id != "" {
			if pg, err := br.AttachPage(ctx, id, opts); err == nil {
				return e.AddTab(t, pg), nil
			}
		}
	}
	pg, err := br.NewPage(ctx, ctxID, opts)
	if err != nil {
		return nil, err
	}
	return e.AddTab(t, pg), nil
}

// OnPopup adopts a page that a task's page opened: it becomes a tab of the
// same task and is reported in the task's next result.
func (e *Pool) OnPopup(opener string, info browser.TargetInfo) {
	e.Mu.Lock()
	var parent *sessions.Tab
	for _, tb := range e.Tabs {
		if tb.Page != nil && tb.Page.TargetID == opener {
			parent = tb
		}
	}
	e.Mu.Unlock()
	if parent == nil {
		return
	}
	br := parent.Page.Browser()
	e.Mu.Lock()
	// The popup sees what its opener's session overrides (from its next
	// document on: its first one may have loaded before browserd attached).
	opts := browser.PageOptions{Emulation: parent.Task.Sess.Emu, Credentials: parent.Task.Sess.Creds,
		Router: routes.For(&parent.Task.Routes, &parent.Task.Sess.Routes), NoCache: parent.Task.NoCache, Scope: parent.Task.Sess.ID}
	e.Mu.Unlock()
	if br.Attached() && parent.Task.Sess.CtxID == "" {
		opts.Guard = e.FetchGuard(parent.Task.Sess)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	pg, err := br.AttachPage(ctx, info.TargetID, opts)
	if err != nil {
		e.Log.Debug("popup could not be attached", "err", err)
		return
	}
	tb := e.AddTab(parent.Task, pg)
	e.Mu.Lock()
	parent.Task.Active = parent // the opener stays active until tab_switch
	parent.Task.Popups = append(parent.Task.Popups, tb)
	e.Mu.Unlock()
}
