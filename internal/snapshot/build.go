package snapshot

import (
	"regexp"
	"strconv"
	"strings"
)

// Frame is one document's AX tree. Frames other than the main one are
// attached under the node of their owner <iframe> element in the parent
// frame.
type Frame struct {
	// Key identifies the frame's id space (e.g. CDP session id + frame id);
	// it is part of every ref Key.
	Key   string
	Nodes []Node
	// ParentKey is the Key of the parent frame, "" for the main frame.
	ParentKey string
	// OwnerBackendID is the backendDOMNodeId of the <iframe> element in the
	// parent frame.
	OwnerBackendID int64
	// Clickable holds the backend ids of elements clickable without an ARIA
	// role (cursor:pointer, onclick, <a> without href).
	Clickable map[int64]bool
}

// Options controls Build.
type Options struct {
	// Interactive prints only the nodes with refs, one per line without
	// indentation, after the document line.
	Interactive bool
	// Depth is the largest depth printed (the first line is depth 0);
	// 0 means unlimited.
	Depth int
	// MaxChars is the budget of the text in bytes; 0 means unlimited. A
	// longer text is cut at a line boundary and ends with a note line.
	MaxChars int
	// Root scopes the snapshot to the subtree of this DOM node, printed
	// from depth 0.
	Root *Key
	// Owner is the tab id passed to Refs.Assign.
	Owner string
	// Origin is the page origin, e.g. "http://127.0.0.1:8080"; links on it
	// print their path only.
	Origin string
}

// Result is a built snapshot.
type Result struct {
	Text    string
	Refs    int // number of refs in Text
	Omitted int // lines left out by MaxChars
}

// NotFound is the text Build returns when Options.Root is not in the trees.
const NotFound = "selector target not found in the accessibility tree"

var (
	droppedRoles = set("LineBreak", "InlineTextBox", "ListMarker")
	genericRoles = set("", "generic", "none", "presentation", "GenericContainer", "Unknown")
	// wrapperRoles fold when they have no name.
	wrapperRoles = set("group", "section", "Section", "LabelText", "LayoutTable",
		"LayoutTableRow", "LayoutTableCell", "LayoutTableColumn", "strong",
		"emphasis", "mark", "subscript", "superscript", "time", "Abbr", "Ruby")
	widgetRoles = set("button", "link", "textbox", "searchbox", "checkbox", "radio",
		"combobox", "listbox", "option", "menuitem", "menuitemcheckbox",
		"menuitemradio", "tab", "switch", "slider", "spinbutton", "treeitem",
		"scrollbar", "ToggleButton", "PopUpButton", "MenuListOption",
		"DisclosureTriangle", "ColorWell", "Date", "DateTime", "InputTime")
	valueRoles = set("textbox", "searchbox", "combobox", "spinbutton", "slider",
		"ColorWell", "Date", "DateTime", "InputTime")
	placeholderRoles = set("textbox", "searchbox", "combobox")
	documentRoles    = set("RootWebArea", "WebArea", "document")
	iframeRoles      = set("Iframe", "IframePresentational", "iframe")
)

func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// item is one printed node, after folding.
type item struct {
	role     string
	name     string // raw; normalized when printed
	attrs    string // bracket list content, ref first
	ref      bool
	inRefs   int    // refs printed inside the line (controls of a table row)
	bare     bool   // a table row: only its cells, no role
	cells    []cell // a row's cells, for column-wise compaction
	text     bool   // a text line (StaticText)
	inline   bool   // printed "role: rest"
	rest     string // the text after "role: "
	children []*item
}

func (it *item) line(interactive bool) string {
	var b strings.Builder
	b.WriteString(it.role)
	switch {
	case it.bare:
		if it.attrs != "" {
			return it.rest + " [" + it.attrs + "]"
		}
		return it.rest
	case it.inline:
		if it.rest != "" {
			b.WriteString(": ")
			b.WriteString(it.rest)
		}
	case it.name != "":
		b.WriteByte(' ')
		b.WriteString(quote(it.name))
	case interactive && it.ref:
		// Interactive lines have no children to explain them.
		if t := allText(it); t != "" {
			b.WriteByte(' ')
			b.WriteString(quote(t))
		}
	}
	if it.attrs != "" {
		b.WriteString(" [")
		b.WriteString(it.attrs)
		b.WriteByte(']')
	}
	return b.String()
}

// refAttrs matches the attribute lists of controls printed inside a row.
var refAttrs = regexp.MustCompile(` ?\[ref=e\d+[^\]]*\]`)

// allText is the text of an item's subtree.
func allText(it *item) string {
	var s string
	var walk func(*item)
	walk = func(it *item) {
		if len(s) > 4*maxText {
			return
		}
		switch {
		case it.text || (it.name != "" && !it.inline):
			s = joinText(s, norm(it.name))
			return
		case it.inline && it.inRefs > 0:
			// A row inside a control: its text, not its controls' refs.
			s = joinText(s, refAttrs.ReplaceAllString(it.rest, ""))
		case it.inline:
			s = joinText(s, it.rest)
		}
		for _, c := range it.children {
			walk(c)
		}
	}
	for _, c := range it.children {
		walk(c)
	}
	return s
}

type frameIndex struct {
	byID      map[string]int
	byBackend map[int64]int
	visited   []bool
	root      int
}

type frameOwner struct {
	parent  string
	backend int64
}

type builder struct {
	frames   []Frame
	idx      []frameIndex
	children map[frameOwner][]int
	used     []bool
	refs     *Refs
	opt      Options
}

// Build renders the snapshot text of frames, assigning refs through refs in
// document order.
func Build(frames []Frame, refs *Refs, opt Options) Result {
	if refs == nil {
		refs = NewRefs()
	}
	b := &builder{
		frames:   frames,
		idx:      make([]frameIndex, len(frames)),
		children: make(map[frameOwner][]int),
		used:     make([]bool, len(frames)),
		refs:     refs,
		opt:      opt,
	}
	main := -1
	for i := range frames {
		b.index(i)
		f := &frames[i]
		if f.ParentKey == "" {
			if main < 0 {
				main = i
			}
			continue
		}
		fo := frameOwner{f.ParentKey, f.OwnerBackendID}
		b.children[fo] = append(b.children[fo], i)
	}
	if main < 0 && len(frames) > 0 {
		main = 0
	}

	var items []*item
	if opt.Root != nil {
		fi, ni, ok := b.find(*opt.Root)
		if !ok {
			return Result{Text: NotFound}
		}
		b.used[fi] = true
		items = b.visit(fi, ni, false, true)
	} else if main >= 0 {
		items = b.frame(main, false)
		// Frames whose owner was not printed go at the end, so nothing is
		// lost.
		into := &items
		if len(items) == 1 && items[0].role == "document" {
			into = &items[0].children
		}
		for {
			i := b.nextOrphan()
			if i < 0 {
				break
			}
			*into = append(*into, &item{role: "iframe", children: b.frame(i, false)})
		}
	}
	return render(items, opt)
}

// nextOrphan returns an unprinted frame, preferring one whose parent frame is
// not waiting to be printed (so that it can still take its own child frames),
// or -1.
func (b *builder) nextOrphan() int {
	first := -1
	for i := range b.frames {
		if b.used[i] {
			continue
		}
		if first < 0 {
			first = i
		}
		waiting := false
		for j := range b.frames {
			if j != i && !b.used[j] && b.frames[j].Key == b.frames[i].ParentKey {
				waiting = true
				break
			}
		}
		if !waiting {
			return i
		}
	}
	return first
}

func (b *builder) index(fi int) {
	f := &b.frames[fi]
	x := &b.idx[fi]
	x.byID = make(map[string]int, len(f.Nodes))
	x.byBackend = make(map[int64]int, len(f.Nodes))
	x.visited = make([]bool, len(f.Nodes))
	for i := range f.Nodes {
		n := &f.Nodes[i]
		if _, dup := x.byID[n.ID]; !dup {
			x.byID[n.ID] = i
		}
		if n.BackendID != 0 {
			if _, dup := x.byBackend[n.BackendID]; !dup {
				x.byBackend[n.BackendID] = i
			}
		}
	}
	x.root = -1
	for i := range f.Nodes {
		if p := f.Nodes[i].ParentID; p == "" {
			x.root = i
			break
		} else if _, ok := x.byID[p]; !ok {
			x.root = i
			break
		}
	}
	if x.root < 0 && len(f.Nodes) > 0 {
		x.root = 0
	}
}

func (b *builder) find(k Key) (fi, ni int, ok bool) {
	for i := range b.frames {
		if b.frames[i].Key != k.Frame {
			continue
		}
		if n, ok := b.idx[i].byBackend[k.Backend]; ok {
			return i, n, true
		}
	}
	return 0, 0, false
}

// frame renders a whole frame from its root.
func (b *builder) frame(fi int, inRef bool) []*item {
	b.used[fi] = true
	if b.idx[fi].root < 0 {
		return nil
	}
	return b.visit(fi, b.idx[fi].root, inRef, false)
}

// visit renders node ni of frame fi as zero or more items: one for a printed
// node, its children's for a folded one. inRef tells that an ancestor has a
// ref; force prints the node even if it would fold.
func (b *builder) visit(fi, ni int, inRef, force bool) []*item {
	x := &b.idx[fi]
	if x.visited[ni] {
		return nil
	}
	x.visited[ni] = true
	f := &b.frames[fi]
	n := &f.Nodes[ni]

	if droppedRoles[n.Role] && !force {
		return nil
	}
	if n.Role == "StaticText" && !n.Ignored {
		if norm(n.Name) == "" {
			return nil
		}
		return []*item{{role: "text", name: n.Name, text: true}}
	}

	generic := n.Ignored || genericRoles[n.Role]
	clickable := n.BackendID != 0 && f.Clickable[n.BackendID] && !inRef &&
		!documentRoles[n.Role] && !iframeRoles[n.Role]
	hasRef := n.BackendID != 0 && (clickable || (!n.Ignored && actionable(n)))
	var ref string
	if hasRef {
		ref = b.refs.Assign(Key{f.Key, n.BackendID}, b.opt.Owner)
	}

	var kids []*item
	for _, id := range n.ChildIDs {
		if ci, ok := x.byID[id]; ok {
			kids = append(kids, b.visit(fi, ci, inRef || hasRef, false)...)
		}
	}
	if iframeRoles[n.Role] && n.BackendID != 0 {
		for _, ci := range b.children[frameOwner{f.Key, n.BackendID}] {
			if !b.used[ci] {
				kids = append(kids, b.frame(ci, inRef || hasRef)...)
			}
		}
	}

	name := n.Name
	if !hasRef && !force {
		switch {
		case generic, n.Role == "rowgroup":
			return kids
		case wrapperRoles[n.Role] && norm(name) == "":
			return kids
		case n.Role == "paragraph" && norm(name) == "" && len(kids) <= 1:
			return kids
		}
	}

	role := n.Role
	switch {
	case documentRoles[role]:
		role = "document"
	case iframeRoles[role]:
		role = "iframe"
	case clickable && generic:
		role = "clickable"
	case role == "":
		role = "generic"
	}
	it := &item{role: role, name: name, ref: hasRef}
	it.attrs = b.attrs(n, role, ref)
	kids = tidy(kids, name)

	switch {
	case role == "listitem" && norm(name) == "" && !hasRef && len(kids) == 1 && kids[0].ref:
		// A list item that only holds a link or button is that control.
		return kids
	case role == "row":
		rowify(it, kids)
	case len(kids) == 1 && kids[0].text && norm(name) == "" && role != "document" && role != "iframe":
		if hasRef {
			it.name = kids[0].name
		} else {
			it.inline, it.rest = true, plain(kids[0].name)
		}
	default:
		it.children = kids
		if role == "table" || role == "grid" || role == "treegrid" {
			compactTable(kids)
		}
	}
	return []*item{it}
}

// actionable reports whether a node gets a ref for its role or focus.
func actionable(n *Node) bool {
	if widgetRoles[n.Role] {
		return true
	}
	if n.Props["focusable"] != "true" || documentRoles[n.Role] || iframeRoles[n.Role] {
		return false
	}
	if genericRoles[n.Role] {
		return norm(n.Name) != ""
	}
	return true
}

// tidy merges adjacent short text items and drops text that repeats the
// parent's name or the name of an adjacent item with a ref.
func tidy(kids []*item, parentName string) []*item {
	if len(kids) == 0 {
		return kids
	}
	out := kids[:0]
	for _, k := range kids {
		if k.text && len(out) > 0 {
			if p := out[len(out)-1]; p.text && len(p.name)+len(k.name) < maxText {
				out[len(out)-1] = &item{role: "text", text: true, name: joinText(p.name, k.name)}
				continue
			}
		}
		out = append(out, k)
	}
	kids = out

	pn := norm(parentName)
	if pn != "" {
		all := true
		var joined string
		for _, k := range kids {
			if !k.text {
				all = false
				break
			}
			joined = joinText(joined, k.name)
		}
		if all && norm(joined) == pn {
			return nil
		}
	}
	out = kids[:0]
	for i, k := range kids {
		if k.text {
			t := norm(k.name)
			if t == pn ||
				(i > 0 && kids[i-1].ref && norm(kids[i-1].name) == t) ||
				(i+1 < len(kids) && kids[i+1].ref && norm(kids[i+1].name) == t) {
				continue
			}
		}
		out = append(out, k)
	}
	return out
}

// rowify turns a row into one line of its cells' texts joined with " | ",
// with the actionable items inside it as children.
func rowify(it *item, cells []*item) {
	var parts []string
	var actions []*item
	for _, c := range cells {
		cl := cell{header: c.role == "columnheader"}
		if ctl := loneControl(c); ctl != nil {
			cl.control, cl.ref = controlOf(ctl)
		}
		cl.text = cellText(c, &actions, &it.inRefs)
		it.cells = append(it.cells, cl)
		parts = append(parts, cl.text)
	}
	for len(parts) > 0 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	if len(parts) > 0 {
		it.inline, it.rest = true, strings.Join(parts, " | ")
	} else if len(cells) > 0 && norm(it.name) == "" {
		it.inline = true
	}
	it.children = actions
}

// cell is one cell of a row line.
type cell struct {
	text    string
	header  bool
	control string // `button "Edit"` when the cell is one simple control
	ref     string // that control's "ref=eN" attribute
}

// loneControl is the one simple control a cell holds and nothing else, or nil.
func loneControl(c *item) *item {
	for !c.ref && len(c.children) == 1 && !c.inline {
		c = c.children[0]
	}
	if c.ref && !hasRef(c) {
		return c
	}
	return nil
}

// controlOf splits a simple control's line into `role "name"` and its ref
// attribute, when the ref is its only attribute.
func controlOf(c *item) (control, ref string) {
	if strings.Contains(c.attrs, ", ") || !strings.HasPrefix(c.attrs, "ref=") {
		return "", ""
	}
	l := c.line(true)
	i := strings.LastIndex(l, " [")
	if i < 0 {
		return "", ""
	}
	return l[:i], c.attrs
}

// compactTable prints a table's rows without the row role, and where every
// body row holds the same lone control in a column (an "Edit" button per
// row), names that control once in the header and leaves only its ref in
// the rows. Nothing actionable is lost; a 1,000-row table shrinks by a
// third.
func compactTable(rows []*item) {
	var body []*item
	var header *item
	for _, r := range rows {
		if r.role != "row" || len(r.children) > 0 {
			continue
		}
		if len(r.cells) > 0 && r.cells[0].header && header == nil {
			header = r
			continue
		}
		body = append(body, r)
	}
	ncol := 0
	for _, r := range body {
		ncol = max(ncol, len(r.cells))
	}
	if len(body) >= 3 {
		for j := 0; j < ncol; j++ {
			ctl := ""
			same := true
			for _, r := range body {
				if j >= len(r.cells) || r.cells[j].control == "" || (ctl != "" && r.cells[j].control != ctl) {
					same = false
					break
				}
				ctl = r.cells[j].control
			}
			if !same {
				continue
			}
			for _, r := range body {
				r.cells[j].text = "[" + r.cells[j].ref + "]"
			}
			if header != nil && j < len(header.cells) {
				header.cells[j].text = strings.TrimSpace(header.cells[j].text + " (" + ctl + ")")
			} else if header != nil {
				header.cells = append(header.cells, cell{text: "(" + ctl + ")"})
			}
		}
	}
	for _, r := range append(body, header) {
		if r == nil {
			continue
		}
		parts := make([]string, len(r.cells))
		for i, c := range r.cells {
			parts[i] = c.text
		}
		for len(parts) > 0 && parts[len(parts)-1] == "" {
			parts = parts[:len(parts)-1]
		}
		if len(parts) == 0 {
			continue
		}
		r.rest = strings.Join(parts, " | ")
		r.bare = r != header
		if r == header {
			r.role = "columns"
		}
	}
}

// cellText is the text of a cell's subtree; items with refs go to actions
// instead.
func cellText(c *item, actions *[]*item, inRefs *int) string {
	if c.ref {
		// A simple control stays in its cell, so a row of a big table is
		// one line; one with controls inside goes below the row.
		if !hasRef(c) {
			*inRefs += refCount(c)
			return c.line(true)
		}
		*actions = append(*actions, c)
		return ""
	}
	if c.text {
		return plain(c.name)
	}
	if c.name != "" && !hasRef(c) {
		return plain(c.name)
	}
	var s string
	if c.inline {
		s = c.rest
		*inRefs += c.inRefs // a row nested in a cell brings its controls
	}
	for _, k := range c.children {
		s = joinText(s, cellText(k, actions, inRefs))
	}
	return plain(s)
}

func hasRef(it *item) bool {
	for _, c := range it.children {
		if c.ref || hasRef(c) {
			return true
		}
	}
	return false
}

// attrs is the bracket list of a printed node, ref first.
func (b *builder) attrs(n *Node, role, ref string) string {
	var a []string
	if ref != "" {
		a = append(a, "ref="+ref)
	}
	p := n.Props
	if role == "heading" && p["level"] != "" {
		a = append(a, "level="+p["level"])
	}
	switch p["checked"] {
	case "true":
		a = append(a, "checked")
	case "mixed":
		a = append(a, "checked=mixed")
	}
	if p["selected"] == "true" {
		a = append(a, "selected")
	}
	switch p["pressed"] {
	case "true":
		a = append(a, "pressed")
	case "mixed":
		a = append(a, "pressed=mixed")
	}
	switch p["expanded"] {
	case "true":
		a = append(a, "expanded")
	case "false":
		a = append(a, "collapsed")
	}
	for _, flag := range [...]string{"disabled", "required", "readonly"} {
		if p[flag] == "true" {
			a = append(a, flag)
		}
	}
	if v := p["invalid"]; v != "" && v != "false" {
		a = append(a, "invalid")
	}
	if p["focused"] == "true" && role != "document" {
		a = append(a, "focused")
	}
	if valueRoles[role] {
		v := n.Value
		if vt := p["valuetext"]; vt != "" {
			v = vt
		}
		if norm(v) != "" {
			a = append(a, "value="+quote(v))
		}
	}
	if u := p["url"]; u != "" && role == "link" {
		a = append(a, "href="+quote(shortHref(u, b.opt.Origin)))
	}
	if v := p["current"]; v != "" && v != "false" {
		a = append(a, "current")
	}
	if placeholderRoles[role] && norm(n.Description) != "" {
		a = append(a, "placeholder="+quote(n.Description))
	}
	return strings.Join(a, ", ")
}

// line is one rendered output line.
type line struct {
	text string
	refs int
}

func refCount(it *item) int {
	n := it.inRefs
	if it.ref {
		n++
	}
	return n
}

type renderer struct {
	opt        Options
	lines      []line
	hidden     int // lines left out by Depth
	hiddenRefs int
}

func render(items []*item, opt Options) Result {
	r := &renderer{opt: opt}
	if opt.Interactive {
		if len(items) == 1 && items[0].role == "document" {
			r.lines = append(r.lines, line{text: items[0].line(true), refs: refCount(items[0])})
			r.flat(items[0].children, 1)
		} else {
			r.flat(items, 0)
		}
	} else {
		r.tree(items, 0)
	}
	var footer string
	if r.hidden > 0 {
		if opt.Interactive {
			footer = "[" + strconv.Itoa(r.hidden) + " refs deeper than depth=" + strconv.Itoa(opt.Depth) +
				" not shown — call snapshot with a larger depth or a selector=\"…\"]"
		} else {
			footer = "[" + strconv.Itoa(r.hidden) + " lines deeper than depth=" + strconv.Itoa(opt.Depth) +
				" not shown (see [+N hidden]) — call snapshot with a larger depth or a selector=\"…\"]"
		}
	}
	return r.finish(footer)
}

func (r *renderer) tree(items []*item, depth int) {
	indent := strings.Repeat("  ", depth)
	for _, it := range items {
		s := indent + it.line(false)
		if r.opt.Depth > 0 && depth >= r.opt.Depth && len(it.children) > 0 {
			n, refs := count(it.children)
			r.hidden += n
			r.hiddenRefs += refs
			r.lines = append(r.lines, line{text: s + " [+" + strconv.Itoa(n) + " hidden]", refs: refCount(it)})
			continue
		}
		r.lines = append(r.lines, line{text: s, refs: refCount(it)})

		r.tree(it.children, depth+1)
	}
}

func (r *renderer) flat(items []*item, depth int) {
	for _, it := range items {
		// A table row with controls in its cells counts as actionable.
		if n := refCount(it); n > 0 {
			if r.opt.Depth > 0 && depth > r.opt.Depth {
				r.hidden++
				r.hiddenRefs += n
			} else {
				r.lines = append(r.lines, line{text: it.line(true), refs: n})
			}
		}
		r.flat(it.children, depth+1)
	}
}

func count(items []*item) (lines, refs int) {
	for _, it := range items {
		lines++
		refs += refCount(it)
		l, rf := count(it.children)
		lines += l
		refs += rf
	}
	return lines, refs
}

// finish joins the lines, applying MaxChars.
func (r *renderer) finish(footer string) Result {
	total := 0
	refs := 0
	for _, l := range r.lines {
		total += len(l.text) + 1
		refs += l.refs
	}
	if total > 0 {
		total-- // no newline after the last line
	}
	withFooter := total
	if footer != "" {
		withFooter += len(footer)
		if total > 0 {
			withFooter++
		}
	}
	budget := r.opt.MaxChars
	if budget <= 0 || withFooter <= budget {
		var b strings.Builder
		b.Grow(withFooter)
		for i, l := range r.lines {
			if i > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(l.text)
		}
		if footer != "" {
			if len(r.lines) > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(footer)
		}
		return Result{Text: b.String(), Refs: refs}
	}

	// Keep the longest prefix of lines that fits with the note.
	prefix := make([]int, len(r.lines)+1) // bytes of lines[:k], newline-terminated
	prefixRefs := make([]int, len(r.lines)+1)
	for i, l := range r.lines {
		prefix[i+1] = prefix[i] + len(l.text) + 1
		prefixRefs[i+1] = prefixRefs[i] + l.refs
	}
	k := len(r.lines)
	for k > 0 && prefix[k] > budget {
		k--
	}
	var note string
	for ; k >= 0; k-- {
		note = cutNote(budget, len(r.lines)-k+r.hidden, refs-prefixRefs[k]+r.hiddenRefs)
		if prefix[k]+len(note) <= budget {
			break
		}
	}
	if k < 0 {
		k = 0
		note = "[snapshot cut: " + strconv.Itoa(len(r.lines)+r.hidden) + " lines not shown]"
		note = truncateBytes(note, budget)
	}
	var b strings.Builder
	b.Grow(prefix[k] + len(note))
	for _, l := range r.lines[:k] {
		b.WriteString(l.text)
		b.WriteByte('\n')
	}
	b.WriteString(note)
	return Result{Text: b.String(), Refs: prefixRefs[k], Omitted: len(r.lines) - k}
}

func cutNote(budget, lines, refs int) string {
	return "[snapshot cut at " + strconv.Itoa(budget) + " chars: " + strconv.Itoa(lines) +
		" more lines with " + strconv.Itoa(refs) +
		" refs not shown — call snapshot with a larger maxChars, depth, selector=\"…\", or interactive=true]"
}

func truncateBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
