//go:build linux

package e2e

import (
	"regexp"
	"strings"
	"testing"

	"github.com/browserd/browserd/internal/engine"
	"github.com/browserd/browserd/internal/tool"
)

// lineOf is the line of a snapshot holding want, "" when none does.
func lineOf(snap, want string) string {
	for _, l := range strings.Split(snap, "\n") {
		if strings.Contains(l, want) {
			return l
		}
	}
	return ""
}

// gapRef matches the line standing for the items of a long list left out.
var gapRef = regexp.MustCompile(`… (\d+) (?:more|earlier) (\w+) \((\d+)–(\d+) of (\d+)\) \[ref=(e\d+)\]: snapshot with this ref to see them`)

// TestAriaCurrent (issue 17 point 8): the link marked aria-current="page"
// shows current on its line, as source 001 shows it, and no other link
// does (aria-current="false", "" and none); when a script moves the mark,
// the click's answer — patched from the page's journal and checked
// against a whole read (BROWSERD_VERIFY_PATCH) — shows the move.
func TestAriaCurrent(t *testing.T) {
	cfg := testConfig(t)
	e, _ := newEngine(t, cfg)
	d := &engineDriver{e: e, data: cfg.Data}
	const task = "current"
	s := text(nav(t, d, task, site.URL("/lists")))
	if l := lineOf(s, `link "Settings"`); !strings.HasSuffix(l, `href="/lists#settings", current]`) {
		t.Fatalf("the current link's line is %q in:\n%.1500s", l, s)
	}
	for _, name := range []string{"Home", "Help", "About"} {
		if l := lineOf(s, `link "`+name+`"`); l == "" || strings.Contains(l, "current") {
			t.Errorf("link %s: line %q", name, l)
		}
	}
	if n := strings.Count(s, "current]"); n != 1 {
		t.Errorf("%d lines say current, want 1:\n%s", n, s)
	}
	r := ok(t, d, tool.Input{Action: "click", Task: task, Ref: ref(t, s, "link", "Help")})
	body := text(r)
	if !strings.HasPrefix(body, engine.DiffHeader) {
		t.Fatalf("the click's answer is not a diff:\n%.2000s", body)
	}
	contains(t, body, `link "Help" [ref=`)
	if l := lineOf(body, `link "Help"`); !strings.HasPrefix(l, "~ ") || !strings.HasSuffix(l, `href="/lists#help", current]`) {
		t.Errorf("Help's line in the answer: %q\n%s", l, body)
	}
	if l := lineOf(body, `link "Settings"`); !strings.HasPrefix(l, "~ ") || strings.Contains(l, "current") {
		t.Errorf("Settings' line in the answer: %q\n%s", l, body)
	}
	s = text(ok(t, d, tool.Input{Action: "snapshot", Task: task, Full: true}))
	if l := lineOf(s, `link "Help"`); !strings.HasSuffix(l, "current]") || strings.Count(s, "current]") != 1 {
		t.Errorf("after the click, a whole read:\n%s", s)
	}
}

// TestLongListPaging (issue 17 point 8): the 1,000-row table's snapshot
// prints 25 rows and one line counting the rest, whose ref pages through
// them; a selector of row 500 shows the table from there, and row 500's
// button, clicked, answers with a diff that shows the row — the page
// snapshot keeps showing the table from row 500. A ref seen on an earlier
// page still works. A list of links pages the same way.
func TestLongListPaging(t *testing.T) {
	cfg := testConfig(t)
	e, _ := newEngine(t, cfg)
	d := &engineDriver{e: e, data: cfg.Data}
	const task = "lists"
	s := text(nav(t, d, task, site.URL("/table")))
	if n := len(s); n > 4000 {
		t.Errorf("the table's snapshot is %d bytes, want ≤ 4,000", n)
	}
	if n := len(refs(s, "button", "Edit")); n != 25 {
		t.Errorf("%d Edit buttons, want 25 (rows 1–20 and 996–1000)", n)
	}
	m := gapRef.FindStringSubmatch(s)
	if m == nil || m[1] != "975" || m[2] != "rows" || m[3] != "21" || m[4] != "995" || m[5] != "1000" {
		t.Fatalf("no line for rows 21–995 in:\n%s", s)
	}
	contains(t, s, "1000 | User 1000 | user1000@example.com")

	// Its ref: rows 21–70.
	p := text(ok(t, d, tool.Input{Action: "snapshot", Task: task, Ref: m[6]}))
	if !strings.HasPrefix(p, "table \"Users\"\n  caption: Users\n  columns: # | Name | Email | Status | Action\n  … 20 earlier rows (1–20 of 1000) [ref=") {
		t.Errorf("page from row 21:\n%.600s", p)
	}
	contains(t, p, "\n  21 | User 21 | user21@example.com")
	contains(t, p, "\n  70 | User 70 | user70@example.com")
	contains(t, p, "… 930 more rows (71–1000 of 1000) [ref=")
	if strings.Contains(p, "User 71 ") || strings.Contains(p, "User 20 ") {
		t.Errorf("page from row 21 holds more than rows 21–70:\n%s", p)
	}
	edit21 := refs(lineOf(p, "21 | User 21 "), "button", "Edit")

	// Row 500 by a selector, and its button.
	p = text(ok(t, d, tool.Input{Action: "snapshot", Task: task, Selector: "#users tbody tr:nth-child(500)"}))
	row := lineOf(p, "500 | User 500 | user500@example.com")
	edit := refs(row, "button", "Edit")
	if len(edit) != 1 || !strings.Contains(p, "… 499 earlier rows (1–499 of 1000)") {
		t.Fatalf("page from row 500:\n%.800s", p)
	}
	r := ok(t, d, tool.Input{Action: "click", Task: task, Ref: edit[0]})
	body := text(r)
	if !strings.HasPrefix(body, engine.DiffHeader) || len(body) > 2048 {
		t.Fatalf("the click's answer is not a short diff (%d bytes):\n%.3000s", len(body), body)
	}
	contains(t, body, "~ 500 | User 500 | user500@example.com | editing | button \"Edit\" [ref="+edit[0])
	contains(t, body, "Editing user 500")
	// The page shows the table from row 500 now.
	s = text(ok(t, d, tool.Input{Action: "snapshot", Task: task}))
	contains(t, s, "500 | User 500 | user500@example.com | editing")
	contains(t, s, "549 | User 549 | user549@example.com")
	if strings.Contains(s, "User 1 ") || strings.Contains(s, "User 1000 ") {
		t.Errorf("the page does not show the table from row 500:\n%s", s)
	}
	// A ref of a row out of view still names its button.
	if len(edit21) != 1 {
		t.Fatalf("no Edit ref on row 21 of the first page")
	}
	contains(t, text(ok(t, d, tool.Input{Action: "click", Task: task, Ref: edit21[0]})), "Editing user 21")
	bad(t, d, tool.Input{Action: "snapshot", Task: task, Ref: edit21[0], Selector: "tr"}, "not both")

	// A list of 200 links: 25 of them, the rest by the gap's ref; a link
	// of the next page clicked is marked current in the answer.
	s = text(nav(t, d, task, site.URL("/lists")))
	m = gapRef.FindStringSubmatch(s)
	if m == nil || m[1] != "175" || m[2] != "links" || m[3] != "21" || m[4] != "195" || m[5] != "200" {
		t.Fatalf("no line for links 21–195 in:\n%s", s)
	}
	if n := strings.Count(s, `link "Message `); n != 25 {
		t.Errorf("%d message links, want 25:\n%s", n, s)
	}
	p = text(ok(t, d, tool.Input{Action: "snapshot", Task: task, Ref: m[6]}))
	if !strings.HasPrefix(p, "list \"Messages\"\n  … 20 earlier links (1–20 of 200) [ref=") {
		t.Errorf("page from link 21:\n%.500s", p)
	}
	msg := ref(t, p, "link", "Message 60")
	if lineOf(p, `link "Message 21"`) == "" || lineOf(p, `link "Message 70"`) == "" || lineOf(p, `link "Message 71"`) != "" {
		t.Errorf("page from link 21:\n%s", p)
	}
	body = text(ok(t, d, tool.Input{Action: "click", Task: task, Ref: msg}))
	if l := lineOf(body, `link "Message 60"`); !strings.HasPrefix(l, "~ ") || !strings.HasSuffix(l, "current]") {
		t.Errorf("the clicked link's line in the answer: %q\n%s", l, body)
	}
	contains(t, body, "Showing Message 60")
}
