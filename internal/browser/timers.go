package browser

import (
	"context"
	"fmt"
	"math"
	"time"
)

// Pages often react to an action later than at once, on a timer: jQuery
// UI's menu opens a submenu 300 ms after the click, its autocomplete
// searches 300 ms after the last key, a search box debounces. The DOM
// watch (watchJS) cannot see a timer, so a reaction that starts with a
// quiet 300 ms would be missed. timersJS, run in every document's main
// world before the page's own scripts, keeps the due times of the short
// timers (1 ms to 1 s) the page has pending; lateTimers asks, after an
// action, when the last of those the action started will have run, and
// Settle waits until then. The page can see and tamper with the wrapper:
// all it can do is make browserd wait, never past DOMMax.
const timersJS = `(() => { const w = window;
  if (Object.getOwnPropertyDescriptor(w, '__browserdTimers')) return;
  // Everything used later is taken now: a page that rewrites a built-in
  // afterwards bends neither the bookkeeping nor its own timers.
  const st = w.setTimeout, ct = w.clearTimeout, apply = Reflect.apply, P = Proxy;
  const now = performance.now.bind(performance), mset = Map.prototype.set, mdel = Map.prototype.delete, msize = Object.getOwnPropertyDescriptor(Map.prototype, 'size').get;
  const due = new Map();
  Object.defineProperty(w, '__browserdTimers', {value: due});
  // Proxies of the natives: their name, length and source read as native.
  w.setTimeout = new P(st, {apply(target, self, args) {
    const fn = args[0], d = +args[1] || 0;
    if (typeof fn !== 'function' || !(d >= 1 && d <= 1000)) return apply(target, w, args);
    let id;
    args[0] = function () { try { apply(mdel, due, [id]); } catch (e) {} return apply(fn, this, arguments); };
    id = apply(target, w, args);
    try { if (apply(msize, due, []) < 1000) apply(mset, due, [id, [now(), now() + d]]); } catch (e) {}
    return id; }});
  w.clearTimeout = new P(ct, {apply(target, self, args) { try { apply(mdel, due, [args[0]]); } catch (e) {} return apply(target, w, args); }});
  // Whether the page listens to keys: a text typed where no script hears
  // a key goes in at once (KeysHeard). Listeners added with
  // addEventListener and handlers set as properties count; handlers in
  // attributes the probe sees in the DOM.
  // Whether it listens to what typing into a field does besides keys —
  // focus and blur, input, the selection, composition — or watches sizes
  // (a ResizeObserver): where it hears none of it either, typing sets off
  // no script, and its answer need not wait for a frame (Hearing).
  let keys = false, edits = false;
  Object.defineProperty(w, '__browserdKeys', {get: () => keys});
  Object.defineProperty(w, '__browserdEdits', {get: () => edits});
  const lower = String.prototype.toLowerCase;
  const isKey = t => t === 'keydown' || t === 'keypress' || t === 'keyup';
  const editTypes = ['input', 'beforeinput', 'textinput', 'focus', 'focusin', 'blur', 'focusout', 'select', 'selectionchange', 'selectstart', 'compositionstart', 'compositionupdate', 'compositionend'];
  const indexOf = Array.prototype.indexOf, isEdit = t => apply(indexOf, editTypes, [t]) >= 0;
  const ET = w.EventTarget && w.EventTarget.prototype, ael = ET && ET.addEventListener;
  if (typeof ael === 'function') ET.addEventListener = new P(ael, {apply(target, self, args) {
    try { const t = apply(lower, String(args[0]), []); if (isKey(t)) keys = true; else if (isEdit(t)) edits = true; } catch (e) { keys = edits = true; }
    return apply(target, self, args); }});
  for (const o of [w, w.Document && w.Document.prototype, w.HTMLElement && w.HTMLElement.prototype, w.SVGElement && w.SVGElement.prototype]) {
    for (const k of ['onkeydown', 'onkeypress', 'onkeyup', 'oninput', 'onbeforeinput', 'onfocus', 'onblur', 'onselect', 'onselectionchange', 'onselectstart']) {
      const d = o && Object.getOwnPropertyDescriptor(o, k);
      if (!d || !d.set || !d.configurable) continue;
      const set = d.set, key = k.startsWith('onkey');
      Object.defineProperty(o, k, {get: d.get, set: new P(set, {apply(target, self, args) { if (key) keys = true; else edits = true; return apply(target, self, args); }}), enumerable: d.enumerable, configurable: true});
    }
  }
  const RO = w.ResizeObserver && w.ResizeObserver.prototype, observe = RO && RO.observe;
  if (typeof observe === 'function') RO.observe = new P(observe, {apply(target, self, args) { edits = true; return apply(target, self, args); }});
  // The page's animation-frame callbacks yet to run: after an action, a
  // page that asked for the next frame (a double requestAnimationFrame
  // that starts a transition, a frame loop) is given one frame more.
  const raf = w.requestAnimationFrame, caf = w.cancelAnimationFrame, sadd = Set.prototype.add, sdel = Set.prototype.delete, ssize = Object.getOwnPropertyDescriptor(Set.prototype, 'size').get;
  const frames = new Set();
  Object.defineProperty(w, '__browserdFrames', {value: frames});
  if (typeof raf !== 'function') return;
  w.requestAnimationFrame = new P(raf, {apply(target, self, args) {
    const fn = args[0];
    if (typeof fn !== 'function') return apply(target, w, args);
    let id;
    args[0] = function () { try { apply(sdel, frames, [id]); } catch (e) {} return apply(fn, this, arguments); };
    id = apply(target, w, args);
    try { if (apply(ssize, frames, []) < 1000) apply(sadd, frames, [id]); } catch (e) {}
    return id; }});
  w.cancelAnimationFrame = new P(caf, {apply(target, self, args) { try { apply(sdel, frames, [args[0]]); } catch (e) {} return apply(target, w, args); }});
})()`

// lateJS gives the milliseconds until the last short timer started since
// %s (a time on the page's clock, performance.now()) is due — at least 1 while one of them has not run yet, even
// when it is overdue: on a busy machine a timer fires later than due, and
// what it does is still the action's.
const lateJS = `(() => { const due = window.__browserdTimers;
  if (!(due instanceof Map)) return 0;
  const t = performance.now(), since = %s; let last = 0, pending = false;
  for (const [id, v] of due) { if (!Array.isArray(v)) continue;
    if (v[1] < t - 1000) due.delete(id); else if (v[0] >= since) { pending = true; if (v[1] > last) last = v[1]; } }
  return Math.max(pending ? 1 : 0, Math.ceil(last - t)); })()`

// pendingJS tells how long until the short timers started since %s are
// due (lateJS) and whether the page has animation-frame callbacks yet to
// run (timersJS keeps them).
const pendingJS = `({late: ` + lateJS + `, frames: (() => { const f = window.__browserdFrames;
  try { return f instanceof Set ? Reflect.apply(Object.getOwnPropertyDescriptor(Set.prototype, 'size').get, f, []) : 0; } catch (e) { return 0; } })()})`

// lateTimers is how long until the short timers the page started since
// m (0 when none), at most DOMMax, and whether the page asked for an
// animation frame that has not come yet. The window starts at the page's
// own clock reading when m's watch started: a window counted back from
// when this asks would shrink by as long as the question waits in a busy
// renderer's queue (tabs of one site share its thread) and leave out the
// timer the action started. It asks the page's main world: what it
// answers only bounds a wait.
func (p *Page) lateTimers(ctx context.Context, m Mark) (late time.Duration, frames bool) {
	since := fmt.Sprintf("%.3f", m.pageAt)
	if m.pageAt <= 0 {
		since = fmt.Sprintf("performance.now() - %d", time.Since(m.at).Milliseconds()+1)
	}
	var r struct {
		Result struct {
			Value struct {
				Late   float64 `json:"late"`
				Frames float64 `json:"frames"`
			} `json:"value"`
		} `json:"result"`
	}
	wait := p.sess.Send(ctx, "Runtime.evaluate", map[string]any{
		"expression": fmt.Sprintf(pendingJS, since), "returnByValue": true,
	})
	// The journal is asked in the same breath when a patch took it after
	// the quiet did (see CleanAtSettle): when no timer is waited for, this
	// is the settle's last look at the page.
	journal := func() {}
	p.mu.Lock()
	ask := p.settledJournal.Seq != p.journalSeq
	p.mu.Unlock()
	if ask {
		journal = p.sendJournalNow(ctx)
	}
	err := wait(&r)
	journal()
	if err != nil {
		return 0, false
	}
	v := r.Result.Value
	frames = v.Frames > 0
	if math.IsNaN(v.Late) || v.Late <= 0 {
		return 0, frames
	}
	return min(time.Duration(v.Late)*time.Millisecond, DOMMax), frames
}

// KeysHeard reports whether a script of the tab's top document may hear
// a key: it added a keydown, keypress or keyup listener, or set such a
// handler as a property, since the document began (timersJS counts them;
// a handler in an attribute is the caller's to look for in the DOM). A
// document timersJS did not run in, or an error, answers true.
func (p *Page) KeysHeard(ctx context.Context) bool {
	return p.Hearing(ctx).Keys
}

// Hearing is what the scripts of the tab's top document may hear of
// typing into a field (see Page.Hearing).
type Hearing struct {
	// Keys: a keydown, keypress or keyup listener or handler (KeysHeard).
	Keys bool `json:"keys"`
	// Edits: a listener or handler of what else typing does — focus,
	// blur, input, the selection, composition — or a ResizeObserver.
	Edits bool `json:"edits"`
	// Frames: animation-frame callbacks yet to run.
	Frames bool `json:"frames"`
}

// Silent reports whether no script of the page hears anything of typing:
// no listener, handler or observer of it, no frame callback pending (a
// handler in an attribute is the caller's to look for in the DOM).
func (h Hearing) Silent() bool { return !h.Keys && !h.Edits && !h.Frames }

// hearingJS is Hearing's question to the page's main world.
const hearingJS = `({keys: window.__browserdKeys !== false, edits: window.__browserdEdits !== false, frames: (() => { const f = window.__browserdFrames;
  try { return !(f instanceof Set) || Reflect.apply(Object.getOwnPropertyDescriptor(Set.prototype, 'size').get, f, []) > 0; } catch (e) { return true; } })()})`

// Hearing asks what the scripts of the tab's top document may hear of
// typing into a field, since the document began (timersJS keeps count). A
// document timersJS did not run in, or an error, hears everything.
func (p *Page) Hearing(ctx context.Context) Hearing {
	all := Hearing{Keys: true, Edits: true, Frames: true}
	var r struct {
		Result struct {
			Value *Hearing `json:"value"`
		} `json:"result"`
	}
	err := p.sess.Call(ctx, "Runtime.evaluate", map[string]any{
		"expression": hearingJS, "returnByValue": true,
	}, &r)
	if err != nil || r.Result.Value == nil {
		return all
	}
	return *r.Result.Value
}

// animationsLeftJS gives the milliseconds until the page's running finite
// animations and transitions that end within a second have ended, but for
// cosmetic transitions.
const animationsLeftJS = `(` + animationsLeftFn + `)()`

// animationsLeftFn is animationsLeftJS's function (quietJS calls it too).
const animationsLeftFn = `() => { let left = 0;
  // A transition of a colour or a shadow (a button's focus ring) shows or
  // moves nothing: not waited for.
  const cosmetic = /color|shadow|outline|filter|border|background|fill|stroke/;
  for (const a of document.getAnimations()) { if (a.playState !== 'running' || !a.effect) continue;
    if (a.transitionProperty && cosmetic.test(a.transitionProperty)) continue;
    const t = a.effect.getComputedTiming(), r = (t.endTime - (t.localTime || 0)) / (a.playbackRate || 1);
    if (isFinite(r) && r > 0 && r <= 1000) left = Math.max(left, r); }
  return Math.ceil(left); }`

// animationsLeft is how long until the animations running in the page end
// (see animationsLeftJS), 0 when none.
func (p *Page) animationsLeft(ctx context.Context) time.Duration {
	var ms float64
	if err := p.Run(ctx, animationsLeftJS, &ms); err != nil || math.IsNaN(ms) || ms <= 0 {
		return 0
	}
	return time.Duration(ms) * time.Millisecond
}
