package act

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/browserd/browserd/internal/browser"
	"github.com/browserd/browserd/internal/tool"
)

// Actions at a point of the viewport (x, y in CSS pixels, the pixels of a
// screenshot with fullPage false), for an agent that works from a
// screenshot, or on what has no refs (a canvas). The point is used as
// given — nothing is scrolled or aimed — and the answer says what was at
// it: its ref, role and name when the task's snapshots gave it one, else
// its tag (canvas#board). A ref given with the point is what the agent
// expects there: when something else is on top, nothing is pressed and
// the answer says where the ref is now (the page moved since the
// screenshot). What is at the point is read again right after the
// action's events, and a change is reported (the page moved the target
// under the mouse).

// Pointed reports whether the input names a point (x and y).
func (c *Tab) Pointed() bool { return c.In.Pointed() }

// at is the input's point, checked to lie in the viewport.
func (c *Tab) at(ctx context.Context) (x, y float64, err error) {
	x, y = float64(*c.In.X), float64(*c.In.Y)
	w, h, err := c.Page.Viewport(ctx)
	if err != nil {
		w, h = float64(c.Width), float64(c.Height)
	}
	if x >= w || y >= h {
		return 0, 0, tool.Fail("the point %d,%d is outside the viewport, which is %.0f×%.0f CSS pixels (x 0 to %.0f, y 0 to %.0f): take the point from a screenshot with fullPage false, or scroll first", *c.In.X, *c.In.Y, w, h, w-1, h-1)
	}
	return x, y, nil
}

// hit is what is on top at a point: the element, and how the answer
// names it.
type hit struct {
	el   browser.Elem
	ok   bool
	desc string
}

func (h hit) same(o hit) bool {
	return h.ok == o.ok && h.el.Backend == o.el.Backend && h.el.Sess == o.el.Sess
}

// pointDescJS names the element hit testing found: the nearest element
// that acts (a link, a button, a field, anything with a role or a
// handler) holding it, else itself — tag, #id or first class.
const pointDescJS = `function() {
  let el = this.nodeType === 1 ? this : this.parentElement;
  if (!el) return null;
  const acts = el.closest('a[href],button,input,select,textarea,summary,label,[role],[onclick],[tabindex],[contenteditable]');
  return acts || el;
}`

const tagDescJS = `function() {
  const el = this;
  let s = el.tagName.toLowerCase();
  if (el.id) s += '#' + el.id;
  else if (typeof el.className === 'string' && el.className.trim()) s += '.' + el.className.trim().split(/\s+/)[0];
  return s.slice(0, 80);
}`

// hitAt is what is on top at (x, y).
func (c *Tab) hitAt(ctx context.Context, x, y float64) hit {
	pg := c.Page
	el, ok, err := pg.ElemAt(ctx, x, y)
	if err != nil || !ok {
		return hit{desc: "nothing"}
	}
	h := hit{el: el, ok: true}
	if acts, ok, err := pg.ElemFrom(ctx, el, pointDescJS); err == nil && ok {
		h.el = acts
	}
	if c.Refs != nil {
		if ref, ok := c.Refs.Find(pg.KeyOf(h.el)); ok {
			if role, name := c.Refs.ShownOf(ref); role != "" {
				h.desc = fmt.Sprintf("%s %q [ref=%s]", role, name, ref)
				return h
			}
		}
	}
	if pg.CallOn(ctx, h.el, tagDescJS, &h.desc) != nil || h.desc == "" {
		h.desc = "an element"
	}
	return h
}

// expect checks that the ref given with the point is what is on top
// there (or holds it): when not, the page moved since the agent looked.
func (c *Tab) expect(ctx context.Context, x, y float64, h hit) error {
	ref := c.In.Ref
	if ref == "" {
		return nil
	}
	want, err := c.Refs.Elem(ref)
	if err != nil {
		return err
	}
	var holds bool
	if h.ok {
		_ = c.Page.CallOn(ctx, want, `function(x, y) {
		  let h = document.elementFromPoint(x, y);
		  while (h && h.shadowRoot) { const i = h.shadowRoot.elementFromPoint(x, y); if (!i || i === h) break; h = i; }
		  for (; h; h = h.parentNode || h.host) if (h === this) return true;
		  return false; }`, &holds, x, y)
	}
	if holds {
		return nil
	}
	where := "is not on the page any more"
	if px, py, err := c.Page.Point(ctx, want, "click"); err == nil {
		where = fmt.Sprintf("is at %.0f,%.0f now", px, py)
	}
	c.Res.Details = append(c.Res.Details, fmt.Sprintf("at %.0f,%.0f: %s", x, y, h.desc))
	return tool.Fail("%s is not at %.0f,%.0f (another element is, in the details); %s — the page moved since you looked: take a new screenshot, or act on %s by its ref; nothing was pressed", ref, x, y, where, ref)
}

// aimAt is the input's point, what is on top there, and whether that is
// what the agent expects there (expect): the start of every action at a
// point.
func (c *Tab) aimAt(ctx context.Context) (x, y float64, h hit, err error) {
	if x, y, err = c.at(ctx); err != nil {
		return 0, 0, h, err
	}
	h = c.hitAt(ctx, x, y)
	if h.ok && c.Within != nil {
		if err := c.Within(ctx, h.el); err != nil {
			return x, y, h, err
		}
	}
	return x, y, h, c.expect(ctx, x, y, h)
}

// moved notes when what is at (x, y) changed while the action's events
// went in: the page moved the target under the mouse.
func (c *Tab) moved(ctx context.Context, x, y float64, before hit) {
	after := c.hitAt(ctx, x, y)
	if !after.same(before) {
		c.Res.Content = joinLine(c.Res.Content, fmt.Sprintf("the element at %.0f,%.0f changed during the action: %s before, %s right after", x, y, before.desc, after.desc))
	}
}

func joinLine(a, b string) string {
	if a == "" {
		return b
	}
	return a + "\n" + b
}

// pointerAt clicks or hovers at the input's point.
func (c *Tab) pointerAt(ctx context.Context, action string) error {
	in, pg := c.In, c.Page
	x, y, before, err := c.aimAt(ctx)
	if err != nil {
		return err
	}
	m := pg.Mark(ctx)
	verb := "hovered over"
	if action == "hover" {
		err = pg.Hover(ctx, x, y)
	} else {
		o := browser.ClickOptions{Button: in.Button, Modifiers: in.Modifiers}
		verb = "clicked"
		if in.Double {
			o.Count, verb = 2, "double-clicked"
		}
		if in.Button == "right" || in.Button == "middle" {
			verb = in.Button + "-clicked"
		}
		err = pg.Click(ctx, x, y, o)
	}
	if err != nil {
		return err
	}
	c.Res.Content = fmt.Sprintf("%s %s at %.0f,%.0f", verb, before.desc, x, y)
	c.moved(ctx, x, y, before)
	return pg.Settle(ctx, m)
}

// Mouse presses, moves or releases the mouse at the input's point, as a
// separate step: mouse_down, then mouse_move (the button held: a
// stroke on a canvas), then mouse_up; or mouse_down and mouse_up a while
// apart, a long press.
func (c *Tab) Mouse(ctx context.Context) error {
	pg := c.Page
	x, y, before, err := c.aimAt(ctx)
	if err != nil {
		return err
	}
	m := pg.Mark(ctx)
	var what string
	switch c.In.Action {
	case "mouse_down":
		err = pg.MouseDown(ctx, x, y, c.In.Button)
		what = fmt.Sprintf("pressed the %s button on %s at %.0f,%.0f; mouse_up releases it", pg.Held(), before.desc, x, y)
	case "mouse_up":
		held := pg.Held()
		err = pg.MouseUp(ctx, x, y, c.In.Button)
		what = fmt.Sprintf("released the mouse on %s at %.0f,%.0f", before.desc, x, y)
		if held == "" {
			what += " (no button was held by mouse_down)"
		}
	default:
		err = pg.MouseMove(ctx, x, y)
		what = fmt.Sprintf("moved the mouse to %.0f,%.0f, over %s", x, y, before.desc)
		if b := pg.Held(); b != "" {
			what += ", the " + b + " button held"
		}
	}
	if err != nil {
		return err
	}
	c.Res.Content = what
	return pg.Settle(ctx, m)
}

// dragFrom drags from the input's point to drag's to: a point ("480,240"),
// an offset ("+120,0"), a ref, or the text of a drop zone.
func (c *Tab) dragFrom(ctx context.Context) error {
	x, y, err := c.at(ctx)
	if err != nil {
		return err
	}
	src := c.hitAt(ctx, x, y)
	if !src.ok {
		return tool.Fail("nothing is at %.0f,%.0f to drag", x, y)
	}
	if c.Within != nil {
		if err := c.Within(ctx, src.el); err != nil {
			return err
		}
	}
	if err := c.expect(ctx, x, y, src); err != nil {
		return err
	}
	return c.dragTo(ctx, src.el, browser.Point{X: x, Y: y}, src.desc)
}

// dragTo drags el from the point from to drag's to, reporting both ends.
func (c *Tab) dragTo(ctx context.Context, el browser.Elem, from browser.Point, desc string) error {
	pg, to := c.Page, browser.Point{}
	if px, py, ok := tool.DragPoint(c.In.To); ok {
		to = browser.Point{X: float64(px), Y: float64(py)}
	} else if dx, dy, ok := tool.DragOffset(c.In.To); ok {
		to = browser.Point{X: from.X + float64(dx), Y: from.Y + float64(dy)}
	} else {
		dst, err := c.dropTarget(ctx)
		if err != nil {
			return err
		}
		a, err := pg.Aim(ctx, dst, "drop")
		if err != nil {
			c.What = "the drop target " + c.In.To
			return err
		}
		to = browser.Point{X: a.X, Y: a.Y}
	}
	w, h, err := pg.Viewport(ctx)
	if err != nil {
		w, h = float64(c.Width), float64(c.Height)
	}
	if to.X < 0 || to.Y < 0 || to.X >= w || to.Y >= h {
		return tool.Fail("the drag would end at %.0f,%.0f, outside the viewport (%.0f×%.0f CSS pixels)", to.X, to.Y, w, h)
	}
	m := pg.Mark(ctx)
	html5, err := pg.Drag(ctx, el, from, to)
	if err != nil {
		return err
	}
	c.Res.Content = fmt.Sprintf("dragged %s from %.0f,%.0f to %.0f,%.0f", desc, from.X, from.Y, math.Round(to.X), math.Round(to.Y))
	if html5 {
		c.Res.Notes = append(c.Res.Notes, "dropped with HTML5 drag events (the page started a drag and drop)")
	}
	return pg.Settle(ctx, m)
}

// focusedField is the element type types into without a target: at a
// point, what a click there focused; else where the focus is. ok is
// false when the focus is on no element but the page's body (the keys
// go to the document, as a keyboard's do).
func (c *Tab) focusedField(ctx context.Context) (el browser.Elem, ok bool, err error) {
	pg := c.Page
	anchor := browser.Elem{}
	if c.Pointed() {
		x, y, h, err := c.aimAt(ctx)
		if err != nil {
			return el, false, err
		}
		if err := pg.Click(ctx, x, y, browser.ClickOptions{}); err != nil {
			return el, false, err
		}
		c.Res.Content = fmt.Sprintf("clicked %s at %.0f,%.0f, then typed", h.desc, x, y)
		anchor = h.el
	}
	if anchor.Backend == 0 {
		var err error
		if anchor, err = pg.Query(ctx, "html"); err != nil {
			return el, false, err
		}
	}
	el, ok, err = pg.ElemFrom(ctx, anchor, `function() {
	  let a = document.activeElement;
	  while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
	  return a && a !== document.body && a !== document.documentElement ? a : null; }`)
	return el, ok, err
}

// typeKeys types the input's text where the focus is, no field to read
// back (a canvas, a game, a page that listens to the document's keys).
func (c *Tab) typeKeys(ctx context.Context) error {
	pg := c.Page
	m := pg.Mark(ctx)
	if _, err := c.typeInto(ctx, 0, false); err != nil {
		return err
	}
	if !strings.HasPrefix(c.Res.Content, "clicked") {
		c.Res.Content = "typed where the focus is (no field has it)"
	}
	return c.submitAndSettle(ctx, m)
}
