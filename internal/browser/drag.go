package browser

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/chromedp/cdproto/cdp/jsonv2"

	"github.com/browserd/browserd/internal/cdp"
)

// dragArmJS watches, in the isolated world, for the dragstart a press and
// a move on the element may start (HTML5 drag and drop), and keeps the
// event: whether a page handler cancelled it is known only once every
// handler has run.
const dragArmJS = `function() {
  const doc = this.ownerDocument || document;
  const st = {ev: null};
  doc.__browserdDrag = st;
  doc.addEventListener('dragstart', e => { st.ev = e; }, {capture: true, once: true});
}`

// dragStartedJS reports whether a dragstart that no handler cancelled
// came, and stops watching.
const dragStartedJS = `function() {
  const doc = this.ownerDocument || document;
  const st = doc.__browserdDrag;
  delete doc.__browserdDrag;
  return !!(st && st.ev && !st.ev.defaultPrevented);
}`

// dragSteps is how many mouse moves carry a drag from its first move to
// the drop point: libraries that drag on pointer or mouse events (sortable
// lists, kanban boards, sliders) follow the pointer move by move, and some
// ignore a jump.
const dragSteps = 6

// Drag presses the left button on from (the element e, resolved for the
// HTML5 check), moves the mouse to to in steps, and lets go there, as a
// person drags. A drag the page starts with dragstart (HTML5 drag and
// drop) cannot be carried by mouse events alone in headless Chromium: it
// is intercepted (Input.setInterceptDrags) and carried to the drop point
// with drag events — dragenter, dragover, drop — as Chromium would.
// html5 reports which kind of drag it was.
func (p *Page) Drag(ctx context.Context, e Elem, from, to Point) (html5 bool, err error) {
	s, obj, err := p.Resolve(ctx, e)
	if err != nil {
		return false, err
	}
	if err := callFunction(ctx, s, obj, dragArmJS, nil); err != nil {
		return false, err
	}
	intercepted := p.sess.Listen("Input.dragIntercepted")
	defer intercepted.Close()
	stopIntercepting, err := p.interceptDrags(ctx)
	if err != nil {
		return false, err
	}
	defer stopIntercepting()
	pressed := false
	defer func() {
		if pressed && err != nil {
			// Never leave the button down: the page would take the next
			// click for the end of this drag.
			cctx, cancel := cdp.Cleanup(ctx)
			defer cancel()
			_ = p.mouseEvent(cctx, "mouseReleased", to, 0)
		}
	}()

	if err := p.mouseEvent(ctx, "mouseMoved", from, 0); err != nil {
		return false, err
	}
	if err := p.mouseEvent(ctx, "mousePressed", from, 1); err != nil {
		return false, err
	}
	pressed = true
	// The first move leaves the press by a few pixels toward the drop
	// point: past the threshold at which pages (and Chromium's own drag
	// detection) take a press for a drag.
	first := from.toward(to, 8)
	if err := p.mouseEvent(ctx, "mouseMoved", first, 1); err != nil {
		return false, err
	}
	started, data, err := dragStarted(ctx, s, obj, intercepted)
	if err != nil {
		return false, err
	}
	stopIntercepting()

	if started {
		pressed = false // the drag events end it, not a release
		return true, p.carryHTML5Drag(ctx, first, to, data)
	}
	if err := p.carryMouseDrag(ctx, first, to); err != nil {
		return false, err
	}
	pressed = false
	return false, p.mouseEvent(ctx, "mouseReleased", to, 1)
}

// interceptDrags has Chromium hand over the HTML5 drag the page starts
// (an Input.dragIntercepted event) rather than start it itself: mouse
// events alone cannot carry such a drag in headless Chromium (see Drag).
// stop turns that off again; it may be called more than once.
func (p *Page) interceptDrags(ctx context.Context) (stop func(), err error) {
	if err := p.sess.Call(ctx, "Input.setInterceptDrags", map[string]any{"enabled": true}, nil); err != nil {
		return nil, fmt.Errorf("dragging: %w", err)
	}
	intercepting := true
	return func() {
		if intercepting {
			intercepting = false
			p.cleanup(ctx, p.sess, "Input.setInterceptDrags", map[string]any{"enabled": false})
		}
	}, nil
}

// dragStarted tells whether the press and first move on the element obj
// started an HTML5 drag that no page handler cancelled (see dragStartedJS)
// and, when they did, takes the drag's data from the Input.dragIntercepted
// event Chromium sends on intercepted, to pass back as Chromium gave it.
func dragStarted(ctx context.Context, s *cdp.Session, obj string, intercepted *cdp.Listener) (bool, jsonv2.Value, error) {
	var started bool
	if err := callFunction(ctx, s, obj, dragStartedJS, &started); err != nil && !errors.Is(err, ErrStale) {
		return false, nil, err
	}
	if !started {
		return false, nil, nil
	}
	// Chromium intercepted the drag it would have started: take its
	// data, to carry it with drag events.
	wctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	ev, ok := intercepted.Next(wctx)
	cancel()
	if !ok {
		return false, nil, errors.New("dragging: the page started an HTML5 drag, but Chromium did not hand it over; try again")
	}
	var payload struct {
		Data jsonv2.Value `json:"data"`
	}
	if err := ev.Decode(&payload); err != nil {
		return false, nil, err
	}
	return true, payload.Data, nil
}

// carryHTML5Drag carries an intercepted HTML5 drag, with its data, from
// the first move's point to the drop point in dragSteps drag events, and
// drops it there.
func (p *Page) carryHTML5Drag(ctx context.Context, first, to Point, data jsonv2.Value) error {
	if err := p.dragEvent(ctx, "dragEnter", first, data); err != nil {
		return err
	}
	for i := 1; i <= dragSteps; i++ {
		if err := p.dragEvent(ctx, "dragOver", first.lerp(to, float64(i)/dragSteps), data); err != nil {
			return err
		}
	}
	// Hover over the drop point as a hand does: the list makes room
	// with an animation, and pages ignore the pointer over what still
	// moves (SortableJS); once it rests, one more move.
	if p.awaitAnimations(ctx) {
		if err := p.dragEvent(ctx, "dragOver", to, data); err != nil {
			return err
		}
	}
	return p.dragEvent(ctx, "drop", to, data)
}

// carryMouseDrag moves the mouse, its button held, from the first move's
// point to the drop point in dragSteps moves, and once more when what the
// page animates has come to rest there, as carryHTML5Drag does; the
// caller lets go of the button.
func (p *Page) carryMouseDrag(ctx context.Context, first, to Point) error {
	for i := 1; i <= dragSteps; i++ {
		if err := p.mouseEvent(ctx, "mouseMoved", first.lerp(to, float64(i)/dragSteps), 1); err != nil {
			return err
		}
	}
	if p.awaitAnimations(ctx) {
		if err := p.mouseEvent(ctx, "mouseMoved", to, 1); err != nil {
			return err
		}
	}
	return nil
}

// Point is a position in the tab's viewport, in CSS pixels.
type Point struct{ X, Y float64 }

// toward is the point d pixels from p in the direction of q (to the right
// when q is p).
func (p Point) toward(q Point, d float64) Point {
	dx, dy := q.X-p.X, q.Y-p.Y
	n := math.Hypot(dx, dy)
	if n < 1 {
		return Point{p.X + d, p.Y}
	}
	if n < d {
		return q
	}
	return Point{p.X + dx/n*d, p.Y + dy/n*d}
}

// lerp is the point a fraction t of the way from p to q.
func (p Point) lerp(q Point, t float64) Point {
	return Point{p.X + (q.X-p.X)*t, p.Y + (q.Y-p.Y)*t}
}

// mouseEvent sends a left-button mouse event; buttons is 1 while the
// button is held (pointer events report it), 0 otherwise.
func (p *Page) mouseEvent(ctx context.Context, typ string, at Point, buttons int) error {
	ev := map[string]any{"type": typ, "x": at.X, "y": at.Y, "buttons": buttons}
	if typ != "mouseMoved" {
		ev["button"], ev["clickCount"] = "left", 1
	} else if buttons != 0 {
		ev["button"] = "left"
	}
	if err := p.sess.Call(ctx, "Input.dispatchMouseEvent", ev, nil); err != nil {
		return fmt.Errorf("dragging: %w", err)
	}
	return nil
}

// dragEvent sends one HTML5 drag event with the drag's data.
func (p *Page) dragEvent(ctx context.Context, typ string, at Point, data jsonv2.Value) error {
	if err := p.sess.Call(ctx, "Input.dispatchDragEvent", map[string]any{"type": typ, "x": at.X, "y": at.Y, "data": data}, nil); err != nil {
		return fmt.Errorf("dragging (%s): %w", typ, err)
	}
	return nil
}

// awaitAnimationsJS waits, up to 500 ms, for the page's finite animations
// and transitions that are running to end, and tells whether there were
// any.
const awaitAnimationsJS = `(async () => {
  const moving = document.getAnimations().filter(a => { if (a.playState !== 'running' || !a.effect) return false;
    const t = a.effect.getComputedTiming(); return isFinite(t.endTime) && t.endTime - (t.localTime || 0) < 2000; });
  if (!moving.length) return false;
  await Promise.race([Promise.all(moving.map(a => a.finished.catch(() => null))), new Promise(r => setTimeout(r, 500))]);
  return true; })()`

// awaitAnimations waits for what the page animates to rest (see
// awaitAnimationsJS); true when something was moving.
func (p *Page) awaitAnimations(ctx context.Context) bool {
	var moved bool
	actx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	return p.Run(actx, awaitAnimationsJS, &moved) == nil && moved
}
