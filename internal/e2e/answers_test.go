//go:build linux

package e2e

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/browserd/browserd/internal/engine"
	"github.com/browserd/browserd/internal/tool"
)

// TestAnswersCarryChanges: after an action that loads no new document the
// answer is what changed since the snapshot the agent last saw — on the
// 1,000-row table, the one row and the status line, not the table — or one
// line when nothing changed; the diff agrees with the whole page taken
// after it; refs stay stable; full: true gives the whole page.
func TestAnswersCarryChanges(t *testing.T) {
	cfg := testConfig(t)
	e, _ := newEngine(t, cfg)
	d := &engineDriver{e: e, data: cfg.Data}
	const task = "diff"
	r := nav(t, d, task, site.URL("/table"))
	// Rows 1–20 and 996–1000 (the others are summarised on one line).
	edits := refs(r.Content, "button", "Edit")
	if len(edits) != 25 {
		t.Fatalf("%d Edit refs, want 25", len(edits))
	}
	last := edits[len(edits)-1]
	r = ok(t, d, tool.Input{Action: "click", Task: task, Ref: last})
	body := text(r)
	if !strings.HasPrefix(body, engine.DiffHeader) {
		t.Fatalf("the click's answer is not a diff:\n%.2000s", body)
	}
	contains(t, body, "~ ")
	contains(t, body, "1000 | User 1000 | user1000@example.com | editing")
	contains(t, body, "Editing user 1000")
	if strings.Contains(body, "User 500 ") || len(r.Content) > 2048 {
		t.Fatalf("the answer holds more than the change (%d bytes):\n%.3000s", len(r.Content), body)
	}
	// The diff agrees with the whole page.
	full := text(ok(t, d, tool.Input{Action: "snapshot", Task: task}))
	// (The answer leaves out that the clicked button has the focus.)
	unfocus := strings.NewReplacer(", focused", "")
	lines := map[string]bool{}
	for _, l := range strings.Split(full, "\n") {
		lines[unfocus.Replace(strings.TrimLeft(l, " "))] = true
	}
	for _, l := range strings.Split(body, "\n")[1:] {
		in := func() bool { return lines[unfocus.Replace(strings.TrimLeft(l[2:], " "))] }
		switch {
		case strings.HasPrefix(l, "+ ") && !in():
			t.Errorf("added line %q is not in the whole page", l)
		case strings.HasPrefix(l, "~ ") && !in():
			t.Errorf("changed line %q is not in the whole page", l)
		case strings.HasPrefix(l, "- ") && in():
			t.Errorf("removed line %q is still in the whole page", l)
		case strings.HasPrefix(l, "  ") && !in():
			t.Errorf("kept line %q is not in the whole page", l)
		}
	}
	// The same ref again: it still names the button; nothing changes.
	r = ok(t, d, tool.Input{Action: "click", Task: task, Ref: last})
	contains(t, text(r), engine.NoChanges)
	// full: the whole page.
	r = ok(t, d, tool.Input{Action: "click", Task: task, Ref: edits[0], Full: true})
	if n := strings.Count(r.Content, `button "Edit"`); n != 25 || !strings.Contains(r.Content, "… 975 more rows (21–995 of 1000)") {
		t.Fatalf("full answer has %d Edit buttons, want 25 and a line for the 975 others", n)
	}
	// snapshot: false: nothing; the next answer is the change since the
	// last snapshot the agent saw.
	no := false
	r = ok(t, d, tool.Input{Action: "click", Task: task, Ref: edits[1], Snapshot: &no})
	if strings.Contains(r.Content, "ref=") {
		t.Fatalf("snapshot: false still answered with the page:\n%.500s", r.Content)
	}
	r = ok(t, d, tool.Input{Action: "click", Task: task, Ref: edits[2]})
	contains(t, text(r), "2 | User 2 | user2@example.com | editing")
	contains(t, text(r), "3 | User 3 | user3@example.com | editing")
}

// TestBackgroundTabsLive: ten tabs of one task keep running their timers
// and animation frames while another tab is the active one.
func TestBackgroundTabsLive(t *testing.T) {
	cfg := testConfig(t)
	e, _ := newEngine(t, cfg)
	d := &engineDriver{e: e, data: cfg.Data}
	const task = "tabs"
	var tabs []string
	for range 10 {
		r := ok(t, d, tool.Input{Action: "tab_new", Task: task, URL: site.URL("/ticker"), Snapshot: new(bool)})
		tabs = append(tabs, r.Tab)
	}
	ids := map[string]bool{}
	for _, id := range tabs {
		if id == "" || ids[id] {
			t.Fatalf("tab ids not distinct: %v", tabs)
		}
		ids[id] = true
	}
	ok(t, d, tool.Input{Action: "tab_switch", Task: task, Tab: tabs[0], Snapshot: new(bool)})
	read := func() [][2]float64 {
		out := make([][2]float64, len(tabs))
		for i, id := range tabs {
			r := ok(t, d, tool.Input{Action: "evaluate", Task: task, Tab: id, Expression: "[window.frames_, window.ticks]"})
			var a, b float64
			if _, err := fmt.Sscanf(text(r), "[%g,%g]", &a, &b); err != nil {
				t.Fatalf("tab %s: %q: %v", id, text(r), err)
			}
			out[i] = [2]float64{a, b}
		}
		return out
	}
	before := read()
	time.Sleep(1500 * time.Millisecond)
	after := read()
	for i, id := range tabs {
		if df, dt := after[i][0]-before[i][0], after[i][1]-before[i][1]; df < 5 || dt < 5 {
			t.Errorf("tab %s (active: %v) ran %g animation frames and %g interval runs in 1.5 s", id, i == 0, df, dt)
		}
	}
}

// lockedBuffer is a log sink several goroutines write to.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestPatchedAnswers: after an in-page action the answer is built from the
// last read and the page's journal of changes, not a whole read of the
// accessibility tree (#12 point 2) — and says what a whole read would say,
// for every kind of change the journal must see: a label's or a
// description's text, a checkbox, a field and a select set by script
// without an event, a change inside a shadow root, nodes added and
// removed, a panel shown by a sibling style rule, a hidden element shown,
// a dialog added to <body>, a change after a timer, and none at all.
// BROWSERD_VERIFY_PATCH makes every patched answer fail unless a whole
// read gives the same page.
func TestPatchedAnswers(t *testing.T) {
	t.Setenv("BROWSERD_VERIFY_PATCH", "1")
	cfg := testConfig(t)
	var logs lockedBuffer
	e, err := engine.New(cfg, slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		e.Close(context.Background())
		waitNoChromium(t, cfg.Data)
	})
	d := &engineDriver{e: e, data: cfg.Data}
	const task = "patch"
	page := text(nav(t, d, task, site.URL("/changes")))
	steps := []struct{ button, want string }{
		{"Relabel", `textbox "Your full name"`},
		{"Describe", "must contain an @"},
		{"Check by script", "checked]"},
		{"Fill by script", "Ada Lovelace"},
		{"Pick by script", "Large"},
		{"Change the shadow", "Inner 2"},
		{"Add to the list", "Plums"},
		{"Remove from the list", "- "},
		{"Open the panel", "More details"},
		{"Show the hidden", "Hidden until shown"},
		{"Open a modal", "Close notice"},
		{"Change later", "Changed later"},
		{"Nothing", engine.NoChanges}, // focus moved to it: it goes without saying
		{"Nothing", engine.NoChanges},
	}
	for _, s := range steps {
		ref := ref(t, page, "button", s.button)
		r := d.do(t, tool.Input{Action: "click", Task: task, Ref: ref})
		if !r.Success {
			t.Fatalf("click %q: %s", s.button, r.Error)
		}
		body := text(r)
		if !strings.Contains(body, s.want) {
			t.Errorf("click %q: the answer lacks %q:\n%s", s.button, s.want, body)
		}
		if s.want != engine.NoChanges && !strings.HasPrefix(body, engine.DiffHeader) {
			t.Errorf("click %q: the answer is not a diff:\n%.1500s", s.button, body)
		}
	}
	// A snapshot of the same document is patched too (and verified); the
	// "Change later" timer has fired by now without an action.
	for range 2 {
		r := d.do(t, tool.Input{Action: "snapshot", Task: task})
		if !r.Success || !strings.Contains(text(r), "Changed later") {
			t.Fatalf("snapshot: %s\n%.1500s", r.Error, text(r))
		}
	}
	var whole []string
	for _, l := range strings.Split(logs.String(), "\n") {
		if strings.Contains(l, "snapshot read whole") {
			whole = append(whole, l)
		}
	}
	if len(whole) > 0 {
		t.Errorf("%d of %d answers read the whole tree:\n%s", len(whole), len(steps), strings.Join(whole, "\n"))
	}
}

// TestFormNotSent: a click on a submit button that the browser's own form
// checks stop says so, naming each field and the browser's message (in the
// untrusted envelope: a page can set the message); typing without a
// submit, and a form that is sent, say nothing of it.
func TestFormNotSent(t *testing.T) {
	cfg := testConfig(t)
	e, _ := newEngine(t, cfg)
	d := &engineDriver{e: e, data: cfg.Data}
	const task = "invalid"
	s := nav(t, d, task, site.URL("/c/form-validation")).Content
	signUp := ref(t, s, "button", "Sign up")
	r := ok(t, d, tool.Input{Action: "click", Task: task, Ref: signUp})
	if !strings.Contains(strings.Join(r.Notes, "\n"), "the form was not sent") {
		t.Fatalf("no note that the form was not sent: notes %q\n%s", r.Notes, r.Content)
	}
	// All four fields are empty: each is named, with its message, inside
	// the envelope.
	for _, f := range []string{`"Name" (text)`, `"Email" (email)`, `"Password" (password)`, `"I accept the terms" (checkbox)`} {
		contains(t, r.Content, "not sent: "+f+": ")
	}
	_, inside, _ := strings.Cut(r.Content, "<<<page ")
	contains(t, inside, "not sent: ")
	r = ok(t, d, tool.Input{Action: "type", Task: task, Ref: ref(t, s, "textbox", "Name"), Text: "Ada"})
	r = ok(t, d, tool.Input{Action: "type", Task: task, Ref: ref(t, s, "textbox", "Email"), Text: "ada.example.com"})
	if strings.Contains(r.Content, "not sent") || len(r.Notes) > 0 && strings.Contains(strings.Join(r.Notes, " "), "not sent") {
		t.Fatalf("typing without a submit reports a form not sent:\n%q\n%s", r.Notes, r.Content)
	}
	ok(t, d, tool.Input{Action: "type", Task: task, Ref: ref(t, s, "textbox", "Password"), Text: "secret12"})
	ok(t, d, tool.Input{Action: "click", Task: task, Ref: ref(t, s, "checkbox", "I accept the terms")})
	// Enter in the email field submits: stopped at the email alone.
	r = ok(t, d, tool.Input{Action: "press", Task: task, Ref: ref(t, s, "textbox", "Email"), Key: "Enter"})
	contains(t, r.Content, `not sent: "Email" (email): `)
	if strings.Contains(r.Content, `"Name" (text)`) {
		t.Fatalf("a field that passes is reported:\n%s", r.Content)
	}
	ok(t, d, tool.Input{Action: "type", Task: task, Ref: ref(t, s, "textbox", "Email"), Text: "ada@example.com", Clear: true})
	r = ok(t, d, tool.Input{Action: "click", Task: task, Ref: signUp})
	contains(t, r.Content, "welcome Ada")
	if strings.Contains(r.Content, "not sent") || strings.Contains(strings.Join(r.Notes, " "), "not sent") {
		t.Fatalf("a form that was sent is reported stopped:\n%q\n%s", r.Notes, r.Content)
	}
}

// TestReplacedRef: a ref whose element the page replaced since the
// snapshot (a re-render) acts on the one element with the same role and
// name that took its place, and the answer says so, naming its new ref.
func TestReplacedRef(t *testing.T) {
	cfg := testConfig(t)
	e, _ := newEngine(t, cfg)
	d := &engineDriver{e: e, data: cfg.Data}
	const task = "replaced"
	s := nav(t, d, task, site.URL("/c/rerender")).Content
	name := ref(t, s, "textbox", "Display name")
	time.Sleep(400 * time.Millisecond) // the page draws its form again every 300 ms
	r := ok(t, d, tool.Input{Action: "type", Task: task, Ref: name, Text: "Ada"})
	notes := strings.Join(r.Notes, "\n")
	contains(t, notes, name+" was replaced by the page since your snapshot")
	contains(t, r.Content, `value="Ada"`)
	r = ok(t, d, tool.Input{Action: "evaluate", Task: task, Expression: "document.getElementById('name').value"})
	contains(t, r.Content, "Ada")
}

// TestTypeKeys: type sends a key per character — letters, Shift-ed
// symbols, and characters no US key makes (ü, 東, an emoji) — and the
// field ends up holding exactly the text, each key heard on keydown and
// keyup.
func TestTypeKeys(t *testing.T) {
	cfg := testConfig(t)
	e, _ := newEngine(t, cfg)
	d := &engineDriver{e: e, data: cfg.Data}
	const task = "keys"
	s := nav(t, d, task, site.URL("/c/form-validation")).Content
	ok(t, d, tool.Input{Action: "evaluate", Task: task, Expression: `(() => { window.keys = {down: 0, up: 0};
	  const n = document.getElementById('name');
	  n.addEventListener('keydown', () => keys.down++); n.addEventListener('keyup', () => keys.up++); return 1; })()`})
	const typed = `Ada "Q" @x.io #1 (ü) 東京 🙂`
	r := ok(t, d, tool.Input{Action: "type", Task: task, Ref: ref(t, s, "textbox", "Name"), Text: typed})
	if len(r.Notes) > 0 {
		t.Fatalf("type noted a difference: %q\n%s", r.Notes, r.Content)
	}
	r = ok(t, d, tool.Input{Action: "evaluate", Task: task, Expression: "[document.getElementById('name').value, keys.down, keys.up]"})
	n := len([]rune(typed))
	contains(t, r.Content, fmt.Sprintf(`[%q,%d,%d]`, typed, n, n))
}

// TestReplacedRefAmbiguous: a ref whose role and name another ref of its
// snapshot shared (two "Remove" buttons) is not handed to the survivor
// when its own element goes: the answer says it is stale.
func TestReplacedRefAmbiguous(t *testing.T) {
	cfg := testConfig(t)
	e, _ := newEngine(t, cfg)
	d := &engineDriver{e: e, data: cfg.Data}
	const task = "ambiguous"
	nav(t, d, task, site.URL("/c/form-validation"))
	ok(t, d, tool.Input{Action: "evaluate", Task: task, Expression: `(() => { for (const id of ['a', 'b']) {
	  const b = document.createElement('button'); b.type = 'button'; b.id = id; b.textContent = 'Remove'; b.onclick = () => b.remove(); document.body.append(b); } return 1; })()`})
	s := ok(t, d, tool.Input{Action: "snapshot", Task: task}).Content
	removes := refs(s, "button", "Remove")
	if len(removes) != 2 {
		t.Fatalf("want 2 Remove buttons, got %v in\n%s", removes, s)
	}
	ok(t, d, tool.Input{Action: "click", Task: task, Ref: removes[0]})
	bad(t, d, tool.Input{Action: "click", Task: task, Ref: removes[0]}, "no longer on the page")
	r := ok(t, d, tool.Input{Action: "evaluate", Task: task, Expression: "!!document.getElementById('b')"})
	contains(t, r.Content, "true")
}
