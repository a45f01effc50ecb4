package browser

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
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
