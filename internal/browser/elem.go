package browser

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/chromedp/cdproto/target"

	"github.com/browserd/browserd/internal/cdp"
	"github.com/browserd/browserd/internal/untrusted"
)

// Elem names a DOM node of a tab: the CDP session of the document's process
// and the node's backend id, which Chromium keeps for the node's lifetime.
type Elem struct {
	Sess    target.SessionID
	Backend int64
	// Frame is the node's frame id when known; the tab's main frame needs
	// no coordinate translation.
	Frame string
}

// ErrStale means the node is gone from its document.
var ErrStale = errors.New("element is gone from the page")

// NotActionableError says why an element cannot take the action.
type NotActionableError struct {
	Reason string // hidden, disabled, offscreen, clipped, covered, detached
	// Cover is the element on top, when Reason is covered.
	Cover     *Elem
	CoverDesc string
}

func (e *NotActionableError) Error() string {
	if e.Reason == "covered" {
		return "element is covered by " + e.CoverDesc
	}
	return "element is " + e.Reason
}

// SessionFor returns the CDP session with the id: the tab's own, or one of
// its out-of-process frames'. nil when the frame is gone.
func (p *Page) SessionFor(id target.SessionID) *cdp.Session {
	if id == p.sess.ID() || id == "" {
		return p.sess
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, fs := range p.oopifs {
		if fs.sess.ID() == id {
			return fs.sess
		}
	}
	return nil
}

func isStale(err error) bool {
	if err == nil {
		return false
	}
	s := err.Error()
	return strings.Contains(s, "No node with given id") || strings.Contains(s, "detached") ||
		strings.Contains(s, "Could not find node") || strings.Contains(s, "No node found") ||
		errors.Is(err, cdp.ErrDetached)
}

// Resolve returns a JavaScript object id for the element in browserd's
// isolated world of its frame (in object group "browserd"), or ErrStale.
// Functions called on it see the page's DOM but none of its scripts'
// changes to built-ins.
func (p *Page) Resolve(ctx context.Context, e Elem) (*cdp.Session, string, error) {
	s := p.SessionFor(e.Sess)
	if s == nil {
		return nil, "", ErrStale
	}
	var r struct {
		Object remoteObject `json:"object"`
	}
	err := p.inWorld(ctx, s, e.Frame, func(id int64) error {
		return s.Call(ctx, "DOM.resolveNode", map[string]any{"backendNodeId": e.Backend, "objectGroup": "browserd", "executionContextId": id}, &r)
	})
	if err != nil {
		if isStale(err) {
			return nil, "", ErrStale
		}
		return nil, "", err
	}
	return s, r.Object.ObjectID, nil
}

// CallOn runs fn (a JavaScript function source, `this` = the element) with
// args and decodes its JSON-able return value into out (may be nil).
//
// The element's object is kept until the next Release, so the calls of one
// action on one element (a type's probe, caret, and read-back) resolve it
// once: a round trip to the page saved on each call after the first.
func (p *Page) CallOn(ctx context.Context, e Elem, fn string, out any, args ...any) error {
	s := p.SessionFor(e.Sess)
	if s == nil {
		return ErrStale
	}
	if obj, kept := p.keptObject(s, e); kept {
		err := callFunction(ctx, s, obj, fn, out, args...)
		if !goneObject(err) {
			return err
		}
		p.forgetObject(s, e, obj)
	}
	s, obj, err := p.Resolve(ctx, e)
	if err != nil {
		return err
	}
	if id, ok := p.worldID(s, e.Frame); ok {
		p.mu.Lock()
		if p.objs == nil || len(p.objs) >= 64 {
			p.objs = map[objKey]string{}
		}
		p.objs[objKey{s, e.Frame, e.Backend, id}] = obj
		p.mu.Unlock()
	}
	return callFunction(ctx, s, obj, fn, out, args...)
}

// keptObject is e's object as a CallOn since the last Release resolved it.
func (p *Page) keptObject(s *cdp.Session, e Elem) (string, bool) {
	id, ok := p.worldID(s, e.Frame)
	if !ok {
		return "", false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	obj, kept := p.objs[objKey{s, e.Frame, e.Backend, id}]
	return obj, kept
}

// forgetObject drops e's kept object obj, which the page no longer has.
func (p *Page) forgetObject(s *cdp.Session, e Elem, obj string) {
	id, ok := p.worldID(s, e.Frame)
	if !ok {
		return
	}
	k := objKey{s, e.Frame, e.Backend, id}
	p.mu.Lock()
	if p.objs[k] == obj {
		delete(p.objs, k)
	}
	p.mu.Unlock()
}

// objKey is an element resolved in one isolated world (see CallOn).
type objKey struct {
	sess    *cdp.Session
	frame   string
	backend int64
	world   int64
}

// goneObject reports whether a call failed because its object or its
// world is gone (released, or the document replaced): resolve it again.
func goneObject(err error) bool {
	return err != nil && (strings.Contains(err.Error(), "Could not find object") || goneContext(err))
}

// callArgs are Runtime.callFunctionOn's arguments for values.
func callArgs(args []any) []map[string]any {
	cargs := make([]map[string]any, len(args))
	for i, a := range args {
		cargs[i] = map[string]any{"value": a}
	}
	return cargs
}

func callFunction(ctx context.Context, s *cdp.Session, obj, fn string, out any, args ...any) error {
	return sendFunction(ctx, s, obj, fn, args...)(out)
}

// sendFunction is callFunction sent now, its answer waited for (and
// decoded into out) by the function it returns, which must be called.
func sendFunction(ctx context.Context, s *cdp.Session, obj, fn string, args ...any) func(out any) error {
	wait := s.Send(ctx, "Runtime.callFunctionOn", map[string]any{
		"functionDeclaration": fn, "objectId": obj, "arguments": callArgs(args),
		"returnByValue": true, "awaitPromise": true,
	})
	return func(out any) error {
		var r evalResult
		if err := wait(&r); err != nil {
			if isStale(err) {
				return ErrStale
			}
			return err
		}
		return r.decode(out)
	}
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

// checkJS makes the element ready for a pointer action and finds where to
// point: it scrolls the element into view within every scrolling ancestor
// and the window when any part of it is clipped, checks it is visible and
// enabled, then tests points on each of its boxes (a wrapped link has one
// per line; a rotated or half-covered element is hit away from its centre)
// and returns the first one where the element itself, or something inside
// it, is on top. A scroll takes any visible point: the wheel goes to what
// is under the mouse either way. An element that a finite animation or
// transition still moves (a menu scaling in, a drawer sliding in) is first
// waited for, up to 1.5 s, so the point is where it comes to rest. An
// element whose box is mostly empty is aimed at its content first.
const checkJS = `async function(action) {
  let el = this.nodeType === 1 ? this : this.parentElement;
  if (!el || !el.isConnected) return {reason: 'detached'};
  const moving = document.getAnimations().filter(a => {
    const t = a.effect && a.effect.target;
    if (a.playState !== 'running' || !t || !(t === el || t.contains(el))) return false;
    const ct = a.effect.getComputedTiming();
    return isFinite(ct.endTime) && ct.endTime - (ct.localTime || 0) < 3000;
  });
  if (moving.length) {
    await Promise.race([Promise.all(moving.map(a => a.finished.catch(() => null))), new Promise(r => setTimeout(r, 1500))]);
    // The page's transitionend and animationend handlers (which often
    // turn pointer events back on) run after the animation's end.
    // (A background tab gets no animation frames: a timer bounds it.)
    await Promise.race([new Promise(r => requestAnimationFrame(() => setTimeout(r, 0))), new Promise(r => setTimeout(r, 50))]);
    if (!el.isConnected) return {reason: 'detached'};
  }
  const st = getComputedStyle(el);
  if (st.visibility === 'hidden' || st.display === 'none') return {reason: 'hidden'};
  const boxes = () => [...el.getClientRects()].filter(r => r.width > 0 && r.height > 0);
  if (el.tagName === 'OPTION' && el.closest('select') && !boxes().length) el = el.closest('select');
  if (!boxes().length) return {reason: 'hidden'};
  if (action !== 'hover' && action !== 'scroll' && action !== 'drop' && (el.disabled || el.closest('fieldset:disabled') || el.getAttribute('aria-disabled') === 'true')) return {reason: 'disabled'};
  // The part of the element not clipped by an ancestor or the window.
  // The body's overflow is the window's when the root's is visible (CSS
  // Overflow 3, 3.3): then the body clips nothing. Paint containment
  // clips as overflow does. A scaled ancestor's client box is scaled too.
  const rootst = getComputedStyle(document.documentElement);
  const bodyPasses = rootst.overflowX === 'visible' && rootst.overflowY === 'visible';
  const visible = () => {
    let r = el.getBoundingClientRect();
    let l = r.left, t = r.top, ri = r.right, b = r.bottom;
    for (let a = el, fixed = st.position === 'fixed'; !fixed && (a = a.parentElement) && a !== document.documentElement; ) {
      const s = getComputedStyle(a);
      // What is fixed to the window (a modal's container) is clipped by
      // no ancestor of it: SweetAlert2 sets the body's overflow hidden.
      fixed = s.position === 'fixed';
      const paint = /paint|strict|content/.test(s.contain) || s.contentVisibility === 'auto';
      if (!paint && (s.overflowX === 'visible' && s.overflowY === 'visible' || a === document.body && bodyPasses)) continue;
      const c = a.getBoundingClientRect();
      const sx = a.offsetWidth ? c.width / a.offsetWidth : 1, sy = a.offsetHeight ? c.height / a.offsetHeight : 1;
      const cl = c.left + a.clientLeft * sx, ct = c.top + a.clientTop * sy;
      l = Math.max(l, cl); t = Math.max(t, ct);
      ri = Math.min(ri, cl + a.clientWidth * sx); b = Math.min(b, ct + a.clientHeight * sy);
    }
    l = Math.max(l, 0); t = Math.max(t, 0); ri = Math.min(ri, innerWidth); b = Math.min(b, innerHeight);
    return {l, t, ri, b, whole: ri - l >= Math.min(r.width, innerWidth) - 1 && b - t >= Math.min(r.height, innerHeight) - 1};
  };
  const within = (a, n) => { for (; n; n = n.parentNode || n.host) if (n === a) return true; return false; };
  const hitAt = (x, y) => { let hit = document.elementFromPoint(x, y);
    while (hit && hit.shadowRoot) { const h = hit.shadowRoot.elementFromPoint(x, y); if (!h || h === hit) break; hit = h; }
    return hit; };
  const toggle = el.tagName === 'INPUT' && (el.type === 'checkbox' || el.type === 'radio');
  // A checkbox or radio whose real input is clipped to a pixel or moved
  // off screen, and drawn by its label (design systems do this): a person
  // clicks the label, which toggles the input — so does this.
  const viaLabel = () => {
    if (!toggle || action === 'scroll' || action === 'drop' || !el.labels) return null;
    const box = el.getBoundingClientRect();
    for (const lb of el.labels) {
      if (!lb.getClientRects().length || getComputedStyle(lb).visibility === 'hidden') continue;
      lb.scrollIntoView({block: 'center', inline: 'center', behavior: 'instant'});
      for (const r of lb.getClientRects()) {
        if (r.width <= 0 || r.height <= 0) continue;
        const x = (Math.max(r.left, 0) + Math.min(r.right, innerWidth)) / 2, y = (Math.max(r.top, 0) + Math.min(r.bottom, innerHeight)) / 2;
        if (within(lb, hitAt(x, y))) return {ok: true, cx: x, cy: y, rl: box.left, rt: box.top, toggle: true};
      }
    }
    return null;
  };
  let v = visible();
  if (!v.whole) { el.scrollIntoView({block: 'center', inline: 'center', behavior: 'instant'}); v = visible(); }
  // Chromium's hit test has the last word on what shows: points of the
  // element's boxes within the window, tried after those the model above
  // finds, in case it clips what Chromium does not.
  const inWindow = [];
  for (const r of boxes()) {
    const l = Math.max(r.left, 0), t = Math.max(r.top, 0), ri = Math.min(r.right, innerWidth), b = Math.min(r.bottom, innerHeight);
    if (ri <= l || b <= t) continue;
    inWindow.push([(l + ri) / 2, (t + b) / 2]);
    for (const fx of [0.25, 0.75]) for (const fy of [0.25, 0.75]) inWindow.push([l + (ri - l) * fx, t + (b - t) * fy]);
  }
  const hitInWindow = () => {
    if (action === 'scroll' || action === 'drop') return null;
    const box = el.getBoundingClientRect();
    for (const [x, y] of inWindow) if (ours(hitAt(x, y), x, y)) return {ok: true, cx: x, cy: y, rl: box.left, rt: box.top, toggle};
    return null;
  };
  // A hit that stops at a shadow host holding the element: the hit test
  // cannot look into a closed root, and answers with the host for a text
  // slotted there (a button labelled by its <slot>); no element of the
  // root covers the point, or the test would have answered with it.
  const hostOf = (hit, x, y) => { for (let n = el; n; ) { const r = n.getRootNode();
      if (r.nodeType !== 11 || !r.host) return false;
      if (r.host === hit) {
        // Ask the root itself (el.getRootNode() gives even a closed one):
        // an element of it on top of the point is a cover.
        const h = r.elementFromPoint(x, y);
        return !h || h === hit || within(el, h);
      }
      n = r.host; }
    return false; };
  const ours = (hit, x, y) => hit && (within(el, hit) || hostOf(hit, x, y) || (el.labels && [...el.labels].some(lb => within(lb, hit))));
  if (v.ri <= v.l || v.b <= v.t) return hitInWindow() || viaLabel() || {reason: inWindow.length ? 'clipped' : 'offscreen'};
  const pts = [];
  // An element whose box is mostly empty (a full-width list item, a wide
  // row around a short text) is aimed at its content — its text run, its
  // icon — as a person does: the handler is often on the text alone.
  const content = () => {
    if (action === 'scroll' || action === 'drop' || toggle || /^(INPUT|TEXTAREA|SELECT|IMG|CANVAS|VIDEO|IFRAME|OPTION)$/.test(el.tagName)) return null;
    const r = el.getBoundingClientRect();
    if (r.width * r.height < 3000) return null;
    const rg = document.createRange();
    rg.selectNodeContents(el);
    const rs = [...rg.getClientRects()].filter(c => c.width > 0 && c.height > 0);
    if (!rs.length) return null;
    let l = Infinity, t = Infinity, ri = -Infinity, b = -Infinity;
    for (const c of rs) { l = Math.min(l, c.left); t = Math.min(t, c.top); ri = Math.max(ri, c.right); b = Math.max(b, c.bottom); }
    if ((ri - l) * (b - t) > 0.4 * r.width * r.height) return null;
    const x = (Math.max(l, v.l) + Math.min(ri, v.ri)) / 2, y = (Math.max(t, v.t) + Math.min(b, v.b)) / 2;
    return x > v.l && x < v.ri && y > v.t && y < v.b ? [x, y] : null;
  };
  const c = content();
  if (c) pts.push(c);
  for (const r of boxes()) {
    const l = Math.max(r.left, v.l), t = Math.max(r.top, v.t), ri = Math.min(r.right, v.ri), b = Math.min(r.bottom, v.b);
    if (ri <= l || b <= t) continue;
    pts.push([(l + ri) / 2, (t + b) / 2]);
    for (const fx of [0.25, 0.75, 0.5]) for (const fy of [0.5, 0.25, 0.75]) pts.push([l + (ri - l) * fx, t + (b - t) * fy]);
  }
  if (!pts.length) return hitInWindow() || viaLabel() || {reason: inWindow.length ? 'clipped' : 'offscreen'};
  const box = el.getBoundingClientRect();
  for (const [x, y] of pts) if (ours(hitAt(x, y), x, y)) return {ok: true, cx: x, cy: y, rl: box.left, rt: box.top, toggle};
  const seen = hitInWindow();
  if (seen) return seen;
  const [cx, cy] = pts[0];
  // A scroll box, or a drop zone under a placeholder, takes the pointer
  // where it is.
  if (action === 'scroll' || action === 'drop') return {ok: true, cx, cy, rl: box.left, rt: box.top, toggle};
  return viaLabel() || {reason: 'covered', cx, cy};
}`

const coverJS = `function(cx, cy) {
  let hit = document.elementFromPoint(cx, cy);
  while (hit && hit.shadowRoot) { const h = hit.shadowRoot.elementFromPoint(cx, cy); if (!h || h === hit) break; hit = h; }
  let n = hit;
  for (; n && n.nodeType === 1; n = n.parentElement) {
    if (n.getAttribute('role') || ['DIALOG','BUTTON','A','INPUT','SELECT','TEXTAREA','HEADER','FOOTER','NAV','ASIDE'].includes(n.tagName) || n.getAttribute('aria-label')) break;
  }
  return n && n.nodeType === 1 ? n : hit;
}`

// CheckJS is checkJS, for a call that checks an element in a function of
// its own (act's type readies a field in one call).
const CheckJS = checkJS

// checked is checkJS's answer.
type checked struct {
	OK     bool    `json:"ok"`
	Reason string  `json:"reason"`
	CX     float64 `json:"cx"`
	CY     float64 `json:"cy"`
	RL     float64 `json:"rl"`
	RT     float64 `json:"rt"`
	Toggle bool    `json:"toggle"`
}

// MarkAim is Mark then Aim, in one round trip where it can (MarkThen: an
// element of the main frame already resolved): the watch and the check
// go to the page together. An element that is not ready at once, or in
// another frame, is aimed at as Aim does (it waits, translates, says
// why not).
func (p *Page) MarkAim(ctx context.Context, e Elem, action string) (Mark, Aim, error) {
	if e.Frame != p.TargetID || p.SessionFor(e.Sess) != p.sess {
		m := p.Mark(ctx)
		a, err := p.Aim(ctx, e, action)
		return m, a, err
	}
	var c checked
	m, err := p.MarkThen(ctx, e, checkJS, &c, action)
	if err == nil && c.OK {
		return m, Aim{c.CX, c.CY, c.Toggle}, nil
	}
	a, err := p.Aim(ctx, e, action)
	return m, a, err
}

// Aim is where a pointer action lands on an element, in the tab's
// viewport coordinates, and what the element is.
type Aim struct {
	X, Y float64
	// Toggle: a native checkbox or radio button, whose reaction to a click
	// is immediate.
	Toggle bool
}

// Point scrolls the element into view, checks it can take the action (is
// visible, enabled, not covered) and returns where to point at it, ready
// for Input events.
func (p *Page) Point(ctx context.Context, e Elem, action string) (x, y float64, err error) {
	a, err := p.Aim(ctx, e, action)
	return a.X, a.Y, err
}

// Aim is Point, telling also what the element is.
//
// An element that is hidden, disabled or covered is waited for, up to
// ActionableWait, as a person waits for a loading overlay to fade or a
// button to come on once its request returns; then the error says why.
func (p *Page) Aim(ctx context.Context, e Elem, action string) (Aim, error) {
	deadline := time.Now().Add(ActionableWait)
	for {
		a, err := p.aimOnce(ctx, e, action)
		var nae *NotActionableError
		if !errors.As(err, &nae) || time.Now().After(deadline) {
			return a, err
		}
		t := time.NewTimer(100 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return a, err
		case <-t.C:
		}
	}
}

// ActionableWait bounds how long Aim waits for an element to become
// actionable (see Aim).
var ActionableWait = 1500 * time.Millisecond

// aimOnce is Aim without waiting.
func (p *Page) aimOnce(ctx context.Context, e Elem, action string) (Aim, error) {
	s, obj, err := p.Resolve(ctx, e)
	if err != nil {
		return Aim{}, err
	}
	var c checked
	if err := callFunction(ctx, s, obj, checkJS, &c, action); err != nil {
		return Aim{}, err
	}
	if !c.OK {
		if c.Reason == "detached" {
			return Aim{}, ErrStale
		}
		nae := &NotActionableError{Reason: c.Reason}
		if c.Reason == "covered" {
			nae.Cover, nae.CoverDesc = p.coverOf(ctx, s, obj, e.Frame, c.CX, c.CY)
		}
		return Aim{}, nae
	}
	if s == p.sess && (e.Frame == p.TargetID || e.Frame == "") && e.Frame != "" {
		return Aim{c.CX, c.CY, c.Toggle}, nil // the main frame: no translation
	}
	// The element's content quad is in the coordinates of its process's
	// root frame; the JS rect is frame-local. Their difference is the
	// offset of a same-process iframe.
	var q struct {
		Quads [][]float64 `json:"quads"`
	}
	ox, oy := 0.0, 0.0
	if err := s.Call(ctx, "DOM.getContentQuads", map[string]any{"backendNodeId": e.Backend}, &q); err == nil && len(q.Quads) > 0 && len(q.Quads[0]) >= 8 {
		qx, qy := q.Quads[0][0], q.Quads[0][1]
		for i := 2; i < 8; i += 2 {
			qx, qy = min(qx, q.Quads[0][i]), min(qy, q.Quads[0][i+1])
		}
		ox, oy = qx-c.RL, qy-c.RT
	}
	fx, fy, err := p.frameOffset(ctx, s)
	if err != nil {
		return Aim{}, err
	}
	return Aim{c.CX + ox + fx, c.CY + oy + fy, c.Toggle}, nil
}

// coverOf describes the element on top of the point, and names its node so
// the engine can give it a ref.
func (p *Page) coverOf(ctx context.Context, s *cdp.Session, obj, frame string, cx, cy float64) (*Elem, string) {
	var r struct {
		Result remoteObject `json:"result"`
	}
	err := s.Call(ctx, "Runtime.callFunctionOn", map[string]any{
		"functionDeclaration": coverJS, "objectId": obj, "objectGroup": "browserd",
		"arguments": []map[string]any{{"value": cx}, {"value": cy}},
	}, &r)
	if err != nil || r.Result.ObjectID == "" {
		return nil, "another element"
	}
	var d struct {
		Node struct {
			BackendNodeID int64  `json:"backendNodeId"`
			NodeName      string `json:"nodeName"`
		} `json:"node"`
	}
	if err := s.Call(ctx, "DOM.describeNode", map[string]any{"objectId": r.Result.ObjectID}, &d); err != nil {
		return nil, "another element"
	}
	var desc string
	_ = callFunction(ctx, s, r.Result.ObjectID, `function() {
	  const role = this.getAttribute('role') || this.tagName.toLowerCase();
	  const name = (this.getAttribute('aria-label') || this.innerText || '').trim().replace(/\s+/g, ' ').slice(0, 60);
	  return name ? role + ' "' + name + '"' : role;
	}`, &desc)
	if desc == "" {
		desc = strings.ToLower(d.Node.NodeName)
	}
	desc = untrusted.Defuse(desc) // page text inside an error message
	return &Elem{Sess: s.ID(), Backend: d.Node.BackendNodeID, Frame: frame}, desc
}

// frameOffset is where the root frame of session s sits in the tab's
// viewport: zero for the tab's own session, the owner iframe's content box
// (recursively) for an out-of-process frame.
func (p *Page) frameOffset(ctx context.Context, s *cdp.Session) (float64, float64, error) {
	if s == p.sess {
		return 0, 0, nil
	}
	p.mu.Lock()
	var frameID, parentFrame string
	for id, fs := range p.oopifs {
		if fs.sess == s {
			frameID, parentFrame = id, fs.parentFrame
		}
	}
	// A parent that is itself out of process has its own session; any other
	// parent frame lives in the tab's process.
	parent := p.sess
	if fs, ok := p.oopifs[parentFrame]; ok {
		parent = fs.sess
	}
	p.mu.Unlock()
	if frameID == "" {
		return 0, 0, ErrStale
	}
	var owner struct {
		BackendNodeID int64 `json:"backendNodeId"`
	}
	if err := parent.Call(ctx, "DOM.getFrameOwner", map[string]any{"frameId": frameID}, &owner); err != nil {
		return 0, 0, fmt.Errorf("locating frame: %w", err)
	}
	var bm struct {
		Model struct {
			Content []float64 `json:"content"`
		} `json:"model"`
	}
	if err := parent.Call(ctx, "DOM.getBoxModel", map[string]any{"backendNodeId": owner.BackendNodeID}, &bm); err != nil || len(bm.Model.Content) < 2 {
		return 0, 0, fmt.Errorf("locating frame: %w", err)
	}
	px, py, err := p.frameOffset(ctx, parent)
	if err != nil {
		return 0, 0, err
	}
	return bm.Model.Content[0] + px, bm.Model.Content[1] + py, nil
}

// Describe returns the backend node id of a JavaScript object.
func describe(ctx context.Context, s *cdp.Session, obj string) (int64, error) {
	var d struct {
		Node struct {
			BackendNodeID int64 `json:"backendNodeId"`
		} `json:"node"`
	}
	if err := s.Call(ctx, "DOM.describeNode", map[string]any{"objectId": obj}, &d); err != nil {
		return 0, err
	}
	return d.Node.BackendNodeID, nil
}

// Query finds the first element matching a CSS selector in the main frame
// (open shadow roots included) and returns it.
// NoMatchError says that no element matches a selector (yet).
type NoMatchError struct{ Selector string }

func (e *NoMatchError) Error() string {
	return fmt.Sprintf("no element matches selector %q", e.Selector)
}

func (p *Page) Query(ctx context.Context, selector string) (Elem, error) {
	sel, _ := json.Marshal(selector)
	expr := `(() => { const sel = ` + string(sel) + `;
	  const find = (root) => { const el = root.querySelector(sel); if (el) return el;
	    for (const h of root.querySelectorAll('*')) if (h.shadowRoot) { const x = find(h.shadowRoot); if (x) return x; }
	    return null; };
	  return find(document); })()`
	obj, err := p.objectInWorld(ctx, p.sess, p.TargetID, expr, "browserd")
	var se *ScriptError
	if errors.As(err, &se) {
		return Elem{}, fmt.Errorf("bad selector %q: it is not valid CSS", selector)
	}
	if err != nil {
		return Elem{}, err
	}
	if obj == "" {
		return Elem{}, &NoMatchError{Selector: selector}
	}
	be, err := describe(ctx, p.sess, obj)
	if err != nil {
		return Elem{}, err
	}
	return Elem{Sess: p.sess.ID(), Backend: be, Frame: p.TargetID}, nil
}

// QueryRole finds elements by ARIA role and accessible name in the main
// frame (and its same-process frames).
func (p *Page) QueryRole(ctx context.Context, role, name string) ([]Elem, error) {
	doc, err := p.objectInWorld(ctx, p.sess, p.TargetID, "document", "browserd")
	if err != nil {
		return nil, err
	}
	params := map[string]any{"objectId": doc}
	if role != "" {
		params["role"] = role
	}
	if name != "" {
		params["accessibleName"] = name
	}
	var r struct {
		Nodes []struct {
			Backend int64  `json:"backendDOMNodeId"`
			Ignored bool   `json:"ignored"`
			FrameID string `json:"frameId"`
		} `json:"nodes"`
	}
	if err := p.sess.Call(ctx, "Accessibility.queryAXTree", params, &r); err != nil {
		return nil, err
	}
	var out []Elem
	for _, n := range r.Nodes {
		if n.Backend != 0 && !n.Ignored {
			out = append(out, Elem{Sess: p.sess.ID(), Backend: n.Backend, Frame: cmp.Or(n.FrameID, p.TargetID)})
		}
	}
	return out, nil
}

// Release frees the JavaScript objects browserd's calls kept alive. It
// does not wait for the answer: Chromium handles the session's calls in
// order, so nothing sent after it can meet a freed object.
func (p *Page) Release(ctx context.Context) {
	p.mu.Lock()
	p.objs = nil
	p.mu.Unlock()
	_ = p.sess.Send(context.WithoutCancel(ctx), "Runtime.releaseObjectGroup", map[string]any{"objectGroup": "browserd"})
}

// release frees an object group of sess without waiting for the answer:
// the session's later calls are answered after it (Chromium runs a
// session's calls in order), and what it frees is the page's memory, not
// the action's business. Not cancelled with ctx: it runs after a timeout
// too.
func release(ctx context.Context, sess *cdp.Session, group string) {
	_ = sess.Send(context.WithoutCancel(ctx), "Runtime.releaseObjectGroup", map[string]any{"objectGroup": group})
}

// cleanup makes a clean-up call after ctx's work: not cancelled with ctx
// (it must run after a timeout too), but bounded by cdp.CleanupTimeout, so
// a renderer that stopped answering cannot hold the action's task.
func (p *Page) cleanup(ctx context.Context, sess *cdp.Session, method string, params any) {
	cctx, cancel := cdp.Cleanup(ctx)
	defer cancel()
	_ = sess.Call(cctx, method, params, nil)
}

// queryTextJS lists the visible elements of the document (shadow roots
// included) that show text t: their aria-label, or their own text when
// no child element shows all of it — the innermost element that does.
const queryTextJS = `((t) => {
  const norm = s => (s || '').replace(/\s+/g, ' ').trim();
  const out = [];
  const visible = el => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden';
  const walk = (root) => {
    const it = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT);
    for (let el = it.nextNode(); el && out.length < 50; el = it.nextNode()) {
      if (el.shadowRoot) walk(el.shadowRoot);
      if (['SCRIPT', 'STYLE', 'HEAD', 'TITLE', 'TEMPLATE'].includes(el.tagName)) continue;
      const label = norm(el.getAttribute('aria-label'));
      const own = norm(el.textContent) === t && ![...el.children].some(c => norm(c.textContent) === t);
      if ((label === t || own) && visible(el)) out.push(el);
    }
  };
  walk(document);
  return out;
})`

// QueryText finds the visible elements of the main frame that show text:
// their accessible label, or the innermost element whose text it is
// (whitespace collapsed). n is how many there are (at most 50); e is the
// first, when there is one.
func (p *Page) QueryText(ctx context.Context, text string) (e Elem, n int, err error) {
	t, _ := json.Marshal(strings.Join(strings.Fields(text), " "))
	arr, err := p.objectInWorld(ctx, p.sess, p.TargetID, queryTextJS+"("+string(t)+")", "browserd")
	if err != nil || arr == "" {
		return Elem{}, 0, err
	}
	items, err := p.arrayItems(ctx, p.sess, arr)
	if err != nil || len(items) == 0 {
		return Elem{}, 0, err
	}
	be, err := describe(ctx, p.sess, items[0])
	if err != nil {
		return Elem{}, 0, err
	}
	return Elem{Sess: p.sess.ID(), Backend: be, Frame: p.TargetID}, len(items), nil
}
