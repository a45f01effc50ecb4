package engine

import (
	"context"

	"github.com/browserd/browserd/internal/browser"
	"github.com/browserd/browserd/internal/emulation"
	"github.com/browserd/browserd/internal/routes"
	"github.com/browserd/browserd/internal/sessions"
)

// The emulate, route and unroute actions are internal/emulation's and
// internal/routes'; this file gives them the call's session and tabs.

func (c *call) emulateAction(ctx context.Context) error {
	s := c.task.Sess
	c.e.Mu.Lock()
	emu, pages := s.Emu, s.Pages()
	c.e.Mu.Unlock()
	set := func(emu browser.Emulation) { c.e.Mu.Lock(); s.Emu = emu; c.e.Mu.Unlock() }
	return userErr(emulation.Do(ctx, &c.in, &c.res, emu, set, pages))
}

func (c *call) routeAction(ctx context.Context) error {
	s := c.task.Sess
	env := routes.Env{Task: &c.task.Routes, Session: &s.Routes,
		File: func(name string) (string, error) { return c.e.UploadFile(c.owner, name) }}
	c.e.Mu.Lock()
	for _, t := range s.Tasks {
		if t == c.task || c.in.Scope == "session" {
			env.Tabs = append(env.Tabs, tabsOf(t)...)
		}
	}
	c.e.Mu.Unlock()
	return userErr(routes.Do(ctx, &c.in, &c.res, env))
}

func tabsOf(t *sessions.Task) []routes.Tab {
	var out []routes.Tab
	for _, tb := range t.Tabs {
		if tb.Page != nil {
			out = append(out, routes.Tab{Page: tb.Page, Task: &t.Routes})
		}
	}
	return out
}

// userErr is err as the agent's to fix.
func userErr(err error) error {
	if err == nil {
		return nil
	}
	return &userError{Msg: err.Error()}
}
