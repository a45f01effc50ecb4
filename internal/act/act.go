// Package act does the page-level work of the browser tool's actions on
// one tab, as a person would do it: click, hover, press, type, fill,
// select (native and drawn dropdowns), drag, upload, scroll, extract, wait
// and evaluate. It needs a tab (a browser.Page), the call's input and a
// way to turn refs into elements — no session, task or store — so each
// action can be tested on a bare page.
//
// Sessions, tasks, the guard, the answer and capture are the engine's
// (internal/engine); navigation is too, since the guard vets it.
package act

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/chromedp/cdproto"

	"github.com/browserd/browserd/internal/browser"
	"github.com/browserd/browserd/internal/snapshot"
	"github.com/browserd/browserd/internal/tool"
	"github.com/browserd/browserd/internal/untrusted"
)

// Refs turns the refs of the task's latest snapshot into elements of the
// tab. The engine keeps them per session; tests give a small map.
type Refs interface {
	// Elem is the element of ref in this tab, or an error that says why
	// the ref cannot be used (unknown, stale, another tab's).
	Elem(ref string) (browser.Elem, error)
	// LabelOf is the role and name the snapshot that showed ref gave it,
	// and whether no other ref of that snapshot had both.
	LabelOf(ref string) (role, name string, unique bool)
	// ShownOf is the role and name the snapshot printed for ref, the
	// words the agent read (LabelOf's are the accessibility tree's).
	ShownOf(ref string) (role, name string)
	// Assign gives the element k of this tab a ref, remembering its role
	// and name (unique: as LabelOf's); role "" leaves the label alone.
	Assign(k snapshot.Key, role, name string, unique bool) string
	// Find is the ref k already has, if any (none is handed out).
	Find(k snapshot.Key) (string, bool)
}

// Tab is one action in flight on one tab: the page, the input and the
// result being built.
type Tab struct {
	Page *browser.Page
	// In is the call's input; an action may change it (a ref replaced by
	// the page stands for its stand-in afterwards, see replaced).
	In tool.Input
	// Res receives the action's content, notes and details.
	Res  *tool.Result
	Refs Refs
	// Width and Height are the viewport, for when the page does not say.
	Width, Height int
	// What names the element an error is about when it is not the
	// target (drag's drop target); "": the target.
	What string
	// Wrap puts page text quoted in an error inside an untrusted-content
	// envelope (false with --no-wrap).
	Wrap bool
	// Secrets are the stored secrets the call types (type's secret,
	// fill's fields' secrets), by name; the engine resolves them. Their
	// values are never quoted in what Type says.
	Secrets map[string]Secret
	// Snap reads the task's interactive snapshot of the tab, giving its
	// elements refs (screenshot's annotate); nil on a bare tab.
	Snap func(ctx context.Context) (string, error)
	// Within refuses an element the caller may not act on (one in a frame
	// showing a page outside its policy's hosts); nil: any.
	Within func(ctx context.Context, el browser.Elem) error
	// secret is the one being typed now ("" for none).
	secret string
}

// Secret is a stored secret's value and the origins it may be typed on
// (none: any).
type Secret struct {
	Value   string
	Origins []string
}

// Targeted reports whether the input names an element (ref, role or
// selector).
func (c *Tab) Targeted() bool {
	return c.In.Ref != "" || c.In.Selector != "" || c.In.Role != ""
}

// Target is the element the input names: a ref (checked to be this tab's
// and fresh, and followed when the page replaced it), or the one element
// with a role and name, or a selector's — waited for up to TargetWait (or
// the call's timeout), as a page may still be drawing it — if Within lets
// the call act on it.
func (c *Tab) Target(ctx context.Context) (browser.Elem, error) {
	el, err := c.target(ctx)
	if err == nil && c.Within != nil {
		if err := c.Within(ctx, el); err != nil {
			return browser.Elem{}, err
		}
	}
	return el, err
}

func (c *Tab) target(ctx context.Context) (browser.Elem, error) {
	in, pg := c.In, c.Page
	switch {
	case in.Ref != "":
		el, err := c.Refs.Elem(in.Ref)
		if err != nil {
			return el, err
		}
		return c.replaced(ctx, in.Ref, el)
	case in.Role != "":
		var els []browser.Elem
		waited, err := c.awaitTarget(ctx, func() (bool, error) {
			var err error
			els, err = pg.QueryRole(ctx, in.Role, in.Name)
			return len(els) > 0, err
		})
		if err != nil {
			return browser.Elem{}, err
		}
		switch len(els) {
		case 0:
			return browser.Elem{}, tool.Fail("no element with role %q and name %q after %s; take a snapshot to see what is on the page, or raise timeout (ms)", in.Role, in.Name, waited)
		case 1:
			return els[0], nil
		}
		return browser.Elem{}, tool.Fail("%d elements have role %q and name %q; use the ref of the one you mean from a snapshot", len(els), in.Role, in.Name)
	case in.Selector != "":
		var el browser.Elem
		waited, err := c.awaitTarget(ctx, func() (bool, error) {
			var err error
			el, err = pg.Query(ctx, in.Selector)
			var none *browser.NoMatchError
			if errors.As(err, &none) {
				return false, nil
			}
			return err == nil, err
		})
		if err != nil {
			return browser.Elem{}, &tool.Error{Msg: err.Error()}
		}
		if el.Backend == 0 {
			return browser.Elem{}, tool.Fail("no element matches selector %q after %s; take a snapshot to see what is on the page, or raise timeout (ms)", in.Selector, waited)
		}
		return el, nil
	}
	return browser.Elem{}, tool.Fail("%s needs a target: ref, role+name, or selector", in.Action)
}

// TargetWait bounds how long an action waits for its selector or role and
// name to match (an element a script adds, a page still rendering), as
// Playwright's locators do; the action's timeout, when the call gives one,
// replaces it.
const TargetWait = 5 * time.Second

// awaitTarget asks found every 100 ms until it finds the target, fails,
// or the wait is over; it returns how long it waited.
func (c *Tab) awaitTarget(ctx context.Context, found func() (bool, error)) (time.Duration, error) {
	limit := TargetWait
	if c.In.Timeout > 0 {
		limit = time.Duration(c.In.Timeout) * time.Millisecond
	}
	start := time.Now()
	for {
		ok, err := found()
		if err != nil && errors.Is(err, context.DeadlineExceeded) && errors.Is(ctx.Err(), context.DeadlineExceeded) {
			// The call's time ran out during a look (a busy page, a
			// loaded machine): not found in time, said as such.
			return time.Since(start).Round(10 * time.Millisecond), nil
		}
		if ok || err != nil {
			return time.Since(start), err
		}
		if time.Since(start) >= limit {
			return time.Since(start).Round(100 * time.Millisecond), nil
		}
		t := time.NewTimer(100 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return time.Since(start).Round(100 * time.Millisecond), nil
		case <-t.C:
		}
	}
}

// replaced checks that the element of ref is still in the page. When the
// page replaced it since the snapshot (a re-render that swaps nodes: React
// remounting a form, htmx swapping a fragment), the one element of the same
// frame that now has the same role and name in the accessibility tree
// stands in for it, and the answer says so — if the ref's role and name
// were unique in the snapshot that showed it; otherwise (two "Delete"
// buttons, one of them gone), or with none or several now, the ref is
// stale.
func (c *Tab) replaced(ctx context.Context, ref string, el browser.Elem) (browser.Elem, error) {
	pg := c.Page
	var live bool
	err := pg.CallOn(ctx, el, `function() { return this.isConnected; }`, &live)
	if live || err != nil && !errors.Is(err, browser.ErrStale) {
		return el, nil // live, or an error the action meets again
	}
	role, name, unique := c.Refs.LabelOf(ref)
	if !unique || name == "" || role == "" || role == "generic" || role == "StaticText" {
		return el, nil
	}
	els, err := pg.QueryRole(ctx, role, name)
	if err != nil || len(els) != 1 || pg.KeyOf(els[0]).Frame != pg.KeyOf(el).Frame {
		return el, nil // none, several, or in another frame
	}
	now := c.Refs.Assign(pg.KeyOf(els[0]), role, name, true)
	if c.In.Ref == ref {
		c.In.Ref = now // the action's later steps target it again
	}
	c.Res.Notes = append(c.Res.Notes, fmt.Sprintf("%s was replaced by the page since your snapshot; the action went to the element that took its place, with the same role and name (now %s)", ref, now))
	return els[0], nil
}

// elemName is how an error names the call's target.
func (c *Tab) elemName() string {
	switch {
	case c.In.Ref != "":
		return "element " + c.In.Ref
	case c.In.Selector != "":
		return fmt.Sprintf("the element %q", c.In.Selector)
	}
	return "the element"
}

// Explain turns an error of an action into the sentence an agent reads:
// what happened to the element and what to do next. ok is false for an
// error that is not the element's (the engine explains those).
func (c *Tab) Explain(err error) (msg string, ok bool) {
	var ue *tool.Error
	if errors.As(err, &ue) {
		return ue.Msg, true
	}
	what := cmp.Or(c.What, c.elemName())
	var nae *browser.NotActionableError
	if errors.As(err, &nae) {
		switch nae.Reason {
		case "covered":
			// What covers it is page text: it goes in the details, inside
			// the envelope; the error names only its ref.
			c.Res.Details = append(c.Res.Details, "covering element: "+nae.CoverDesc)
			cover := "another element"
			if nae.Cover != nil && c.Page != nil && c.Refs != nil {
				cover += " (" + c.Refs.Assign(c.Page.KeyOf(*nae.Cover), "", "", false) + ")"
			}
			return fmt.Sprintf("%s is covered by %s — click or close it first", what, cover), true
		case "disabled":
			return fmt.Sprintf("%s is disabled; wait for it to become enabled, or act on another element", what), true
		case "hidden":
			return fmt.Sprintf("%s is not visible; open or scroll to what reveals it, or wait for it", what), true
		case "offscreen":
			return fmt.Sprintf("%s is outside the viewport and could not be scrolled into view", what), true
		case "clipped":
			return fmt.Sprintf("%s is cut off by a container that clips it (overflow or paint containment) and could not be scrolled into view; act on what reveals it", what), true
		}
		return fmt.Sprintf("%s cannot be used: %s", what, nae.Reason), true
	}
	var se *browser.ScriptError
	if errors.As(err, &se) {
		if !c.Wrap {
			return "the page's script threw: " + se.Msg, true
		}
		return "the page's script threw an exception; its message is page content:\n" + untrusted.New().Wrap(se.Msg), true
	}
	switch {
	case errors.Is(err, browser.ErrStale):
		return fmt.Sprintf("%s is stale: it is no longer on the page; take a new snapshot and use its refs", what), true
	case errors.Is(err, browser.ErrCrashed):
		return "the tab's renderer crashed (the page may have run out of memory); the next action reloads it — or navigate, which loads the new page without running this one again", true
	}
	var ce *cdproto.Error
	if errors.As(err, &ce) && !errors.Is(err, browser.ErrClosedTab) && !errors.Is(err, context.DeadlineExceeded) {
		// Not the protocol's words ("DOM.resolveNode: Could not find
		// node with given id (-32000)"): what it means for the agent.
		return fmt.Sprintf("%s could not be done: the browser refused a step of it (Chromium said %q); the page may have changed under it — take a new snapshot and try again", c.In.Action, ce.Message), true
	}
	return "", false
}

// explain is Explain with a timeout's sentence and the error's own words
// for the rest.
func (c *Tab) explain(err error) string {
	if msg, ok := c.Explain(err); ok {
		return msg
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Sprintf("%s timed out; raise timeout (ms) or check the page with snapshot", c.In.Action)
	}
	return err.Error()
}
