package snapshot

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// rowKey is the key of row i (from 1) of a tableTree.
func rowKey(t *testing.T, ns []Node, i int) Key {
	t.Helper()
	prefix := strconv.Itoa(i) + " "
	for _, n := range ns {
		if n.Role == "row" && strings.HasPrefix(n.Name, prefix) {
			return Key{"m", n.BackendID}
		}
	}
	t.Fatalf("no row %d", i)
	return Key{}
}

// rowLines are the printed rows of a table snapshot, by their first cell.
func rowLines(text string) []int {
	var out []int
	for _, l := range strings.Split(text, "\n") {
		first, _, ok := strings.Cut(strings.TrimSpace(l), " | ")
		if n, err := strconv.Atoi(first); ok && err == nil {
			out = append(out, n)
		}
	}
	return out
}

func span(from, to int) []int {
	var out []int
	for i := from; i <= to; i++ {
		out = append(out, i)
	}
	return out
}

// TestLongLists: a table of 1,000 rows prints its first 20 and last 5 rows
// and one line for the 975 others, whose ref is the 21st row's; the refs of
// the rows left out are assigned all the same. 50 rows print whole, 51 do
// not.
func TestLongLists(t *testing.T) {
	ns := nodes(tableTree(1000, userCells))
	refs := NewRefs()
	got := Build([]Frame{{Key: "m", Nodes: ns}}, refs, Options{})
	if d := cmp.Diff(append(span(1, 20), span(996, 1000)...), rowLines(got.Text)); d != "" {
		t.Errorf("rows printed (-want +got):\n%s", d)
	}
	gap := "\n    … 975 more rows (21–995 of 1000) [ref=e1001]: snapshot with this ref to see them\n"
	if !strings.Contains(got.Text, gap) {
		t.Errorf("no line %q in:\n%s", gap, got.Text)
	}
	if !strings.HasPrefix(got.Text, "document \"Users\"\n  heading \"Users\" [level=1]\n  table\n    columns: # | Name | Email | Status | Action\n    1 | User 1 |") {
		t.Errorf("head:\n%.300s", got.Text)
	}
	if got.Refs != 26 || strings.Count(got.Text, "[ref=") != 26 {
		t.Errorf("Refs = %d, want 26 (25 Edit buttons and the gap line)", got.Refs)
	}
	if n := len(got.Text); n > 3000 {
		t.Errorf("the 1,000-row table is %d bytes, want ≤ 3,000", n)
	}
	if k, _, ok := refs.Lookup("e1001"); !ok || k != rowKey(t, ns, 21) {
		t.Errorf("the gap line's ref names %v, want row 21 (%v)", k, rowKey(t, ns, 21))
	}
	// Row 500's button has its ref, though it is not printed.
	if k, _, ok := refs.Lookup("e500"); !ok || k.Backend == 0 {
		t.Errorf("the Edit button of row 500 has no ref")
	}
	if !got.WholePage || len(got.Windows) != 0 {
		t.Errorf("WholePage %v, Windows %v", got.WholePage, got.Windows)
	}
	// Printed whole on request.
	if all := Build([]Frame{{Key: "m", Nodes: ns}}, refs, Options{All: true}); all.Refs != 1000 {
		t.Errorf("All printed %d refs, want 1000", all.Refs)
	}

	for rows, want := range map[int]string{50: "", 51: "… 26 more rows (21–46 of 51)"} {
		got := Build([]Frame{{Key: "m", Nodes: nodes(tableTree(rows, userCells))}}, NewRefs(), Options{})
		if want == "" && strings.Contains(got.Text, "…") {
			t.Errorf("%d rows summarised:\n%s", rows, got.Text)
		}
		if want != "" && !strings.Contains(got.Text, want) {
			t.Errorf("%d rows: no %q in:\n%s", rows, want, got.Text)
		}
	}
}

// TestLongListPage: a snapshot of an item of a long list is the list from
// that item, 50 items, with lines for those before and after; the whole
// page then shows the list from there (Windows), and Before is the page as
// it printed. A node in no long list is shown as with Root.
func TestLongListPage(t *testing.T) {
	ns := nodes(tableTree(1000, userCells))
	frames := []Frame{{Key: "m", Nodes: ns}}
	refs := NewRefs()
	plain := Build(frames, refs, Options{})
	k21, _, _ := refs.Lookup("e1001")

	got := Build(frames, refs, Options{Page: &k21})
	want := "table\n  columns: # | Name | Email | Status | Action\n" +
		"  … 20 earlier rows (1–20 of 1000) [ref=e1002]: snapshot with this ref to see them\n" +
		"  21 | User 21 | user21@example.com | disabled | button \"Edit\" [ref=e21]\n"
	if !strings.HasPrefix(got.Text, want) {
		t.Errorf("page text starts\n%.400s\nwant\n%s", got.Text, want)
	}
	if !strings.HasSuffix(got.Text, "\n  … 930 more rows (71–1000 of 1000) [ref=e1003]: snapshot with this ref to see them") {
		t.Errorf("page text ends:\n%s", got.Text[max(0, len(got.Text)-300):])
	}
	if d := cmp.Diff(span(21, 70), rowLines(got.Text)); d != "" {
		t.Errorf("rows (-want +got):\n%s", d)
	}
	if got.Refs != 52 {
		t.Errorf("Refs = %d, want 52", got.Refs)
	}
	if k, _, _ := refs.Lookup("e1002"); k != rowKey(t, ns, 1) {
		t.Errorf("the earlier line's ref is not row 1's")
	}
	if k, _, _ := refs.Lookup("e1003"); k != rowKey(t, ns, 71) {
		t.Errorf("the later line's ref is not row 71's")
	}
	if got.Before != plain.Text {
		t.Errorf("Before is not the page as it printed:\n%s", got.Before)
	}
	if !got.WholePage || !cmp.Equal(got.Windows, []Key{k21}) {
		t.Errorf("WholePage %v, Windows %v, want [%v]", got.WholePage, got.Windows, k21)
	}
	// The page with that window is Whole; its table is the page text.
	again := Build(frames, refs, Options{Windows: got.Windows})
	if again.Text != got.Whole {
		t.Errorf("the page with the window differs from Whole:\n%s\n---\n%s", again.Text, got.Whole)
	}
	if !strings.Contains(again.Text, strings.ReplaceAll("\n"+got.Text, "\n", "\n  ")) {
		t.Errorf("the page does not hold the list as paged:\n%s", again.Text)
	}
	if d := cmp.Diff(span(21, 70), rowLines(again.Text)); d != "" {
		t.Errorf("rows of the page (-want +got):\n%s", d)
	}

	// Near the end: the last 50. At the start: no earlier line. A later
	// page wins over an older window.
	k1000 := rowKey(t, ns, 1000)
	got = Build(frames, refs, Options{Windows: []Key{k21}, Page: &k1000})
	if d := cmp.Diff(span(951, 1000), rowLines(got.Text)); d != "" {
		t.Errorf("rows near the end (-want +got):\n%s", d)
	}
	if !strings.Contains(got.Text, "  … 950 earlier rows (1–950 of 1000) [ref=") || strings.Contains(got.Text, "more rows") {
		t.Errorf("page at the end:\n%.300s", got.Text)
	}
	if !cmp.Equal(got.Windows, []Key{k1000}) {
		t.Errorf("Windows %v, want only row 1000's", got.Windows)
	}
	k1 := rowKey(t, ns, 1)
	got = Build(frames, refs, Options{Page: &k1})
	if d := cmp.Diff(span(1, 50), rowLines(got.Text)); d != "" || strings.Contains(got.Text, "earlier") {
		t.Errorf("rows from the start (-want +got):\n%s\n%s", d, got.Text)
	}

	// Not in a long list: scoped as with Root — a control inside a row, a
	// heading, an item of a short list.
	edit, _, _ := refs.Lookup("e500")
	got = Build(frames, refs, Options{Page: &edit})
	if got.Text != `button "Edit" [ref=e500]` || got.WholePage || got.Whole != "" {
		t.Errorf("page of a control in a row: %+v", got)
	}
	short := []Frame{{Key: "m", Nodes: nodes(tableTree(10, userCells))}}
	k3 := rowKey(t, short[0].Nodes, 3)
	got = Build(short, NewRefs(), Options{Page: &k3})
	if !strings.HasPrefix(got.Text, "row: 3 | User 3 |") {
		t.Errorf("page of a row of a short table: %q", got.Text)
	}
	missing := Key{"m", 99999}
	if got := Build(frames, refs, Options{Page: &missing}); got.Text != NotFound {
		t.Errorf("page of a missing node: %q", got.Text)
	}
}

// TestLongListKinds: lists of items, of links (items holding one link),
// options, in interactive mode and under a depth limit; runs broken by
// another role are not summarised.
func TestLongListKinds(t *testing.T) {
	var items, links, opts, mixed []tn
	for i := 1; i <= 120; i++ {
		s := fmt.Sprintf("Item %d", i)
		items = append(items, n("listitem", "", txt(s)))
		links = append(links, n("listitem", "", n("link", s, txt(s)).p("url", "http://h/"+strconv.Itoa(i))))
		opts = append(opts, n("option", s, txt(s)))
		if i%40 == 0 {
			mixed = append(mixed, n("heading", s, txt(s)))
		} else {
			mixed = append(mixed, n("listitem", "", txt(s)))
		}
	}
	tree := doc("Lists",
		n("list", "Items", items...),
		n("list", "Links", links...),
		n("listbox", "Pick", opts...),
		n("list", "Mixed", mixed...),
	)
	refs := NewRefs()
	got := Build([]Frame{{Key: "m", Nodes: nodes(tree)}}, refs, Options{Origin: "http://h"})
	for _, want := range []string{
		"\n    listitem \"Item 20\" [ref=e20]\n    … 95 more items (21–115 of 120) [ref=e21]: snapshot with this ref to see them\n    listitem \"Item 116\" [ref=e116]\n",
		"\n    link \"Item 20\" [ref=e140, href=\"/20\"]\n    … 95 more links (21–115 of 120) [ref=e141]: snapshot with this ref to see them\n",
		"\n    … 95 more options (21–115 of 120) [ref=e262]",
		"\n    listitem \"Item 39\" [ref=e400]\n    heading \"Item 40\"\n",
	} {
		if !strings.Contains(got.Text, want) {
			t.Errorf("no %q in:\n%s", want, got.Text)
		}
	}
	if n := strings.Count(got.Text, "…"); n != 3 {
		t.Errorf("%d gap lines, want 3 (the mixed list prints whole)", n)
	}

	// Interactive: the gap line among the refs.
	got = Build([]Frame{{Key: "m", Nodes: nodes(tree)}}, refs, Options{Interactive: true})
	if !strings.Contains(got.Text, "\nlistitem \"Item 20\" [ref=e20]\n… 95 more items (21–115 of 120) [ref=e21]: snapshot with this ref to see them\nlistitem \"Item 116\" [ref=e116]\n") {
		t.Errorf("interactive:\n%.1500s", got.Text)
	}
	if n := strings.Count(got.Text, "[ref="); n != got.Refs {
		t.Errorf("Refs = %d, text has %d", got.Refs, n)
	}
	// Depth: the hidden count is what would print.
	got = Build([]Frame{{Key: "m", Nodes: nodes(tableTree(1000, userCells))}}, NewRefs(), Options{Depth: 1})
	if !strings.Contains(got.Text, "\n  table [+27 hidden]\n") {
		t.Errorf("depth 1:\n%s", got.Text)
	}
}

// TestCurrent: aria-current, read from the DOM (Frame.Current), prints as
// current on the element's line, after href as source 001 shows it.
func TestCurrent(t *testing.T) {
	tree := doc("Matrix OS - Settings",
		n("navigation", "Main",
			n("link", "Home", txt("Home")).p("url", "http://h/").be(10),
			n("link", "Settings", txt("Settings")).p("url", "http://h/settings").be(11),
		),
		n("list", "Steps",
			n("listitem", "", txt("Cart")).be(20),
			n("listitem", "", txt("Pay")).be(21),
		),
	)
	got := Build([]Frame{{Key: "m", Nodes: nodes(tree), Current: map[int64]bool{11: true, 21: true, 99: true}}},
		NewRefs(), Options{Origin: "http://h"}).Text
	want := `document "Matrix OS - Settings"
  navigation "Main"
    link "Home" [ref=e1, href="/"]
    link "Settings" [ref=e2, href="/settings", current]
  list "Steps"
    listitem "Cart" [ref=e3]
    listitem "Pay" [ref=e4, current]`
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// TestLongListPatch: a tree patched with a changed row prints as the whole
// new tree does, summarised or paged, with the same current marks.
func TestLongListPatch(t *testing.T) {
	old := nodes(tableTree(1000, userCells))
	// The new tree: rows 10 and 500 renamed, row 500 current.
	cur := nodes(tableTree(1000, func(i int) [4]string {
		c := userCells(i)
		if i == 10 || i == 500 {
			c[1] = "Renamed"
		}
		return c
	}))
	var ch Change
	for _, i := range []int{10, 500} {
		k := rowKey(t, cur, i)
		var sub []Node
		for j, n := range cur {
			if n.BackendID == k.Backend {
				// The row and its cells: the row's subtree, in order.
				sub = append(sub, cur[j])
				for m := j + 1; m < len(cur) && cur[m].ParentID != cur[j].ParentID; m++ {
					sub = append(sub, cur[m])
				}
				break
			}
		}
		ch.Subtrees = append(ch.Subtrees, sub)
	}
	patched, err := Patch(old, ch)
	if err != nil {
		t.Fatal(err)
	}
	k500 := rowKey(t, cur, 500)
	current := map[int64]bool{k500.Backend: true}
	refs := NewRefs()
	for _, opt := range []Options{{}, {Windows: []Key{rowKey(t, cur, 480)}}, {All: true}, {Interactive: true}} {
		w := Build([]Frame{{Key: "m", Nodes: cur, Current: current}}, refs, opt)
		p := Build([]Frame{{Key: "m", Nodes: patched, Current: current}}, refs, opt)
		if w.Text != p.Text || w.Refs != p.Refs {
			t.Errorf("%+v: patched differs from whole:\n%s", opt, Diff(w.Text, p.Text))
		}
	}
	paged := Build([]Frame{{Key: "m", Nodes: patched, Current: current}}, refs, Options{Windows: []Key{rowKey(t, cur, 480)}}).Text
	if !strings.Contains(paged, "\n    500 | Renamed | user500@example.com | active | button \"Edit\" [ref=e500] [current]\n") {
		t.Errorf("row 500 not in the window:\n%s", paged)
	}
}
