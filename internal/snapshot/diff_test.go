package snapshot

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const diffBase = `document "T"
  navigation "Main"
    link "Home" [ref=e1]
  main
    heading "Inbox" [level=1]
    list
      listitem: one
      listitem: two
    button "Send" [ref=e2]`

func TestDiff(t *testing.T) {
	tests := []struct {
		name      string
		prev, cur string
		want      string
	}{
		{name: "same", prev: diffBase, cur: diffBase, want: "no changes"},
		{name: "same lines", prev: diffBase, cur: diffBase + "\n", want: "no changes"},
		{name: "both empty", want: "no changes"},
		{
			name: "added",
			prev: diffBase,
			cur:  strings.Replace(diffBase, "      listitem: two", "      listitem: two\n      listitem: three", 1),
			want: `main > list:
+ listitem: three`,
		},
		{
			// A menu drawn at the end of the document, after a change
			// inside the page: the document's path once for the run, not
			// once a line (MediaWiki's dropdown repeated it for each
			// option).
			name: "added at the top after a path",
			prev: diffBase,
			cur: strings.Replace(diffBase, "      listitem: two", "      listitem: two\n      listitem: three", 1) +
				"\n  listbox [ref=e3]\n    option \"A\" [ref=e4]\n    option \"B\" [ref=e5]",
			want: `main > list:
+ listitem: three
document "T":
+ listbox [ref=e3]
+   option "A" [ref=e4]
+   option "B" [ref=e5]`,
		},
		{
			name: "removed",
			prev: diffBase,
			cur:  strings.Replace(diffBase, "    link \"Home\" [ref=e1]\n", "", 1),
			want: `navigation "Main":
- link "Home" [ref=e1]`,
		},
		{
			// Focus moved from the link to the button: the link's line
			// lost only its focus and is left out; the button shows it.
			name: "focus moved",
			prev: strings.Replace(diffBase, `link "Home" [ref=e1]`, `link "Home" [ref=e1, focused]`, 1),
			cur:  strings.Replace(diffBase, `button "Send" [ref=e2]`, `button "Send" [ref=e2, focused]`, 1),
			want: `~ button "Send" [ref=e2, focused]`,
		},
		{
			name: "focus lost, nothing else",
			prev: strings.Replace(diffBase, `button "Send" [ref=e2]`, `button "Send" [ref=e2, focused]`, 1),
			cur:  diffBase,
			want: "no changes",
		},
		{
			name: "focus lost and value changed",
			prev: strings.Replace(diffBase, `button "Send" [ref=e2]`, `textbox "To" [ref=e2, focused, value="a"]`, 1),
			cur:  strings.Replace(diffBase, `button "Send" [ref=e2]`, `textbox "To" [ref=e2, value="ab"]`, 1),
			want: `~ textbox "To" [ref=e2, value="ab"]`,
		},
		{
			name: "changed, in two places",
			prev: diffBase,
			cur: strings.NewReplacer(
				`link "Home" [ref=e1]`, `link "Home" [ref=e1, focused]`,
				`listitem: one`, `listitem: uno`,
				`button "Send" [ref=e2]`, `button "Send" [ref=e2, disabled]`,
			).Replace(diffBase),
			// Lines with refs first; a line without one replaced in
			// place is a change too, after its path.
			want: `~ link "Home" [ref=e1, focused]
~ button "Send" [ref=e2, disabled]
main > list:
~ listitem: uno`,
		},
		{
			name: "new subtree",
			prev: diffBase,
			cur:  diffBase + "\n    dialog \"Sent\"\n      button \"OK\" [ref=e3]",
			want: `main:
+ dialog "Sent"
+   button "OK" [ref=e3]`,
		},
		{
			name: "from nothing",
			cur:  "document \"A\"\n  button \"B\" [ref=e1]",
			want: "+ document \"A\"\n+   button \"B\" [ref=e1]",
		},
		{
			name: "flat interactive lists",
			prev: "document \"T\"\nbutton \"A\" [ref=e1]\nbutton \"B\" [ref=e2]",
			cur:  "document \"T\"\nbutton \"B\" [ref=e2]\nbutton \"C\" [ref=e3]",
			want: "- button \"A\" [ref=e1]\n+ button \"C\" [ref=e3]",
		},
	}
	tests = append(tests, []struct {
		name      string
		prev, cur string
		want      string
	}{
		{
			// The action's target gained the focus: it goes without saying.
			name: "target focused",
			prev: diffBase,
			cur:  strings.Replace(diffBase, `button "Send" [ref=e2]`, `button "Send" [ref=e2, focused]`, 1),
			want: "no changes",
		},
		{
			// A row of several controls has no ref of its own: that the
			// target in it gained the focus goes without saying too.
			name: "target focused",
			prev: "document \"T\"\n  table\n    1 | link \"A\" [ref=e1] | button \"Add\" [ref=e2]",
			cur:  "document \"T\"\n  table\n    1 | link \"A\" [ref=e1] | button \"Add\" [ref=e2, focused]",
			want: "no changes",
		},
		{
			// A filtered list: what it kept shows beside what it lost
			// and gained, so that the answer says what it holds now.
			name: "filtered list",
			prev: "document \"T\"\n  list \"People\"\n    listitem \"Alice\" [ref=e1]\n    listitem \"Bob\" [ref=e2]\n    listitem \"Carol\" [ref=e3]",
			cur:  "document \"T\"\n  list \"People\"\n    listitem \"Carol\" [ref=e3]\n    listitem \"Frank\" [ref=e4]",
			want: "list \"People\":\n- listitem \"Alice\" [ref=e1]\n- listitem \"Bob\" [ref=e2]\n  listitem \"Carol\" [ref=e3]\n+ listitem \"Frank\" [ref=e4]",
		},
		{
			name: "back at the top after a path",
			prev: diffBase,
			cur:  strings.Replace(diffBase, "listitem: two", "listitem: dos", 1) + "\n  contentinfo",
			want: "main > list:\n~ listitem: dos\ndocument \"T\":\n+ contentinfo",
		},
	}...)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := DiffOptions{}
			if tt.name == "target focused" {
				o.Target = "e2"
			}
			if d := cmp.Diff(tt.want, DiffWith(tt.prev, tt.cur, o)); d != "" {
				t.Errorf("Diff mismatch (-want +got):\n%s", d)
			}
		})
	}
}

// TestDiffApplies checks on many random edits that the diff's "-" and "+"
// lines turn prev into cur.
func TestDiffApplies(t *testing.T) {
	seed := uint32(1)
	rnd := func(n int) int {
		seed = seed*1664525 + 1013904223
		return int(seed>>8) % n
	}
	for range 300 {
		var prev []string
		for i := range rnd(40) {
			prev = append(prev, fmt.Sprintf("%sline %d", strings.Repeat("  ", rnd(4)), rnd(8)+i%3))
		}
		cur := append([]string(nil), prev...)
		for range rnd(10) {
			switch i := rnd(len(cur) + 1); {
			case rnd(2) == 0 && i < len(cur):
				cur = append(cur[:i], cur[i+1:]...)
			default:
				cur = append(cur[:i], append([]string{fmt.Sprintf("new %d", rnd(5))}, cur[i:]...)...)
			}
		}
		checkScript(t, prev, cur, diffLines(prev, cur))
		ids := make(map[string]int)
		intern := func(ls []string) []int {
			out := make([]int, len(ls))
			for i, l := range ls {
				if _, ok := ids[l]; !ok {
					ids[l] = len(ids)
				}
				out[i] = ids[l]
			}
			return out
		}
		checkScript(t, prev, cur, patience(intern(prev), intern(cur), 0, 0, nil))
	}
}

// checkScript fails unless ops is an edit script turning prev into cur.
func checkScript(t *testing.T, prev, cur []string, ops []diffOp) {
	t.Helper()
	var rebuilt []string
	ai, bi := 0, 0
	for _, op := range ops {
		switch op.kind {
		case opEqual:
			if op.ai != ai || op.bi != bi || prev[ai] != cur[bi] {
				t.Fatalf("bad equal op %+v at %d,%d", op, ai, bi)
			}
			rebuilt = append(rebuilt, prev[ai])
			ai++
			bi++
		case opDel:
			if op.ai != ai {
				t.Fatalf("bad delete op %+v at %d", op, ai)
			}
			ai++
		case opIns:
			if op.bi != bi {
				t.Fatalf("bad insert op %+v at %d", op, bi)
			}
			rebuilt = append(rebuilt, cur[bi])
			bi++
		}
	}
	if ai != len(prev) || bi != len(cur) || strings.Join(rebuilt, "\n") != strings.Join(cur, "\n") {
		t.Fatalf("script does not rebuild cur:\nprev %q\ncur %q\nops %+v", prev, cur, ops)
	}
}

func TestDiffLarge(t *testing.T) {
	refs := NewRefs()
	a := Build([]Frame{{Key: "m", Nodes: nodes(tableTree(1000, userCells))}}, refs, Options{All: true}).Text
	b := strings.Replace(a, "\n    500 | User 500", "\n    500 | Renamed", 1)
	got := Diff(a, b)
	want := `~ 500 | Renamed | user500@example.com | active | button "Edit" [ref=e500]`
	if got != want {
		t.Errorf("Diff = %q, want %q", got, want)
	}
	// Everything changed: past the edit limit, still a correct answer.
	c := strings.ReplaceAll(a, " | ", " ¦ ")
	got = Diff(a, c)
	// The rows keep their refs: each is one changed line; the header
	// row has none, and is a line replaced in place.
	if n := strings.Count("\n"+got, "\n~ "); n != 1001 {
		t.Errorf("%d changed lines, want 1001", n)
	}
	if n, m := strings.Count(got, "\n- "), strings.Count(got, "\n+ "); n != 0 || m != 0 {
		t.Errorf("%d removed and %d added lines, want none", n, m)
	}
}
