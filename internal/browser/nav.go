package browser

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/browserd/browserd/internal/timing"
	"github.com/browserd/browserd/internal/untrusted"
)

// QuietWindow is how long the network must be idle after the load event
// before a navigation counts as settled, and QuietMax caps that wait.
var (
	QuietWindow = 50 * time.Millisecond
	QuietMax    = 1500 * time.Millisecond
)

// NavError is a navigation Chromium refused or could not complete.
type NavError struct {
	URL  untrusted.Text // the agent's, or the page's (a reload, a lazy tab)
	Text string         // net::ERR_… from Chromium
}

func (e *NavError) Error() string { return "navigation failed: " + e.Text }

// ErrNoAnswer is wrapped, with ctx's error, in the error of a navigation
// whose new document had not arrived when ctx ended: the site (or the way
// to it) has not answered. The navigation is stopped, so the tab keeps its
// previous page and answers again (Chromium holds DevTools commands to a
// page while a navigation away from it is pending).
var ErrNoAnswer = errors.New("the site has not answered")

// noAnswer stops the navigation that ran out of time, and wraps err in
// ErrNoAnswer.
func (p *Page) noAnswer(ctx context.Context, err error) error {
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
	defer cancel()
	_ = p.sess.Call(sctx, "Page.stopLoading", nil, nil)
	return fmt.Errorf("%w: %w", ErrNoAnswer, err)
}

// Navigate loads url in the tab and waits for the load event and a short
// network-quiet window. A dialog that opens meanwhile ends the wait (the
// caller's ctx should come from ActionContext). A page stuck in a script is
// stopped first (see unfreeze).
func (p *Page) Navigate(ctx context.Context, url string) error {
	defer timing.Mark(ctx, "quiet")
	return p.navigate(ctx, url, false)
}

// NavigateReady loads url like Navigate in a new tab, but returns as soon
// as the new document is ready (DOMContentLoaded: parsed, its deferred scripts run),
// not once it and all it asks for have loaded and the network has been
// quiet: a new tab's answer comes sooner. The rest of the load is the
// next action's to wait for (AwaitRest); Loading says whether it is
// still going.
func (p *Page) NavigateReady(ctx context.Context, url string) error {
	return p.navigate(ctx, url, true)
}

// navigate is Navigate, or NavigateReady when ready.
func (p *Page) navigate(ctx context.Context, url string, ready bool) error {
	if !ready {
		// A new tab (NavigateReady) has run no script that could hold
		// it; the probe costs a fresh renderer 30-40 ms.
		p.unfreeze(ctx)
	}
	p.mu.Lock()
	seq, dcl := p.loadSeq, p.readySeq
	nav := p.navSeq
	p.recovered() // navigating is how a crashed tab comes back
	p.mu.Unlock()
	var r struct {
		FrameID   string `json:"frameId"`
		LoaderID  string `json:"loaderId"`
		ErrorText string `json:"errorText"`
	}
	// Chromium answers Page.navigate once the server answered (or the
	// request failed): a timeout here or before the commit is the site's.
	if err := p.sess.Call(ctx, "Page.navigate", map[string]any{"url": url}, &r); err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return p.noAnswer(ctx, err)
		}
		return err
	}
	if r.ErrorText != "" {
		return &NavError{URL: untrusted.Page(url), Text: r.ErrorText}
	}
	if r.LoaderID == "" { // same-document navigation
		return nil
	}
	timing.Mark(ctx, "responded")
	// The load that counts is the new document's: one that fires after
	// the new document committed, not a late load of the old one.
	committed := func() bool { return p.navSeq > nav || p.crashed }
	if ready {
		committed = func() bool {
			return p.crashed || p.navSeq > nav && (p.readySeq > max(dcl, p.commitReady) || p.loadSeq > max(seq, p.commitLoad))
		}
	}
	if err := p.waitUntil(ctx, committed); err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return p.noAnswer(ctx, err)
		}
		return err
	}
	p.mu.Lock()
	seq = max(seq, p.commitLoad)
	if ready {
		p.rest = seq + 1
	}
	p.mu.Unlock()
	if !ready {
		return p.settle(ctx, seq)
	}
	if p.Crashed() {
		return ErrCrashed
	}
	timing.Mark(ctx, "ready")
	return nil
}

// Loading reports whether the tab's document is still loading.
func (p *Page) Loading() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.loading
}

// AwaitRest waits for what a NavigateReady left to load — the load event
// and network quiet, as Navigate waits for them — before an action
// works on the page; it returns at once when there is nothing left.
func (p *Page) AwaitRest(ctx context.Context) error {
	p.mu.Lock()
	seq := p.rest - 1
	p.rest = 0
	p.mu.Unlock()
	if seq < 0 {
		return nil
	}
	return p.settle(ctx, seq)
}

// FreezeProbe is how long a page's main thread may take to answer a
// trivial evaluation before Responsive counts it as stuck in a script.
var FreezeProbe = time.Second

// Responsive reports whether the page's main thread answers a trivial
// evaluation within FreezeProbe; a page stuck in a script (an endless
// loop) does not. A crashed tab, one blocked by a dialog, one whose next
// document is still on its way (Chromium holds the probe until it
// commits), and a probe that fails for any other reason than its time
// count as responsive: what blocks them is not a script.
func (p *Page) Responsive(ctx context.Context) bool {
	pctx, cancel := context.WithTimeout(ctx, FreezeProbe)
	defer cancel()
	_ = p.Sync(pctx) // the tab's state as Chromium last reported it
	p.mu.Lock()
	blocked := p.crashed || p.dialog != nil || p.navPending
	p.mu.Unlock()
	if blocked || p.Closed() {
		return true
	}
	err := p.sess.Call(pctx, "Runtime.evaluate", map[string]any{"expression": "0", "returnByValue": true}, nil)
	return err == nil || ctx.Err() != nil || !errors.Is(err, context.DeadlineExceeded)
}

// unfreeze stops the script of a page that does not respond (see
// Responsive), so that a new document can load: Chromium commits a
// same-site navigation in the busy renderer, and would wait for the script
// forever. Navigate, Reload and History call it first; the page is left
// anyway, so nothing of it is lost that the navigation would have kept.
func (p *Page) unfreeze(ctx context.Context) {
	if p.Responsive(ctx) {
		return
	}
	tctx, cancel := context.WithTimeout(ctx, FreezeProbe)
	_ = p.sess.Call(tctx, "Runtime.terminateExecution", nil, nil)
	cancel()
	if p.Responsive(ctx) {
		return
	}
	// Still stuck, and not in a script: a synchronous request that is not
	// answered, a loop of microtasks. Only a new renderer helps.
	p.crashToLeave(ctx)
}

// crashHeard bounds how long crashToLeave waits to hear of the crash it
// asked for: on a loaded machine the event comes seconds late.
const crashHeard = 10 * time.Second

// crashToLeave crashes the tab's renderer (Page.crash runs on the
// renderer's IO thread, which a busy main thread does not hold) so that
// the navigation that leaves the page starts another; the action that
// asked goes on. A dialog the renderer had open is gone with it.
//
// It returns once the crash is heard (or after crashHeard): a crash heard
// later, while the navigation that follows is under way, would end that
// navigation as the tab's crash. Page.crash itself is never answered —
// its renderer is gone — so it is sent, not waited for.
func (p *Page) crashToLeave(ctx context.Context) {
	p.mu.Lock()
	p.crashing = true
	p.mu.Unlock()
	sctx, stop := context.WithCancel(ctx)
	wait := p.sess.Send(sctx, "Page.crash", nil)
	tctx, cancel := context.WithTimeout(ctx, crashHeard)
	_ = p.waitUntil(tctx, func() bool { return p.crashed })
	cancel()
	stop()
	_ = wait(nil) // ended by stop: there is no answer to wait for
	p.mu.Lock()
	if p.crashed && p.dialog != nil {
		p.dialog = nil
		p.dialogsShut++
		p.dialogCtx, p.dialogEnd = context.WithCancelCause(context.Background())
		p.notify()
	}
	p.mu.Unlock()
}

// leaveTries is how many dialogs LeaveDialogs dismisses before it crashes
// the page that keeps opening them.
const leaveTries = 3

// LeaveDialogs dismisses the dialogs that block the page, for a
// navigation away from it (navigate, reload, back, forward, tab_close):
// a page that opens one after another (`for(;;) alert(1)`) would trap the
// tab, every action answering that a dialog is open. Its script cannot be
// stopped (Runtime.terminateExecution waits behind the dialog's loop and is
// never answered), so a page still opening dialogs after leaveTries is
// crashed (crashToLeave) and the navigation brings the tab back. It
// returns how many dialogs were dismissed.
func (p *Page) LeaveDialogs(ctx context.Context) (int, error) {
	n := 0
	for p.Dialog() != nil {
		if n == leaveTries {
			p.crashToLeave(ctx)
			return n, nil
		}
		if err := p.HandleDialog(ctx, false, ""); err != nil {
			return n, fmt.Errorf("dismissing the dialog: %w", err)
		}
		n++
		if err := p.AfterDialog(ctx); err != nil {
			return n, err
		}
	}
	return n, nil
}

// WaitLoad waits for the tab's next page load — the one in progress, or
// else the next navigation's, whoever starts it (a click, a script, a
// redirect) — and then for network quiet.
//
// A load that the last input action started counts, whether its answer
// already waited for it (a click whose page navigates 800 ms later) or it
// ended after the answer: the agent that clicked, then waits for the load,
// gets the page at once. Each load counts for one WaitLoad.
func (p *Page) WaitLoad(ctx context.Context) error {
	p.mu.Lock()
	seq, loaded := p.loadSeq, p.loaded || p.loadSeq > p.markLoad && !p.loading
	p.loaded, p.markLoad = false, p.loadSeq
	p.mu.Unlock()
	if loaded {
		return p.WaitQuiet(ctx)
	}
	err := p.settle(ctx, seq)
	// The load waited for is taken: the next WaitLoad waits for another.
	p.mu.Lock()
	p.markLoad = max(p.markLoad, p.loadSeq)
	p.mu.Unlock()
	return err
}

// settle waits until a load event newer than seq, then for network quiet.
func (p *Page) settle(ctx context.Context, seq int) error {
	err := p.waitUntil(ctx, func() bool { return p.loadSeq > seq || p.crashed })
	if err != nil {
		return err
	}
	timing.Mark(ctx, "loaded")
	if p.Crashed() {
		return ErrCrashed
	}
	return p.afterLoad(ctx)
}

// frameJS resolves after the page's next animation frame and the task
// after it (50 ms at most: frames may not run), so that work the page
// scheduled for them has run. It runs in browserd's isolated world, where
// the page cannot rewrite requestAnimationFrame or setTimeout to hold it.
const frameJS = `new Promise(r => { requestAnimationFrame(() => setTimeout(r, 0)); setTimeout(r, 50); })`

// afterLoad waits, after a load event, for what the load may still set
// off: a request in flight, or the callback of one that ended lately, may
// start others (WaitQuiet waits for the network to be quiet for
// QuietWindow), and so may a short timer. When no request but the
// document's own ran lately — its end, which Chromium reports with the
// load, sets nothing off — the window is not waited out: the page is
// asked instead, after a frame, which short timers it has pending, and
// those due within the window are waited for (what they start then is
// waited for as any request). A timer due later is left to WaitQuiet, as
// before.
func (p *Page) afterLoad(ctx context.Context) error {
	if fn, ok := ctx.Value(loadedKey{}).(func(context.Context)); ok {
		// The page is read while what its load set off is waited for.
		var wg sync.WaitGroup
		wg.Go(func() { fn(ctx) })
		defer wg.Wait()
	}
	idle := func() bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		return len(p.inflight) == 0 && time.Since(p.lastSubNet) >= QuietWindow
	}
	start := time.Now()
	end := start.Add(QuietWindow)
	for {
		if !idle() {
			return p.WaitQuiet(ctx)
		}
		fctx, cancel := context.WithTimeout(ctx, 250*time.Millisecond)
		left, err := time.Duration(0), p.Run(fctx, frameJS, nil)
		if err == nil {
			left, err = p.timersLeft(fctx)
		}
		// The events Chromium sent before the answers (a request the
		// page started meanwhile) are handled before idle looks.
		if err == nil {
			target := p.events.Pushed()
			err = p.waitUntil(fctx, func() bool { return p.handled >= target })
		}
		cancel()
		// A timer that is due but has not run (its thread is busy) is
		// waited for however late it runs, up to DOMMax.
		overdue := left <= time.Millisecond && time.Since(start) < DOMMax
		switch {
		case err != nil || time.Now().Add(left).After(end) && !overdue:
			return p.WaitQuiet(ctx)
		case left == 0:
			if !idle() {
				return p.WaitQuiet(ctx)
			}
			return nil
		}
		t := time.NewTimer(left)
		select {
		case <-ctx.Done():
			t.Stop()
			return context.Cause(ctx)
		case <-t.C:
		}
	}
}

// timersLeft asks the page's main world (lateJS) how long until the last
// short timer of its document that has yet to run is due: 0 when none is
// pending, at least 1 ms while one is (even overdue).
func (p *Page) timersLeft(ctx context.Context) (time.Duration, error) {
	var r struct {
		Result struct {
			Value float64 `json:"value"`
		} `json:"result"`
	}
	if err := p.sess.Call(ctx, "Runtime.evaluate", map[string]any{
		"expression": fmt.Sprintf(lateJS, "0"), "returnByValue": true,
	}, &r); err != nil {
		return 0, err
	}
	if math.IsNaN(r.Result.Value) || r.Result.Value < 0 {
		return 0, errors.New("the page's timers cannot be read")
	}
	return time.Duration(math.Ceil(r.Result.Value)) * time.Millisecond, nil
}

// WaitQuiet waits until no request has been in flight for QuietWindow, at
// most QuietMax. It never fails for a busy page: long-polling pages exist.
func (p *Page) WaitQuiet(ctx context.Context) error {
	return p.waitQuietFrom(ctx, time.Time{})
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

// waitQuietFrom is WaitQuiet for what an input action marked at from set
// off: a request that ended before from was not the action's, and its
// window is not waited out — the page the action found was quiet then
// (a navigation's answer does not wait out its document's own window,
// afterLoad). A request still in flight is waited for, whenever it
// started.
func (p *Page) waitQuietFrom(ctx context.Context, from time.Time) error {
	deadline := time.Now().Add(QuietMax)
	for {
		p.mu.Lock()
		busy := len(p.inflight) > 0
		before := p.lastNet.Before(from)
		since := time.Since(p.lastNet)
		ch := p.changed
		p.mu.Unlock()
		if time.Now().After(deadline) {
			return nil
		}
		wait := time.Until(deadline)
		if !busy {
			if since >= QuietWindow || before {
				return nil
			}
			wait = min(wait, QuietWindow-since)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return context.Cause(ctx)
		case <-ch:
		case <-t.C:
		}
		t.Stop()
	}
}

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
    res({changed: m.n > 0, invalid: m.attempt && !m.submitted ? m.invalid : []}); };
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
	p.invalid, p.loaded, p.markLoad = nil, false, p.loadSeq
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
	p.invalid, p.loaded, p.markLoad = nil, false, p.loadSeq
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
		if frames {
			extra = false
			timing.Mark(ctx, "frame")
		} else {
			timing.Mark(ctx, "timers")
		}
		_ = p.Run(qctx, fmt.Sprintf(quietJS, DOMQuiet.Milliseconds(), left.Milliseconds(), late.Milliseconds(), 0, need), nil)
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

// Reload reloads the tab and waits like Navigate.
func (p *Page) Reload(ctx context.Context) error {
	p.unfreeze(ctx)
	p.mu.Lock()
	seq := p.loadSeq
	p.recovered() // a reload is how a crashed tab comes back, as a navigation is
	p.mu.Unlock()
	if err := p.sess.Call(ctx, "Page.reload", map[string]any{}, nil); err != nil {
		return err
	}
	if err := p.settle(ctx, seq); err != nil {
		return err
	}
	return p.errorPage()
}

// errorPage is a NavError when the tab shows Chromium's own error page —
// the load it just made failed (offline, refused, a name that does not
// resolve) — as a navigation's failure is; nil otherwise.
func (p *Page) errorPage() error {
	if !strings.HasPrefix(p.URL().Unwrap(), "chrome-error:") {
		return nil
	}
	text := "net::ERR_FAILED"
	reqs, _ := p.NetLog()
	// The load's own failure; an aborted one is the error page taking
	// its place, named only when nothing else is.
	for i := len(reqs) - 1; i >= 0; i-- {
		if f := reqs[i].Failed; reqs[i].Type == "Document" && f != "" && (text == "net::ERR_FAILED" || text == "net::ERR_ABORTED") {
			text = f
		}
	}
	return &NavError{URL: p.URL(), Text: text}
}

// ErrNoHistory is returned by History when there is no entry to go to.
var ErrNoHistory = errors.New("no history entry in that direction")

// History goes delta entries back (-1) or forward (+1).
func (p *Page) History(ctx context.Context, delta int) error {
	var h struct {
		CurrentIndex int `json:"currentIndex"`
		Entries      []struct {
			ID  int64  `json:"id"`
			URL string `json:"url"`
		} `json:"entries"`
	}
	if err := p.sess.Call(ctx, "Page.getNavigationHistory", nil, &h); err != nil {
		return err
	}
	i := h.CurrentIndex + delta
	if i < 0 || i >= len(h.Entries) {
		return ErrNoHistory
	}
	p.unfreeze(ctx)
	p.mu.Lock()
	seq, nav, same := p.loadSeq, p.navSeq, p.sameDocSeq
	p.recovered()
	p.mu.Unlock()
	if err := p.sess.Call(ctx, "Page.navigateToHistoryEntry", map[string]any{"entryId": h.Entries[i].ID}, nil); err != nil {
		return err
	}
	// The step shows what kind it is by what Chromium reports first: a
	// same-document step (a hash route, pushState) by
	// navigatedWithinDocument and no load event; a step to another
	// document by its commit and then its load event — or, restored from
	// the back/forward cache, by a commit that is its load (see handle).
	// Never wait for an event the kind does not send.
	committed := func() bool { return p.navSeq > nav || p.sameDocSeq > same || p.crashed }
	first, cancel := context.WithTimeout(ctx, time.Second)
	_ = p.waitUntil(first, func() bool { return committed() || p.loading })
	cancel()
	p.mu.Lock()
	loading := p.loading && !committed()
	p.mu.Unlock()
	if loading {
		// A slow server: the request is out, the commit will come (or the
		// load stops without one).
		if err := p.waitUntil(ctx, func() bool { return committed() || !p.loading }); err != nil {
			return err
		}
	}
	p.mu.Lock()
	crossDoc := p.navSeq > nav
	if p.commitLoad > seq {
		seq = p.commitLoad
	}
	p.mu.Unlock()
	if !crossDoc {
		return p.WaitQuiet(ctx)
	}
	return p.settle(ctx, seq)
}

// URL is the main frame's last committed URL. The page may have chosen
// it (history.pushState): it is page text.
func (p *Page) URL() untrusted.Text {
	p.mu.Lock()
	defer p.mu.Unlock()
	return untrusted.Page(p.url)
}
