//go:build linux

package e2e

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/browserd/browserd/internal/engine"
	"github.com/browserd/browserd/internal/tool"
	"github.com/browserd/browserd/internal/untrusted"
)

// driver runs one browser tool call through a front end.
type driver interface {
	do(t *testing.T, in tool.Input) tool.Result
	dataDir() string
}

// scenario is one end-to-end story, run through every driver.
type scenario struct {
	name string
	run  func(t *testing.T, d driver, task string)
}

var scenarios = []scenario{
	{"form", testForm},
	{"refs_stable_and_diff", testRefsStable},
	{"table", testTable},
	{"frames", testFrames},
	{"shadow", testShadow},
	{"clickable_and_covered", testClickable},
	{"dialogs", testDialogs},
	{"upload", testUpload},
	{"download", testDownload},
	{"popup_and_tabs", testPopupTabs},
	{"console_flood", testConsoleFlood},
	{"wait", testWait},
	{"scroll_hover_keys", testScrollHoverKeys},
	{"drag", testDrag},
	{"fill", testFill},
	{"history", testHistory},
	{"evaluate_extract", testEvaluateExtract},
	{"screenshot_pdf", testScreenshotPDF},
	{"bad_input", testBadInput},
	{"tasks_isolated", testTasksIsolated},
	{"network", testNetwork},
	{"emulate_route", testEmulateRoute},
}

// ok runs a call and fails the test unless it succeeded.
func ok(t *testing.T, d driver, in tool.Input) tool.Result {
	t.Helper()
	r := d.do(t, in)
	if !r.Success {
		t.Fatalf("%s %+v failed: %s", in.Action, brief(in), r.Error)
	}
	return r
}

// bad runs a call that must fail with an error containing want.
func bad(t *testing.T, d driver, in tool.Input, want string) tool.Result {
	t.Helper()
	r := d.do(t, in)
	if r.Success {
		t.Fatalf("%s %+v succeeded, want an error containing %q; content: %.300s", in.Action, brief(in), want, r.Content)
	}
	if !strings.Contains(r.Error, want) {
		t.Fatalf("%s %+v: error %q does not contain %q", in.Action, brief(in), r.Error, want)
	}
	return r
}

func brief(in tool.Input) string {
	var parts []string
	for _, kv := range [][2]string{{"url", in.URL}, {"ref", in.Ref}, {"selector", in.Selector}, {"text", in.Text}, {"value", in.Value}, {"tab", in.Tab}} {
		if kv[1] != "" {
			parts = append(parts, kv[0]+"="+kv[1])
		}
	}
	return strings.Join(parts, " ")
}

// refLine finds `role "name" [ref=eN` anywhere in a line (table rows hold
// several controls).
var refLine = regexp.MustCompile(`([A-Za-z]+)(?: "((?:[^"\\]|\\.)*)")? \[ref=(e\d+)`)

// ref finds the ref of the first line with the role and name in a snapshot.
func ref(t *testing.T, snap, role, name string) string {
	t.Helper()
	for _, m := range refLine.FindAllStringSubmatch(snap, -1) {
		if m[1] == role && m[2] == name {
			return m[3]
		}
	}
	t.Fatalf("no %s %q with a ref in snapshot:\n%s", role, name, snap)
	return ""
}

// refs returns every ref of role+name lines, in order.
func refs(snap, role, name string) []string {
	var out []string
	for _, m := range refLine.FindAllStringSubmatch(snap, -1) {
		if m[1] == role && m[2] == name {
			out = append(out, m[3])
		}
	}
	return out
}

// text is a result's content without the untrusted envelope and the page
// facts (title, url, ...) that open it.
func text(r tool.Result) string {
	inner, ok := untrusted.Unwrap(r.Content)
	if !ok {
		return r.Content
	}
	lines := strings.Split(inner, "\n")
	for i, l := range lines {
		if !strings.HasPrefix(l, "title: ") && !strings.HasPrefix(l, "url: ") {
			return strings.Join(lines[i:], "\n")
		}
	}
	return ""
}

func contains(t *testing.T, got, want string) {
	t.Helper()
	if !strings.Contains(got, want) {
		t.Fatalf("want %q in:\n%s", want, got)
	}
}

func nav(t *testing.T, d driver, task, url string) tool.Result {
	t.Helper()
	r := ok(t, d, tool.Input{Action: "navigate", Task: task, URL: url})
	for _, n := range r.Notes {
		if strings.HasPrefix(n, "no snapshot") {
			t.Fatalf("navigate %s: %s", url, n)
		}
	}
	return r
}

func testForm(t *testing.T, d driver, task string) {
	r := nav(t, d, task, site.URL("/form"))
	s := r.Content
	contains(t, r.Title, "Sign up")
	ok(t, d, tool.Input{Action: "type", Task: task, Ref: ref(t, s, "textbox", "Name"), Text: "Ann"})
	ok(t, d, tool.Input{Action: "type", Task: task, Ref: ref(t, s, "textbox", "Email"), Text: "a@b.c"})
	r = ok(t, d, tool.Input{Action: "select", Task: task, Ref: ref(t, s, "combobox", "Country"), Value: "Japan"})
	contains(t, r.Content, `value="Japan"`)
	ok(t, d, tool.Input{Action: "click", Task: task, Ref: ref(t, s, "checkbox", "Subscribe")})
	r = ok(t, d, tool.Input{Action: "click", Task: task, Role: "radio", Name: "Pro"})
	contains(t, r.Content, "radio \"Pro\" [ref="+ref(t, s, "radio", "Pro")+", checked")
	r = ok(t, d, tool.Input{Action: "click", Task: task, Ref: ref(t, s, "button", "Sign up")})
	contains(t, r.Content, "Signed up: Ann a@b.c jp subscribed=true plan=pro")
	// clear + retype, then submit with Enter in the search box
	r = ok(t, d, tool.Input{Action: "type", Task: task, Ref: ref(t, s, "textbox", "Name"), Text: "Bo", Clear: true})
	contains(t, r.Content, `value="Bo"]`)
	r = ok(t, d, tool.Input{Action: "type", Task: task, Selector: "#search", Text: "cats", Submit: true})
	contains(t, r.Content, "Searched: cats")
	// select by value, a disabled button, a wrong option
	ok(t, d, tool.Input{Action: "select", Task: task, Selector: "#country", Value: "fr"})
	bad(t, d, tool.Input{Action: "click", Task: task, Ref: ref(t, s, "button", "Disabled")}, "is disabled")
	r = bad(t, d, tool.Input{Action: "select", Task: task, Selector: "#country", Value: "Mars"}, "no option \"Mars\"")
	contains(t, r.Error+r.Content, "options: Germany (de), France (fr), Japan (jp)")
	bad(t, d, tool.Input{Action: "type", Task: task, Ref: ref(t, s, "checkbox", "Subscribe"), Text: "x"}, "cannot type into")
}

func testRefsStable(t *testing.T, d driver, task string) {
	s := nav(t, d, task, site.URL("/spa")).Content
	add := ref(t, s, "button", "Add item")
	ok(t, d, tool.Input{Action: "click", Task: task, Ref: add})
	r := ok(t, d, tool.Input{Action: "snapshot", Task: task})
	if got := ref(t, r.Content, "button", "Add item"); got != add {
		t.Fatalf("Add item ref changed from %s to %s", add, got)
	}
	ok(t, d, tool.Input{Action: "click", Task: task, Ref: add, Snapshot: new(bool)})
	ok(t, d, tool.Input{Action: "snapshot", Task: task})
	ok(t, d, tool.Input{Action: "click", Task: task, Ref: add, Snapshot: new(bool)})
	r = ok(t, d, tool.Input{Action: "snapshot", Task: task, Diff: true})
	contains(t, r.Content, "+ ")
	contains(t, r.Content, "Item 3")
	if strings.Contains(r.Content, "Item 1") && !strings.Contains(r.Content, "Item 3") {
		t.Fatalf("diff shows unchanged lines:\n%s", r.Content)
	}
	r = ok(t, d, tool.Input{Action: "snapshot", Task: task, Diff: true})
	contains(t, r.Content, "no changes")
	// interactive, depth, selector scope, maxChars
	r = ok(t, d, tool.Input{Action: "snapshot", Task: task, Interactive: true})
	for i, line := range strings.Split(text(r), "\n") {
		if i > 0 && line != "" && !strings.Contains(line, "[ref=") {
			t.Fatalf("interactive snapshot has a line without a ref: %q in\n%s", line, r.Content)
		}
	}
	r = ok(t, d, tool.Input{Action: "snapshot", Task: task, Selector: "#items"})
	if strings.Contains(r.Content, "Add item") {
		t.Fatalf("scoped snapshot shows things outside #items:\n%s", r.Content)
	}
	contains(t, r.Content, "Item 2")
	r = ok(t, d, tool.Input{Action: "snapshot", Task: task, MaxChars: 200})
	if n := len(text(r)); n > 200 {
		t.Fatalf("maxChars 200 gave %d chars", n)
	}
	contains(t, r.Content, "not shown")
	contains(t, r.Content, "maxChars")
}

func testTable(t *testing.T, d driver, task string) {
	r := nav(t, d, task, site.URL("/table"))
	// Rows 1–20 and 996–1000, and a line for the others (issue 17 point
	// 8): 2.7 KB, from 78 KB with every row.
	if n := len(r.Content); n > 4_000 {
		t.Errorf("table snapshot is %d bytes, want ≤ 4 KB", n)
	}
	// Every row names its control's role and name.
	edits := refs(r.Content, "button", "Edit")
	if len(edits) != 25 {
		t.Fatalf("found %d Edit refs, want 25", len(edits))
	}
	gap := gapRef.FindStringSubmatch(r.Content)
	if gap == nil || gap[1] != "975" {
		t.Fatalf("no line for the 975 rows not shown:\n%s", r.Content)
	}
	// Its ref shows the next rows; row 500 by a selector.
	r = ok(t, d, tool.Input{Action: "snapshot", Task: task, Ref: gap[6]})
	contains(t, r.Content, "21 | User 21 | user21@example.com")
	r = ok(t, d, tool.Input{Action: "snapshot", Task: task, Selector: "#users tr:nth-child(500)"})
	contains(t, r.Content, "user500@example.com")
	edits = refs(r.Content, "button", "Edit")
	r = ok(t, d, tool.Input{Action: "click", Task: task, Ref: edits[0]})
	contains(t, r.Content, "Editing user 500")
	bad(t, d, tool.Input{Action: "click", Task: task, Role: "button", Name: "Edit"}, "1000 elements have role")
}

func testFrames(t *testing.T, d driver, task string) {
	s := nav(t, d, task, site.URL("/frames")).Content
	btns := refs(s, "button", "Inner button")
	inputs := refs(s, "textbox", "Inner input")
	if len(btns) != 2 || len(inputs) != 2 {
		t.Fatalf("want 2 inner buttons and inputs (same- and cross-origin), got %v %v in:\n%s", btns, inputs, s)
	}
	for i := range btns {
		r := ok(t, d, tool.Input{Action: "type", Task: task, Ref: inputs[i], Text: fmt.Sprintf("frame%d", i)})
		contains(t, r.Content, fmt.Sprintf(`value="frame%d"`, i))
		// The answer shows the change: the frame's status says clicked.
		r = ok(t, d, tool.Input{Action: "click", Task: task, Ref: btns[i]})
		if !strings.Contains(r.Content, "inner clicked") {
			t.Fatalf("click %d in frame did not register:\n%s", i, r.Content)
		}
	}
}

func testShadow(t *testing.T, d driver, task string) {
	s := nav(t, d, task, site.URL("/shadow")).Content
	r := ok(t, d, tool.Input{Action: "type", Task: task, Ref: ref(t, s, "textbox", "Shadow input"), Text: "deep"})
	contains(t, r.Content, `value="deep"`)
	r = ok(t, d, tool.Input{Action: "click", Task: task, Ref: ref(t, s, "button", "Shadow button")})
	contains(t, r.Content, "shadow clicked")
	// Clicked again: the page says the same, and the answer says so;
	// full shows the whole page.
	r = ok(t, d, tool.Input{Action: "click", Task: task, Selector: "#shadow-button"})
	contains(t, r.Content, engine.NoChanges)
	r = ok(t, d, tool.Input{Action: "click", Task: task, Selector: "#shadow-button", Full: true})
	contains(t, r.Content, "shadow clicked")
}

func testClickable(t *testing.T, d driver, task string) {
	s := nav(t, d, task, site.URL("/clickable")).Content
	covered := ref(t, s, "button", "Covered button")
	accept := ref(t, s, "button", "Accept")
	r := bad(t, d, tool.Input{Action: "click", Task: task, Ref: covered}, "covered by another element (e")
	contains(t, r.Error, "click or close it first")
	// The covering element's name is page text: inside the envelope.
	contains(t, r.Error+r.Content, `covering element: dialog "Cookie consent"`)
	ok(t, d, tool.Input{Action: "click", Task: task, Ref: accept})
	r = ok(t, d, tool.Input{Action: "click", Task: task, Ref: covered})
	contains(t, r.Content, "covered clicked")
	// the overlay is gone: its ref is stale now
	bad(t, d, tool.Input{Action: "click", Task: task, Ref: accept}, "stale")
	for _, c := range []struct{ role, name, want string }{
		{"clickable", "Div with pointer", "div clicked"},
		{"clickable", "Span with onclick", "span clicked"},
	} {
		r := ok(t, d, tool.Input{Action: "click", Task: task, Ref: ref(t, s, c.role, c.name)})
		contains(t, r.Content, c.want)
	}
	r = ok(t, d, tool.Input{Action: "click", Task: task, Selector: "#anchor-nohref"})
	contains(t, r.Content, "anchor clicked")
}

func testDialogs(t *testing.T, d driver, task string) {
	s := nav(t, d, task, site.URL("/dialogs")).Content
	r := ok(t, d, tool.Input{Action: "click", Task: task, Ref: ref(t, s, "button", "Alert")})
	if r.Dialog == nil || r.Dialog.Type != "alert" || r.Dialog.Message != "hello alert" {
		t.Fatalf("want the alert reported, got %+v (notes %v)", r.Dialog, r.Notes)
	}
	r = ok(t, d, tool.Input{Action: "dialog", Task: task})
	contains(t, r.Content, "alert=done")
	r = ok(t, d, tool.Input{Action: "click", Task: task, Ref: ref(t, s, "button", "Confirm")})
	if r.Dialog == nil || r.Dialog.Type != "confirm" {
		t.Fatalf("want a confirm, got %+v", r.Dialog)
	}
	r = ok(t, d, tool.Input{Action: "dialog", Task: task, Accept: new(bool)})
	contains(t, r.Content, "confirm=false")
	ok(t, d, tool.Input{Action: "click", Task: task, Ref: ref(t, s, "button", "Prompt")})
	r = ok(t, d, tool.Input{Action: "dialog", Task: task, Text: "Bob"})
	contains(t, r.Content, "prompt=Bob")
	bad(t, d, tool.Input{Action: "dialog", Task: task}, "no dialog is open")
	// a dialog during load does not hang navigate
	r = ok(t, d, tool.Input{Action: "navigate", Task: task, URL: site.URL("/dialogs?onload=1")})
	if r.Dialog == nil || r.Dialog.Message != "onload alert" {
		t.Fatalf("want the onload alert reported, got %+v", r.Dialog)
	}
	ok(t, d, tool.Input{Action: "dialog", Task: task})
}

func testUpload(t *testing.T, d driver, task string) {
	up := filepath.Join(d.dataDir(), "uploads")
	if err := os.MkdirAll(up, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(up, "hello.txt"), []byte("hello upload"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := nav(t, d, task, site.URL("/upload")).Content
	file := ref(t, s, "button", "File")
	ok(t, d, tool.Input{Action: "upload", Task: task, Ref: file, Files: []string{"hello.txt"}})
	r := ok(t, d, tool.Input{Action: "click", Task: task, Ref: ref(t, s, "button", "Send")})
	r = ok(t, d, tool.Input{Action: "wait", Task: task, Text: "received", Full: true})
	contains(t, r.Content, "received hello.txt 12 bytes")
	bad(t, d, tool.Input{Action: "upload", Task: task, Ref: file, Files: []string{"../secret"}}, "without '..'")
	bad(t, d, tool.Input{Action: "upload", Task: task, Ref: file, Files: []string{"/etc/passwd"}}, "inside")
	bad(t, d, tool.Input{Action: "upload", Task: task, Ref: file, Files: []string{"missing.txt"}}, "not found")
	// A button that opens no file picker says what to give instead.
	bad(t, d, tool.Input{Action: "upload", Task: task, Ref: ref(t, s, "button", "Send"), Files: []string{"hello.txt"}}, "opened no file picker")
}

func testDownload(t *testing.T, d driver, task string) {
	s := nav(t, d, task, site.URL("/download")).Content
	r := ok(t, d, tool.Input{Action: "click", Task: task, Ref: ref(t, s, "link", "Download report")})
	if len(r.Downloads) != 1 || !r.Downloads[0].Done {
		t.Fatalf("want one finished download, got %+v", r.Downloads)
	}
	p := r.Downloads[0].Path
	if filepath.Dir(p) != filepath.Join(d.dataDir(), "downloads") || !strings.HasPrefix(filepath.Base(p), "report") {
		t.Fatalf("download saved as %s", p)
	}
	b, err := os.ReadFile(p)
	if err != nil || !bytes.Contains(b, []byte(",")) {
		t.Fatalf("download content: %q %v", b, err)
	}
	// A file whose answer comes after the click's page has settled: the
	// answer waits for the download the click's navigation became.
	r = ok(t, d, tool.Input{Action: "click", Task: task, Ref: ref(t, s, "link", "Download the late report")})
	if len(r.Downloads) != 1 || !r.Downloads[0].Done || !strings.HasPrefix(filepath.Base(r.Downloads[0].Path), "report") {
		t.Fatalf("a late file: want one finished download, got %+v (notes %v)", r.Downloads, r.Notes)
	}
	// A tab whose first navigation is the file, and another task whose
	// navigate is: each is a download under the file's own name, not an
	// aborted navigation and a file named by its GUID.
	for _, in := range []tool.Input{
		{Action: "tab_new", Task: task, URL: site.URL("/files/report.csv")},
		{Action: "navigate", Task: task + "-file", URL: site.URL("/files/report.csv")},
	} {
		r := d.do(t, in)
		if !r.Success || len(r.Downloads) != 1 || !r.Downloads[0].Done {
			t.Fatalf("%s to a file: success %v, error %q, downloads %+v", in.Action, r.Success, r.Error, r.Downloads)
		}
		p := r.Downloads[0].Path
		if filepath.Dir(p) != filepath.Join(d.dataDir(), "downloads") || !strings.HasPrefix(filepath.Base(p), "report") || !strings.HasSuffix(p, ".csv") {
			t.Fatalf("%s to a file: saved as %s", in.Action, p)
		}
	}
}

func testPopupTabs(t *testing.T, d driver, task string) {
	s := nav(t, d, task, site.URL("/popup")).Content
	first := ok(t, d, tool.Input{Action: "tabs", Task: task}).Tabs
	r := ok(t, d, tool.Input{Action: "click", Task: task, Ref: ref(t, s, "button", "Open popup")})
	if len(r.Popups) != 1 {
		t.Fatalf("want one popup reported, got %+v (notes %v)", r.Popups, r.Notes)
	}
	pop := r.Popups[0].ID
	tabs := ok(t, d, tool.Input{Action: "tabs", Task: task}).Tabs
	if len(tabs) != len(first)+1 {
		t.Fatalf("tabs: %+v", tabs)
	}
	r = ok(t, d, tool.Input{Action: "tab_switch", Task: task, Tab: pop})
	contains(t, r.Content, "Child")
	r = ok(t, d, tool.Input{Action: "tab_new", Task: task, URL: site.URL("/hover")})
	newID := r.Tab
	if newID == pop || newID == "" {
		t.Fatalf("tab_new gave id %q", newID)
	}
	contains(t, r.Content, "Hover me")
	ok(t, d, tool.Input{Action: "tab_close", Task: task, Tab: newID})
	ok(t, d, tool.Input{Action: "tab_close", Task: task, Tab: pop})
	bad(t, d, tool.Input{Action: "tab_switch", Task: task, Tab: newID}, "no tab")
	r = ok(t, d, tool.Input{Action: "tab_new", Task: task})
	if r.Tab == newID || r.Tab == pop {
		t.Fatalf("tab id %s reused", r.Tab)
	}
	ok(t, d, tool.Input{Action: "tab_close", Task: task, Tab: r.Tab})
}

func testConsoleFlood(t *testing.T, d driver, task string) {
	r := ok(t, d, tool.Input{Action: "navigate", Task: task, URL: site.URL("/console?n=20000")})
	contains(t, r.Content, "Console done")
	r = ok(t, d, tool.Input{Action: "console", Task: task})
	contains(t, r.Content, "log 20000")
	contains(t, r.Content, "older messages dropped")
	r = ok(t, d, tool.Input{Action: "click", Task: task, Role: "heading", Name: "Console done"})
	_ = r
}

func testWait(t *testing.T, d driver, task string) {
	nav(t, d, task, site.URL("/wait"))
	ok(t, d, tool.Input{Action: "wait", Task: task, Text: "Late text"})
	ok(t, d, tool.Input{Action: "wait", Task: task, TextGone: "Loading…"})
	ok(t, d, tool.Input{Action: "wait", Task: task, Selector: "#late"})
	ok(t, d, tool.Input{Action: "click", Task: task, Selector: "#go", Snapshot: new(bool)})
	ok(t, d, tool.Input{Action: "wait", Task: task, URL: "#done"})
	ok(t, d, tool.Input{Action: "wait", Task: task, Time: 50})
	bad(t, d, tool.Input{Action: "wait", Task: task, Text: "never there", Timeout: 300}, "timed out waiting for text \"never there\"")
	// A click that navigates later: wait load returns with the new page.
	ok(t, d, tool.Input{Action: "click", Task: task, Selector: "#later", Snapshot: new(bool)})
	r := ok(t, d, tool.Input{Action: "wait", Task: task, Load: true})
	contains(t, r.Content, `document "Sign up"`)
	bad(t, d, tool.Input{Action: "wait", Task: task, Load: true, Timeout: 300}, "timed out waiting for the next page load")
	// A load that ends after the click's answer, before the agent waits
	// for it, counts too.
	nav(t, d, task, site.URL("/wait"))
	ok(t, d, tool.Input{Action: "click", Task: task, Selector: "#muchlater", Snapshot: new(bool)})
	// Looked at meanwhile (the page goes 1.5 s after the click, which
	// answers before: DOMMax), the tab has heard of the load.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		r = ok(t, d, tool.Input{Action: "evaluate", Task: task, Expression: "location.pathname"})
		if strings.Contains(text(r), "/form") || time.Now().After(deadline) {
			break
		}
	}
	contains(t, text(r), "/form")
	r = ok(t, d, tool.Input{Action: "wait", Task: task, Load: true, Timeout: 3000})
	contains(t, r.Content, `document "Sign up"`)
	bad(t, d, tool.Input{Action: "wait", Task: task, Load: true, Timeout: 300}, "timed out waiting for the next page load")
	// A load waited for from before it started is taken by that wait too:
	// the next wait waits for another (CI once saw it counted twice).
	nav(t, d, task, site.URL("/wait"))
	ok(t, d, tool.Input{Action: "click", Task: task, Selector: "#muchlater", Snapshot: new(bool)})
	r = ok(t, d, tool.Input{Action: "wait", Task: task, Load: true, Timeout: 5000})
	contains(t, r.Content, `document "Sign up"`)
	bad(t, d, tool.Input{Action: "wait", Task: task, Load: true, Timeout: 300}, "timed out waiting for the next page load")
}

func testScrollHoverKeys(t *testing.T, d driver, task string) {
	nav(t, d, task, site.URL("/scroll"))
	r := ok(t, d, tool.Input{Action: "scroll", Task: task, Snapshot: new(bool)})
	if strings.Contains(strings.Join(r.Notes, " "), "[0, 0,") {
		t.Fatalf("page did not scroll: %v", r.Notes)
	}
	ok(t, d, tool.Input{Action: "scroll", Task: task, Direction: "bottom", Snapshot: new(bool)})
	r = ok(t, d, tool.Input{Action: "evaluate", Task: task, Expression: "scrollY > 4000"})
	if text(r) != "true" {
		t.Fatalf("scroll to bottom did not land: %s", text(r))
	}
	ok(t, d, tool.Input{Action: "scroll", Task: task, Selector: "#scroller", Direction: "down", Amount: 300, Snapshot: new(bool)})
	r = ok(t, d, tool.Input{Action: "evaluate", Task: task, Expression: "document.querySelector('#scroller').scrollTop"})
	if text(r) != "300" {
		t.Fatalf("element scroll: scrollTop %s, want 300", text(r))
	}
	// A page shorter than the window, with no scroll box: the answer says
	// nothing moved (a scroll box beside the middle of the window is
	// scrolled instead: conformance page virtual-list).
	nav(t, d, task, site.URL("/c/form-validation"))
	r = ok(t, d, tool.Input{Action: "scroll", Task: task, Snapshot: new(bool)})
	contains(t, strings.Join(r.Notes, "\n"), "nothing scrolled: neither the window nor a scroll box in view can move down")
	s := nav(t, d, task, site.URL("/hover")).Content
	_ = s
	r = ok(t, d, tool.Input{Action: "hover", Task: task, Selector: "#hover"})
	contains(t, r.Content, "hovered")
	nav(t, d, task, site.URL("/keys"))
	ok(t, d, tool.Input{Action: "click", Task: task, Selector: "#keys", Snapshot: new(bool)})
	for _, k := range []string{"a", "Enter", "ArrowDown", "Control+a"} {
		ok(t, d, tool.Input{Action: "press", Task: task, Key: k, Snapshot: new(bool)})
	}
	r = ok(t, d, tool.Input{Action: "extract", Task: task, Selector: "#result"})
	contains(t, r.Content, "a Enter ArrowDown")
	bad(t, d, tool.Input{Action: "press", Task: task, Key: "Hyper+x"}, "unknown modifier")
}

// testDrag: drag reorders a list that follows pointer moves, moves a card
// with HTML5 drag and drop onto a column named by its text, and says what
// to do when the drop target cannot be found.
func testDrag(t *testing.T, d driver, task string) {
	snap := nav(t, d, task, site.URL("/c/drag-sortable")).Content
	from, to := ref(t, snap, "listitem", "Ship the release"), ref(t, snap, "listitem", "Answer email")
	r := ok(t, d, tool.Input{Action: "drag", Task: task, Ref: from, To: to})
	contains(t, r.Content, "order: 4,1,2,3")
	bad(t, d, tool.Input{Action: "drag", Task: task, Ref: from, To: "Nowhere to drop"}, "no visible element shows the text")
	bad(t, d, tool.Input{Action: "drag", Task: task, Ref: from, To: "e99999"}, "unknown ref")

	snap = nav(t, d, task, site.URL("/c/drag-html5")).Content
	card := ref(t, snap, "group", "Fix the login bug")
	r = ok(t, d, tool.Input{Action: "drag", Task: task, Ref: card, To: "Doing"})
	contains(t, r.Content, "Fix the login bug is now in Doing")
	contains(t, strings.Join(r.Notes, "\n"), "HTML5 drag events")
	bad(t, d, tool.Input{Action: "drag", Task: task, Ref: to, To: "Done"}, "stale")

	snap = nav(t, d, task, site.URL("/table")).Content
	bad(t, d, tool.Input{Action: "drag", Task: task, Ref: ref(t, snap, "button", "Edit"), To: "Edit"}, "elements show the text")
}

// testFill: one fill sets a form's textboxes, select, checkbox and radio
// button; a checkbox already in the state asked is left as it is; a field
// it cannot set stops it with an error naming the field.
func testFill(t *testing.T, d driver, task string) {
	s := nav(t, d, task, site.URL("/form")).Content
	f := func(role, name, value string) tool.Field { return tool.Field{Ref: ref(t, s, role, name), Value: value} }
	fields := []tool.Field{f("textbox", "Name", "Ada"), f("textbox", "Email", "ada@example.com"), f("combobox", "Country", "Japan"),
		f("checkbox", "Subscribe", "true"), f("radio", "Pro", "true"), f("textbox", "Comment", "two\nlines")}
	r := ok(t, d, tool.Input{Action: "fill", Task: task, Fields: fields})
	for _, want := range []string{`value="Ada"`, `value="ada@example.com"`, `value="Japan"`, `checkbox "Subscribe" [ref=`, `radio "Pro" [ref=`} {
		contains(t, r.Content, want)
	}
	// Again: the text replaces what is there; the checkbox stays checked.
	r = ok(t, d, tool.Input{Action: "fill", Task: task, Fields: []tool.Field{f("textbox", "Name", "Bo"), f("checkbox", "Subscribe", "yes")}})
	contains(t, r.Content, `value="Bo"`)
	r = ok(t, d, tool.Input{Action: "click", Task: task, Ref: ref(t, s, "button", "Sign up")})
	contains(t, r.Content, "Signed up: Bo ada@example.com jp subscribed=true plan=pro")
	bad(t, d, tool.Input{Action: "fill", Task: task, Fields: []tool.Field{f("textbox", "Name", "Cy"), f("checkbox", "Subscribe", "maybe")}},
		"fields[1]")
	bad(t, d, tool.Input{Action: "fill", Task: task, Fields: []tool.Field{f("radio", "Pro", "false")}}, "cannot be unchecked")
	bad(t, d, tool.Input{Action: "fill", Task: task, Fields: []tool.Field{f("combobox", "Country", "Mars")}}, `no option "Mars"`)
	bad(t, d, tool.Input{Action: "fill", Task: task, Fields: []tool.Field{f("button", "Sign up", "x")}}, "cannot type into")
	r = ok(t, d, tool.Input{Action: "evaluate", Task: task, Expression: "document.getElementById('name').value + '|' + document.getElementById('comment').value"})
	contains(t, text(r), `"Cy|two\nlines"`)
}

func testHistory(t *testing.T, d driver, task string) {
	nav(t, d, task, site.URL("/form"))
	nav(t, d, task, site.URL("/spa"))
	r := ok(t, d, tool.Input{Action: "back", Task: task})
	contains(t, r.URL, "/form")
	r = ok(t, d, tool.Input{Action: "forward", Task: task})
	contains(t, r.URL, "/spa")
	r = ok(t, d, tool.Input{Action: "reload", Task: task})
	contains(t, r.Content, "Add item")
	bad(t, d, tool.Input{Action: "forward", Task: task}, "cannot go forward")
	ok(t, d, tool.Input{Action: "close", Task: task})
}

func testEvaluateExtract(t *testing.T, d driver, task string) {
	nav(t, d, task, site.URL("/"))
	r := ok(t, d, tool.Input{Action: "evaluate", Task: task, Expression: "1 + 2"})
	if text(r) != "3" {
		t.Fatalf("1+2 = %q", text(r))
	}
	r = ok(t, d, tool.Input{Action: "evaluate", Task: task, Expression: "Promise.resolve({a: [1, 'x']})"})
	if text(r) != `{"a":[1,"x"]}` {
		t.Fatalf("promise result %q", text(r))
	}
	r = ok(t, d, tool.Input{Action: "evaluate", Task: task, Expression: "await Promise.resolve(7)"})
	if text(r) != "7" {
		t.Fatalf("top-level await result %q", text(r))
	}
	bad(t, d, tool.Input{Action: "evaluate", Task: task, Expression: "throw new Error('nope')"}, "nope")
	r = ok(t, d, tool.Input{Action: "extract", Task: task})
	contains(t, r.Content, "Links:")
	contains(t, r.Content, site.URL("/form"))
	r = ok(t, d, tool.Input{Action: "launch", Task: task})
	contains(t, r.Content, "browser: running")
	r = ok(t, d, tool.Input{Action: "status", Task: task})
	contains(t, r.Content, "browser: running")
}

func testScreenshotPDF(t *testing.T, d driver, task string) {
	nav(t, d, task, site.URL("/big-html"))
	for _, in := range []tool.Input{
		{Action: "screenshot", Task: task},
		{Action: "screenshot", Task: task, FullPage: new(true), Path: "full-" + task + ".png"},
		{Action: "screenshot", Task: task, FullPage: new(false), Path: "viewport-" + task + ".png"},
		{Action: "screenshot", Task: task, Selector: "h1"},
	} {
		r := ok(t, d, in)
		b, err := os.ReadFile(r.ScreenshotPath)
		if err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) || len(b) < 24 {
			t.Fatalf("screenshot %s: %v", r.ScreenshotPath, err)
		}
		// The whole page by default (001), the viewport when asked: the
		// article is far taller than the 720 px viewport.
		if h := binary.BigEndian.Uint32(b[20:24]); in.Selector == "" {
			if viewport := in.FullPage != nil && !*in.FullPage; viewport != (h <= 720) {
				t.Errorf("screenshot (fullPage %v) is %d px tall", in.FullPage != nil && *in.FullPage || in.FullPage == nil, h)
			}
		}
		if filepath.Dir(r.ScreenshotPath) != filepath.Join(d.dataDir(), "screenshots") {
			t.Fatalf("screenshot outside the folder: %s", r.ScreenshotPath)
		}
	}
	bad(t, d, tool.Input{Action: "screenshot", Task: task, Path: "../evil.png"}, "plain file name")
	bad(t, d, tool.Input{Action: "screenshot", Task: task, Path: "/tmp/evil.png"}, "plain file name")
	r := ok(t, d, tool.Input{Action: "pdf", Task: task})
	b, err := os.ReadFile(r.Path)
	if err != nil || !bytes.HasPrefix(b, []byte("%PDF")) {
		t.Fatalf("pdf %s: %v", r.Path, err)
	}
}

func testBadInput(t *testing.T, d driver, task string) {
	bad(t, d, tool.Input{Action: "fly", Task: task}, "fly")
	bad(t, d, tool.Input{Action: "navigate", Task: task}, "navigate needs url")
	bad(t, d, tool.Input{Action: "click", Task: task}, "needs a target")
	bad(t, d, tool.Input{Action: "navigate", Task: task, URL: "file:///etc/passwd"}, "scheme \"file\" is not allowed")
	bad(t, d, tool.Input{Action: "navigate", Task: task, URL: "javascript:alert(1)"}, "not allowed")
	bad(t, d, tool.Input{Action: "navigate", Task: task, URL: "http://10.1.2.3/"}, "--allow-host 10.1.2.3")
	bad(t, d, tool.Input{Action: "navigate", Task: task, URL: "http://169.254.169.254/"}, "metadata")
	bad(t, d, tool.Input{Action: "navigate", Task: task, URL: "not a url"}, "refused")
	bad(t, d, tool.Input{Action: "click", Task: task, Ref: "e999999"}, "unknown ref")
	bad(t, d, tool.Input{Action: "tab_switch", Task: task, Tab: "t999999"}, "no tab")
	bad(t, d, tool.Input{Action: "navigate", Task: task, URL: site.URL("/slow?ms=3000"), Timeout: 300}, "timed out")
	// stale ref after navigation
	s := nav(t, d, task, site.URL("/form")).Content
	name := ref(t, s, "textbox", "Name")
	nav(t, d, task, site.URL("/spa"))
	bad(t, d, tool.Input{Action: "click", Task: task, Ref: name}, "stale")
	// another task's ref and tab
	other := task + "-other"
	s2 := nav(t, d, other, site.URL("/form")).Content
	otherRef := ref(t, s2, "textbox", "Name")
	bad(t, d, tool.Input{Action: "click", Task: task, Ref: otherRef}, "another task")
	otherTab := ok(t, d, tool.Input{Action: "tabs", Task: other}).Tabs[0].ID
	bad(t, d, tool.Input{Action: "tab_switch", Task: task, Tab: otherTab}, "another task")
	ok(t, d, tool.Input{Action: "close", Task: other})
	// the daemon keeps serving
	nav(t, d, task, site.URL("/"))
}

func testTasksIsolated(t *testing.T, d driver, task string) {
	var wg sync.WaitGroup
	errs := make(chan string, 4)
	for i, p := range []string{"/form", "/spa", "/shadow", "/hover"} {
		wg.Go(func() {
			tk := fmt.Sprintf("%s-%d", task, i)
			r := d.do(t, tool.Input{Action: "navigate", Task: tk, URL: site.URL(p)})
			if !r.Success {
				errs <- r.Error
				return
			}
			tabs := d.do(t, tool.Input{Action: "tabs", Task: tk}).Tabs
			if len(tabs) != 1 || !strings.HasSuffix(tabs[0].URL, p) {
				errs <- fmt.Sprintf("task %s sees tabs %+v", tk, tabs)
			}
			d.do(t, tool.Input{Action: "close", Task: tk})
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// testNetwork: the network action lists the tab's requests — a script, a
// missing image, a POST answered 500, a redirect, a fetch the guard
// refuses — shows one whole with its body, cookies redacted, and writes
// the log as HAR.
func testNetwork(t *testing.T, d driver, task string) {
	nav(t, d, task, site.URL("/network"))
	ok(t, d, tool.Input{Action: "wait", Task: task, Text: "ready:"})
	r := ok(t, d, tool.Input{Action: "network", Task: task})
	for _, want := range []string{" GET 200 document ", " GET 200 script ", " GET 404 image ", " POST 500 fetch ", " GET 302 fetch ",
		"/net/data.json", " GET refused fetch ", "http://10.255.255.1/internal — 10.255.255.1 is a private", "1 refused by the guard"} {
		contains(t, r.Content, want)
	}
	if !r.Wrapped || !strings.Contains(r.Content, "<<<page ") {
		t.Errorf("the network listing (page data) is not inside the envelope: %q", r.Content)
	}
	post := regexp.MustCompile(`(r\d+) POST 500 fetch`).FindStringSubmatch(r.Content)
	if post == nil {
		t.Fatalf("no POST line in %q", r.Content)
	}
	// A filter by type keeps only that type.
	f := ok(t, d, tool.Input{Action: "network", Task: task, Filter: "fetch"})
	contains(t, f.Content, " POST 500 fetch ")
	if strings.Contains(f.Content, " document ") || strings.Contains(f.Content, " image ") {
		t.Errorf("filter fetch kept other types: %q", f.Content)
	}
	// One request whole: the body it sent (the password redacted), its
	// cookie redacted, the response's body.
	one := ok(t, d, tool.Input{Action: "network", Task: task, Request: post[1]})
	for _, want := range []string{"the cart is empty", "Cookie: <redacted>", `"password":"<redacted>"`, "response: 500"} {
		contains(t, one.Content, want)
	}
	for _, secret := range []string{"s3cr3t-cookie", "hunter2"} {
		if strings.Contains(one.Content, secret) {
			t.Errorf("network request shows %q unredacted: %q", secret, one.Content)
		}
	}
	bare := ok(t, d, tool.Input{Action: "network", Task: task, Request: post[1], Redact: new(false)})
	contains(t, bare.Content, "s3cr3t-cookie")
	bad(t, d, tool.Input{Action: "network", Task: task, Request: "r9999"}, "no request r9999")
	// The log as HAR, in the owner's har folder.
	h := ok(t, d, tool.Input{Action: "network", Task: task, Path: task + ".har"})
	if filepath.Dir(h.Path) != filepath.Join(d.dataDir(), "har") {
		t.Errorf("HAR written to %q, not in %s/har", h.Path, d.dataDir())
	}
	data, err := os.ReadFile(h.Path)
	if err != nil {
		t.Fatal(err)
	}
	checkHAR(t, data)
}

// checkHAR checks a HAR file of the /network page: HAR 1.2, its entries,
// the 500's body, the refused request marked, credentials redacted.
func checkHAR(t *testing.T, data []byte) {
	t.Helper()
	var har struct {
		Log struct {
			Version string `json:"version"`
			Entries []struct {
				Request struct {
					Method   string `json:"method"`
					URL      string `json:"url"`
					PostData *struct {
						Text string `json:"text"`
					} `json:"postData"`
				} `json:"request"`
				Response struct {
					Status  int `json:"status"`
					Content struct {
						Text string `json:"text"`
					} `json:"content"`
				} `json:"response"`
				Error string `json:"_error"`
			} `json:"entries"`
		} `json:"log"`
	}
	if err := json.Unmarshal(data, &har); err != nil {
		t.Fatalf("the HAR is not JSON: %v", err)
	}
	if har.Log.Version != "1.2" || len(har.Log.Entries) < 6 {
		t.Fatalf("HAR version %q with %d entries, want 1.2 with at least 6", har.Log.Version, len(har.Log.Entries))
	}
	var sawPost, sawRefused bool
	for _, e := range har.Log.Entries {
		if e.Request.Method == "POST" {
			sawPost = true
			if e.Response.Status != 500 || !strings.Contains(e.Response.Content.Text, "the cart is empty") {
				t.Errorf("the POST's entry: status %d, body %q", e.Response.Status, e.Response.Content.Text)
			}
			if e.Request.PostData == nil || !strings.Contains(e.Request.PostData.Text, `"password":"<redacted>"`) {
				t.Errorf("the POST's body is missing or not redacted: %+v", e.Request.PostData)
			}
		}
		if strings.Contains(e.Request.URL, "10.255.255.1") {
			sawRefused = strings.Contains(e.Error, "refused by browserd's guard")
		}
	}
	if !sawPost || !sawRefused {
		t.Errorf("HAR: POST entry %v, refused entry marked %v", sawPost, sawRefused)
	}
	for _, secret := range []string{"s3cr3t-cookie", "hunter2"} {
		if bytes.Contains(data, []byte(secret)) {
			t.Errorf("the HAR holds %q unredacted", secret)
		}
	}
}
