package snapshot

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// checkBuild builds frames and compares the text with want, and the ref
// count with the refs in want.
func checkBuild(t *testing.T, frames []Frame, opt Options, want string) {
	t.Helper()
	got := Build(frames, NewRefs(), opt)
	if d := cmp.Diff(want, got.Text); d != "" {
		t.Errorf("Build text mismatch (-want +got):\n%s\ngot:\n%s", d, got.Text)
	}
	if n := strings.Count(want, "[ref="); got.Refs != n {
		t.Errorf("Refs = %d, want %d", got.Refs, n)
	}
}

// A table row keeps the role, name and state of every control in it: a
// column of like controls is not shortened to bare refs (a form laid out
// in a table printed "Genre | [ref=e2]"), and a long value cut in a cell
// does not cut the control's ref off.
func TestTableRowsKeepControls(t *testing.T) {
	field := func(label string, ctl tn) tn {
		return n("row", "", n("cell", label, txt(label)), n("cell", "", ctl))
	}
	user := func(name string) tn {
		return n("row", "", n("cell", name, txt(name)), n("cell", "Edit", n("button", "Edit", txt("Edit"))))
	}
	long := strings.Repeat("note ", 80)
	frames := frame(doc("Edit book",
		n("table", "", n("rowgroup", "",
			field("Title", n("textbox", "")),
			field("Genre", n("textbox", "")),
			field("Year", n("textbox", "")),
		)),
		n("table", "Users",
			n("rowgroup", "", n("row", "", n("columnheader", "Name", txt("Name")), n("columnheader", "Action", txt("Action")))),
			n("rowgroup", "", user("Ann"), user("Bob"), user("Cy")),
		),
		n("table", "Flags", n("rowgroup", "",
			field("Done", n("checkbox", "").p("checked", "true")),
			field("Name", n("textbox", "Name").val("Ann")),
			n("row", "", n("cell", "", n("generic", "", txt("Notes:"), n("textbox", "Notes").val(long)).ign())),
		)),
	))
	kept := strings.TrimSpace(long[:200])
	want := `document "Edit book"
  table
    Title | textbox [ref=e1]
    Genre | textbox [ref=e2]
    Year | textbox [ref=e3]
  table "Users"
    columns: Name | Action
    Ann | button "Edit" [ref=e4]
    Bob | button "Edit" [ref=e5]
    Cy | button "Edit" [ref=e6]
  table "Flags"
    Done | checkbox [ref=e7, checked]
    Name | textbox "Name" [ref=e8, value="Ann"]
    Notes: textbox "Notes" [ref=e9, value="` + kept + `…"] [+199 chars: extract ref=e9 to read all]`
	checkBuild(t, frames, Options{}, want)

	// The interactive view, which has no header line, says as much.
	got := Build(frames, NewRefs(), Options{Interactive: true}).Text
	for _, line := range []string{"\nGenre | textbox [ref=e2]\n", "\nAnn | button \"Edit\" [ref=e4]\n", "\nDone | checkbox [ref=e7, checked]\n"} {
		if !strings.Contains(got, line) {
			t.Errorf("interactive snapshot lacks %q:\n%s", line, got)
		}
	}
}

// Chromium-internal roles print as the ARIA role they stand for, with the
// input type where the role stood for one.
func TestChromeRoles(t *testing.T) {
	frames := frame(doc("Form",
		n("Date", "Birthday").val("2024-05-01"),
		n("InputTime", "Alarm"),
		n("DateTime", "Meeting").val("2024-05-01T10:00"),
		n("ColorWell", "Color").val("#ff0000"),
		n("PopUpButton", "Country",
			n("MenuListPopup", "",
				n("MenuListOption", "Germany"),
				n("MenuListOption", "France").p("selected", "true"),
			),
		).val("France").p("expanded", "false"),
		n("ToggleButton", "Bold", txt("Bold")).p("pressed", "false"),
		n("ToggleButton", "Italic", txt("Italic")).p("pressed", "true"),
		n("group", "Details", n("DisclosureTriangle", "More", txt("More")).p("expanded", "false")),
		n("LabelText", "", txt("Shipping is free")),
		n("group", "Plan", n("Legend", "", txt("Plan")), n("radio", "Free")),
		n("Canvas", "Chart"),
	))
	want := `document "Form"
  textbox "Birthday" [ref=e1, type=date, value="2024-05-01"]
  textbox "Alarm" [ref=e2, type=time]
  textbox "Meeting" [ref=e3, type=datetime-local, value="2024-05-01T10:00"]
  button "Color" [ref=e4, type=color, value="#ff0000"]
  combobox "Country" [ref=e5, value="France"]
    option "Germany"
    option "France"
  button "Bold" [ref=e6, pressed=false]
  button "Italic" [ref=e7, pressed]
  group "Details"
    button "More" [ref=e8, collapsed]
  label "Shipping is free" [ref=e9]
  group "Plan"
    radio "Free" [ref=e10]
  canvas "Chart"`
	checkBuild(t, frames, Options{}, want)

	// No role of the table leaks, named or not, alone or with a child.
	for raw := range chromeRoles {
		for _, tree := range []tn{n(raw, "X"), n(raw, "", txt("child")), n(raw, "X", n("button", "B"))} {
			got := Build(frame(doc("T", tree)), NewRefs(), Options{}).Text
			if strings.Contains(got, raw) {
				t.Errorf("role %s leaks:\n%s", raw, got)
			}
		}
	}
}

// Elements agents click or hover get refs though they are no controls: a
// clickable element Chromium marks ignored (aria-hidden), list items (an
// autocomplete's options), a <label> tied to no control (a to-do item), a
// named image.
func TestOwnRefs(t *testing.T) {
	frames := []Frame{{Key: "m", Nodes: nodes(doc("Todo",
		// aria-hidden: Chromium reports ignored nodes as role none, unnamed.
		n("none", "", n("none", "").ign()).ign().be(100),
		n("none", "", n("StaticText", "Dismiss").ign()).ign().be(101),
		n("button", "", n("StaticText", "Undo").ign()).ign().be(102),
		// An autocomplete: a clickable box of list items.
		n("generic", "", n("list", "",
			n("listitem", "", txt("Paris")).be(104),
			n("listitem", "", txt("Lyon")).be(105),
		)).be(103),
		// A list item holding a control is that control.
		n("list", "", n("listitem", "", n("link", "Home", txt("Home")).p("url", "/")).be(106)),
		// Nested lists: the inner items take the refs.
		n("list", "", n("listitem", "", txt("Fruit"), n("list", "", n("listitem", "", txt("Apple")).be(108))).be(107)),
		// A to-do item: its label is tied to no control.
		n("list", "", n("listitem", "",
			n("checkbox", "").be(110),
			n("LabelText", "", txt("Buy milk")).be(111),
			n("button", "Delete").be(112),
		).be(109)),
		// Labels of controls: by labelledby, by name, around the control.
		n("LabelText", "", txt("E-mail")).be(113), n("textbox", "Email address").labelledBy(113).be(114),
		n("LabelText", "", txt("Phone")).be(115), n("textbox", "Phone").be(116),
		n("LabelText", "", n("checkbox", "Remember me").be(118), txt("Remember me")).be(117),
		// Images: named ones outside controls, printed as ARIA's img.
		n("image", "Alice").be(119),
		n("image", "").be(120),
		n("link", "Profile", n("image", "Avatar").be(122)).p("url", "/p").be(121),
		n("listitem", "", n("image", "Bob").be(124), txt("Bob")).be(123),
	)), Clickable: map[int64]bool{100: true, 101: true, 102: true, 103: true},
		ClickableText: map[int64]string{100: "×"}}}
	want := `document "Todo"
  clickable "×" [ref=e1]
  clickable "Dismiss" [ref=e2]
  button "Undo" [ref=e3]
  clickable [ref=e4]
    list
      listitem "Paris" [ref=e5]
      listitem "Lyon" [ref=e6]
  list
    link "Home" [ref=e7, href="/"]
  list
    listitem
      text "Fruit"
      list
        listitem "Apple" [ref=e8]
  list
    listitem
      checkbox [ref=e9]
      label "Buy milk" [ref=e10]
      button "Delete" [ref=e11]
  text "E-mail"
  textbox "Email address" [ref=e12]
  textbox "Phone" [ref=e13]
  checkbox "Remember me" [ref=e14]
  img "Alice" [ref=e15]
  img
  link "Profile" [ref=e16, href="/p"]
    img "Avatar"
  listitem [ref=e17]
    img "Bob" [ref=e18]`
	checkBuild(t, frames, Options{}, want)

	got := Build(frames, NewRefs(), Options{Interactive: true}).Text
	for _, line := range []string{"\nclickable \"×\" [ref=e1]\n", "\nlistitem \"Paris\" [ref=e5]\n",
		"\nlabel \"Buy milk\" [ref=e10]\n", "\nimg \"Alice\" [ref=e15]\n", "\nimg \"Bob\" [ref=e18]"} {
		if !strings.Contains(got, line) {
			t.Errorf("interactive snapshot lacks %q:\n%s", line, got)
		}
	}
}

// Text of different elements stays on different lines; text of one element
// (formatting such as <strong> inside it included) reads as one.
func TestTextKeepsElementBoundaries(t *testing.T) {
	frames := frame(doc("Quiz",
		n("generic", "",
			n("generic", "", txt("Type the answer and press Submit when done.")).ign(),
			n("generic", "", txt("3 x 9 ="), n("textbox", "Answer")).ign(),
			n("paragraph", "", txt("Click "), n("strong", "", txt("Submit")), txt(" to finish.")),
			n("paragraph", "", txt("Line one"), n("LineBreak", ""), txt("line two")),
			n("button", "Submit", txt("Submit")),
		).ign(),
	))
	want := `document "Quiz"
  text "Type the answer and press Submit when done."
  text "3 x 9 ="
  textbox "Answer" [ref=e1]
  paragraph: Click Submit to finish.
  paragraph: Line one line two
  button "Submit" [ref=e2]`
	checkBuild(t, frames, Options{}, want)
}

// A name, value or text cut at 200 characters says how much was cut and
// how to read it all.
func TestCutNote(t *testing.T) {
	a, b, d, e := strings.Repeat("a", 1434), strings.Repeat("b", 210), strings.Repeat("d", 300), strings.Repeat("e", 250)
	c := strings.TrimSpace(strings.Repeat("c ", 150)) // 299 characters
	f, g := strings.Repeat("f", 150), strings.Repeat("g", 150)
	frames := frame(doc("Notes",
		n("textbox", "Notes").val(a),
		n("link", b).p("url", "/x"),
		txt(c),
		n("button", "", txt("Intro"), n("image", ""), n("generic", "", txt(d)).ign()),
		n("table", "",
			n("row", "", n("cell", "A", txt("A")), n("cell", "", txt(e))),
			// A cell's text is cut, its control never.
			n("row", "", n("cell", "", txt(f), n("generic", "", txt(g)).ign(), n("button", "Go"))),
		),
	))
	want := `document "Notes"
  textbox "Notes" [ref=e1, value="` + a[:200] + `…"] [+1234 chars: extract ref=e1 to read all]
  link "` + b[:200] + `…" [ref=e2, href="/x"] [+10 chars: extract ref=e2 to read all]
  text "` + c[:199] + `…" [+99 chars: extract to read all]
  button [ref=e3]
    text "Intro"
    img
    text "` + d[:200] + `…" [+100 chars: extract to read all]
  table
    A | ` + e[:200] + `… [+50 chars: extract to read all]
    ` + f + ` ` + g[:49] + `… button "Go" [ref=e4] [+101 chars: extract to read all]`
	checkBuild(t, frames, Options{}, want)

	got := Build(frames, NewRefs(), Options{Interactive: true}).Text
	line := "\nbutton \"Intro " + d[:194] + "…\" [ref=e3] [+106 chars: extract ref=e3 to read all]"
	if !strings.Contains(got, line) {
		t.Errorf("interactive snapshot lacks %q:\n%s", line, got)
	}
}

// The labelledby property survives decoding as the backend ids it names.
func TestDecodeLabelledBy(t *testing.T) {
	want := nodes(doc("T", n("LabelText", "", txt("Mail")).be(7), n("textbox", "Mail").labelledBy(7, 9)))
	got, err := Decode(cdpJSON(want))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]int64{7, 9}, got[3].LabelledBy); d != "" {
		t.Errorf("LabelledBy (-want +got):\n%s", d)
	}
	checkDecode(t, cdpJSON(want))
}

// TestLabelledFieldParagraph: a paragraph that holds a field and its
// label's text says nothing the field's line does not: it folds (issue
// 29: fewer lines, the same page).
func TestLabelledFieldParagraph(t *testing.T) {
	// A native select as Chromium 156 has it: a combobox over its menu
	// list popup. Its line gives the option chosen; its options need no
	// ref and no state. A listbox's options (a multi-select, a widget)
	// keep both.
	checkBuild(t, frame(doc("S",
		n("combobox", "Size", n("MenuListPopup", "", n("option", "S"), n("option", "M").p("selected", "true"))).val("M").p("expanded", "false"),
		n("listbox", "Tags", n("option", "a").p("selected", "true"), n("option", "b")),
	)), Options{}, `document "S"
  combobox "Size" [ref=e1, value="M"]
    option "S"
    option "M"
  listbox "Tags" [ref=e2]
    option "a" [ref=e3, selected]
    option "b" [ref=e4]`)

	frames := frame(doc("T", n("form", "",
		n("paragraph", "", txt("Full name"), n("textbox", "Full name")),
		n("paragraph", "", txt("Note:"), n("textbox", "Email")),
	)))
	want := `document "T"
  form
    textbox "Full name" [ref=e1]
    paragraph
      text "Note:"
      textbox "Email" [ref=e2]`
	checkBuild(t, frames, Options{}, want)
}
