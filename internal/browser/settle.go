package browser

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/browserd/browserd/internal/timing"
)

// Settling after an input action: the mark taken before it (the page's
// DOM watch, watchJS), and the wait for the page's reaction — its
// requests, its DOM quiet for a frame (quietJS), the short timers and
// frames the action started, a navigation it set off — with the work
// done meanwhile (the answer's read). The network's own quiet, which
// navigations wait for too, is nav.go's.

// Mark records the tab's navigation state before an input action.
type Mark struct {
	nav, load int
	watching  bool      // a mutation watch runs in the page (see Mark)
	at        time.Time // when the mark was taken
	// pageAt is the page's clock (performance.now()) when its watch
	// started: the short timers the action started are those the page
	// started since (lateTimers). 0 when there is no watch.
	pageAt float64
	// twoFrames: the quiet counts two frames after the last change, not
	// one (see TwoFrames).
	twoFrames bool
	// unheard: no script of the page hears the action (see Unheard).
	unheard bool
}

// Unheard says that no script of the page can hear m's action — no
// listener, handler or observer of what it does, no frame callback
// pending, nothing animating (the caller knows: see Hearing): the page
// cannot react, so Settle does not wait for a quiet, only for what it
// does meanwhile (the read). A request or a navigation that began all
// the same is waited for as after any action.
func (m Mark) Unheard() Mark {
	m.unheard = true
	return m
}

// TwoFrames makes the quiet after m's action two animation frames after
// the page's last change rather than one: for a wheel or a scroll, whose
// scroll comes frames after the input and whose reaction (a virtual
// list's rows, an infinite feed's sentinel) comes in the frames after it.
func (m Mark) TwoFrames() Mark {
	m.twoFrames = true
	return m
}

// frames is how many animation frames after the page's last change the
// quiet counts (quietJS's need).
func (m Mark) frames() int {
	if m.twoFrames {
		return 2
	}
	return 1
}

// The page's reaction to an action is waited for until the page is
// settled, not for a fixed time: after an action that loads no new
// document, Settle answers once no mutation happened for two animation
// frames (a MutationObserver in browserd's isolated world counts them; a
// tab whose frames do not run waits DOMQuiet instead) and nothing the
// action started is still pending — a request (WaitQuiet), a short timer
// (a menu's 300 ms open delay, an autocomplete's debounce: see timersJS),
// a running animation — and never longer than DOMMax. An action that
// changes nothing and starts nothing is answered within two frames.
var (
	DOMQuiet = 50 * time.Millisecond
	DOMMax   = 1200 * time.Millisecond
)

const watchJS = `(() => { const w = globalThis.__browserdWatch;
  if (w) w.stop();
  const m = {n: 0, start: performance.now(), last: performance.now(), invalid: [], submitted: false, attempt: false,
    frames: 0, lastF: 0, wake: null, pend: 0, pendUntil: 0, inputF: -1};
  // A <dialog> that closed or a <details> that opened or closed fires its
  // close or toggle event later, as a task of its own: on a busy renderer
  // (tabs of one site share its thread) that task can come frames after
  // the change, and what the page does in it is still the action's. The
  // quiet waits for it, 400 ms at most.
  const changed = () => { m.last = performance.now(); m.lastF = m.frames; if (m.wake) m.wake(); };
  const pending = (el, type) => { m.pend++; m.pendUntil = Math.max(m.pendUntil, performance.now() + 400);
    el.addEventListener(type, () => { m.pend--; changed(); }, {once: true}); };
  m.obs = new MutationObserver(recs => { m.n += recs.length;
    for (const r of recs) if (r.type === 'attributes' && r.attributeName === 'open') {
      const t = r.target;
      if (t.nodeName === 'DIALOG' && !t.open) pending(t, 'close');
      else if (t.nodeName === 'DETAILS') pending(t, 'toggle');
    }
    changed(); });
  m.obs.observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
  // Animation frames are counted while the action runs: the page is
  // settled two frames after its last change. The count is looked at
  // after the frame, once the page's own frame callbacks have run. The
  // count stops after 3 s unless quietJS waits on it (it starts it
  // again): an action that fails before it settles leaves no frames
  // running.
  const look = () => { if (m.wake) m.wake(); };
  m.tick = () => { m.frames++; m.ticking = m.wake !== null || performance.now() - m.start < 3000;
    if (m.ticking) m.raf = requestAnimationFrame(m.tick);
    if (m.wake) setTimeout(look, 0); };
  m.ticking = true;
  m.raf = requestAnimationFrame(m.tick);
  // A form the browser's own checks stop fires invalid at each field that
  // fails them, and no submit: the page shows only a bubble no snapshot has.
  const label = el => { const l = el.labels && el.labels[0];
    return String(el.getAttribute('aria-label') || (l && l.innerText) || el.getAttribute('placeholder') || el.name || el.id || el.tagName.toLowerCase()).replace(/\s+/g, ' ').trim().slice(0, 80); };
  m.onInvalid = e => { const el = e.target;
    if (m.invalid.length < 10) m.invalid.push({name: label(el), type: String(el.type || el.tagName.toLowerCase()), message: String(el.validationMessage || '').slice(0, 300)}); };
  m.onSubmit = () => { m.submitted = true; };
  // What tries to send a form: a click on a submit button, Enter in a
  // field of one. (A page checking its fields itself fires invalid too.)
  m.onClick = e => { const b = e.target && e.target.closest && e.target.closest('button,input[type=submit],input[type=image]');
    if (b && b.form && (b.type === 'submit' || b.type === 'image')) m.attempt = true; };
  m.onKey = e => { if (e.key === 'Enter' && e.target && e.target.form) m.attempt = true; };
  // The frame the action's input landed in (its last key, click, value
  // set) or the page last scrolled in (a wheel's scroll comes frames after
  // the wheel event, and a virtual list draws its rows on the scroll): the
  // quiet counts its frames from there too (see quietJS).
  m.onInput = () => { m.inputF = m.frames; };
  m.inputs = ['keyup', 'pointerup', 'mouseup', 'click', 'input', 'change', 'scroll'];
  for (const type of m.inputs) document.addEventListener(type, m.onInput, true);
  document.addEventListener('invalid', m.onInvalid, true);
  document.addEventListener('submit', m.onSubmit, true);
  document.addEventListener('click', m.onClick, true);
  document.addEventListener('keydown', m.onKey, true);
  m.stop = () => { m.obs.disconnect(); cancelAnimationFrame(m.raf); m.wake = null;
    document.removeEventListener('invalid', m.onInvalid, true); document.removeEventListener('submit', m.onSubmit, true);
    document.removeEventListener('click', m.onClick, true); document.removeEventListener('keydown', m.onKey, true);
    for (const type of m.inputs) document.removeEventListener(type, m.onInput, true); };
  globalThis.__browserdWatch = m; return m.start; })()`

// quietJS resolves once the page is settled: %[5]d animation frames passed
// (and, for one, the tasks that frame queued ran: see TwoFrames and
// waitDOMQuiet's extra frame for a page that asked for the next)
// (or %[1]d ms and one frame; when frames do not run, %[1]d ms) since the last mutation and
// since the wait began — %[3]d ms from now at the earliest (the last
// timer the action started is due then) — and the animations the action
// started have ended (see animationsLeftJS), two frames before too; never
// after %[2]d ms. With %[4]d = 1 (nothing went to or came from the network
// since the action began, and no timer is waited for), the frames are
// counted from the frame the action's input landed in, when the watch saw
// it, rather than from the wait's start: what the input set off comes in
// the frames after it, and the frames that passed while browserd read the
// field back or asked the page for its timers count. Either way, an input
// or a scroll seen during the wait counts as a change does.
const quietJS = `new Promise(res => { const m = globalThis.__browserdWatch;
  if (!m) return res({});
  const quiet = %[1]d, most = %[2]d, t0 = performance.now();
  // from: the frame count and time the quiet is counted from — the
  // later of the last change and the wait's start (now, or when the
  // last timer or animation waited for is due: what it does comes with
  // it, so the frames are counted from there too).
  let until = t0 + %[3]d, fromF = -1, done = false, t = 0, hopF = -1;
  const need = %[5]d;
  const finish = () => { if (done) return; done = true; clearTimeout(cap); clearTimeout(t); m.stop(); if (globalThis.__browserdWatch === m) delete globalThis.__browserdWatch;
    const J = globalThis.__browserdJournal;
    res({changed: m.n > 0, invalid: m.attempt && !m.submitted ? m.invalid : [],
      journal: J ? {seq: J.seq, frames: J.frames, clean: J.clean()} : null}); };
  const cap = setTimeout(finish, most);
  const check = () => { if (done) return;
    const now = performance.now();
    clearTimeout(t);
    if (now < until) { t = setTimeout(check, until - now); return; }
    if (m.pend > 0 && now < m.pendUntil) { t = setTimeout(check, Math.min(quiet, m.pendUntil - now)); return; }
    if (fromF < 0) fromF = %[4]d === 1 && m.inputF >= 0 && until === t0 ? m.inputF : m.frames;
    const since = Math.max(until, m.last), base = Math.max(fromF, m.lastF, m.inputF);
    // The time alone ends the wait only once a frame passed since the
    // last change, while frames run (the page is visible): what the
    // change asked to do at the next frame (requestAnimationFrame, as
    // Alpine's x-show shows in) is part of it, and on a busy machine that
    // frame can come later than the quiet.
    if (m.frames - base >= need || (now - since >= quiet && (m.frames > base || document.visibilityState !== 'visible'))) {
      // One frame is enough only once the tasks that frame queued have
      // run too: an IntersectionObserver's callback comes as a task after
      // the frame's rendering, after this look's own.
      if (need < 2 && m.frames - base < 2 && hopF !== m.frames) { hopF = m.frames; t = setTimeout(check, 0); return; }
      const left = (` + animationsLeftFn + `)();
      if (left <= 0) return finish();
      until = now + left; fromF = -1;
    }
    t = setTimeout(check, Math.max(1, now < until ? until - now : quiet - (now - since))); };
  m.wake = check;
  if (!m.ticking) { m.ticking = true; m.raf = requestAnimationFrame(m.tick); }
  check(); })`

// Mark returns the current navigation state, for Settle, and starts
// watching the DOM for the action's reaction.
func (p *Page) Mark(ctx context.Context) Mark {
	p.mu.Lock()
	m := Mark{nav: p.navSeq, load: p.loadSeq, at: time.Now()}
	p.invalid, p.loaded, p.markLoad, p.settledJournal = nil, false, p.loadSeq, journalNow{}
	p.mu.Unlock()
	if p.Dialog() != nil {
		return m // the page's scripts are blocked: nothing to watch
	}
	wctx, cancel := context.WithTimeout(ctx, time.Second)
	m.watching = p.Run(wctx, watchJS, &m.pageAt) == nil
	cancel()
	return m
}

// MarkThen takes the mark (Mark) and runs fn on e (as CallOn) in the same
// round trip: the watch and the call are sent together, and the page runs
// them in that order, so what fn does (a focus, a caret placed) is seen as
// the action's. e must be in the tab's main frame; elsewhere, or when e
// was not resolved yet, it is Mark then CallOn.
func (p *Page) MarkThen(ctx context.Context, e Elem, fn string, out any, args ...any) (Mark, error) {
	s := p.SessionFor(e.Sess)
	obj, kept := "", false
	if s == p.sess && e.Frame == p.TargetID {
		obj, kept = p.keptObject(s, e)
	}
	id, inWorld := p.worldID(p.sess, p.TargetID)
	if !kept || !inWorld || p.Dialog() != nil {
		m := p.Mark(ctx)
		return m, p.CallOn(ctx, e, fn, out, args...)
	}
	p.mu.Lock()
	m := Mark{nav: p.navSeq, load: p.loadSeq, at: time.Now()}
	p.invalid, p.loaded, p.markLoad, p.settledJournal = nil, false, p.loadSeq, journalNow{}
	p.mu.Unlock()
	wctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	watch := p.sess.Send(wctx, "Runtime.evaluate", map[string]any{
		"expression": watchJS, "contextId": id, "returnByValue": true, "awaitPromise": true,
	})
	call := sendFunction(ctx, s, obj, fn, args...)
	var r evalResult
	m.watching = watch(&r) == nil && r.decode(&m.pageAt) == nil
	err := call(out)
	if goneObject(err) {
		p.forgetObject(s, e, obj)
		err = p.CallOn(ctx, e, fn, out, args...)
	}
	return m, err
}

// Settle waits for what an input action started: if a navigation began
// since m, for its load event; then for network quiet; then, when the
// document stayed, for the DOM to settle (see DOMQuiet) — the work given
// with WithMeanwhile running meanwhile. Without a watch on the page (a
// dialog blocks its scripts), a navigation is given a short grace to
// start instead.
func (p *Page) Settle(ctx context.Context, m Mark) error {
	started := func() bool { return p.navSeq > m.nav || p.loading }
	// Everything Chromium said before now is handled first, however busy
	// the machine.
	sctx, scancel := context.WithTimeout(ctx, time.Second)
	_ = p.Sync(sctx)
	scancel()
	watching := m.watching && p.Dialog() == nil
	if !watching {
		// Input events return once the renderer handled them, so a
		// navigation they start is already requested; the browser
		// reports it within ms. (The DOM watch below takes longer than
		// that, and looks again after.)
		grace, cancel := context.WithTimeout(ctx, 5*time.Millisecond)
		_ = p.waitUntil(grace, started)
		cancel()
	}
	p.mu.Lock()
	nav := started()
	p.mu.Unlock()
	if nav {
		if done, err := p.settleNav(ctx, m); done || err != nil {
			return err
		}
	}
	if !watching {
		return p.WaitQuiet(ctx)
	}
	if m.unheard && !nav && p.quietSince(m.at) {
		// Nothing of the page heard the action: its read is all there
		// is to wait for. The watch is stopped without waiting.
		timing.Mark(ctx, "unheard")
		if id, ok := p.worldID(p.sess, p.TargetID); ok {
			stop := p.sess.Send(ctx, "Runtime.evaluate", map[string]any{"expression": stopWatchJS, "contextId": id})
			defer func() { _ = stop(nil) }() // answered before what fn sent after it
		}
		if fn, ok := ctx.Value(meanwhileKey{}).(func(context.Context)); ok {
			fn(context.WithValue(ctx, unheardKey{}, true))
		}
		defer timing.Mark(ctx, "settled")
		return p.waitQuietFrom(ctx, m.at)
	}
	// From here on, a navigation that starts (a form the click sent)
	// ends the waiting — for requests, the DOM, timers — and the work done
	// meanwhile (WithMeanwhile): its load is what to wait for then.
	nctx, cut := context.WithCancel(ctx)
	defer cut()
	var wg sync.WaitGroup
	defer wg.Wait() // before cut: the work done meanwhile finishes
	wctx, stopWatching := context.WithCancel(nctx)
	defer stopWatching()
	var navCut atomic.Bool
	wg.Go(func() {
		if p.waitUntil(wctx, started) == nil {
			navCut.Store(true)
			cut()
		}
	})
	if err := p.waitQuietFrom(nctx, m.at); err != nil && !navCut.Load() {
		return err
	}
	if fn, ok := ctx.Value(meanwhileKey{}).(func(context.Context)); ok && !nav && !navCut.Load() {
		wg.Go(func() { fn(nctx) })
	}
	defer timing.Mark(ctx, "settled")
	p.waitDOMQuiet(ctx, nctx, m)
	stopWatching()
	// The reaction may have been a navigation (a script that submits
	// after a request, a redirect after a delay): wait for its load, so
	// the answer shows the new document, not a half-loaded one.
	p.mu.Lock()
	navigated := started()
	p.mu.Unlock()
	if navigated {
		if done, err := p.settleNav(ctx, m); done || err != nil {
			return err
		}
	}
	if left := DOMMax - time.Since(m.at); navCut.Load() && left > DOMQuiet && p.Dialog() == nil {
		// The navigation that ended the look left no new document (a
		// download, a 204): look again.
		p.forgetSettledJournal() // the page is looked at again below
		lctx, cancel := context.WithTimeout(ctx, left+time.Second)
		if p.Run(lctx, watchJS, nil) == nil {
			_ = p.Run(lctx, fmt.Sprintf(quietJS, DOMQuiet.Milliseconds(), left.Milliseconds(), 0, 0, 2), nil)
		}
		cancel()
	}
	// The reaction may have started requests of its own.
	return p.waitQuietFrom(ctx, m.at)
}

// waitDOMQuiet waits, within nctx (which a navigation cuts), until the
// page's DOM is quiet after the input m marked (quietJS), then for the
// short timers the action started and what they change (lateTimers),
// within DOMMax of the mark. ctx carries the action's timing marks.
func (p *Page) waitDOMQuiet(ctx, nctx context.Context, m Mark) {
	qctx, cancel := context.WithTimeout(nctx, DOMMax+time.Second)
	defer cancel()
	// An error here is the page navigating or a dialog opening: both are
	// reported by the caller from the tab's state.
	var r struct {
		Invalid []InvalidField `json:"invalid"`
		Journal *journalNow    `json:"journal"`
	}
	// Nothing went to or came from the network since the mark: the
	// quiet may count from the frame the input landed in.
	p.mu.Lock()
	fromInput := 0
	if p.lastNet.Before(m.at) {
		fromInput = 1
	}
	p.mu.Unlock()
	need := m.frames()
	if p.Run(qctx, fmt.Sprintf(quietJS, DOMQuiet.Milliseconds(), DOMMax.Milliseconds(), 0, fromInput, need), &r) == nil {
		timing.Mark(ctx, "quiet")
		p.mu.Lock()
		p.invalid = r.Invalid
		p.mu.Unlock()
		p.keepSettledJournal(r.Journal)
	}
	// A short timer the action started (a menu opening 300 ms after the
	// click, a debounced search, a fallback for a transition's end) is
	// waited for, and what it changes — and so is the timer that starts
	// in turn (a dialog's backdrop fading out after the dialog) — within
	// DOMMax. After a quiet of one frame, a page that asked for another
	// frame (a transition started a frame late, a frame loop) is given
	// it, once.
	extra := need < 2
	for left := DOMMax - time.Since(m.at); left > DOMQuiet && p.Dialog() == nil && qctx.Err() == nil; left = DOMMax - time.Since(m.at) {
		late, frames := p.lateTimers(qctx, m)
		late = min(late, left)
		frames = frames && extra
		if late <= 0 && !frames || p.Run(qctx, watchJS, nil) != nil {
			break
		}
		p.forgetSettledJournal() // the page is waited on again
		if frames {
			extra = false
			timing.Mark(ctx, "frame")
		} else {
			timing.Mark(ctx, "timers")
		}
		r.Journal = nil
		if p.Run(qctx, fmt.Sprintf(quietJS, DOMQuiet.Milliseconds(), left.Milliseconds(), late.Milliseconds(), 0, need), &r) == nil {
			p.keepSettledJournal(r.Journal)
		}
	}
}

// loadedKey is the context key of WithLoaded's work.
type loadedKey struct{}

// WithLoaded gives the wait after a new document's load event (for the
// requests, timers and frame the load set off: afterLoad) work to do
// meanwhile — reading the new page, whose answer then needs only to ask
// whether it changed since. The wait returns after fn does; fn gets the
// wait's context.
func WithLoaded(ctx context.Context, fn func(context.Context)) context.Context {
	return context.WithValue(ctx, loadedKey{}, fn)
}

// unheardKey marks the context Settle gives WithMeanwhile's work when the
// page heard nothing of the action (Mark.Unheard): see Unheard.
type unheardKey struct{}

// Unheard reports whether ctx is the one Settle gives the work done
// meanwhile (WithMeanwhile) after an action no script of the page could
// hear (Mark.Unheard): what that work reads of the page is the page as
// the action left it, and need not be asked again whether it changed.
func Unheard(ctx context.Context) bool {
	v, _ := ctx.Value(unheardKey{}).(bool)
	return v
}

// meanwhileKey is the context key of WithMeanwhile's work.
type meanwhileKey struct{}

// WithMeanwhile gives Settle work to do while it waits for the page's
// reaction to an input in the same document — reading the page, so that
// the answer is ready when the page is settled. Settle returns after fn
// does; fn gets Settle's context.
func WithMeanwhile(ctx context.Context, fn func(context.Context)) context.Context {
	return context.WithValue(ctx, meanwhileKey{}, fn)
}

// InvalidField is a form field the browser's own constraint checks
// (required, type=email, minlength, pattern, …) stopped a form at: its
// label as the page shows it, its type, and the browser's message. All
// three are page text.
type InvalidField struct {
	Name    string `json:"name"`
	Type    string `json:"type"`
	Message string `json:"message"`
}

// TakeInvalid returns (and forgets) the fields that stopped a form from
// being sent during the last action: the browser checked the form, found
// them wanting and sent nothing (it shows the reason in a bubble, outside
// the page). Empty when no form was stopped, or one was sent.
func (p *Page) TakeInvalid() []InvalidField {
	p.mu.Lock()
	defer p.mu.Unlock()
	f := p.invalid
	p.invalid = nil
	return f
}

// settleNav waits for a navigation that began since m: for the new
// document's load and network quiet (done), or — a request that never
// commits (a download, a 204) may leave no trace but the request itself —
// gives up on it after a second without a commit (not done).
func (p *Page) settleNav(ctx context.Context, m Mark) (done bool, err error) {
	uncommitted, cancel := context.WithTimeout(ctx, time.Second)
	err = p.waitUntil(uncommitted, func() bool { return p.navSeq > m.nav || !p.loading || p.crashed })
	cancel()
	if err != nil && ctx.Err() != nil {
		return true, err
	}
	p.mu.Lock()
	committed := p.navSeq > m.nav
	p.mu.Unlock()
	if !committed {
		return false, nil
	}
	timing.Mark(ctx, "navigated")
	if err := p.waitUntil(ctx, func() bool { return p.loadSeq > m.load || p.crashed }); err != nil {
		return true, err
	}
	timing.Mark(ctx, "loaded")
	p.mu.Lock()
	p.loaded = !p.crashed
	p.mu.Unlock()
	return true, p.afterLoad(ctx)
}

// stopWatchJS stops the action's DOM watch (watchJS) where no quiet is
// waited for (quietJS stops it otherwise).
const stopWatchJS = `{ const w = globalThis.__browserdWatch; if (w) { w.stop(); delete globalThis.__browserdWatch; } }`

// quietSince reports whether no request is in flight and none went or
// came since from.
func (p *Page) quietSince(from time.Time) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.inflight) == 0 && p.lastNet.Before(from)
}
