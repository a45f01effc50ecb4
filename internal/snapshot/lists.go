package snapshot

import (
	"slices"
	"strconv"
	"strings"
)

// Long lists. A list-like element (list, table, grid, tree, menu, listbox,
// feed, ...) whose children hold a run of more than longList consecutive
// items of one role prints the first listHead and the last listTail of
// them, and between them one line that counts the others and carries a ref:
//
//	table "Users"
//	  columns: # | Name | Email | Status | Action
//	  1 | User 1 | user1@example.com | active | button "Edit" [ref=e3]
//	  …
//	  … 975 more rows (21–995 of 1000) [ref=e1012]: snapshot with this ref to see them
//	  996 | User 996 | …
//
// A snapshot with that ref (or with the ref or a selector of any item of
// the list) is the list alone, showing listPage items from that one (the
// last listPage when it is nearer the end), with such lines for the items
// before and after; the page snapshot then keeps showing the list from
// there (Options.Windows), so that what an action changes in it is in the
// answer's diff. The ref of a gap line is the ref of the first item it
// stands for (an item without one gets one); refs of items not shown are
// assigned all the same, so they stay stable.
const (
	longList = 50
	listHead = 20
	listTail = 5
	listPage = 50
)

// listRoles are the printed roles whose children are summarised.
var listRoles = set("list", "listbox", "table", "grid", "treegrid", "tree", "treeitem", "group",
	"rowgroup", "menu", "menubar", "feed", "tablist", "radiogroup", "combobox", "directory")

// part is a run of children that print, or a gap line standing for others.
type part struct {
	lo, hi int    // children[lo:hi] print, when gap is ""
	gap    string // the line standing for children left out
	refs   int    // refs on the gap line
}

// lister decides which items of long lists print.
type lister struct {
	refs    *Refs
	owner   string
	all     bool
	windows map[Key]int // window items, by rank: the highest in a list wins
	page    *Key        // with Options.Page: the item asked for
	list    *item       // the list holding page, once found
	used    []Key       // windows in effect, one per list, in tree order
}

func (b *builder) lister(windows []Key) *lister {
	l := &lister{refs: b.refs, owner: b.opt.Owner, all: b.opt.All}
	if len(windows) > 0 {
		l.windows = make(map[Key]int, len(windows))
		for i, k := range windows {
			l.windows[k] = i + 1
		}
	}
	return l
}

// walk sets the parts of every long list under items.
func (l *lister) walk(items []*item) {
	for _, it := range items {
		it.parts = nil
		if !l.all && len(it.children) > longList && listRoles[it.role] {
			it.parts = l.parts(it)
		}
		l.walk(it.children)
	}
}

// runRole is the role by which an item joins a run of its siblings; ""
// for items that join none (text, a header row).
func runRole(it *item) string {
	if it.text || it.role == "columns" {
		return ""
	}
	return it.role
}

// parts splits a list's children into what prints; nil when no run is
// long.
func (l *lister) parts(list *item) []part {
	kids := list.children
	var out []part
	shown := 0 // kids[shown:i] are yet to be added
	for i := 0; i < len(kids); {
		role := runRole(kids[i])
		j := i + 1
		if role != "" {
			for j < len(kids) && runRole(kids[j]) == role {
				j++
			}
		}
		if j-i > longList {
			if shown < i {
				out = append(out, part{lo: shown, hi: i})
			}
			out = l.run(out, list, i, j)
			shown = j
		}
		i = j
	}
	if out != nil && shown < len(kids) {
		out = append(out, part{lo: shown, hi: len(kids)})
	}
	return out
}

// run adds the parts of the long run list.children[s:e].
func (l *lister) run(out []part, list *item, s, e int) []part {
	kids := list.children
	w, best := -1, 0
	if l.windows != nil {
		for i := s; i < e; i++ {
			if r := l.windows[kids[i].key]; r > best {
				w, best = i, r
			}
		}
	}
	if w < 0 {
		out = append(out, part{lo: s, hi: s + listHead})
		out = append(out, l.gap(list, s, e, s+listHead, e-listTail, s+listHead, false))
		return append(out, part{lo: e - listTail, hi: e})
	}
	k := kids[w].key
	l.used = append(l.used, k)
	if l.page != nil && k == *l.page {
		l.list = list
	}
	lo := min(w, max(s, e-listPage))
	hi := min(lo+listPage, e)
	if lo > s {
		out = append(out, l.gap(list, s, e, s, lo, max(s, lo-listPage), true))
	}
	out = append(out, part{lo: lo, hi: hi})
	if hi < e {
		out = append(out, l.gap(list, s, e, hi, e, hi, false))
	}
	return out
}

// gap is the line standing for list.children[lo:hi] of the run [s:e),
// with the ref of children[target], where a snapshot with it starts.
func (l *lister) gap(list *item, s, e, lo, hi, target int, before bool) part {
	var b strings.Builder
	n := hi - lo
	b.WriteString("… ")
	b.WriteString(strconv.Itoa(n))
	if before {
		b.WriteString(" earlier ")
	} else {
		b.WriteString(" more ")
	}
	b.WriteString(noun(list.children[lo].role, n))
	b.WriteString(" (")
	b.WriteString(strconv.Itoa(lo - s + 1))
	b.WriteString("–")
	b.WriteString(strconv.Itoa(hi - s))
	b.WriteString(" of ")
	b.WriteString(strconv.Itoa(e - s))
	b.WriteString(")")
	p := part{}
	if k := list.children[target].key; k.Backend != 0 {
		b.WriteString(" [ref=")
		b.WriteString(l.refs.Assign(k, l.owner))
		b.WriteString("]: snapshot with this ref to see them")
		p.refs = 1
	}
	p.gap = b.String()
	return p
}

// nouns name the items of a run by their role.
var nouns = map[string][2]string{
	"row": {"row", "rows"}, "option": {"option", "options"}, "link": {"link", "links"},
	"button": {"button", "buttons"}, "article": {"article", "articles"}, "tab": {"tab", "tabs"},
	"radio": {"radio button", "radio buttons"}, "checkbox": {"checkbox", "checkboxes"},
}

func noun(role string, n int) string {
	w, ok := nouns[role]
	if !ok {
		w = [2]string{"item", "items"}
	}
	if n == 1 {
		return w[0]
	}
	return w[1]
}

// inList reports whether an ancestor of node ni prints with a list role:
// only then can a long list hold the node.
func (b *builder) inList(fi, ni int) bool {
	f := &b.frames[fi]
	x := &b.idx[fi]
	p, ok := x.byID.get(f.Nodes[ni].ParentID)
	for steps := 0; ok && steps < len(f.Nodes); steps++ {
		n := &f.Nodes[p]
		if listRoles[roleOf(n.Role).role] {
			return true
		}
		p, ok = x.byID.get(n.ParentID)
	}
	return false
}

// page renders Options.Page's long list from it, with the whole page as it
// prints now and as it printed before (see Result); a node in no long list
// is shown as with Root.
func (b *builder) page(items []*item) Result {
	opt := b.opt
	l := b.lister(append(slices.Clip(opt.Windows), *opt.Page))
	l.page = opt.Page
	l.walk(items)
	if l.list == nil {
		o := opt
		o.Root, o.Page = opt.Page, nil
		return Build(b.frames, b.refs, o)
	}
	note := partNote(b.frames)
	whole := renderNoted(items, Options{}, note)
	r := renderNoted([]*item{l.list}, opt, note)
	r.WholePage, r.Windows, r.Whole = true, l.used, whole.Text
	b.lister(opt.Windows).walk(items)
	r.Before = renderNoted(items, Options{}, note).Text
	return r
}
