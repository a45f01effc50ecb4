package browser

import (
	"fmt"
	"testing"
	"time"
)

// TestOverdueTimerStillPending: a short timer the page started that is
// due but has not run yet — its thread was busy — is still pending, so
// Settle waits for what it does. lateJS runs in the same task as the busy
// loop, so the timer cannot have run in between.
func TestOverdueTimerStillPending(t *testing.T) {
	ctx, _, pg := startTestPage(t)
	if err := pg.Navigate(ctx, "data:text/html,<p>timers</p>"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		script string
		want   func(float64) bool
		what   string
	}{
		{"setTimeout(() => {}, 20); const t0 = performance.now(); while (performance.now() - t0 < 60) {}",
			func(v float64) bool { return v >= 1 }, "an overdue timer that has not run is pending (≥ 1 ms)"},
		{"setTimeout(() => {}, 500)",
			func(v float64) bool { return v > 400 && v <= 500 }, "a timer due in 500 ms is 400–500 ms away"},
		{"const id = setTimeout(() => {}, 20); clearTimeout(id)",
			func(v float64) bool { return v == 0 }, "a cleared timer is not pending"},
	} {
		var r struct {
			Result struct {
				Value float64 `json:"value"`
			} `json:"result"`
		}
		expr := fmt.Sprintf("(() => { %s; return %s; })()", c.script, fmt.Sprintf(lateJS, "performance.now() - 1000"))
		if err := pg.sess.Call(ctx, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true}, &r); err != nil {
			t.Fatal(err)
		}
		if !c.want(r.Result.Value) {
			t.Errorf("%s: lateJS gave %v", c.what, r.Result.Value)
		}
		// The timers of one case are gone before the next: they have run
		// (on a loaded machine a 500 ms timer may run well after 500 ms).
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			var n struct {
				Result struct {
					Value float64 `json:"value"`
				} `json:"result"`
			}
			if err := pg.sess.Call(ctx, "Runtime.evaluate", map[string]any{"expression": "window.__browserdTimers.size", "returnByValue": true}, &n); err != nil {
				t.Fatal(err)
			}
			if n.Result.Value == 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("after %q: %v timers still pending after 10 s", c.script, n.Result.Value)
			}
		}
	}
}

// TestLateTimersCountFromTheMark: the timers an action started are those
// the page started since its mark, by the page's clock — even when the
// question comes late because the page's thread was busy (three tabs of
// one site share it). Counted back from when the question ran, the
// window left out the timer, and a menu opening 250 ms after a click was
// missing from the click's answer.
func TestLateTimersCountFromTheMark(t *testing.T) {
	ctx, _, pg := startTestPage(t)
	if err := pg.Navigate(ctx, "data:text/html,<p>timers</p>"); err != nil {
		t.Fatal(err)
	}
	m := pg.Mark(ctx)
	if m.pageAt <= 0 {
		t.Fatalf("the mark has no page time: %+v", m)
	}
	// The action: a timer due in 600 ms; then the page's thread is busy
	// for 300 ms, so the question below waits for it.
	if err := pg.sess.Call(ctx, "Runtime.evaluate", map[string]any{"expression": `setTimeout(() => {}, 600);
	  setTimeout(() => { const t0 = performance.now(); while (performance.now() - t0 < 300) {} }, 0); 1`}, nil); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond)
	if late, _ := pg.lateTimers(ctx, m); late <= 0 {
		t.Errorf("the timer the action started was not found after the page's thread was busy: %v", late)
	}
}

// TestPendingFrames: the page's animation-frame callbacks yet to run are
// known to lateTimers (a page that asked for the next frame gets one more
// after the quiet); one that ran or was cancelled is not.
func TestPendingFrames(t *testing.T) {
	ctx, _, pg := startTestPage(t)
	if err := pg.Navigate(ctx, "data:text/html,<p>frames</p>"); err != nil {
		t.Fatal(err)
	}
	m := pg.Mark(ctx)
	for _, c := range []struct {
		script string
		want   bool
		what   string
	}{
		// A frame loop has a callback pending at every moment: a single
		// callback just asked for may have run by the time it is asked
		// about (a frame can come between two calls on a busy machine).
		{"window.loop = true; (function f() { if (window.loop) requestAnimationFrame(f); })()", true, "a frame loop's next callback is pending"},
		{"new Promise(r => { window.loop = false; requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 0))); })", false, "callbacks that ran are not"},
		{"cancelAnimationFrame(requestAnimationFrame(() => {}))", false, "a cancelled one is not"},
		{"window.loop = true; (function f() { if (window.loop) window.requestAnimationFrame.call(null, f); })()", true, "the wrapper takes any this"},
	} {
		var v any
		if err := pg.sess.Call(ctx, "Runtime.evaluate", map[string]any{"expression": c.script, "awaitPromise": true}, nil); err != nil {
			t.Fatal(err)
		}
		if _, frames := pg.lateTimers(ctx, m); frames != c.want {
			t.Errorf("%s: frames pending %v", c.what, frames)
		}
		// Whatever was asked runs before the next case, and a loop ends.
		_ = pg.sess.Call(ctx, "Runtime.evaluate", map[string]any{"expression": "new Promise(r => { window.loop = false; requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 0))); })", "awaitPromise": true}, &v)
		time.Sleep(50 * time.Millisecond)
	}
}

// TestKeysHeard: a document whose scripts added no key listener and set
// no key handler hears no key; one that did, by either way, does. And
// Hearing: one that listens to none of what else typing sets off (input,
// focus, the selection), observes no size and has no frame callback
// pending hears nothing of typing (Silent); any one of them is heard.
func TestKeysHeard(t *testing.T) {
	ctx, _, pg := startTestPage(t)
	for _, c := range []struct {
		script       string
		keys, silent bool
	}{
		{"", false, true},
		{"document.addEventListener('click', () => {})", false, true},
		{"document.addEventListener('keydown', () => {})", true, false},
		{"window.addEventListener('keyup', () => {}, true)", true, false},
		{"document.body.onkeypress = () => {}", true, false},
		{"document.onkeydown = () => {}", true, false},
		{"window.onkeyup = () => {}", true, false},
		// What else typing sets off: not keys, but heard.
		{"document.addEventListener('input', () => {})", false, false},
		{"document.getElementById('f').addEventListener('FocusIn', () => {})", false, false},
		{"document.addEventListener('selectionchange', () => {})", false, false},
		{"document.getElementById('f').onblur = () => {}", false, false},
		{"window.oninput = () => {}", false, false},
		{"new ResizeObserver(() => {}).observe(document.body)", false, false},
		{"(function loop() { requestAnimationFrame(loop); })()", false, false}, // a frame callback always pending
	} {
		if err := pg.Navigate(ctx, "data:text/html,<body><input id=f></body>"); err != nil {
			t.Fatal(err)
		}
		if c.script != "" {
			if _, err := pg.Eval(ctx, c.script); err != nil {
				t.Fatalf("%s: %v", c.script, err)
			}
		}
		if got := pg.KeysHeard(ctx); got != c.keys {
			t.Errorf("after %q: keys heard %v, want %v", c.script, got, c.keys)
		}
		if got := pg.Hearing(ctx).Silent(); got != c.silent {
			t.Errorf("after %q: silent %v, want %v (%+v)", c.script, got, c.silent, pg.Hearing(ctx))
		}
	}
}
