package snapshot

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// page is a small page used by the option tests.
func page() []Frame {
	return []Frame{
		{Key: "m", Nodes: nodes(doc("Settings",
			n("navigation", "Main",
				n("link", "Home", txt("Home")).p("url", "http://h/"),
				n("link", "Settings", txt("Settings")).p("url", "http://h/settings"),
			),
			n("main", "",
				n("heading", "Settings", txt("Settings")).p("level", "1"),
				n("region", "Profile",
					n("textbox", "Display name").val("Hamed"),
					n("button", "Save", txt("Save")),
				).be(300),
				n("Iframe", "Widget").be(400),
			),
		))},
		{Key: "w", ParentKey: "m", OwnerBackendID: 400, Nodes: nodes(doc("Widget",
			n("generic", "", n("checkbox", "Agree")).be(20),
		))},
	}
}

func TestOptions(t *testing.T) {
	tests := []struct {
		name string
		opt  Options
		want string
	}{
		{
			name: "full",
			opt:  Options{Origin: "http://h"},
			want: `document "Settings"
  navigation "Main"
    link "Home" [ref=e1, href="/"]
    link "Settings" [ref=e2, href="/settings"]
  main
    heading "Settings" [level=1]
    region "Profile"
      textbox "Display name" [ref=e3, value="Hamed"]
      button "Save" [ref=e4]
    iframe "Widget"
      checkbox "Agree" [ref=e5]`,
		},
		{
			name: "interactive",
			opt:  Options{Interactive: true},
			want: `document "Settings"
link "Home" [ref=e1, href="http://h/"]
link "Settings" [ref=e2, href="http://h/settings"]
textbox "Display name" [ref=e3, value="Hamed"]
button "Save" [ref=e4]
checkbox "Agree" [ref=e5]`,
		},
		{
			name: "depth",
			opt:  Options{Depth: 2, Origin: "http://h"},
			want: `document "Settings"
  navigation "Main"
    link "Home" [ref=e1, href="/"]
    link "Settings" [ref=e2, href="/settings"]
  main
    heading "Settings" [level=1]
    region "Profile" [+2 hidden]
    iframe "Widget" [+1 hidden]
[3 lines deeper than depth=2 not shown (see [+N hidden]) — call snapshot with a larger depth or a selector="…"]`,
		},
		{
			name: "interactive depth",
			opt:  Options{Interactive: true, Depth: 2},
			want: `document "Settings"
link "Home" [ref=e1, href="http://h/"]
link "Settings" [ref=e2, href="http://h/settings"]
[3 refs deeper than depth=2 not shown — call snapshot with a larger depth or a selector="…"]`,
		},
		{
			name: "root scope",
			opt:  Options{Root: &Key{"m", 300}},
			want: `region "Profile"
  textbox "Display name" [ref=e1, value="Hamed"]
  button "Save" [ref=e2]`,
		},
		{
			name: "root scope on an iframe and a folded node",
			opt:  Options{Root: &Key{"m", 400}},
			want: `iframe "Widget"
  checkbox "Agree" [ref=e1]`,
		},
		{
			name: "root scope in a child frame",
			opt:  Options{Root: &Key{"w", 20}},
			want: `generic
  checkbox "Agree" [ref=e1]`,
		},
		{
			name: "root not found",
			opt:  Options{Root: &Key{"m", 999}},
			want: NotFound,
		},
		{
			name: "root in another frame's id space",
			opt:  Options{Root: &Key{"w", 300}},
			want: NotFound,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Build(page(), NewRefs(), tt.opt)
			if d := cmp.Diff(tt.want, got.Text); d != "" {
				t.Errorf("text mismatch (-want +got):\n%s\ngot:\n%s", d, got.Text)
			}
			if want := strings.Count(tt.want, "[ref="); got.Refs != want {
				t.Errorf("Refs = %d, want %d", got.Refs, want)
			}
		})
	}
}

func TestMaxChars(t *testing.T) {
	frames := []Frame{{Key: "m", Nodes: nodes(tableTree(200, userCells))}}
	full := Build(frames, NewRefs(), Options{All: true})
	fullLines := strings.Count(full.Text, "\n") + 1
	for _, max := range []int{1, 20, 100, 180, 181, 250, 1000, 4000, len(full.Text) - 1, len(full.Text), len(full.Text) + 100} {
		t.Run(fmt.Sprint(max), func(t *testing.T) {
			refs := NewRefs()
			got := Build(frames, refs, Options{MaxChars: max, All: true})
			if len(got.Text) > max {
				t.Fatalf("len(Text) = %d > MaxChars %d:\n%s", len(got.Text), max, got.Text)
			}
			if max >= len(full.Text) {
				if got.Text != full.Text || got.Refs != full.Refs || got.Omitted != 0 {
					t.Fatalf("uncut text differs from the full one")
				}
				return
			}
			if got.Omitted == 0 {
				t.Errorf("Omitted = 0 for a cut text")
			}
			if max < 160 {
				return // too small for the full note
			}
			lines := strings.Split(got.Text, "\n")
			note := lines[len(lines)-1]
			wantNote := fmt.Sprintf("[snapshot cut at %d chars: %d more lines with %d refs not shown — call snapshot with a larger maxChars, depth, selector=\"…\", or interactive=true]",
				max, got.Omitted, full.Refs-got.Refs)
			if note != wantNote {
				t.Errorf("note = %q, want %q", note, wantNote)
			}
			shown := lines[:len(lines)-1]
			if len(shown)+got.Omitted != fullLines {
				t.Errorf("%d shown + %d omitted lines != %d", len(shown), got.Omitted, fullLines)
			}
			if !strings.HasPrefix(full.Text, strings.Join(shown, "\n")) {
				t.Errorf("the cut text is not a prefix of the full text")
			}
			if n := strings.Count(got.Text, "[ref="); n != got.Refs {
				t.Errorf("Refs = %d, text has %d", got.Refs, n)
			}
			// Refs of the omitted nodes were assigned all the same.
			if _, _, ok := refs.Lookup(fmt.Sprintf("e%d", full.Refs)); !ok {
				t.Errorf("the last ref was not assigned")
			}
		})
	}
}

func TestMaxCharsWithDepth(t *testing.T) {
	frames := []Frame{{Key: "m", Nodes: nodes(tableTree(50, userCells))}}
	got := Build(frames, NewRefs(), Options{MaxChars: 300, Depth: 2})
	if len(got.Text) > 300 || !strings.Contains(got.Text, "[snapshot cut at 300 chars") {
		t.Fatalf("got %d bytes:\n%s", len(got.Text), got.Text)
	}
	if strings.Contains(got.Text, "deeper than depth") {
		t.Errorf("the depth note survived the cut:\n%s", got.Text)
	}
}

func TestRefsAcrossBuilds(t *testing.T) {
	refs := NewRefs()
	base := doc("T", n("button", "A", txt("A")).be(10), n("link", "B").be(11))
	first := Build([]Frame{{Key: "m", Nodes: nodes(base)}}, refs, Options{Owner: "tab1"})
	again := Build([]Frame{{Key: "m", Nodes: nodes(base)}}, refs, Options{Owner: "tab1"})
	if first.Text != again.Text || first.Refs != again.Refs {
		t.Fatalf("same tree, same refs: got\n%s\nthen\n%s", first.Text, again.Text)
	}
	// A new node before the others gets a new ref; the others keep theirs.
	grown := doc("T", n("button", "New").be(9), n("button", "A", txt("A")).be(10), n("link", "B").be(11))
	got := Build([]Frame{{Key: "m", Nodes: nodes(grown)}}, refs, Options{Owner: "tab1"}).Text
	want := `document "T"
  button "New" [ref=e3]
  button "A" [ref=e1]
  link "B" [ref=e2]`
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("after adding a node (-want +got):\n%s", d)
	}
	if k, owner, ok := refs.Lookup("e3"); !ok || k != (Key{"m", 9}) || owner != "tab1" {
		t.Errorf("Lookup(e3) = %v, %q, %v", k, owner, ok)
	}
	// Another tab's frame does not disturb them.
	Build([]Frame{{Key: "other", Nodes: nodes(base)}}, refs, Options{Owner: "tab2"})
	// The document is replaced: its refs are forgotten and never reused.
	refs.Forget("tab1", "m")
	for _, r := range []string{"e1", "e2", "e3"} {
		if _, _, ok := refs.Lookup(r); ok {
			t.Errorf("Lookup(%s) still works after Forget", r)
		}
	}
	if _, _, ok := refs.Lookup("e4"); !ok {
		t.Errorf("Forget dropped another tab's ref")
	}
	got = Build([]Frame{{Key: "m", Nodes: nodes(base)}}, refs, Options{Owner: "tab1"}).Text
	want = `document "T"
  button "A" [ref=e6]
  link "B" [ref=e7]`
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("after Forget (-want +got):\n%s", d)
	}
	refs.ForgetOwner("tab2")
	if _, _, ok := refs.Lookup("e4"); ok || refs.Len() != 2 {
		t.Errorf("ForgetOwner left e4 (Len %d)", refs.Len())
	}
	if _, _, ok := refs.Lookup("x1"); ok {
		t.Errorf("Lookup of an unknown ref succeeded")
	}
}

func TestRefsConcurrent(t *testing.T) {
	refs := NewRefs()
	const workers, keys = 8, 500
	got := make([][]string, workers)
	done := make(chan int)
	for w := range workers {
		go func() {
			for i := range keys {
				got[w] = append(got[w], refs.Assign(Key{"f", int64(i)}, "t"))
			}
			done <- w
		}()
	}
	for range workers {
		<-done
	}
	seen := make(map[string]bool)
	for i := range keys {
		r := got[0][i]
		for w := range workers {
			if got[w][i] != r {
				t.Fatalf("key %d: worker %d got %s, worker 0 %s", i, w, got[w][i], r)
			}
		}
		if seen[r] {
			t.Fatalf("ref %s handed out twice", r)
		}
		seen[r] = true
	}
}

// TestLargeTable checks the product target: a 1,000-row table with an Edit
// button per row fits in 75 KB printed whole (Options.All; by default its
// rows are summarised, see TestLongLists). The format costs about 41 bytes a row on top
// of the cell texts (see TestTableOverhead), so the target holds for rows
// with up to about 34 bytes of cell text, like "17 | Eve | u17@x.io | on";
// "17 | User 17 | user17@example.com | active" rows take about 77 KB.
func TestLargeTable(t *testing.T) {
	refs := NewRefs()
	got := Build([]Frame{{Key: "m", Nodes: nodes(tableTree(1000, shortCells))}}, refs, Options{All: true})
	if len(got.Text) >= 75000 {
		t.Errorf("1,000-row table is %d bytes, want < 75,000", len(got.Text))
	}
	if n := strings.Count(got.Text, `[ref=`); n != 1000 || got.Refs != 1000 {
		t.Errorf("%d Edit refs (Refs %d), want 1000", n, got.Refs)
	}
	for _, want := range []string{
		"\n    columns: # | Name | Email | Status | Action\n",
		"\n    17 | Cy | u17@x.io | on | button \"Edit\" [ref=e17]\n",
	} {
		if !strings.Contains(got.Text, want) {
			t.Errorf("missing %q", want)
		}
	}
	t.Logf("1,000-row table: %d bytes", len(got.Text))
}

// TestTableOverhead bounds what the format adds to the cell texts of a table
// row with one action: the row's indentation, the " | " separators, the
// action printed whole (button "Edit" [ref=eN]) and the newline (about 41
// bytes for refs e1..e1000).
func TestTableOverhead(t *testing.T) {
	const rows = 1000
	got := Build([]Frame{{Key: "m", Nodes: nodes(tableTree(rows, userCells))}}, NewRefs(), Options{All: true})
	cellBytes := 0
	for i := 1; i <= rows; i++ {
		for _, c := range userCells(i) {
			cellBytes += len(c)
		}
	}
	perRow := float64(len(got.Text)-cellBytes) / rows
	t.Logf("%d rows: %d bytes, %d of cell text, %.1f bytes of format a row", rows, len(got.Text), cellBytes, perRow)
	if perRow > 45 {
		t.Errorf("the format costs %.1f bytes a row, want at most 45", perRow)
	}
}
