package act

import (
	"context"
	"fmt"
	"math"

	"github.com/browserd/browserd/internal/browser"
	"github.com/browserd/browserd/internal/tool"
)

// Drag presses the mouse on the target, moves it to the element of ref
// to and lets go there, as a hand drags: sortable lists, kanban boards and
// sliders follow the moves; an HTML5 drag (dragstart) is carried with
// drag events (browser.Page.Drag). Both elements must show together: the
// drop target is scrolled into view first, then the dragged element, and
// the drag is refused when the second scroll hid the first.
func (c *Tab) Drag(ctx context.Context) error {
	pg := c.Page
	if c.Pointed() {
		return c.dragFrom(ctx)
	}
	src, err := c.Target(ctx)
	if err != nil {
		return err
	}
	if _, _, ok := tool.DragPoint(c.In.To); ok {
		from, err := pg.Aim(ctx, src, "drag")
		if err != nil {
			return err
		}
		return c.dragTo(ctx, src, browser.Point{X: from.X, Y: from.Y}, c.elemName())
	}
	if dx, dy, ok := tool.DragOffset(c.In.To); ok {
		return c.dragBy(ctx, src, float64(dx), float64(dy))
	}
	dst, err := c.dropTarget(ctx)
	if err != nil {
		return err
	}
	aimTo := func() (browser.Aim, error) {
		a, err := pg.Aim(ctx, dst, "drop")
		if err != nil {
			c.What = "the drop target " + c.In.To
		}
		return a, err
	}
	if _, err := aimTo(); err != nil {
		return err
	}
	from, err := pg.Aim(ctx, src, "drag")
	if err != nil {
		return err
	}
	to, err := aimTo()
	if err != nil {
		return err
	}
	if again, err := pg.Aim(ctx, src, "drag"); err != nil {
		return err
	} else if math.Abs(again.X-from.X) > 1 || math.Abs(again.Y-from.Y) > 1 {
		return tool.Fail("%s and the drop target %s do not fit in the viewport together, so a drag cannot reach from one to the other; drag it in steps onto something in between, or use keyboard controls if the page offers them", c.elemName(), c.In.To)
	}
	m := pg.Mark(ctx)
	html5, err := pg.Drag(ctx, src, browser.Point{X: from.X, Y: from.Y}, browser.Point{X: to.X, Y: to.Y})
	if err != nil {
		return err
	}
	if html5 {
		c.Res.Notes = append(c.Res.Notes, "dropped with HTML5 drag events (the page started a drag and drop)")
	}
	return pg.Settle(ctx, m)
}

// dragBy drags the element by (dx, dy) CSS pixels from where the drag
// starts (its centre, or the visible point Aim picks): a slider's thumb or
// a resize handle that follows the pointer and has no drop target. The end
// point must lie in the viewport.
func (c *Tab) dragBy(ctx context.Context, src browser.Elem, dx, dy float64) error {
	pg := c.Page
	from, err := pg.Aim(ctx, src, "drag")
	if err != nil {
		return err
	}
	to := browser.Point{X: from.X + dx, Y: from.Y + dy}
	w, h := float64(c.Width), float64(c.Height)
	var vp []float64
	if pg.Run(ctx, "[innerWidth, innerHeight]", &vp) == nil && len(vp) == 2 {
		w, h = vp[0], vp[1]
	}
	if to.X < 0 || to.Y < 0 || to.X >= w || to.Y >= h {
		return tool.Fail("the drag would end at %.0f,%.0f, outside the viewport (%.0f×%.0f) — the drag starts at %.0f,%.0f; drag by less, or scroll first", to.X, to.Y, w, h, from.X, from.Y)
	}
	m := pg.Mark(ctx)
	if _, err := pg.Drag(ctx, src, browser.Point{X: from.X, Y: from.Y}, to); err != nil {
		return err
	}
	c.Res.Details = append(c.Res.Details, fmt.Sprintf("dragged from %.0f,%.0f to %.0f,%.0f", from.X, from.Y, to.X, to.Y))
	return pg.Settle(ctx, m)
}

// dropTarget is the element drag's to names: a ref, or the one visible
// element that shows the text (a column's heading, a zone's label), since
// drop zones seldom have refs of their own.
func (c *Tab) dropTarget(ctx context.Context) (browser.Elem, error) {
	to := c.In.To
	if tool.LooksLikeRef(to) {
		return c.Refs.Elem(to)
	}
	el, n, err := c.Page.QueryText(ctx, to)
	switch {
	case err != nil:
		return browser.Elem{}, err
	case n == 0:
		return browser.Elem{}, tool.Fail("no visible element shows the text %q to drop on: give the ref of the drop target from a snapshot, or text it shows exactly", to)
	case n > 1:
		return browser.Elem{}, tool.Fail("%d elements show the text %q: give the ref of the one to drop on (take a snapshot), or longer text", n, to)
	}
	return el, nil
}
