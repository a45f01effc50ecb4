package snapshot

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
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
	// ClickableText optionally holds the text (innerText) of Clickable
	// elements. It names a Clickable element the accessibility tree gives no
	// text for: Chromium reports the nodes of an aria-hidden subtree as
	// ignored, without names.
	ClickableText map[int64]string
	// Anchors holds, for Clickable elements the accessibility tree may
	// leave out — inside aria-hidden, or empty (an icon drawn by CSS) — the
	// element to show them under: the one their hidden subtree hangs
	// from, or their parent. Used only for those the tree has no node for.
	Anchors map[int64]int64
	// Current holds the backend ids of elements with aria-current (any
	// value but false), which the accessibility tree does not report.
	Current map[int64]bool
	// Hints holds, for controls the page gave no name (an icon button),
	// a word for what they do: the icon's name ("trash" from fa-trash), a
	// test id, an id. Shown as hint="…" on a control whose name is empty.
	Hints map[int64]string
	// Part is set when the frame was too big to read whole: Nodes are the
	// part read, and the snapshot says what was left out (see Part).
	Part *Part
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
	// Windows are items of long lists the agent paged to (see Page): a
	// long list holding one shows a page from it instead of its first and
	// last items; of several in one list, the last one counts.
	Windows []Key
	// Page asks for the long list holding this node, shown from it: Text
	// is that list alone, and Whole and Before are set. When no long list
	// holds the node, the snapshot is scoped to it as with Root.
	Page *Key
	// All prints every item of long lists (tests, benchmarks, and the
	// check of patched trees against whole reads).
	All bool
}

// Result is a built snapshot.
type Result struct {
	Text    string
	Refs    int // number of refs in Text
	Omitted int // lines left out by MaxChars

	// WholePage tells that the build saw the whole page (no Root, or a
	// Page in a long list); Windows is then the items long lists show
	// from, one per list, for Options.Windows of the next build.
	WholePage bool
	Windows   []Key
	// With Options.Page in a long list: the whole page as it prints now
	// (that list shown from Page), and as it printed with Options.Windows
	// alone — both plain, without Depth, MaxChars or Interactive.
	Whole, Before string
}

// NotFound is the text Build returns when Options.Root is not in the trees.
const NotFound = "selector target not found in the accessibility tree"

// printed is how a Chromium role prints.
type printed struct {
	role string // an ARIA role where one exists
	typ  string // the <input> type the Chromium role stands for, printed as type=...
}

// chromeRoles maps the Chromium-internal roles Accessibility.getFullAXTree
// reports (where no ARIA role fits, role.value is Chromium's own name) to
// the role printed. A role missing here prints as reported, lower-cased if
// it starts with a capital letter (an internal role this table does not
// know yet).
var chromeRoles = map[string]printed{
	"RootWebArea":          {role: "document"},
	"WebArea":              {role: "document"},
	"Iframe":               {role: "iframe"},
	"IframePresentational": {role: "iframe"},
	"StaticText":           {role: "text"},
	"GenericContainer":     {role: "generic"},
	"Unknown":              {role: "generic"},
	"HeaderAsNonLandmark":  {role: "generic"},
	"FooterAsNonLandmark":  {role: "generic"},
	// A table Chromium judges to be for layout (no headers, no caption)
	// still has rows an agent reads across: printed as a table, its rows
	// compacted to one line each.
	"LayoutTable":       {role: "table"},
	"LayoutTableRow":    {role: "row"},
	"LayoutTableCell":   {role: "cell"},
	"LayoutTableColumn": {role: "generic"},
	"Date":              {role: "textbox", typ: "date"},
	"InputTime":         {role: "textbox", typ: "time"},
	// Chromium reports datetime-local, month and week inputs alike.
	"DateTime":           {role: "textbox", typ: "datetime-local"},
	"ColorWell":          {role: "button", typ: "color"},
	"PopUpButton":        {role: "combobox"},
	"ToggleButton":       {role: "button"}, // with its pressed state
	"MenuListOption":     {role: "option"},
	"MenuListPopup":      {role: "listbox"},
	"DisclosureTriangle": {role: "button"}, // <summary>
	"LabelText":          {role: "label"},  // <label>; ARIA has no role for it
	"ListItem":           {role: "listitem"},
	"Caption":            {role: "caption"},
	"Figcaption":         {role: "caption"},
	"ContentDeletion":    {role: "deletion"},
	"ContentInsertion":   {role: "insertion"},
	"EmbeddedObject":     {role: "embed"},
	"PluginObject":       {role: "embed"},
	"SvgRoot":            {role: "img"},
	// Chromium reports images as image, ARIA 1.3's synonym of img.
	"image": {role: "img"},
}

// roleOf returns how role prints.
func roleOf(role string) printed {
	if p, ok := chromeRoles[role]; ok {
		return p
	}
	if role != "" && 'A' <= role[0] && role[0] <= 'Z' {
		return printed{role: strings.ToLower(role)}
	}
	return printed{role: role}
}

// Role sets hold roles as Chromium reports them.
var (
	droppedRoles = set("LineBreak", "InlineTextBox", "ListMarker")
	genericRoles = set("", "generic", "none", "presentation", "GenericContainer", "Unknown",
		"HeaderAsNonLandmark", "FooterAsNonLandmark")
	// wrapperRoles fold when they have no name.
	wrapperRoles = set("group", "section", "Section", "LabelText", "LayoutTableColumn", "MenuListPopup", "Legend",
		"strong", "emphasis", "mark", "subscript", "superscript", "time", "Abbr", "Ruby")
	// inlineRoles are text formatting inside a run of text: their text
	// reads as part of the element around them.
	inlineRoles = set("strong", "emphasis", "mark", "subscript", "superscript", "time", "Abbr", "Ruby")
	widgetRoles = set("button", "link", "textbox", "searchbox", "checkbox", "radio",
		"combobox", "listbox", "option", "menuitem", "menuitemcheckbox",
		"menuitemradio", "tab", "switch", "slider", "spinbutton", "treeitem",
		"scrollbar", "ToggleButton", "PopUpButton", "MenuListOption",
		"DisclosureTriangle", "ColorWell", "Date", "DateTime", "InputTime")
	listItemRoles = set("listitem", "ListItem")
	// containerRoles are widgets made of items (a listbox of options): an
	// element inside that takes clicks is an item with a ref of its own.
	containerRoles = set("listbox", "combobox", "menu", "menubar", "tree", "treegrid", "grid", "radiogroup", "tablist", "MenuListPopup")
	// phrasingRoles hold inline content only (HTML's phrasing content).
	phrasingRoles = set("paragraph", "heading", "LabelText", "label")
	imageRoles    = set("image", "img", "SvgRoot")
)

// Printed-role sets.
var (
	valueRoles       = set("textbox", "searchbox", "combobox", "spinbutton", "slider")
	placeholderRoles = set("textbox", "searchbox", "combobox")
)

// roleBits says which of the role sets above a Chromium role is in: the
// builder looks a node's role up once (frameIndex.cls), not once a set.
type roleBits uint16

const (
	rDropped roleBits = 1 << iota
	rGeneric
	rWrapper
	rInline
	rWidget
	rListItem
	rContainer
	rPhrasing
	rImage
)

// roleClasses holds the bits of every role in a set.
var roleClasses = func() map[string]roleBits {
	m := map[string]roleBits{}
	for _, s := range []struct {
		set map[string]bool
		bit roleBits
	}{{droppedRoles, rDropped}, {genericRoles, rGeneric}, {wrapperRoles, rWrapper}, {inlineRoles, rInline},
		{widgetRoles, rWidget}, {listItemRoles, rListItem}, {containerRoles, rContainer},
		{phrasingRoles, rPhrasing}, {imageRoles, rImage}} {
		for r := range s.set {
			m[r] |= s.bit
		}
	}
	return m
}()

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
	refID    string // the ref, "e5"
	cut      int    // characters cut from attrs and rest
	inRefs   int    // refs printed inside the line (controls of a table row)
	bare     bool   // a table row: only its cells, no role
	header   bool   // a row whose first cell is a column header
	text     bool   // a text line (StaticText)
	group    bool   // a nameless container kept for what it groups (see groups)
	settled  bool   // a group kept for good: it has look-alikes beside it
	owner    string // a text line's element: the AX id its text belongs to
	parent   string // a text node's own parent element (owner may be further up)
	pos      int    // a text node's place among its parent's children
	inline   bool   // printed "role: rest"
	rest     string // the text after "role: "
	key      Key    // the DOM node printed (Backend 0: none)
	children []*item
	// parts, for a long list, say which children print and which gap
	// lines stand for the others (see lists.go); nil: all children.
	parts []part
}

func (it *item) line(interactive bool) string {
	var b strings.Builder
	cut, atLeast := it.cut, false
	b.WriteString(it.role)
	switch {
	case it.bare:
		s := it.rest
		if it.attrs != "" {
			s += " [" + it.attrs + "]"
		}
		return s + truncNote(cut, false, it.refID)
	case it.inline:
		if it.rest != "" {
			b.WriteString(": ")
			b.WriteString(it.rest)
		}
	case it.name != "":
		q, n := quote(it.name)
		b.WriteByte(' ')
		b.WriteString(q)
		cut += n
	case interactive && it.ref:
		// Interactive lines have no children to explain them.
		if t, more := allText(it); t != "" {
			q, n := quote(t)
			b.WriteByte(' ')
			b.WriteString(q)
			cut += n
			atLeast = more && n > 0
		}
	}
	if it.attrs != "" {
		b.WriteString(" [")
		b.WriteString(it.attrs)
		b.WriteByte(']')
	}
	b.WriteString(truncNote(cut, atLeast, it.refID))
	return b.String()
}

// refAttrs matches the attribute lists and cut notes of controls printed
// inside a row.
var refAttrs = regexp.MustCompile(` ?\[(?:ref=e\d+[^\]]*|\+\d+\+? chars: [^\]]*)\]`)

// allText is the text of an item's subtree; more tells that it stopped
// early, well past the length a name is cut to.
func allText(it *item) (s string, more bool) {
	var walk func(*item)
	walk = func(it *item) {
		if len(s) > 4*maxText {
			more = true
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
	return s, more
}

type frameIndex struct {
	byID      idIndex
	cls       []roleBits // each node's role's bits
	byBackend map[int64]int
	visited   []bool
	root      int

	// Built on first use, for list items and labels.
	holds        []bool          // a descendant takes a ref of its own
	labels       map[int64]bool  // backend ids of elements naming a node
	controlNames map[string]bool // normalized names of controls
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
	// labels: the refs shown, by accessibility role and name (see
	// Refs.Label), to tell the refs whose role and name were unique.
	labels map[[2]string][]string
	// items and ones are handed out by newIt and one from chunks of
	// the pools below, which release gives back once the text is
	// written: a build makes an item or two a node, and taking them from
	// the last builds' chunks spares the allocator and the collector the
	// megabytes a large page's build would otherwise make each time.
	items  []item
	ones   []*item
	kbuf   []*item
	chunks []*[itemChunk]item
	oneses []*[itemChunk * 2]*item
	abuf   []byte // attrs' buffer
}

// itemChunk is how many items a chunk of the pool holds.
const itemChunk = 256

var (
	itemChunks = sync.Pool{New: func() any { return new([itemChunk]item) }}
	oneChunks  = sync.Pool{New: func() any { return new([itemChunk * 2]*item) }}
)

// newIt returns a new item, a copy of it.
func (b *builder) newIt(it item) *item {
	if len(b.items) == 0 {
		c := itemChunks.Get().(*[itemChunk]item)
		b.chunks = append(b.chunks, c)
		b.items = c[:]
	}
	p := &b.items[0]
	b.items = b.items[1:]
	*p = it
	return p
}

// one returns a slice of it alone (its capacity 1: an append copies it).
func (b *builder) one(it *item) []*item {
	if len(b.ones) == 0 {
		c := oneChunks.Get().(*[itemChunk * 2]*item)
		b.oneses = append(b.oneses, c)
		b.ones = c[:]
	}
	s := b.ones[:1:1]
	b.ones = b.ones[1:]
	s[0] = it
	return s
}

// kids returns an empty slice with room for n items, for a node's
// children (an append past n copies it out of the chunk).
func (b *builder) kids(n int) []*item {
	if n > len(b.kbuf) {
		if n > itemChunk {
			return make([]*item, 0, n)
		}
		c := oneChunks.Get().(*[itemChunk * 2]*item)
		b.oneses = append(b.oneses, c)
		b.kbuf = c[:]
	}
	s := b.kbuf[:0:n]
	b.kbuf = b.kbuf[n:]
	return s
}

// release gives the build's chunks back to the pools, cleared (a page's
// strings are not kept alive by them). Nothing may use an item after.
func (b *builder) release() {
	for _, c := range b.chunks {
		clear(c[:])
		itemChunks.Put(c)
	}
	for _, c := range b.oneses {
		clear(c[:])
		oneChunks.Put(c)
	}
	b.chunks, b.oneses, b.items, b.ones, b.kbuf = nil, nil, nil, nil, nil
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
		labels:   map[[2]string][]string{},
	}
	defer b.release()
	defer func() {
		if b.opt.Root != nil || b.opt.Page != nil {
			return // a part of the page cannot tell what is unique in it
		}
		for l, rs := range b.labels {
			for _, r := range rs {
				refs.Label(r, l[0], l[1], len(rs) == 1)
			}
		}
	}()
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

	if opt.Page != nil {
		// A node no long list can hold is shown as with Root, without
		// building the whole page.
		fi, ni, ok := b.find(*opt.Page)
		if !ok {
			return Result{Text: NotFound}
		}
		opt.Root = nil
		if !b.inList(fi, ni) {
			opt.Root, opt.Page = opt.Page, nil
		}
		b.opt = opt
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
	b.shown(items)
	if opt.Page != nil {
		return b.page(items)
	}
	l := b.lister(opt.Windows)
	l.walk(items)
	r := renderNoted(items, opt, partNote(frames))
	if opt.Root == nil {
		r.WholePage, r.Windows = true, l.used
	}
	return r
}

// shown records, for every item with a ref, the role and name it prints
// with (Refs.Shown): a line's name, or the text after "role: ".
func (b *builder) shown(items []*item) {
	for _, it := range items {
		if it.ref && it.refID != "" {
			name := norm(it.name)
			if name == "" && it.inline {
				name = norm(it.rest)
			}
			b.refs.Shown(it.refID, it.role, name)
		}
		b.shown(it.children)
	}
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
	x.byID = newIDIndex(f.Nodes)
	x.byBackend = make(map[int64]int, len(f.Nodes))
	x.visited = make([]bool, len(f.Nodes))
	x.cls = make([]roleBits, len(f.Nodes))
	for i := range f.Nodes {
		n := &f.Nodes[i]
		x.cls[i] = roleClasses[n.Role]
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
		} else if _, ok := x.byID.get(p); !ok {
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

// twice returns a name that says the same words twice ("Month Month",
// "Show date picker Show date picker": Chromium joins a date field's
// part's label and title) said once; any other name as it is. Only a date
// field's parts go through it ("Duran Duran" stays).
func twice(name string) string {
	if len(name) < 3 || len(name)%2 == 0 {
		return name
	}
	h := len(name) / 2
	if name[h] == ' ' && name[:h] == name[h+1:] {
		return name[:h]
	}
	return name
}

// inDateField reports whether node n of frame fi is a part of a date or
// time field (one of its five nearest ancestors is one), whose names Chromium
// doubles.
func (b *builder) inDateField(fi int, n *Node) bool {
	f, x := &b.frames[fi], &b.idx[fi]
	for id, up := n.ParentID, 0; id != "" && up < 5; up++ {
		pi, ok := x.byID.get(id)
		if !ok {
			return false
		}
		switch f.Nodes[pi].Role {
		case "Date", "DateTime", "InputTime":
			return true
		}
		id = f.Nodes[pi].ParentID
	}
	return false
}

// dateTimeKind tells which input Chromium's DateTime role stands for, from
// the parts it shows (English names): week (a Week part), month (Month and
// Year only) or datetime-local.
func (b *builder) dateTimeKind(fi, ni int) string {
	f, x := &b.frames[fi], &b.idx[fi]
	parts := map[string]bool{}
	var walk func(ni, depth int)
	walk = func(ni, depth int) {
		for _, id := range f.Nodes[ni].ChildIDs {
			ci, ok := x.byID.get(id)
			if !ok {
				continue
			}
			if c := &f.Nodes[ci]; c.Role == "spinbutton" {
				parts[twice(c.Name)] = true
			} else if depth < 3 {
				walk(ci, depth+1)
			}
		}
	}
	walk(ni, 0)
	switch {
	case parts["Week"]:
		return "week"
	case parts["Month"] && parts["Year"] && !parts["Day"] && !parts["Hours"]:
		return "month"
	}
	return "datetime-local"
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

	cls := x.cls[ni]
	if cls&rDropped != 0 && !force {
		return nil
	}
	if n.Role == "StaticText" && !n.Ignored {
		if norm(n.Name) == "" {
			return nil
		}
		return b.one(b.newIt(item{role: "text", name: n.Name, text: true, owner: n.ParentID, parent: n.ParentID}))
	}

	kd := b.kindOf(fi, ni, inRef)
	if kd.pr.typ == "datetime-local" {
		kd.pr.typ = b.dateTimeKind(fi, ni) // one role for three types
	}
	kids := b.visitChildren(fi, ni, &kd, inRef)

	name := n.Name
	if b.inDateField(fi, n) {
		name = twice(name)
	}
	if strings.IndexFunc(name, iconRune) >= 0 {
		name = norm(name) // an icon font's glyph is no name
	}
	if valueRoles[kd.pr.role] && name != "" && norm(name) == norm(n.Value) {
		// Chromium names a field nothing labels by its value: the value
		// is on the line already (a wiki's whole text, not twice).
		name = ""
	}
	if kd.pr.role == "iframe" && len(kids) == 1 && kids[0].role == "document" && !kids[0].ref && norm(kids[0].name) == norm(name) {
		// The frame's document line would only repeat its iframe's: what
		// the document holds stands under the iframe.
		kids = kids[0].children
	}
	if !kd.hasRef && !force {
		if folded, ok := fold(f, n, cls, kd.generic, name, kids); ok {
			return folded
		}
	}
	if kd.hasRef && len(kids) == 0 && norm(name) == "" && !(valueRoles[kd.pr.role] && norm(n.Value) != "") {
		// An element the AX tree has no text for, such as a clickable
		// aria-hidden one: the text of its ignored nodes if Chromium named
		// them, else the text the page gave for it.
		if name = b.subtreeText(fi, ni); name == "" {
			name = f.ClickableText[n.BackendID]
		}
	}
	it, kids := b.newItem(f, n, &kd, name, kids)
	return b.arrange(it, kids)
}

// kind is what visit works out about a node before it visits its children:
// how its role prints and whether it takes a ref.
type kind struct {
	pr        printed
	generic   bool   // ignored, or of a role that means nothing by itself
	clickable bool   // clickable without an ARIA role, outside any ref
	control   bool   // clickable, or actionable for its role or focus
	hasRef    bool   // a control, or a list item, image or label of its own
	ref       string // the ref assigned when hasRef
	// native: a native <select> (a combobox over Chromium's menu list
	// popup) or one of its options, chosen by select on the select's ref.
	native bool
	cls    roleBits // the node's role's bits
}

// nativeSelect reports whether node ni of frame fi is a native <select>
// (a combobox or pop-up button over Chromium's MenuListPopup) or an option
// in one.
func (b *builder) nativeSelect(fi, ni int) bool {
	f, x := &b.frames[fi], &b.idx[fi]
	n := &f.Nodes[ni]
	switch n.Role {
	case "MenuListOption":
		return true
	case "option":
		p, ok := x.byID.get(n.ParentID)
		return ok && f.Nodes[p].Role == "MenuListPopup"
	case "combobox", "PopUpButton":
		for _, c := range n.ChildIDs {
			if ci, ok := x.byID.get(c); ok && f.Nodes[ci].Role == "MenuListPopup" {
				return true
			}
		}
	}
	return false
}

// kindOf tells how node ni of frame fi prints and whether it is a control,
// and assigns its ref when it takes one, in document order. inRef tells
// that an ancestor has a ref.
func (b *builder) kindOf(fi, ni int, inRef bool) kind {
	f := &b.frames[fi]
	n := &f.Nodes[ni]
	var kd kind
	kd.pr = roleOf(n.Role)
	cls := b.idx[fi].cls[ni]
	kd.cls = cls
	kd.generic = n.Ignored || cls&rGeneric != 0
	kd.clickable = n.BackendID != 0 && f.Clickable[n.BackendID] && !inRef &&
		!frameRoot(n.Role) && kd.pr.role != "iframe"
	kd.control = n.BackendID != 0 && (kd.clickable || !n.Ignored && actionable(n, cls))
	kd.native = b.nativeSelect(fi, ni)
	if kd.native && kd.pr.role == "option" {
		// An option of a native <select>: chosen with select on the
		// select's ref, never clicked, so it needs no ref of its own.
		kd.control, kd.clickable = false, false
	}
	if n.Role == "spinbutton" && b.inDateField(fi, n) {
		// A date or time field's part (Month, Hours): the field's ref
		// takes the typing; a part takes none by ref, and its name must
		// not stand for the field (a "Month" input beside a date's
		// "Month" part).
		kd.control, kd.clickable = false, false
	}
	// A list item, image or label gets a ref of its own but leaves those
	// inside it theirs.
	kd.hasRef = kd.control || n.BackendID != 0 && !n.Ignored && b.ownRef(fi, ni, inRef)
	if kd.hasRef {
		kd.ref = b.refs.Assign(Key{f.Key, n.BackendID}, b.opt.Owner)
		l := [2]string{n.Role, n.Name}
		b.labels[l] = append(b.labels[l], kd.ref)
	}
	return kd
}

// visitChildren renders the children of node ni of frame fi and, for an
// <iframe>, the frames it owns; a field's text that only repeats its value
// is left out. kd is the node's kind; inRef tells that an ancestor has a
// ref.
func (b *builder) visitChildren(fi, ni int, kd *kind, inRef bool) []*item {
	x := &b.idx[fi]
	f := &b.frames[fi]
	n := &f.Nodes[ni]
	// Inside a control, a clickable element is the control's own (a
	// pointer cursor is inherited) — but not inside a container that is
	// merely focusable (a list or menu with tabindex, as jQuery UI's
	// autocomplete draws): its items are targets of their own.
	cls := x.cls[ni]
	within := inRef || kd.control && (kd.clickable || cls&(rWidget|rContainer) == rWidget || cls&rGeneric != 0)
	var kids []*item
	if len(n.ChildIDs) > 0 {
		kids = b.kids(len(n.ChildIDs))
	}
	for i, id := range n.ChildIDs {
		if ci, ok := x.byID.get(id); ok {
			got := b.visit(fi, ci, within, false)
			if len(got) == 1 && got[0].text && got[0].parent == n.ID {
				got[0].pos = i
			}
			kids = append(kids, got...)
		}
	}
	if valueRoles[kd.pr.role] && norm(n.Value) != "" {
		// A field's text is its value, already on its line.
		v := norm(n.Value)
		kids = slices.DeleteFunc(kids, func(k *item) bool { return k.text && norm(k.name) == v })
	}
	if kd.pr.role == "iframe" && n.BackendID != 0 {
		for _, ci := range b.children[frameOwner{f.Key, n.BackendID}] {
			if !b.used[ci] {
				kids = append(kids, b.frame(ci, within)...)
			}
		}
	}
	return kids
}

// fold returns what a node without a ref of its own prints in its place
// when it prints no line itself — a generic container, a row group, a
// nameless wrapper, a nameless paragraph of one item — and whether it
// folds. kids are its children's items, name its name.
func fold(f *Frame, n *Node, cls roleBits, generic bool, name string, kids []*item) ([]*item, bool) {
	switch {
	case generic, n.Role == "rowgroup":
		if generic && n.BackendID != 0 {
			kids = joinParts(kids)
			if kids = tidy(kids, ""); groups(kids) {
				// A card or a row of a grid: its controls go with its
				// text (kept when it has look-alikes: see tidy).
				return []*item{{role: "generic", group: true, key: Key{f.Key, n.BackendID}, children: kids}}, true
			}
		}
		return kids, true
	case cls&rWrapper != 0 && norm(name) == "":
		if cls&rInline != 0 {
			// Formatting: its text belongs to the element around it.
			for _, k := range kids {
				if k.text && k.owner == n.ID {
					k.owner = n.ParentID
				}
			}
		}
		return kids, true
	case n.Role == "paragraph" && norm(name) == "" && len(kids)-labelsOf(kids) <= 1:
		// (A label's text beside its field is dropped anyway: see tidy.)
		return kids, true
	}
	return nil, false
}

// labelsOf counts the text items of kids that only repeat the name of an
// item with a ref among them (a field's label).
func labelsOf(kids []*item) int {
	n := 0
	for _, k := range kids {
		if k.text && slices.ContainsFunc(kids, func(o *item) bool { return o.ref && norm(o.name) == norm(k.name) }) {
			n++
		}
	}
	return n
}

// newItem makes the printed line of node n of frame f — its role, name, ref
// and attributes — and returns it with its children's items, tidied.
func (b *builder) newItem(f *Frame, n *Node, kd *kind, name string, kids []*item) (*item, []*item) {
	role := kd.pr.role
	switch {
	case kd.control && editableRoot(n, kd.cls):
		role = "textbox"
	case kd.clickable && kd.cls&rGeneric != 0:
		role = "clickable"
	case role == "":
		role = "generic"
	}
	it := b.newIt(item{role: role, name: name, ref: kd.hasRef, refID: kd.ref, key: Key{f.Key, n.BackendID}})
	hint := ""
	if kd.hasRef && norm(name) == "" && n.BackendID != 0 {
		hint = f.Hints[n.BackendID]
	}
	it.attrs, it.cut = b.attrs(n, kd, role, hint, n.BackendID != 0 && f.Current[n.BackendID])
	if kd.cls&rPhrasing != 0 {
		// A paragraph, heading or label holds only inline content: the
		// text of its spans reads as one run with its own ("Price: 20 to
		// 80", not four lines).
		for _, k := range kids {
			if k.text {
				k.owner = n.ID
			}
		}
	}
	return it, tidy(kids, name)
}

// arrange puts a printed node's children under it — a table row's cells
// on its own line, a lone text as its name or on its line — and returns
// what prints: the item, or the control a list item only holds.
func (b *builder) arrange(it *item, kids []*item) []*item {
	switch {
	case it.role == "listitem" && norm(it.name) == "" && !it.ref && len(kids) == 1 && kids[0].ref:
		// A list item that only holds a link or button is that control.
		return kids
	case it.role == "row":
		rowify(it, kids)
	case len(kids) == 1 && kids[0].text && norm(it.name) == "" && it.role != "document" && it.role != "iframe":
		if it.ref {
			it.name = kids[0].name
		} else {
			var n int
			it.inline = true
			it.rest, n = plain(kids[0].name)
			it.cut += n
		}
	default:
		it.children = kids
		if it.role == "table" || it.role == "grid" || it.role == "treegrid" {
			compactTable(kids)
		}
	}
	return b.one(it)
}

// actionable reports whether a node, whose role's bits are cls, gets a ref
// for its role or focus.
func actionable(n *Node, cls roleBits) bool {
	if cls&rWidget != 0 {
		return true
	}
	if n.Props["focusable"] != "true" {
		return false
	}
	if frameRoot(n.Role) || roleOf(n.Role).role == "iframe" {
		// (An element whose role is document — a block editor's block —
		// is no frame's root: focusable, it takes a ref.)
		return false
	}
	if cls&rGeneric != 0 {
		return norm(n.Name) != "" || editableRoot(n, cls)
	}
	return true
}

// frameRoot reports whether Chromium's role is that of a frame's own
// document, which never takes a ref (the iframe that holds it may).
func frameRoot(role string) bool { return role == "RootWebArea" || role == "WebArea" }

// editableRoot reports whether a node is the focusable root of an editor
// the page made with contenteditable and no role (Quill, ProseMirror,
// TipTap): it prints as a textbox. cls is its role's bits.
func editableRoot(n *Node, cls roleBits) bool {
	return cls&rGeneric != 0 && n.Props["editable"] != "" && n.Props["focusable"] == "true"
}

// ownRef reports whether a node that is no control gets a ref all the same,
// for an agent to click or hover it: a list item (an autocomplete option)
// with no control inside, a named image outside controls, and a <label>
// not tied to a control (a to-do item's text). inRef tells that an ancestor
// is a control.
func (b *builder) ownRef(fi, ni int, inRef bool) bool {
	n := &b.frames[fi].Nodes[ni]
	switch {
	case b.idx[fi].cls[ni]&rListItem != 0:
		// Even inside a clickable list: each item is its own target.
		return !b.holds(fi, ni)
	case b.idx[fi].cls[ni]&rImage != 0:
		return !inRef && norm(n.Name) != ""
	case n.Role == "LabelText":
		return !inRef && !b.holds(fi, ni) && !b.tied(fi, ni)
	}
	return false
}

// holds reports whether a descendant of node ni takes a ref of its own: a
// control, a focusable or clickable element or a list item.
func (b *builder) holds(fi, ni int) bool {
	x := &b.idx[fi]
	if x.holds == nil {
		f := &b.frames[fi]
		x.holds = make([]bool, len(f.Nodes))
		for i := range f.Nodes {
			n := &f.Nodes[i]
			if n.BackendID == 0 || !(f.Clickable[n.BackendID] ||
				!n.Ignored && (actionable(n, x.cls[i]) || x.cls[i]&rListItem != 0)) {
				continue
			}
			// Mark the ancestors; a marked one has its own marked.
			for p, ok := x.byID.get(n.ParentID); ok && !x.holds[p]; p, ok = x.byID.get(f.Nodes[p].ParentID) {
				x.holds[p] = true
			}
		}
	}
	return x.holds[ni]
}

// tied reports whether a label names a control: a node's labelledby names
// it, or its text is a control's name. A label without text counts as tied:
// it has nothing to show.
func (b *builder) tied(fi, ni int) bool {
	x := &b.idx[fi]
	f := &b.frames[fi]
	if x.labels == nil {
		x.labels = make(map[int64]bool)
		x.controlNames = make(map[string]bool)
		for i := range f.Nodes {
			n := &f.Nodes[i]
			for _, id := range n.LabelledBy {
				x.labels[id] = true
			}
			if !n.Ignored && x.cls[i]&rWidget != 0 {
				if s := norm(n.Name); s != "" {
					x.controlNames[s] = true
				}
			}
		}
	}
	n := &f.Nodes[ni]
	if x.labels[n.BackendID] {
		return true
	}
	t := norm(n.Name)
	if t == "" {
		t = norm(b.subtreeText(fi, ni))
	}
	return t == "" || x.controlNames[t]
}

// subtreeText is the text of the StaticText nodes under node ni, ignored
// ones included, read up to a bound.
func (b *builder) subtreeText(fi, ni int) string {
	x := &b.idx[fi]
	f := &b.frames[fi]
	if len(f.Nodes[ni].ChildIDs) == 0 {
		return ""
	}
	var s string
	stack := []int{ni}
	for steps := 0; len(stack) > 0 && steps < 500 && len(s) <= 4*maxText; steps++ {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n := &f.Nodes[i]
		if n.Role == "StaticText" {
			s = joinText(s, norm(n.Name))
			continue
		}
		for k := len(n.ChildIDs) - 1; k >= 0; k-- {
			if c, ok := x.byID.get(n.ChildIDs[k]); ok {
				stack = append(stack, c)
			}
		}
	}
	return s
}

// tidy merges adjacent text items of one element and drops text that repeats
// the parent's name or the name of an adjacent item with a ref.
func tidy(kids []*item, parentName string) []*item {
	if len(kids) == 0 {
		return kids
	}
	// A group (see groups) is kept among others like it — the cards of a
	// grid — and folded when it is alone: one row of text and a field
	// needs no container to say what goes with what.
	loose := func(k *item) bool { return k.group && !k.settled }
	if g := slices.IndexFunc(kids, loose); g >= 0 {
		if !slices.ContainsFunc(kids[g+1:], loose) {
			kids = slices.Concat(kids[:g], kids[g].children, kids[g+1:])
		} else {
			for _, k := range kids {
				k.settled = k.settled || k.group
			}
		}
	}
	out := kids[:0]
	for _, k := range kids {
		if k.text && len(out) > 0 {
			if p := out[len(out)-1]; p.text && p.owner == k.owner && len(p.name)+len(k.name) < maxText {
				// Two text nodes of one element (React renders "$" and
				// "29.99" apart) show as one run: whatever space the page
				// shows between them is in their own text.
				name := joinText(p.name, k.name)
				if p.parent != "" && p.parent == k.parent && k.pos == p.pos+1 {
					name = p.name + k.name
				}
				out[len(out)-1] = &item{role: "text", text: true, owner: k.owner, parent: k.parent, pos: k.pos, name: name}
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
	for i, c := range cells {
		if i == 0 {
			it.header = c.role == "columnheader"
		}
		parts = append(parts, cellText(c, &actions, it))
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

// compactTable prints a table's rows without the row role, and its header
// row as "columns: ...".
func compactTable(rows []*item) {
	header := false
	for _, r := range rows {
		if r.role != "row" || len(r.children) > 0 || r.rest == "" {
			continue
		}
		if r.header && !header {
			header = true
			r.role = "columns"
			continue
		}
		r.bare = true
	}
}

// cellText is the text of a cell's subtree, a simple control printed whole
// (role, name, attributes) in its place; items with controls inside go to
// actions instead. A run of text between controls is cut like a name. It
// adds the refs printed and characters cut to row.
func cellText(c *item, actions *[]*item, row *item) string {
	cb := cellBuf{row: row}
	cb.add(c, actions)
	cb.flush()
	return cb.s
}

// cellBuf builds a cell's text.
type cellBuf struct {
	row  *item
	s    string // the text so far
	text string // a run of text not yet added to s
}

func (cb *cellBuf) add(c *item, actions *[]*item) {
	switch {
	case c.ref:
		// A simple control stays in its cell, so a row of a big table is
		// one line; one with controls inside goes below the row.
		if hasRef(c) {
			*actions = append(*actions, c)
			return
		}
		cb.row.inRefs += refCount(c)
		cb.piece(c.line(true))
		return
	case c.text || (c.name != "" && !hasRef(c)):
		cb.text = joinText(cb.text, c.name)
		return
	case c.inline:
		// Cut already; a row nested in a cell brings its controls.
		cb.row.inRefs += c.inRefs
		cb.row.cut += c.cut
		cb.piece(c.rest)
	}
	for _, k := range c.children {
		cb.add(k, actions)
	}
}

// piece adds text not to cut: a control's line, a cut line.
func (cb *cellBuf) piece(s string) {
	cb.flush()
	cb.s = joinText(cb.s, s)
}

func (cb *cellBuf) flush() {
	if cb.text == "" {
		return
	}
	t, n := plain(cb.text)
	cb.row.cut += n
	cb.s = joinText(cb.s, t)
	cb.text = ""
}

// groups reports whether a nameless container's items are a group worth
// keeping: a card or a grid row whose lines are a control (or a few) and
// the text that says what it is for — "Fleece Jacket", "$29.99", "Add to
// cart" — so that an agent can tell which of many look-alike buttons goes
// with which item. Only small containers of single lines are kept: a grid
// of cards is folded, its cards are not; a page's wrapper is folded.
func groups(kids []*item) bool {
	if len(kids) < 2 || len(kids) > 8 {
		return false
	}
	var controls, others int
	for _, k := range kids {
		switch {
		case k.group || !leaves(k.children):
			return false
		case k.ref:
			controls++
		default:
			others++
		}
	}
	return controls > 0 && others > 0
}

// leaves reports whether items are lines without refs or lines under them
// (a link's image): what may hang under a line of a group.
func leaves(items []*item) bool {
	for _, c := range items {
		if c.ref || c.group || len(c.children) > 0 {
			return false
		}
	}
	return true
}

// joinParts makes one group of the groups a card is drawn in. Swag Labs
// marks up a product as its name (a link) and description in one block and
// its price and "Add to cart" in a sibling block: two groups, neither of
// which holds a product and its own button. The blocks of one card differ
// in shape and name no control twice; the cards of a grid are alike, or
// repeat their buttons, and stay apart. kids is returned as it is unless
// it holds two or more loose groups that are such parts, with at most 8
// lines in all.
func joinParts(kids []*item) []*item {
	var parts, lines int
	shapes := map[string]bool{}
	named := map[string]bool{}
	for _, k := range kids {
		if !k.group || k.settled {
			if k.group || !leaves(k.children) {
				return kids
			}
			lines++
			continue
		}
		parts++
		var shape strings.Builder
		for _, c := range k.children {
			shape.WriteString(c.role + " ")
			if c.ref {
				id := c.role + "\x00" + norm(c.name)
				if named[id] {
					return kids
				}
				named[id] = true
			}
		}
		if shapes[shape.String()] {
			return kids
		}
		shapes[shape.String()] = true
		lines += len(k.children)
	}
	if parts < 2 || lines > 8 {
		return kids
	}
	out := make([]*item, 0, lines)
	for _, k := range kids {
		if k.group && !k.settled {
			out = append(out, k.children...)
		} else {
			out = append(out, k)
		}
	}
	return out
}

func hasRef(it *item) bool {
	for _, c := range it.children {
		if c.ref || hasRef(c) {
			return true
		}
	}
	return false
}

// attrs is the bracket list of a printed node, ref first, and the number of
// characters cut from its values.
func (b *builder) attrs(n *Node, kd *kind, role, hint string, current bool) (string, int) {
	pr, ref := kd.pr, kd.ref
	a := b.abuf[:0] // the list, written once: a node's attributes are a string
	cut := 0
	add := func(parts ...string) {
		if len(a) > 0 {
			a = append(a, ", "...)
		}
		for _, p := range parts {
			a = append(a, p...)
		}
	}
	str := func(key, v string) {
		q, c := quote(v)
		add(key, "=", q)
		cut += c
	}
	if ref != "" {
		add("ref=", ref)
	}
	if hint != "" {
		str("hint", hint)
	}
	if pr.typ != "" {
		add("type=", pr.typ)
	}
	p := n.Props
	if len(p) > 0 {
		if role == "heading" && p["level"] != "" {
			add("level=", p["level"])
		}
		switch p["checked"] {
		case "true":
			add("checked")
		case "mixed":
			add("checked=mixed")
		}
		if p["selected"] == "true" && !kd.native {
			// (A native select's line gives the option chosen as its value.)
			add("selected")
		}
	}
	if s := pressedAttr(p["pressed"], n.Role); s != "" {
		add(s)
	}
	if len(p) > 0 {
		switch {
		case p["expanded"] == "true":
			add("expanded")
		case p["expanded"] == "false" && !kd.native:
			// (A native <select> is always shut to the page: select chooses
			// its options without opening it.)
			add("collapsed")
		}
		for _, flag := range [...]string{"disabled", "required", "readonly"} {
			if p[flag] == "true" {
				add(flag)
			}
		}
		if v := p["invalid"]; v != "" && v != "false" {
			add("invalid")
		}
		if p["focused"] == "true" && !frameRoot(n.Role) {
			add("focused")
		}
		if ref != "" && p["editable"] != "" && role != "textbox" && !valueRoles[role] {
			// Typed into, though its role does not say so: a block
			// editor's block (role document), an editable cell.
			add("editable")
		}
	}
	if valueRoles[role] || pr.typ != "" {
		v := n.Value
		if vt := p["valuetext"]; vt != "" {
			v = vt
		}
		if norm(v) != "" {
			str("value", v)
		}
	}
	if u := p["url"]; u != "" && role == "link" {
		str("href", shortHref(u, b.opt.Origin))
	}
	if v := p["current"]; current || v != "" && v != "false" {
		add("current")
	}
	if placeholderRoles[role] && norm(n.Description) != "" {
		str("placeholder", n.Description)
	}
	b.abuf = a
	return string(a), cut
}

// pressedAttr is a toggle button's state as its line says it ("": none);
// Chromium gives an unpressed ToggleButton no pressed property.
func pressedAttr(v, axRole string) string {
	switch v {
	case "true":
		return "pressed"
	case "mixed":
		return "pressed=mixed"
	case "false":
		return "pressed=false"
	case "":
		if axRole == "ToggleButton" {
			return "pressed=false"
		}
	}
	return ""
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
			n, refs := countKids(it)
			r.hidden += n
			r.hiddenRefs += refs
			r.lines = append(r.lines, line{text: s + " [+" + strconv.Itoa(n) + " hidden]", refs: refCount(it)})
			continue
		}
		r.lines = append(r.lines, line{text: s, refs: refCount(it)})

		if it.parts == nil {
			r.tree(it.children, depth+1)
			continue
		}
		for _, p := range it.parts {
			if p.gap != "" {
				r.lines = append(r.lines, line{text: indent + "  " + p.gap, refs: p.refs})
			} else {
				r.tree(it.children[p.lo:p.hi], depth+1)
			}
		}
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
		if it.parts == nil {
			r.flat(it.children, depth+1)
			continue
		}
		for _, p := range it.parts {
			switch {
			case p.gap == "":
				r.flat(it.children[p.lo:p.hi], depth+1)
			case r.opt.Depth > 0 && depth+1 > r.opt.Depth:
				r.hidden++
				r.hiddenRefs += p.refs
			default:
				r.lines = append(r.lines, line{text: p.gap, refs: p.refs})
			}
		}
	}
}

func count(items []*item) (lines, refs int) {
	for _, it := range items {
		lines++
		refs += refCount(it)
		l, rf := countKids(it)
		lines += l
		refs += rf
	}
	return lines, refs
}

// countKids counts the lines and refs printed under an item.
func countKids(it *item) (lines, refs int) {
	if it.parts == nil {
		return count(it.children)
	}
	for _, p := range it.parts {
		if p.gap != "" {
			lines++
			refs += p.refs
			continue
		}
		l, rf := count(it.children[p.lo:p.hi])
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
