package browser

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// Points of the viewport: what is at one, the mouse pressed, moved and
// released at one as separate steps (drawing, a long press), and the
// boxes of elements in the viewport's pixels (an annotated screenshot).

// Viewport is the layout viewport's size in CSS pixels (innerWidth,
// innerHeight): the space of a screenshot with fullPage false.
func (p *Page) Viewport(ctx context.Context) (w, h float64, err error) {
	var vp []float64
	if err := p.Run(ctx, "[innerWidth, innerHeight]", &vp); err != nil {
		return 0, 0, err
	}
	if len(vp) != 2 {
		return 0, 0, fmt.Errorf("reading the viewport's size: got %v", vp)
	}
	return vp[0], vp[1], nil
}

// ElemAt is the element on top at (x, y) in CSS pixels of the viewport,
// inside same-process frames and open shadow roots as hit testing finds
// it; ok is false when nothing is there (outside the page's content).
func (p *Page) ElemAt(ctx context.Context, x, y float64) (e Elem, ok bool, err error) {
	var r struct {
		BackendNodeID int64  `json:"backendNodeId"`
		FrameID       string `json:"frameId"`
	}
	err = p.sess.Call(ctx, "DOM.getNodeForLocation", map[string]any{
		"x": int(x), "y": int(y), "includeUserAgentShadowDOM": false, "ignorePointerEventsNone": true,
	}, &r)
	if err != nil {
		if strings.Contains(err.Error(), "No node found") {
			return Elem{}, false, nil
		}
		return Elem{}, false, err
	}
	if r.BackendNodeID == 0 {
		return Elem{}, false, nil
	}
	e = Elem{Sess: p.sess.ID(), Backend: r.BackendNodeID}
	if r.FrameID != p.TargetID {
		e.Frame = r.FrameID
	}
	return e, true, nil
}

// MouseDown presses button ("" is left) at (x, y) and keeps it down:
// the moves that follow carry it, as a hand drawing does, until MouseUp.
func (p *Page) MouseDown(ctx context.Context, x, y float64, button string) error {
	if button == "" {
		button = "left"
	}
	if err := p.mouseAt(ctx, "mouseMoved", x, y, "", p.buttons()); err != nil {
		return err
	}
	p.mu.Lock()
	p.held = button
	// A press soon after one at the same point counts on, as a system's
	// mouse does: three make a triple click (a line selected).
	now, last := time.Now(), p.press
	n := 1
	if last.button == button && now.Sub(last.at) < multiClick && math.Abs(last.x-x) <= 4 && math.Abs(last.y-y) <= 4 {
		n = last.n%3 + 1
	}
	p.press = lastPress{x: x, y: y, at: now, n: n, button: button}
	p.mu.Unlock()
	return p.mouseAt(ctx, "mousePressed", x, y, button, p.buttons(), n)
}

// lastPress is a MouseDown, for the click count of the next.
type lastPress struct {
	x, y   float64
	at     time.Time
	n      int
	button string
}

// multiClick is how soon a press after another at the same point counts
// as the next click of a double or triple click.
const multiClick = 800 * time.Millisecond

// MouseUp releases the button MouseDown pressed (or button, when given)
// at (x, y).
func (p *Page) MouseUp(ctx context.Context, x, y float64, button string) error {
	p.mu.Lock()
	if button == "" {
		button = p.held
	}
	if button == "" {
		button = "left"
	}
	p.held = ""
	n := max(p.press.n, 1)
	p.mu.Unlock()
	if err := p.mouseAt(ctx, "mouseMoved", x, y, "", buttonBits[button]); err != nil {
		return err
	}
	return p.mouseAt(ctx, "mouseReleased", x, y, button, 0, n)
}

// MouseMove moves the mouse to (x, y), carrying the button MouseDown
// holds down, if any.
func (p *Page) MouseMove(ctx context.Context, x, y float64) error {
	return p.mouseAt(ctx, "mouseMoved", x, y, "", p.buttons())
}

// Held is the mouse button MouseDown holds down, "" for none.
func (p *Page) Held() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.held
}

// buttonBits are the bits of MouseEvent.buttons.
var buttonBits = map[string]int{"left": 1, "right": 2, "middle": 4}

func (p *Page) buttons() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return buttonBits[p.held]
}

func (p *Page) mouseAt(ctx context.Context, typ string, x, y float64, button string, buttons int, clicks ...int) error {
	ev := map[string]any{"type": typ, "x": x, "y": y, "buttons": buttons}
	if button != "" {
		ev["button"], ev["clickCount"] = button, append(clicks, 1)[0]
	}
	return p.sess.Call(ctx, "Input.dispatchMouseEvent", ev, nil)
}

// Box is an element's border box in CSS pixels of the viewport.
type Box struct{ X, Y, W, H float64 }

// Boxes are the border boxes of els in the viewport (frames' offsets
// added); an element without a box (hidden, gone) has a zero Box. The
// calls are pipelined: one round of acknowledgements for all.
func (p *Page) Boxes(ctx context.Context, els []Elem) []Box {
	type model struct {
		Model struct {
			Border []float64 `json:"border"`
		} `json:"model"`
	}
	out := make([]Box, len(els))
	ms := make([]model, len(els))
	waits := make([]func(any) error, len(els))
	offsets := map[string][2]float64{}
	for i, e := range els {
		s := p.SessionFor(e.Sess)
		if s == nil {
			continue
		}
		if _, ok := offsets[string(e.Sess)]; !ok {
			x, y, err := p.frameOffset(ctx, s)
			if err != nil {
				x, y = -1e9, -1e9 // off screen: left out
			}
			offsets[string(e.Sess)] = [2]float64{x, y}
		}
		waits[i] = s.Send(ctx, "DOM.getBoxModel", map[string]any{"backendNodeId": e.Backend})
	}
	for i, w := range waits {
		if w == nil || w(&ms[i]) != nil || len(ms[i].Model.Border) < 8 {
			continue
		}
		q := ms[i].Model.Border
		minX, minY, maxX, maxY := q[0], q[1], q[0], q[1]
		for j := 0; j < 8; j += 2 {
			minX, maxX = min(minX, q[j]), max(maxX, q[j])
			minY, maxY = min(minY, q[j+1]), max(maxY, q[j+1])
		}
		off := offsets[string(els[i].Sess)]
		out[i] = Box{X: minX + off[0], Y: minY + off[1], W: maxX - minX, H: maxY - minY}
	}
	return out
}

// clipJS is the part of the element its scrolling ancestors let show, in
// its frame's viewport: each ancestor that clips (overflow other than
// visible, a <select> list) narrows it to its client area; then its own
// corner, to place the clip in the tab. The root and
// body are left out (their overflow is the viewport's), and the walk stops
// at a fixed element (the ancestors above do not clip it).
const clipJS = `function() {
  const el = this.nodeType === 1 ? this : this.parentElement;
  if (!el) return null;
  const r = el.getBoundingClientRect();
  let x0 = r.left, y0 = r.top, x1 = r.right, y1 = r.bottom;
  for (let e = el; e; ) {
    if (getComputedStyle(e).position === 'fixed') break;
    const a = e.parentElement;
    if (!a || a === document.body || a === document.documentElement) break;
    const cs = getComputedStyle(a);
    if (a.tagName === 'SELECT' || cs.overflowX !== 'visible' || cs.overflowY !== 'visible') {
      const b = a.getBoundingClientRect();
      const l = b.left + a.clientLeft, t = b.top + a.clientTop;
      x0 = Math.max(x0, l); y0 = Math.max(y0, t);
      x1 = Math.min(x1, l + (a.clientWidth || b.width)); y1 = Math.min(y1, t + (a.clientHeight || b.height));
    }
    e = a;
  }
  return [x0, y0, Math.max(0, x1 - x0), Math.max(0, y1 - y0), r.left, r.top];
}`

// Clipped is boxes (from Boxes) each narrowed to the part of its element
// that its scrolling containers let show (an option scrolled out of its
// list, a row out of a scrolled table: none). An element it cannot ask
// about keeps its box.
func (p *Page) Clipped(ctx context.Context, els []Elem, boxes []Box) []Box {
	out := slices.Clone(boxes)
	for i, e := range els {
		if out[i].W == 0 || out[i].H == 0 {
			continue
		}
		var c []float64
		if err := p.CallOn(ctx, e, clipJS, &c); err != nil || len(c) != 6 {
			continue
		}
		// The clip is in the frame's coordinates, the box in the tab's:
		// the frame's offset is the difference of the element's corners.
		r := c[4:]
		dx, dy := out[i].X-r[0], out[i].Y-r[1]
		x0, y0 := max(out[i].X, c[0]+dx), max(out[i].Y, c[1]+dy)
		x1, y1 := min(out[i].X+out[i].W, c[0]+dx+c[2]), min(out[i].Y+out[i].H, c[1]+dy+c[3])
		if x1 <= x0 || y1 <= y0 {
			out[i] = Box{}
			continue
		}
		out[i] = Box{X: x0, Y: y0, W: x1 - x0, H: y1 - y0}
	}
	return out
}

// SetViewport sets the tab's viewport to w×h CSS pixels (the computer
// tool's display, a launch's width and height for a session that runs).
func (p *Page) SetViewport(ctx context.Context, w, h int) error {
	return p.sess.Call(ctx, "Emulation.setDeviceMetricsOverride", map[string]any{
		"width": w, "height": h, "deviceScaleFactor": 1, "mobile": false,
	}, nil)
}
