// Package snapshot turns Chromium accessibility trees (the result of the CDP
// call Accessibility.getFullAXTree) into the compact text "page snapshot" an
// agent reads, and hands out the element refs (e1, e2, ...) the agent acts on.
// It is pure logic: raw CDP JSON in, text out.
//
// # Format
//
// One node a line, indented two spaces per depth: the role, the quoted name
// if any, then one bracket list of attributes with the ref first:
//
//	document "Matrix OS - Settings"
//	  navigation "Main"
//	    link "Home" [ref=e1, href="/"]
//	  main
//	    heading "Settings" [level=1]
//	    textbox "Display name" [ref=e3, value="Hamed"]
//	    textbox "Birthday" [ref=e4, type=date, value="1990-04-01"]
//	    checkbox "Remember me" [ref=e5, checked]
//	    list
//	      listitem "Telegram: connected" [ref=e6]
//	    table "Users"
//	      columns: # | Name | Email | Status | Action
//	      17 | Alice Smith | alice17@example.com | active | button "Edit" [ref=e40]
//	    text "Terms of use: …" [+1834 chars: extract to read all]
//
// Roles print as ARIA roles. Chromium's own role names, which getFullAXTree
// reports where no ARIA role fits, print as the role they stand for (one
// table, chromeRoles): RootWebArea as document, StaticText as text, Iframe as
// iframe, the date, time and datetime-local (also month and week) inputs
// Chromium calls Date, InputTime and DateTime as textbox with type=date,
// type=time, type=datetime-local, ColorWell as button with type=color,
// PopUpButton as combobox, ToggleButton as button with its pressed state,
// MenuListOption as option, DisclosureTriangle (<summary>) as button,
// LabelText (<label>) as label, and image (ARIA 1.3's synonym) as img; an
// internal role the table does not know prints lower-cased. LineBreak,
// InlineTextBox and ListMarker nodes are dropped. Nameless wrappers (generic, none, presentation, group, section,
// rowgroup, legend, inline formatting, ignored nodes, a paragraph with at
// most one child) are folded: their children take their place. A text line
// that repeats its parent's name, or the name of an adjacent element with a
// ref (a form label), is dropped. Adjacent short text lines of one element
// are merged (the text of inline formatting such as strong or emphasis
// counts as its parent element's); text of different elements stays on
// separate lines. A nameless node whose only child is text prints on one
// line as "role: the text" (for example "paragraph: Saved."), or with the
// text as its name if it has a ref.
//
// Names and values are collapsed to one line, cut at 200 characters with
// "…", and quoted with Go escaping. A line whose names, values or text were
// cut ends with "[+N chars: extract ref=eN to read all]", N the number of
// characters left out, or "[+N chars: extract to read all]" when the line
// has no ref ("+N+" when N is a lower bound).
//
// Attributes come in this order when present: ref, hint (a control the
// page gave no name: a word for what it does, from its icon, test id or id
// — Frame.Hints), type (inputs Chromium gives an internal role), level
// (headings), checked/checked=mixed, selected,
// pressed/pressed=mixed/pressed=false, expanded/collapsed, disabled,
// required, readonly, invalid, focused, editable (an element with a ref
// typed into though its role is no field: a block editor's block), value
// (text fields, comboboxes, sliders, spin buttons, typed inputs), href
// (same-origin links shortened to their path), current, placeholder.
//
// A table row prints as one bare line, its cells joined with " | ". A cell
// holding a simple control prints that control whole in place, role, name
// and attributes (button "Edit" [ref=e40], checkbox [ref=e7, checked]);
// controls with controls inside follow on lines indented under the row. The
// header row prints as "columns: ...". A list item holding only a control
// prints as that control.
//
// Child frames print under the iframe line of their owner element, with their
// own document line. A frame whose owner is not found is appended at the end
// of the main document under a bare iframe line.
//
// # Refs
//
// Refs go to actionable nodes that have a DOM node: widgets (button, link,
// textbox, checkbox, combobox, option, tab, slider, ...), focusable nodes
// with a role, and elements the page made clickable without a role
// (Frame.Clickable; a roleless one prints as "clickable"), even those
// Chromium marks ignored (aria-hidden), which are named from their text,
// else from Frame.ClickableText. A Clickable element inside another element
// with a ref gets none (cursor:pointer is inherited). These get refs too,
// for agents to click or hover them: list items that hold no control or list
// item (the options of an autocomplete, even inside a clickable box), named
// images (hover an avatar), and <label> elements tied to no control (one
// that neither names a control, through labelledby or by its text, nor holds
// one: a to-do item's text), images and labels only outside controls.
// Iframes and a frame's own document never get refs; an element whose role
// is document (a block editor's block) takes one when it is focusable or
// clickable, and says editable when it is. A ref names a (frame, backend DOM
// node id) pair through [Refs]: the same node keeps its ref across
// snapshots, a node seen for the first time gets the next number in document
// order, and a ref is never reused, even after [Refs.Forget] drops a
// replaced document.
//
// # Limits
//
// Options.Depth keeps lines of depth at most Depth (the first line is depth
// 0). A line whose children were left out ends with "[+N hidden]", N being the
// number of lines below it, and a final note says how to see them: a larger
// depth or a selector scope. Options.MaxChars cuts the text at a line boundary
// and ends it with a note line saying how many lines and refs were left out;
// the cut text including the note is at most MaxChars bytes. Refs of left-out
// nodes are still assigned, so they stay stable.
package snapshot
