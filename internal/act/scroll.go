package act

import (
	"cmp"
	"context"
	"fmt"
	"time"

	"github.com/browserd/browserd/internal/browser"
)

// scrollBoxJS scrolls, by (%v, %v), the largest element in view that has
// more content than room in that direction and lets it scroll; it returns
// its tag, or "" when there is none.
const scrollBoxJS = `(() => { const dx = %v, dy = %v;
  let best = null, area = 0;
  for (const el of document.querySelectorAll('*')) {
    if (el === document.documentElement || el === document.body) continue;
    const fits = dy > 0 ? el.scrollTop + el.clientHeight < el.scrollHeight - 1 : dy < 0 ? el.scrollTop > 0 :
      dx > 0 ? el.scrollLeft + el.clientWidth < el.scrollWidth - 1 : el.scrollLeft > 0;
    if (!fits) continue;
    const s = getComputedStyle(el), o = dy !== 0 ? s.overflowY : s.overflowX;
    if (o !== 'auto' && o !== 'scroll') continue;
    const r = el.getBoundingClientRect();
    const w = Math.min(r.right, innerWidth) - Math.max(r.left, 0), h = Math.min(r.bottom, innerHeight) - Math.max(r.top, 0);
    if (w <= 0 || h <= 0 || w * h <= area) continue;
    best = el; area = w * h;
  }
  if (!best) return '';
  best.scrollBy(dx, dy);
  return best.tagName.toLowerCase(); })()`

// Scroll scrolls the page, or the element the input names, with the mouse
// wheel; top and bottom jump to the ends.
func (c *Tab) Scroll(ctx context.Context) error {
	pg := c.Page
	dir := cmp.Or(c.In.Direction, "down")
	x, y, el, err := c.scrollPoint(ctx)
	if err != nil {
		return err
	}
	// What the page does when it scrolls (a virtual list drawing the rows
	// now in view, an infinite feed loading more) is waited for, as a
	// click's reaction is.
	m := pg.Mark(ctx).TwoFrames()
	if dir == "top" || dir == "bottom" {
		if err := c.scrollToEnd(ctx, el, dir == "bottom"); err != nil {
			return err
		}
		return pg.Settle(ctx, m)
	}
	if err := c.wheel(ctx, el, x, y, dir); err != nil {
		return err
	}
	if err := pg.Settle(ctx, m); err != nil {
		return err
	}
	var page []float64
	if pg.Run(ctx, "[scrollX, scrollY, document.documentElement.scrollHeight - innerHeight]", &page) == nil && len(page) == 3 {
		c.Res.Notes = append(c.Res.Notes, fmt.Sprintf("page scroll x %d, y %d of %d", int(page[0]), int(page[1]), int(page[2])))
	}
	return nil
}

// scrollPoint is where the wheel turns: over the element the input names
// (el), else the middle of the window (el nil).
func (c *Tab) scrollPoint(ctx context.Context) (x, y float64, el *browser.Elem, err error) {
	x, y = float64(c.Width)/2, float64(c.Height)/2
	if c.Pointed() {
		// The wheel turns there: what scrolls is what is under it — a
		// frame of a host the policy does not list is refused, as a
		// click there is.
		if x, y, err = c.at(ctx); err != nil {
			return x, y, nil, err
		}
		h := c.hitAt(ctx, x, y)
		if h.ok && c.Within != nil {
			if err := c.Within(ctx, h.el); err != nil {
				return x, y, nil, err
			}
		}
		c.Res.Content = fmt.Sprintf("scrolled at %.0f,%.0f, over %s", x, y, h.desc)
		return x, y, nil, nil
	}
	var wh []float64
	if c.Page.Touch() && c.Page.Run(ctx, "[visualViewport.width * visualViewport.scale, visualViewport.height * visualViewport.scale]", &wh) == nil && len(wh) == 2 {
		x, y = wh[0]/2, wh[1]/2 // a device's screen, not the daemon's window (a swipe, emulate.go)
	}
	if c.In.Ref == "" && c.In.Selector == "" && c.In.Role == "" {
		return x, y, nil, nil
	}
	e, err := c.Target(ctx)
	if err != nil {
		return 0, 0, nil, err
	}
	if x, y, err = c.Page.Point(ctx, e, "scroll"); err != nil {
		return 0, 0, nil, err
	}
	return x, y, &e, nil
}

// scrollToEnd jumps el's box (or the window, el nil) to its top or bottom.
func (c *Tab) scrollToEnd(ctx context.Context, el *browser.Elem, bottom bool) error {
	pg := c.Page
	if el != nil {
		fn := `function(bottom) { const el = this.nodeType === 1 ? this : this.parentElement; el.scrollTop = bottom ? el.scrollHeight : 0; }`
		return pg.CallOn(ctx, *el, fn, nil, bottom)
	}
	expr := "window.scrollTo(0, 0)"
	if bottom {
		expr = "window.scrollTo(0, document.documentElement.scrollHeight)"
	}
	return pg.Run(ctx, expr, nil)
}

// scrollPosJS is where the page and the element stand: the wheel's effect
// shows there.
const scrollPosJS = `function() { const el = this && this.nodeType ? (this.nodeType === 1 ? this : this.parentElement) : null;
  let n = 0; for (let a = el; a; a = a.parentElement) n += a.scrollTop + a.scrollLeft;
  return [scrollX, scrollY, n]; }`

// wheelLandedJS waits until the scroll position scrollPosJS reads (of
// this, an element or null, and its ancestors, and the window's) is no
// longer (b0, b1, b2), or until four animation frames and 150 ms passed
// without it: a wheel's scroll shows in the frame after the compositor
// took it, however long the busy renderer takes to draw that frame. A tab
// whose frames do not run is looked at after 300 ms; 3 s at most.
const wheelLandedJS = `function(b0, b1, b2) {
  const el = this && this.nodeType ? (this.nodeType === 1 ? this : this.parentElement) : null;
  const moved = () => { let n = 0; for (let a = el; a; a = a.parentElement) n += a.scrollTop + a.scrollLeft;
    return scrollX !== b0 || scrollY !== b1 || n !== b2; };
  return new Promise(res => { const t0 = performance.now(); let f = 0, done = false;
    const end = v => { if (!done) { done = true; res(v); } };
    const look = () => { if (done) return; if (moved()) return end(true);
      if (++f >= 4 && performance.now() - t0 >= 150) return end(false);
      requestAnimationFrame(look); };
    requestAnimationFrame(look);
    setTimeout(() => { if (document.visibilityState !== 'visible') end(moved()); }, 300);
    setTimeout(() => end(moved()), 3000); }); }`

// clickStepJS is how far one wheel click moves at (%v, %v) along the
// axis (%v: vertical): 100 px, or 0.8 of the scroll box under the point
// (the window's, when none) when that is smaller, so that a list shorter
// than a click is stepped through rather than skipped.
const clickStepJS = `((x, y, vertical) => {
  let size = vertical ? innerHeight : innerWidth;
  for (let el = document.elementFromPoint(x, y); el; el = el.parentElement) {
    if (el === document.documentElement || el === document.body) break;
    const s = getComputedStyle(el);
    if (vertical ? el.scrollHeight > el.clientHeight && /auto|scroll/.test(s.overflowY)
                 : el.scrollWidth > el.clientWidth && /auto|scroll/.test(s.overflowX)) {
      size = vertical ? el.clientHeight : el.clientWidth; break;
    }
  }
  return Math.max(1, Math.min(100, Math.round(size * 0.8))); })(%v, %v, %v)`

// wheel turns the mouse wheel at (x, y) towards dir by the input's amount
// (0.8 of the window) or its wheel clicks, and when nothing moved, scrolls
// what a person would reach for: the element's own box, or the largest
// box in view.
func (c *Tab) wheel(ctx context.Context, el *browser.Elem, x, y float64, dir string) error {
	pg := c.Page
	amount := float64(c.In.Amount)
	if c.In.Clicks > 0 {
		step := 100.0
		vertical := dir == "up" || dir == "down"
		if err := pg.Run(ctx, fmt.Sprintf(clickStepJS, x, y, vertical), &step); err != nil {
			return err
		}
		amount = step * float64(c.In.Clicks)
		c.Res.Notes = append(c.Res.Notes, fmt.Sprintf("%d wheel clicks of %.0f px", c.In.Clicks, step))
	}
	if amount == 0 {
		amount = float64(c.Height) * 0.8
	}
	var dx, dy float64
	switch dir {
	case "down":
		dy = amount
	case "up":
		dy = -amount
	case "right":
		dx = amount
	case "left":
		dx = -amount
	}
	// The boxes under the wheel count too: the window stays put when a
	// box under the mouse scrolls.
	under := fmt.Sprintf("document.elementFromPoint(%v, %v)", x, y)
	var before [3]float64
	if el != nil {
		_ = pg.CallOn(ctx, *el, scrollPosJS, &before)
	} else {
		_ = pg.Run(ctx, fmt.Sprintf("(%s).call(%s)", scrollPosJS, under), &before)
	}
	if err := pg.Wheel(ctx, x, y, dx, dy); err != nil {
		return err
	}
	// The wheel scrolls asynchronously; let it land — within the page's
	// frames, not a time of ours: on a loaded machine a wheel that landed
	// after a fixed wait was scrolled again by the fallback below.
	lctx, cancel := context.WithTimeout(ctx, 4*time.Second)
	moved := false
	if el != nil {
		_ = pg.CallOn(lctx, *el, wheelLandedJS, &moved, before[0], before[1], before[2])
	} else {
		_ = pg.Run(lctx, fmt.Sprintf("(%s).call(%s, %v, %v, %v)", wheelLandedJS, under, before[0], before[1], before[2]), &moved)
	}
	cancel()
	switch {
	case moved, c.Pointed():
		// At a point the wheel goes where the agent aimed, nowhere else:
		// a map or a canvas that takes the wheel itself moves nothing.
		return nil
	case el != nil:
		// Nothing under the mouse scrolled (the point is covered, or the
		// page cancels wheel events): scroll the element's own box, or its
		// nearest scrollable ancestor.
		return pg.CallOn(ctx, *el, `function(dx, dy) {
		  let a = this.nodeType === 1 ? this : this.parentElement;
		  for (; a; a = a.parentElement) { const s = getComputedStyle(a);
		    if ((a.scrollHeight > a.clientHeight && /auto|scroll/.test(s.overflowY)) || (a.scrollWidth > a.clientWidth && /auto|scroll/.test(s.overflowX))) break; }
		  (a || document.scrollingElement).scrollBy(dx, dy); }`, nil, dx, dy)
	}
	// (A frame under the mouse scrolls out of this document's sight.)
	var underFrame bool
	_ = pg.Run(ctx, fmt.Sprintf("(() => { const h = document.elementFromPoint(%v, %v); return !!h && /^(IFRAME|FRAME|EMBED|OBJECT)$/.test(h.tagName); })()", x, y), &underFrame)
	if underFrame {
		return nil
	}
	// The window does not scroll that way (an app whose content lives in a
	// scroll box, a list beside the middle of the window): scroll the
	// largest box in view that can, as a person would reach for it.
	var box string
	if err := pg.Run(ctx, fmt.Sprintf(scrollBoxJS, dx, dy), &box); err != nil {
		return err
	}
	if box == "" {
		c.Res.Notes = append(c.Res.Notes, "nothing scrolled: neither the window nor a scroll box in view can move "+dir)
	} else {
		c.Res.Notes = append(c.Res.Notes, "the window cannot scroll "+dir+"; the largest scroll box in view did (give a target inside another box to scroll that one)")
	}
	return nil
}
