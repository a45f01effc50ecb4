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
//	    checkbox "Remember me" [ref=e5, checked]
//	    list
//	      listitem: Telegram: connected
//	    table "Users"
//	      columns: # | Name | Email | Status | Action (button "Edit")
//	      17 | Alice Smith | alice17@example.com | active | [ref=e40]
//
// Chromium's RootWebArea prints as document, StaticText as text and Iframe as
// iframe; LineBreak, InlineTextBox and ListMarker nodes are dropped; other
// roles print as CDP reports them. Nameless wrappers (generic, none,
// presentation, group, section, rowgroup, inline formatting, ignored nodes,
// a paragraph with at most one child) are folded: their children take their
// place. A text line that repeats its parent's name, or the name of an
// adjacent element with a ref (a form label), is dropped; adjacent short text
// lines are merged. A nameless node whose only child is text prints on one
// line as "role: the text" (for example "listitem: Telegram: connected").
// Names and values are collapsed to one line, cut at 200 characters with
// "…", and quoted with Go escaping.
//
// Attributes come in this order when present: ref, level (headings),
// checked/checked=mixed, selected, pressed, expanded/collapsed, disabled,
// required, readonly, invalid, focused, value (text fields, comboboxes,
// sliders, spin buttons), href (same-origin links shortened to their path),
// current, placeholder.
//
// A table row prints as one bare line, its cells joined with " | ". A cell
// holding one simple control prints that control in place (button "Edit"
// [ref=e40]); controls with controls inside follow on lines indented under
// the row. The header row prints as "columns: ...". When every body row of a
// table (three or more) holds the same lone control in a column, the header
// names it once, "Action (button "Edit")", and the rows keep only its
// attributes, "[ref=e40]". A list item holding only a control prints as
// that control.
//
// Child frames print under the iframe line of their owner element, with their
// own document line. A frame whose owner is not found is appended at the end
// of the main document under a bare iframe line.
//
// # Refs
//
// Refs go to actionable nodes that have a DOM node: widgets (button, link,
// textbox, checkbox, combobox, option, tab, slider, ...), focusable nodes with
// a role, and elements the page made clickable without a role
// (Frame.Clickable; a roleless one prints as "clickable"). A Clickable element
// inside another element with a ref gets none (cursor:pointer is inherited).
// Iframes and documents never get refs. A ref names a (frame, backend DOM node
// id) pair through [Refs]: the same node keeps its ref across snapshots, a
// node seen for the first time gets the next number in document order, and
// a ref is never reused, even after [Refs.Forget] drops a replaced document.
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
