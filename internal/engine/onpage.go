package engine

import (
	"context"

	"github.com/browserd/browserd/internal/act"
	"github.com/browserd/browserd/internal/browser"
	"github.com/browserd/browserd/internal/sessions"
	"github.com/browserd/browserd/internal/snapshot"
)

// The page-level work of an action (click, type, fill, select, drag,
// scroll, …) is internal/act's, which needs only the tab; this file gives
// it the call's tab, input and refs.

// onPage adapts a page-level action of internal/act to tabActions.
func onPage(f func(*act.Tab, context.Context) error) func(*call, context.Context, *browser.Browser) error {
	return func(c *call, ctx context.Context, _ *browser.Browser) error {
		t := c.onTab()
		c.acting = t
		err := f(t, ctx)
		c.in = t.In // a ref the page replaced names its stand-in now
		return err
	}
}

// onTab is the call as internal/act sees it: its tab's page, its input,
// its result and the refs of its task.
func (c *call) onTab() *act.Tab {
	t := &act.Tab{In: c.in, Res: &c.res, Width: c.e.Cfg.Width, Height: c.e.Cfg.Height, Wrap: !c.e.Cfg.NoWrap, Secrets: c.secrets}
	if c.tab != nil {
		t.Page, t.Refs = c.tab.Page, tabRefs{c}
		t.Snap = func(ctx context.Context) (string, error) { return c.snapshot(ctx, snapshot.Options{Interactive: true}) }
		if c.pol != nil && len(c.pol.Hosts) > 0 {
			t.Within = c.frameWithinHosts
		}
	}
	return t
}

// tabRefs are the refs of the call's task, as seen from its tab (act.Refs).
type tabRefs struct{ c *call }

func (r tabRefs) Elem(ref string) (browser.Elem, error) { return r.c.refElem(ref) }

func (r tabRefs) ShownOf(ref string) (role, name string) {
	return r.c.task.Sess.Refs.ShownOf(ref)
}

func (r tabRefs) LabelOf(ref string) (role, name string, unique bool) {
	return r.c.task.Sess.Refs.LabelOf(ref)
}

func (r tabRefs) Assign(k snapshot.Key, role, name string, unique bool) string {
	refs := r.c.task.Sess.Refs
	ref := refs.Assign(k, r.c.tab.ID)
	if role != "" {
		refs.Label(ref, role, name, unique)
	}
	return ref
}

func (r tabRefs) Find(k snapshot.Key) (string, bool) { return r.c.task.Sess.Refs.Find(k) }

// refElem is the element of a ref the task's latest snapshot of its tab
// gave, or why it cannot be used.
func (c *call) refElem(ref string) (browser.Elem, error) {
	k, owner, ok := c.task.Sess.Refs.Lookup(ref)
	if !ok {
		if c.task.Sess.Refs.Issued(ref) {
			return browser.Elem{}, fail("ref %s is stale: its page navigated or its tab closed since the snapshot that showed it; take a new snapshot and use its refs", ref)
		}
		return browser.Elem{}, fail("unknown ref %q: refs come from this task's latest snapshot (e.g. e12); take a snapshot and use one of its refs", ref)
	}
	if owner != c.tab.ID {
		c.e.Mu.Lock()
		tb := c.e.Tabs[sessions.TabKey{Sess: c.task.Sess.ID, Tab: owner}]
		c.e.Mu.Unlock()
		if tb == nil || tb.Task != c.task {
			return browser.Elem{}, fail("ref %s belongs to another task's tab, not to task %q; take a snapshot in this task and use its refs", ref, c.task.Name)
		}
		return browser.Elem{}, fail("ref %s is from tab %s, not %s; switch with tab_switch or take a snapshot of this tab", ref, owner, c.tab.ID)
	}
	if c.tab.Page.NavSeq() != c.tab.NavSeq {
		return browser.Elem{}, fail("ref %s is stale: the page navigated since the snapshot that showed it; take a new snapshot", ref)
	}
	return browser.ElemOf(k), nil
}
