package snapshot

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func frame(root tn) []Frame { return []Frame{{Key: "m", Nodes: nodes(root)}} }

func TestBuild(t *testing.T) {
	tests := []struct {
		name   string
		frames []Frame
		opt    Options
		want   string
	}{
		{
			name: "folding",
			frames: frame(doc("T",
				n("generic", "",
					n("none", "", n("presentation", "", n("heading", "H", txt("H")).p("level", "2"))),
					n("group", "", txt("in group")),
					n("group", "Named", txt("x")),
					n("section", "", n("LineBreak", ""), n("ListMarker", "", txt("•")), n("StaticText", "kept", n("InlineTextBox", "kept"))),
					n("paragraph", "", txt("one child")),
					n("paragraph", "", txt("two "), n("link", "kids", txt("kids"))),
					n("paragraph", ""),
					n("generic", "has a name but no ref", txt("child")),
				).ign(),
				n("main", "", n("article", "", txt("a"), n("image", "logo"))),
			)),
			want: `document "T"
  heading "H" [level=2]
  text "in group"
  group "Named"
    text "x"
  text "kept"
  text "one child"
  paragraph
    text "two"
    link "kids" [ref=e1]
  text "child"
  main
    article
      text "a"
      img "logo" [ref=e2]`,
		},
		{
			name: "text dedupe and merge",
			frames: frame(doc("T",
				n("button", "Save", txt("Save")),
				n("link", "Hello world", n("generic", "", txt("Hello ")), n("strong", "", txt("world"))),
				n("link", "Icon", n("image", "Icon"), txt("Icon")),
				n("heading", "Head", txt("Head "), txt("extra")),
				n("LabelText", "", txt("Email")),
				n("textbox", "Email"),
				txt("a"), txt("b"), txt("$"), txt("9.99"), n("generic", "", txt("c")),
			)),
			want: `document "T"
  button "Save" [ref=e1]
  link "Hello world" [ref=e2]
  link "Icon" [ref=e3]
    img "Icon"
  heading "Head"
    text "Head extra"
  textbox "Email" [ref=e4]
  text "ab$9.99"
  text "c"`,
		},
		{
			name: "attributes in order",
			frames: frame(doc("T",
				n("checkbox", "All").p("checked", "mixed", "disabled", "true", "required", "true", "focused", "true", "invalid", "true"),
				n("checkbox", "Off").p("checked", "false"),
				n("radio", "R").p("checked", "true", "readonly", "true"),
				n("option", "O").p("selected", "true"),
				n("option", "Not").p("selected", "false"),
				n("button", "Bold").p("pressed", "true", "expanded", "false"),
				n("button", "Half").p("pressed", "mixed", "expanded", "true"),
				n("combobox", "Country").val("France").p("expanded", "false", "invalid", "false"),
				n("slider", "Volume").val("50").p("valuetext", "50 percent"),
				n("spinbutton", "Qty").val("3"),
				n("searchbox", "Find").descr("Search…"),
				n("textbox", "Empty").val("  "),
				n("heading", "H", txt("H")).p("level", "4", "focused", "true"),
				n("link", "Ext", txt("Ext")).p("url", "https://example.com/a?b#c", "focused", "true"),
				n("link", "Same", txt("Same")).p("url", "http://127.0.0.1:8080?q=1"),
				n("link", "Other port").p("url", "http://127.0.0.1:8081/x"),
				n("tab", "Tab", txt("Tab")).p("selected", "true", "current", "page"),
			).p("focused", "true")),
			opt: Options{Origin: "http://127.0.0.1:8080/"},
			want: `document "T"
  checkbox "All" [ref=e1, checked=mixed, disabled, required, invalid, focused]
  checkbox "Off" [ref=e2]
  radio "R" [ref=e3, checked, readonly]
  option "O" [ref=e4, selected]
  option "Not" [ref=e5]
  button "Bold" [ref=e6, pressed, collapsed]
  button "Half" [ref=e7, pressed=mixed, expanded]
  combobox "Country" [ref=e8, collapsed, value="France"]
  slider "Volume" [ref=e9, value="50 percent"]
  spinbutton "Qty" [ref=e10, value="3"]
  searchbox "Find" [ref=e11, placeholder="Search…"]
  textbox "Empty" [ref=e12]
  heading "H" [level=4, focused]
  link "Ext" [ref=e13, focused, href="https://example.com/a?b#c"]
  link "Same" [ref=e14, href="/?q=1"]
  link "Other port" [ref=e15, href="http://127.0.0.1:8081/x"]
  tab "Tab" [ref=e16, selected, current]`,
		},
		{
			name: "a field's text is its value",
			frames: frame(doc("F",
				n("textbox", "Name", n("generic", "", txt("Ada Lovelace")).ign()).val("Ada Lovelace"),
				n("textbox", "Note", txt("other text")).val("typed"),
			)),
			want: `document "F"
  textbox "Name" [ref=e1, value="Ada Lovelace"]
  textbox "Note" [ref=e2, value="typed"]
    text "other text"`,
		},
		{
			name: "escaping",
			frames: frame(doc("say \"hi\"\n\tback\\slash",
				n("textbox", "multi\nline").val("a\r\nb   c"),
				n("button", strings.Repeat("x", 250)),
				n("button", "ctl\x00é😀"),
				n("listitem", "", txt("cell \"raw\"\x01 \n text")),
			)),
			want: `document "say \"hi\" back\\slash"
  textbox "multi line" [ref=e1, value="a b c"]
  button "` + strings.Repeat("x", 200) + `…" [ref=e2] [+50 chars: extract ref=e2 to read all]
  button "ctl\x00é😀" [ref=e3]
  listitem "cell \"raw\"\x01 text" [ref=e4]`,
		},
		{
			name: "refs: focusable, backend ids, clickable",
			frames: []Frame{{Key: "m", Nodes: nodes(doc("T",
				n("generic", "").focusable(),
				n("generic", "Named scroller", txt("inside")).focusable(),
				n("region", "Panel", txt("p")).focusable(),
				n("button", "No DOM").be(-1),
				n("Iframe", "Frame").focusable(),
				n("generic", "", txt("Click me")).be(100),
				n("none", "", txt("Ignored click")).ign().be(101),
				n("listitem", "", txt("Clickable item")).be(102),
				n("link", "Card", n("generic", "", txt("Card")).be(103)).p("url", "/card"),
				n("generic", "", n("button", "Inner", txt("Inner"))).be(104),
				n("button", "Off", txt("Off")).p("disabled", "true"),
			)), Clickable: map[int64]bool{100: true, 101: true, 102: true, 103: true, 104: true}}},
			want: `document "T"
  generic "Named scroller" [ref=e1]
    text "inside"
  region "Panel" [ref=e2]
    text "p"
  button "No DOM"
  iframe "Frame"
  clickable "Click me" [ref=e3]
  clickable "Ignored click" [ref=e4]
  listitem "Clickable item" [ref=e5]
  link "Card" [ref=e6, href="/card"]
  clickable [ref=e7]
    button "Inner" [ref=e8]
  button "Off" [ref=e9, disabled]`,
		},
		{
			name: "icon fonts and hints: a private-use glyph is no name; a control without a name shows its hint",
			frames: []Frame{{Key: "m", Nodes: nodes(doc("T",
				n("button", "\uf1f8", txt("\uf1f8")).be(200),
				n("button", "\uf0c7 Save", txt("\uf0c7 Save")).be(201),
				n("link", "").be(202).p("url", "/cart"),
				n("button", "Named").be(203),
				n("button", "").be(204),
			)), Hints: map[int64]string{200: "trash", 201: "floppy", 202: "cart", 203: "ignored", 204: `q"uote`}}},
			want: `document "T"
  button [ref=e1, hint="trash"]
  button "Save" [ref=e2]
  link [ref=e3, hint="cart", href="/cart"]
  button "Named" [ref=e4]
  button [ref=e5, hint="q\"uote"]`,
		},
		{
			name: "iframes: same frame content, child frame, orphans",
			frames: []Frame{
				{Key: "main", Nodes: nodes(doc("Top",
					n("Iframe", "Same", doc("Same-process", n("button", "A", txt("A")))).be(50),
					n("Iframe", "Child").be(60),
					n("button", "After", txt("After")),
				))},
				{Key: "orphan-child", ParentKey: "orphan", OwnerBackendID: 7, Nodes: nodes(doc("Nested orphan"))},
				{Key: "child", ParentKey: "main", OwnerBackendID: 60, Nodes: nodes(doc("Child doc",
					n("Iframe", "").be(70),
					n("button", "B", txt("B")),
				))},
				{Key: "grandchild", ParentKey: "child", OwnerBackendID: 70, Nodes: nodes(doc("Grand", n("link", "C")))},
				{Key: "orphan", ParentKey: "gone", OwnerBackendID: 1, Nodes: nodes(doc("Orphan",
					n("Iframe", "").be(7),
					n("button", "B", txt("B")),
				))},
			},
			want: `document "Top"
  iframe "Same"
    document "Same-process"
      button "A" [ref=e1]
  iframe "Child"
    document "Child doc"
      iframe
        document "Grand"
          link "C" [ref=e2]
      button "B" [ref=e3]
  button "After" [ref=e4]
  iframe
    document "Orphan"
      iframe
        document "Nested orphan"
      button "B" [ref=e5]`,
		},
		{
			name: "tables and lists",
			frames: frame(doc("T",
				n("table", "People",
					n("rowgroup", "",
						n("row", "Name Age", n("columnheader", "Name", txt("Name")), n("columnheader", "Age", txt("Age")), n("columnheader", "", txt("Do"))),
					),
					n("rowgroup", "",
						n("row", "Ann 31", n("cell", "Ann", txt("Ann")), n("cell", "31", txt("31"))),
						n("row", "", n("cell", "", n("generic", "", txt("Bob"))), n("cell", "", txt("  ")), n("cell", "Edit Del",
							n("button", "Edit", txt("Edit")), n("button", "Del", txt("Del")))),
						n("row", "", n("cell", "", n("checkbox", "").p("checked", "true")), n("cell", "Cy", n("link", "Cy", txt("Cy")).p("url", "/cy")), n("cell", "x", txt("x"))),
						n("row", "", n("cell", "ok", n("image", "ok"))).p("selected", "true").be(500),
						n("row", "", n("cell", "")),
					),
				),
				n("list", "",
					n("listitem", "", txt("one")),
					n("listitem", "", txt("two "), txt("parts")),
					n("listitem", "", n("link", "three", txt("three"))),
				),
			)),
			want: `document "T"
  table "People"
    columns: Name | Age | Do
    Ann | 31
    Bob |  | button "Edit" [ref=e1] button "Del" [ref=e2]
    checkbox [ref=e3, checked] | link "Cy" [ref=e4, href="/cy"] | x
    img "ok" [ref=e5] [selected]
    row
  list
    listitem "one" [ref=e6]
    listitem "two parts" [ref=e7]
    link "three" [ref=e8]`,
		},
		{
			// A grid of product cards keeps each card, so the third "Add"
			// goes with the third product; a lone row of text and a field
			// is folded; "$" and "29.99", two text nodes of one element,
			// read as one run.
			name: "groups",
			frames: frame(doc("T",
				n("generic", "",
					n("generic", "", n("generic", "", txt("Backpack")), n("generic", "", txt("$"), txt("49.99")), n("button", "Add")),
					n("generic", "", n("generic", "", txt("Jacket")), n("generic", "", txt("$"), txt("29.99")), n("button", "Add")),
				),
				n("generic", "", txt("3 x 9 ="), n("textbox", "Answer")),
			)),
			want: `document "T"
  generic
    text "Backpack"
    text "$49.99"
    button "Add" [ref=e1]
  generic
    text "Jacket"
    text "$29.99"
    button "Add" [ref=e2]
  text "3 x 9 ="
  textbox "Answer" [ref=e3]`,
		},
		{
			// Swag Labs draws a card as an image link, then the name (a
			// link) and its text in one block and the price and the button
			// in a sibling one: the card is kept whole, one group. Two
			// cards whose parts look alike, or name the same control,
			// stay two groups.
			name: "card parts",
			frames: frame(doc("T",
				n("generic", "",
					n("generic", "",
						n("link", "Backpack", n("image", "Backpack")).p("url", "/b"),
						n("generic", "",
							n("generic", "", n("link", "Backpack", txt("Backpack")).p("url", "/b"), n("generic", "", txt("Carry all"))),
							n("generic", "", n("generic", "", txt("$29.99")), n("button", "Add to cart")),
						),
					),
					n("generic", "",
						n("link", "Onesie", n("image", "Onesie")).p("url", "/o"),
						n("generic", "",
							n("generic", "", n("link", "Onesie", txt("Onesie")).p("url", "/o"), n("generic", "", txt("Rib snap"))),
							n("generic", "", n("generic", "", txt("$7.99")), n("button", "Add to cart")),
						),
					),
				),
				n("generic", "",
					n("generic", "", txt("Pen"), n("button", "Buy")),
					n("generic", "", txt("Ink"), n("button", "Buy")),
				),
			)),
			want: `document "T"
  generic
    link "Backpack" [ref=e1, href="/b"]
      img "Backpack"
    link "Backpack" [ref=e2, href="/b"]
    text "Carry all"
    text "$29.99"
    button "Add to cart" [ref=e3]
  generic
    link "Onesie" [ref=e4, href="/o"]
      img "Onesie"
    link "Onesie" [ref=e5, href="/o"]
    text "Rib snap"
    text "$7.99"
    button "Add to cart" [ref=e6]
  generic
    text "Pen"
    button "Buy" [ref=e7]
  generic
    text "Ink"
    button "Buy" [ref=e8]`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Build(tt.frames, NewRefs(), tt.opt)
			if d := cmp.Diff(tt.want, got.Text); d != "" {
				t.Errorf("Build text mismatch (-want +got):\n%s\ngot:\n%s", d, got.Text)
			}
			if want := strings.Count(tt.want, "[ref="); got.Refs != want {
				t.Errorf("Refs = %d, want %d", got.Refs, want)
			}
			again := Build(tt.frames, NewRefs(), tt.opt)
			if !cmp.Equal(again, got) {
				t.Errorf("Build is not deterministic:\n%s\n---\n%s", got.Text, again.Text)
			}
		})
	}
}

func TestTwice(t *testing.T) {
	for in, want := range map[string]string{
		"Month Month": "Month", "Show date picker Show date picker": "Show date picker",
		"Month": "Month", "New York New York!": "New York New York!", "Bye bye": "Bye bye",
		"a a": "a", "": "", "ab ab ab": "ab ab ab",
	} {
		if got := twice(in); got != want {
			t.Errorf("twice(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestBuildsShareNoItems builds two pages at once, again and again: the
// builds take their items from shared pools (newIt), and each must still
// give the text it gives alone — an item handed to two builds, or kept
// after its build, would mix them.
func TestBuildsShareNoItems(t *testing.T) {
	pages := [][]Frame{
		{{Key: "a", Nodes: nodes(tableTree(300, userCells))}},
		{{Key: "b", Nodes: nodes(tableTree(120, func(i int) [4]string {
			return [4]string{fmt.Sprint(i), "Other " + fmt.Sprint(i), "o@x", "idle"}
		}))}},
	}
	want := make([]string, len(pages))
	for i, f := range pages {
		want[i] = Build(f, NewRefs(), Options{}).Text
	}
	var wg sync.WaitGroup
	for i, f := range pages {
		wg.Go(func() {
			for range 20 {
				if got := Build(f, NewRefs(), Options{}).Text; got != want[i] {
					t.Errorf("page %d built beside another differs from its build alone", i)
					return
				}
			}
		})
	}
	wg.Wait()
}
