package act

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/browserd/browserd/internal/browser"
	"github.com/browserd/browserd/internal/chromium"
	"github.com/browserd/browserd/internal/snapshot"
	"github.com/browserd/browserd/internal/timing"
	"github.com/browserd/browserd/internal/tool"
)

// pages are what the tests act on, served on 127.0.0.1.
var pages = map[string]string{
	"/form": `<!doctype html><title>form</title>
<label>Name <input id=name></label>
<label>Code <input id=code maxlength=3></label><input id=code2>
<label>Day <input id=day type=date></label>
<label>Colour <select id=colour><option value=r>Red</option><option value=g>Green</option></select></label>
<label><input id=agree type=checkbox> Agree</label>
<button id=go onclick="document.getElementById('out').textContent = 'clicked ' + document.getElementById('name').value">Go</button>
<p id=out></p>`,
	"/covered": `<!doctype html><title>covered</title>
<button id=under>Under</button>
<div id=veil style="position:fixed;inset:0;background:rgba(0,0,0,.2)">veil</div>`,
	"/swap": `<!doctype html><title>swap</title>
<div id=box><button onclick="this.textContent='Done'">Save</button></div>
<button id=swap onclick="document.getElementById('box').innerHTML = '<button onclick=&quot;this.textContent=\'Done\'&quot;>Save</button>'">Swap</button>`,
	"/late": `<!doctype html><title>late</title>
<script>setTimeout(() => { const b = document.createElement('button'); b.textContent = 'Late'; b.onclick = () => b.textContent = 'Pressed'; document.body.append(b); }, 400)</script>`,
	"/long": `<!doctype html><title>long</title><div style="height:5000px">tall</div><p id=end>end</p>`,
	"/slider": `<!doctype html><title>slider</title>
<div id=knob style="position:absolute;left:100px;top:100px;width:40px;height:40px;background:#333"></div>
<script>const k = document.getElementById('knob'); let down = null;
k.onpointerdown = e => { down = [e.clientX - k.offsetLeft, e.clientY - k.offsetTop]; k.setPointerCapture(e.pointerId); };
k.onpointermove = e => { if (down) { k.style.left = (e.clientX - down[0]) + 'px'; k.style.top = (e.clientY - down[1]) + 'px'; } };
k.onpointerup = () => { down = null; };</script>`,
}

// mapRefs are refs a test hands out for elements it found by selector.
type mapRefs struct {
	els    map[string]browser.Elem
	labels map[string][2]string
	pg     *browser.Page
	next   int
}

func (r *mapRefs) Elem(ref string) (browser.Elem, error) {
	el, ok := r.els[ref]
	if !ok {
		return el, tool.Fail("unknown ref %q", ref)
	}
	return el, nil
}

func (r *mapRefs) LabelOf(ref string) (role, name string, unique bool) {
	l, ok := r.labels[ref]
	return l[0], l[1], ok
}

func (r *mapRefs) ShownOf(ref string) (role, name string) {
	role, name, _ = r.LabelOf(ref)
	return role, name
}

func (r *mapRefs) Assign(k snapshot.Key, role, name string, unique bool) string {
	r.next++
	ref := fmt.Sprintf("e%d", 100+r.next)
	r.els[ref] = browser.ElemOf(k)
	if role != "" {
		r.labels[ref] = [2]string{role, name}
	}
	return ref
}

func (r *mapRefs) Find(k snapshot.Key) (string, bool) {
	for ref, el := range r.els {
		if r.pg.KeyOf(el) == k {
			return ref, true
		}
	}
	return "", false
}

// ref gives the element selector finds a ref.
func (r *mapRefs) ref(t *testing.T, selector string) string {
	t.Helper()
	el, err := r.pg.Query(context.Background(), selector)
	if err != nil {
		t.Fatalf("query %s: %v", selector, err)
	}
	r.next++
	ref := fmt.Sprintf("e%d", r.next)
	r.els[ref] = el
	return ref
}

// bare is one tab of a fresh headless Chromium on the test pages: no
// engine, no session, no store.
type bare struct {
	pg   *browser.Page
	base string
}

func startBare(t *testing.T) *bare {
	t.Helper()
	if _, err := chromium.Find(""); err != nil {
		if _, lerr := exec.LookPath("chromium"); lerr != nil {
			t.Skipf("no Chromium: %v (make test installs it)", err)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := pages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(body))
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	ctx := context.Background()
	br, err := browser.Start(ctx, chromium.Options{UserDataDir: t.TempDir(), Width: 1280, Height: 720, Forget: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { br.Close(context.Background()) })
	pg, err := br.NewPage(ctx, "", browser.PageOptions{Width: 1280, Height: 720})
	if err != nil {
		t.Fatal(err)
	}
	return &bare{pg: pg, base: "http://" + ln.Addr().String()}
}

// open loads path and returns an action on it with fresh refs.
func (b *bare) open(t *testing.T, path string, in tool.Input) (*Tab, *mapRefs) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := b.pg.Navigate(ctx, b.base+path); err != nil {
		t.Fatalf("navigate %s: %v", path, err)
	}
	refs := &mapRefs{els: map[string]browser.Elem{}, labels: map[string][2]string{}, pg: b.pg}
	return &Tab{Page: b.pg, In: in, Res: &tool.Result{}, Refs: refs, Width: 1280, Height: 720, Wrap: true}, refs
}

func (b *bare) eval(t *testing.T, expr string) string {
	t.Helper()
	var s string
	if err := b.pg.Run(context.Background(), expr, &s); err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return s
}

func run(t *testing.T, tb *Tab, f func(*Tab, context.Context) error) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	return f(tb, ctx)
}

// TestOnABareTab: each page-level action works on a tab with nothing of
// the engine around it — a page, an input and refs.
func TestOnABareTab(t *testing.T) {
	g0 := runtime.NumGoroutine()
	// Cleanups run last first: this one after the browser and the server
	// closed, when nothing the test started may be left.
	t.Cleanup(func() {
		deadline := time.Now().Add(5 * time.Second)
		for runtime.NumGoroutine() > g0+2 && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		if n := runtime.NumGoroutine(); n > g0+2 {
			buf := make([]byte, 1<<16)
			t.Errorf("%d goroutines left (%d before):\n%s", n, g0, buf[:runtime.Stack(buf, true)])
		}
	})
	b := startBare(t)

	t.Run("type and click", func(t *testing.T) {
		tb, _ := b.open(t, "/form", tool.Input{Action: "type", Selector: "#name", Text: "Ada"})
		if err := run(t, tb, (*Tab).Type); err != nil {
			t.Fatal(err)
		}
		tb.In = tool.Input{Action: "click", Role: "button", Name: "Go"}
		if err := run(t, tb, (*Tab).Click); err != nil {
			t.Fatal(err)
		}
		if got := b.eval(t, "document.getElementById('out').textContent"); got != "clicked Ada" {
			t.Errorf("after type and click the page says %q", got)
		}
	})

	t.Run("keys only where a script hears them", func(t *testing.T) {
		// No key listener: the text goes in at once, as one input event.
		tb, _ := b.open(t, "/form", tool.Input{Action: "type", Selector: "#name", Text: "Ada Lovelace"})
		if _, err := tb.Page.Eval(context.Background(), "window.n = {input: 0}; window.f = document.getElementById('name'); f.addEventListener('input', () => n.input++); 1"); err != nil {
			t.Fatal(err)
		}
		if err := run(t, tb, (*Tab).Type); err != nil {
			t.Fatal(err)
		}
		if got, _ := tb.Page.Eval(context.Background(), "[f.value, n.input].join()"); got != `"Ada Lovelace,1"` {
			t.Errorf("typed where no script hears keys: %s, want the text in one input event", got)
		}
		// A listener of keys, added by a script or in an attribute on the
		// field's way up: a key a character.
		for _, add := range []string{"f.addEventListener('keydown', () => n.down++)", "f.parentElement.setAttribute('onkeydown', 'n.down++')"} {
			tb, _ = b.open(t, "/form", tool.Input{Action: "type", Selector: "#name", Text: "Ada"})
			if _, err := tb.Page.Eval(context.Background(), "window.n = {input: 0, down: 0}; window.f = document.getElementById('name'); f.addEventListener('input', () => n.input++); "+add+"; 1"); err != nil {
				t.Fatal(err)
			}
			if err := run(t, tb, (*Tab).Type); err != nil {
				t.Fatal(err)
			}
			if got, _ := tb.Page.Eval(context.Background(), "[f.value, n.input, n.down].join()"); got != `"Ada,3,3"` {
				t.Errorf("typed where %s: %s, want three keys", add, got)
			}
		}
	})

	t.Run("no frame waited for where nothing hears the typing", func(t *testing.T) {
		for _, c := range []struct {
			setup   string
			unheard bool
		}{
			{"", true},
			{"f.addEventListener('input', () => requestAnimationFrame(() => out.textContent = 'drawn ' + f.value))", false},
			{"f.setAttribute('onfocus', 'window.n = 1')", false},
			{"document.getElementById('code').setAttribute('onblur', 'window.n = 1'); document.getElementById('code').focus()", false},
			{"document.addEventListener('selectionchange', () => {})", false},
			{"new ResizeObserver(() => {}).observe(f)", false},
			{"(function loop() { requestAnimationFrame(loop); })()", false},
			{"f.animate([{opacity: 1}, {opacity: 0.5}], 5000)", false},
		} {
			tb, _ := b.open(t, "/form", tool.Input{Action: "type", Selector: "#name", Text: "Ada"})
			if _, err := tb.Page.Eval(context.Background(), "window.f = document.getElementById('name'); window.out = document.getElementById('out'); "+c.setup+"; 1"); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
			ctx, steps := timing.Start(ctx)
			err := tb.Type(ctx)
			cancel()
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(steps.String(), "unheard"); got != c.unheard {
				t.Errorf("after %q: unheard %v, want %v (steps: %s)", c.setup, got, c.unheard, steps)
			}
			if got, _ := tb.Page.Eval(context.Background(), "f.value"); got != `"Ada"` {
				t.Errorf("after %q: the field holds %s", c.setup, got)
			}
			// What a listener drew in the frame after the input is there
			// when type returns: heard, it was waited for.
			if strings.Contains(c.setup, "drawn") {
				if got, _ := tb.Page.Eval(context.Background(), "out.textContent"); got != `"drawn Ada"` {
					t.Errorf("the page's reaction in the next frame was not waited for: %s", got)
				}
			}
		}
	})

	t.Run("a picker's input and a short field", func(t *testing.T) {
		tb, _ := b.open(t, "/form", tool.Input{Action: "type", Selector: "#day", Text: "2026-11-27"})
		if err := run(t, tb, (*Tab).Type); err != nil {
			t.Fatal(err)
		}
		if got := b.eval(t, "document.getElementById('day').value"); got != "2026-11-27" {
			t.Errorf("date input holds %q", got)
		}
		tb.In = tool.Input{Action: "type", Selector: "#day", Text: "27/11/2026"}
		if err := run(t, tb, (*Tab).Type); err == nil || !strings.Contains(err.Error(), "YYYY-MM-DD") {
			t.Errorf("a date in the wrong format: %v, want the format named", err)
		}
		tb.In = tool.Input{Action: "type", Selector: "#code", Text: "123456"}
		if err := run(t, tb, (*Tab).Type); err != nil {
			t.Fatal(err)
		}
		if got := b.eval(t, "document.getElementById('code').value"); got != "123" {
			t.Errorf("a maxlength=3 field holds %q", got)
		}
	})

	t.Run("select and fill", func(t *testing.T) {
		tb, refs := b.open(t, "/form", tool.Input{Action: "select", Selector: "#colour", Value: "Green"})
		if err := run(t, tb, (*Tab).Select); err != nil {
			t.Fatal(err)
		}
		if got := b.eval(t, "document.getElementById('colour').value"); got != "g" {
			t.Errorf("select by label: value %q", got)
		}
		tb.In = tool.Input{Action: "select", Selector: "#colour", Value: "Blue"}
		if err := run(t, tb, (*Tab).Select); err == nil || !strings.Contains(err.Error(), "no option") {
			t.Errorf("an option that is not there: %v", err)
		}
		name, agree, colour := refs.ref(t, "#name"), refs.ref(t, "#agree"), refs.ref(t, "#colour")
		tb.In = tool.Input{Action: "fill", Fields: []tool.Field{{Ref: name, Value: "Grace"}, {Ref: agree, Value: "true"}, {Ref: colour, Value: "r"}}}
		if err := run(t, tb, (*Tab).Fill); err != nil {
			t.Fatal(err)
		}
		got := b.eval(t, "[document.getElementById('name').value, String(agree.checked), colour.value].join(',')")
		if got != "Grace,true,r" {
			t.Errorf("after fill the form holds %q", got)
		}
		tb.In = tool.Input{Action: "fill", Fields: []tool.Field{{Ref: agree, Value: "maybe"}}}
		err := run(t, tb, (*Tab).Fill)
		if err == nil || !strings.Contains(err.Error(), "fields[0]") || !strings.Contains(err.Error(), "true or false") {
			t.Errorf("a checkbox given %q: %v", "maybe", err)
		}
	})

	t.Run("covered", func(t *testing.T) {
		tb, refs := b.open(t, "/covered", tool.Input{Action: "click"})
		tb.In.Ref = refs.ref(t, "#under")
		err := run(t, tb, (*Tab).Click)
		if err == nil {
			t.Fatal("a click on a covered button worked")
		}
		msg, ok := tb.Explain(err)
		if !ok || !strings.Contains(msg, "is covered by another element (e") || !strings.Contains(msg, "click or close it first") {
			t.Errorf("explained as %q (%v)", msg, ok)
		}
	})

	t.Run("a ref the page replaced", func(t *testing.T) {
		tb, refs := b.open(t, "/swap", tool.Input{Action: "click"})
		save := refs.ref(t, "#box button")
		refs.labels[save] = [2]string{"button", "Save"}
		tb.In = tool.Input{Action: "click", Selector: "#swap"}
		if err := run(t, tb, (*Tab).Click); err != nil {
			t.Fatal(err)
		}
		tb.In = tool.Input{Action: "click", Ref: save}
		if err := run(t, tb, (*Tab).Click); err != nil {
			t.Fatal(err)
		}
		if got := b.eval(t, "document.querySelector('#box button').textContent"); got != "Done" {
			t.Errorf("the stand-in says %q", got)
		}
		if tb.In.Ref == save || !strings.Contains(strings.Join(tb.Res.Notes, "\n"), "was replaced by the page") {
			t.Errorf("ref now %s, notes %q: the replacement is not told", tb.In.Ref, tb.Res.Notes)
		}
	})

	t.Run("waits for a late target", func(t *testing.T) {
		tb, _ := b.open(t, "/late", tool.Input{Action: "click", Role: "button", Name: "Late"})
		if err := run(t, tb, (*Tab).Click); err != nil {
			t.Fatal(err)
		}
		if got := b.eval(t, "document.querySelector('button').textContent"); got != "Pressed" {
			t.Errorf("the late button says %q", got)
		}
		tb.In = tool.Input{Action: "click", Role: "button", Name: "Never", Timeout: 300}
		if err := run(t, tb, (*Tab).Click); err == nil || !strings.Contains(err.Error(), "no element with role") {
			t.Errorf("a button that never comes: %v", err)
		}
	})

	t.Run("scroll, extract and wait", func(t *testing.T) {
		tb, _ := b.open(t, "/long", tool.Input{Action: "scroll", Direction: "bottom"})
		if err := run(t, tb, (*Tab).Scroll); err != nil {
			t.Fatal(err)
		}
		var y float64
		if err := b.pg.Run(context.Background(), "scrollY", &y); err != nil || y < 4000 {
			t.Errorf("scrolled to the bottom: scrollY %v (%v)", y, err)
		}
		tb.In = tool.Input{Action: "extract", Selector: "#end"}
		if err := run(t, tb, (*Tab).Extract); err != nil || tb.Res.Content != "end" {
			t.Errorf("extract: %q (%v)", tb.Res.Content, err)
		}
		tb.In = tool.Input{Action: "wait", TextGone: "tall"}
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		if err := tb.Wait(ctx); err == nil || !strings.Contains(err.Error(), `timed out waiting for text "tall" to disappear`) {
			t.Errorf("wait for text that stays: %v", err)
		}
	})

	t.Run("drag by an offset", func(t *testing.T) {
		tb, _ := b.open(t, "/slider", tool.Input{Action: "drag", Selector: "#knob", To: "+200,+50"})
		if err := run(t, tb, (*Tab).Drag); err != nil {
			t.Fatal(err)
		}
		if got := b.eval(t, "[knob.style.left, knob.style.top].join(',')"); got != "300px,150px" {
			t.Errorf("the knob stands at %q, want 300px,150px", got)
		}
		tb.In = tool.Input{Action: "drag", Selector: "#knob", To: "+5000,+0"}
		if err := run(t, tb, (*Tab).Drag); err == nil || !strings.Contains(err.Error(), "outside the viewport") {
			t.Errorf("a drag off the screen: %v", err)
		}
	})

}

// TestAwaitTargetTimesOutInALook: the call's time running out during a
// look for the target is "not found in time", not the look's own error
// (a raw "Runtime.evaluate: context deadline exceeded" reached an agent).
func TestAwaitTargetTimesOutInALook(t *testing.T) {
	c := &Tab{In: tool.Input{Timeout: 50}}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	waited, err := c.awaitTarget(ctx, func() (bool, error) {
		<-ctx.Done()
		return false, fmt.Errorf("Runtime.evaluate: %w", ctx.Err())
	})
	if err != nil {
		t.Fatalf("awaitTarget = %v, want no error (not found in time)", err)
	}
	if waited <= 0 {
		t.Errorf("waited %v", waited)
	}
	// Another error is the look's to report.
	_, err = c.awaitTarget(context.Background(), func() (bool, error) { return false, fmt.Errorf("bad selector") })
	if err == nil || err.Error() != "bad selector" {
		t.Errorf("awaitTarget = %v, want the look's error", err)
	}
}
