package snapshot

import (
	"slices"
	"strings"
)

// NoChanges is what Diff returns for snapshots with the same lines.
const NoChanges = "no changes"

// maxEdits bounds the work of the line diff; past it the differing middle of
// the two texts is reported as removed and added whole.
const maxEdits = 1000

type opKind byte

const (
	opEqual opKind = iota
	opDel
	opIns
)

type diffOp struct {
	kind   opKind
	ai, bi int // line index in prev (equal, del) and cur (equal, ins)
}

// DiffOptions tune Diff for the action whose answer it is.
type DiffOptions struct {
	// Target is the ref of the element the action acted on: that it
	// gained the focus goes without saying, and a change of nothing else
	// on its line is left out.
	Target string
}

// Diff returns what changed from prev to cur, two snapshot texts, one line
// per change: "+ " for an added line, "- " for a removed one and "~ " for
// a line that changed — the same ref on a removed and an added line, or a
// line without a ref replaced by one of the same role in the same place —
// with only its new line shown. A line with a ref needs no context: the
// agent knows the element. Others follow the path to them, their unchanged
// ancestors (by indentation) on one line ending in ':' ("main > form:"),
// printed once per run of changes under it; the document's root line is
// left out of paths, and an added subtree keeps its indentation under its
// first line. Identical snapshots give "no changes". An element whose only
// change is that it lost the focus is left out: the element that has it
// now shows it.
func Diff(prev, cur string) string { return DiffWith(prev, cur, DiffOptions{}) }

// DiffWith is Diff for an action (see DiffOptions).
func DiffWith(prev, cur string, o DiffOptions) string {
	if prev == cur {
		return NoChanges
	}
	d := newLineDiff(splitLines(prev), splitLines(cur), o)
	// Changed lines with refs come first, without context; then the others,
	// each run after its path.
	w := diffWriter{path: "\x00"}
	for _, op := range d.ops {
		if c, ok := d.change(op); ok {
			w.write(c, o.Target)
		}
	}
	if !w.changed {
		return NoChanges
	}
	return strings.TrimSuffix(w.known.String()+w.out.String(), "\n")
}

// lineDiff is what DiffWith knows of two snapshot texts: their lines, the
// edit script between them and how each line's ancestors fared.
type lineDiff struct {
	a, b             []string
	ops              []diffOp
	target           string
	changedRef, skip map[string]bool
	parentA, parentB []int
	eqA              []int  // prev line -> cur line, -1 if changed
	eqB              []bool // cur line unchanged
	replaced         []int
	replacing        map[int]int
	relist           map[int]bool
}

func newLineDiff(a, b []string, o DiffOptions) *lineDiff {
	d := &lineDiff{a: a, b: b, ops: diffLines(a, b), target: o.Target}
	d.changedRef = pairByRef(a, b, d.ops)
	d.skip = quietRefs(a, b, d.ops, d.changedRef, o.Target)
	d.parentA, d.parentB = parents(a), parents(b)
	d.eqA = make([]int, len(a))
	d.eqB = make([]bool, len(b))
	for i := range d.eqA {
		d.eqA[i] = -1
	}
	for _, op := range d.ops {
		if op.kind == opEqual {
			d.eqA[op.ai] = op.bi
			d.eqB[op.bi] = true
		}
	}
	d.replaced, d.replacing = pairInPlace(a, b, d.ops, d.parentA, d.parentB, d.eqA)
	d.relist = relisted(a, b, d.ops, d.parentA, d.parentB, d.eqA, d.replaced, d.replacing, d.changedRef)
	return d
}

// lineChange is one line of a diff's answer before it is printed.
type lineChange struct {
	line, mark string
	chain      []int    // the line's unchanged ancestors, outermost first, in its own text
	text       []string // the text the line and chain index into
}

// change is what op prints, if anything.
func (d *lineDiff) change(op diffOp) (lineChange, bool) {
	var c lineChange
	switch {
	case op.kind == opEqual:
		if p := d.parentB[op.bi]; p < 0 || !d.relist[p] {
			return c, false
		}
		// A kept item of a list that was filtered or re-sorted: the
		// list now is what the agent needs to read.
		c.line, c.mark, c.text = d.b[op.bi], "  ", d.b
		c.chain = d.keptAncestors(d.parentB, op.bi, func(p int) bool { return d.eqB[p] })
	case op.kind == opDel:
		if d.changedRef[refOf(d.a[op.ai])] || d.replaced[op.ai] >= 0 {
			return c, false // shown as its new line
		}
		c.line, c.mark, c.text = d.a[op.ai], "- ", d.a
		c.chain = d.keptAncestors(d.parentA, op.ai, func(p int) bool { return d.eqA[p] >= 0 })
	default:
		r := refOf(d.b[op.bi])
		if d.skip[r] {
			return c, false
		}
		c.line, c.mark, c.text = d.b[op.bi], "+ ", d.b
		if old, ok := d.replacing[op.bi]; ok {
			if focusOnly(d.a[old], c.line, d.target) {
				return c, false
			}
			c.mark = "~ "
		}
		if d.changedRef[r] {
			c.mark = "~ "
		}
		c.chain = d.keptAncestors(d.parentB, op.bi, func(p int) bool { return d.eqB[p] })
	}
	return c, true
}

// keptAncestors lists the ancestors of line i (parent gives each line's)
// that kept reports unchanged, outermost first.
func (d *lineDiff) keptAncestors(parent []int, i int, kept func(int) bool) []int {
	var chain []int
	for p := parent[i]; p >= 0; p = parent[p] {
		if kept(p) {
			chain = append(chain, p)
		}
	}
	slices.Reverse(chain)
	return chain
}

// diffWriter prints a diff's changes: changed lines with refs apart, the
// others after the path of their unchanged ancestors, printed once per run.
type diffWriter struct {
	known, out strings.Builder
	path       string // the path printed last; "\x00": none yet
	changed    bool
}

func (w *diffWriter) write(c lineChange, target string) {
	w.changed = true
	line, chain, text := c.line, c.chain, c.text
	if r := refOf(line); c.mark == "~ " && r != "" {
		if r == target {
			line = withoutFocus(line) // it has the focus: it was acted on
		}
		w.known.WriteString(c.mark)
		w.known.WriteString(strings.TrimLeft(line, " "))
		w.known.WriteByte('\n')
		return
	}
	depth := indent(line)
	root := ""
	if len(chain) > 0 && indent(text[chain[0]]) == 0 && strings.HasPrefix(text[chain[0]], "document") {
		root = text[chain[0]]
		chain = chain[1:] // the document's root: the same for every line
		depth -= 2
	}
	p := pathOf(text, chain)
	if p == "" && w.path != "\x00" && w.path != "" {
		p = root // back at the top, after a path (once for the run)
	}
	if p != w.path {
		w.path = p
		if p != "" {
			w.out.WriteString(p)
			w.out.WriteString(":\n")
		}
	}
	if len(chain) > 0 {
		depth = indent(line) - indent(text[chain[len(chain)-1]]) - 2
	}
	w.out.WriteString(c.mark)
	w.out.WriteString(strings.Repeat(" ", max(depth, 0)))
	w.out.WriteString(strings.TrimLeft(line, " "))
	w.out.WriteByte('\n')
}

// maxRelist bounds the kept items a filtered list shows beside its
// removed and added ones.
const maxRelist = 50

// relisted are the unchanged lines (in cur) whose children changed as a
// filtered or re-sorted list's do: items removed and items added, at
// least as many as were kept (at most maxRelist). Their kept children are
// shown too, so that an answer says what the list holds now.
func relisted(a, b []string, ops []diffOp, parentA, parentB, eqA []int, replaced []int, replacing map[int]int, changedRef map[string]bool) map[int]bool {
	type count struct{ del, ins, kept int }
	counts := map[int]*count{}
	at := func(p int) *count {
		c := counts[p]
		if c == nil {
			c = &count{}
			counts[p] = c
		}
		return c
	}
	for _, op := range ops {
		switch op.kind {
		case opEqual:
			if p := parentB[op.bi]; p >= 0 {
				at(p).kept++
			}
		case opDel:
			if p := parentA[op.ai]; p >= 0 && eqA[p] >= 0 && replaced[op.ai] < 0 && !changedRef[refOf(a[op.ai])] {
				at(eqA[p]).del++
			}
		case opIns:
			if _, ok := replacing[op.bi]; !ok && !changedRef[refOf(b[op.bi])] {
				if p := parentB[op.bi]; p >= 0 {
					at(p).ins++
				}
			}
		}
	}
	out := map[int]bool{}
	for p, c := range counts {
		if c.del > 0 && c.ins > 0 && c.kept > 0 && c.del+c.ins >= c.kept && c.kept <= maxRelist {
			out[p] = true
		}
	}
	return out
}

// focusOnly reports whether a line without a ref of its own (a table row
// of several controls) changed only in which element has the focus: one
// lost it, or the action's target gained it.
func focusOnly(old, cur, target string) bool {
	unfocus := func(l string) string {
		for _, f := range []string{", focused,", ", focused]"} {
			if i := strings.Index(l, f); i >= 0 {
				return l[:i] + l[i+len(", focused"):]
			}
		}
		return l
	}
	if unfocus(old) == cur {
		return true
	}
	return target != "" && strings.Contains(cur, "[ref="+target+", focused") && unfocus(cur) == old
}

// quietRefs are the refs whose changes go without saying: an element that
// only lost the focus (the one that has it now shows it), and the
// action's target that only gained it.
func quietRefs(a, b []string, ops []diffOp, changedRef map[string]bool, target string) map[string]bool {
	before := map[string]string{}
	for _, op := range ops {
		if op.kind == opDel {
			if r := refOf(a[op.ai]); changedRef[r] {
				before[r] = a[op.ai]
			}
		}
	}
	quiet := map[string]bool{}
	for _, op := range ops {
		if op.kind != opIns {
			continue
		}
		r := refOf(b[op.bi])
		old, ok := before[r]
		if !ok {
			continue
		}
		if withoutFocus(old) == b[op.bi] || r == target && withoutFocus(old) == withoutFocus(b[op.bi]) {
			quiet[r] = true
		}
	}
	return quiet
}

// pairInPlace pairs each removed line without a ref with an added one of
// the same role, indentation and unchanged parent, in order (a status
// whose text changed): replaced[removed line] is its added line, or -1,
// and replacing maps the added lines so paired to the removed ones.
func pairInPlace(a, b []string, ops []diffOp, parentA, parentB, eqA []int) (replaced []int, replacing map[int]int) {
	replaced = make([]int, len(a))
	replacing = map[int]int{}
	for i := range replaced {
		replaced[i] = -1
	}
	var dels []int
	for _, op := range ops {
		if op.kind == opDel && refOf(a[op.ai]) == "" {
			dels = append(dels, op.ai)
		}
	}
	if len(dels) == 0 {
		return replaced, replacing
	}
	parentIn := func(p int) int { // a prev parent, in cur
		if p < 0 {
			return -1
		}
		return eqA[p]
	}
	for _, op := range ops {
		if op.kind != opIns || refOf(b[op.bi]) != "" {
			continue
		}
		for k, d := range dels {
			if d < 0 || indent(a[d]) != indent(b[op.bi]) || lineRole(a[d]) != lineRole(b[op.bi]) {
				continue
			}
			if pa := parentIn(parentA[d]); pa != parentB[op.bi] || pa < 0 && parentA[d] >= 0 {
				continue
			}
			replaced[d] = op.bi
			replacing[op.bi] = d
			dels[k] = -1
			break
		}
	}
	return replaced, replacing
}

// pathOf is the one-line path of unchanged ancestors chain ("main >
// form"), "" for none.
func pathOf(text []string, chain []int) string {
	parts := make([]string, len(chain))
	for i, c := range chain {
		parts[i] = strings.TrimLeft(text[c], " ")
	}
	return strings.Join(parts, " > ")
}

// indent is the number of spaces a line starts with.
func indent(line string) int { return len(line) - len(strings.TrimLeft(line, " ")) }

// lineRole is the first word of a line: its role (or a table row's cell).
func lineRole(line string) string {
	line = strings.TrimLeft(line, " ")
	if i := strings.IndexAny(line, " :"); i >= 0 {
		return line[:i]
	}
	return line
}

// withoutFocus is a snapshot line without its focused flag (a flag comes
// before any quoted value in the brackets), or the line as it is when it
// has none.
func withoutFocus(line string) string {
	i := strings.Index(line, "[ref=")
	if i < 0 {
		return line
	}
	head := line[i:]
	if q := strings.IndexByte(head, '"'); q >= 0 {
		head = head[:q]
	}
	for _, f := range []string{", focused,", ", focused]"} {
		if j := strings.Index(head, f); j >= 0 {
			j += i
			return line[:j] + line[j+len(", focused"):]
		}
	}
	return line
}

// pairByRef returns the refs that are on exactly one removed and one added
// line of ops: elements whose line changed.
func pairByRef(a, b []string, ops []diffOp) map[string]bool {
	del, ins := map[string]int{}, map[string]int{}
	for _, op := range ops {
		switch op.kind {
		case opDel:
			if r := refOf(a[op.ai]); r != "" {
				del[r]++
			}
		case opIns:
			if r := refOf(b[op.bi]); r != "" {
				ins[r]++
			}
		}
	}
	pairs := map[string]bool{}
	for r, n := range del {
		if n == 1 && ins[r] == 1 {
			pairs[r] = true
		}
	}
	return pairs
}

// refOf is the ref a snapshot line names ("e12" in `[ref=e12, …]`), or "".
// A line naming more than one (a table row) gives "".
func refOf(line string) string {
	const key = "[ref="
	i := strings.Index(line, key)
	if i < 0 || strings.Contains(line[i+len(key):], key) {
		return ""
	}
	rest := line[i+len(key):]
	if j := strings.IndexAny(rest, ",]"); j > 0 {
		return rest[:j]
	}
	return ""
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// parents returns, for each line, the index of the nearest earlier line with
// less indentation, or -1.
func parents(lines []string) []int {
	ps := make([]int, len(lines))
	var stack []int // indices with strictly increasing indentation
	indents := make([]int, len(lines))
	for i, l := range lines {
		in := len(l) - len(strings.TrimLeft(l, " "))
		indents[i] = in
		for len(stack) > 0 && indents[stack[len(stack)-1]] >= in {
			stack = stack[:len(stack)-1]
		}
		ps[i] = -1
		if len(stack) > 0 {
			ps[i] = stack[len(stack)-1]
		}
		stack = append(stack, i)
	}
	return ps
}

// diffLines returns an edit script from a to b: a shortest one (Myers) when
// it needs at most maxEdits edits after trimming the common ends, else one
// anchored on the lines that occur once in both (patience).
func diffLines(a, b []string) []diffOp {
	ids := make(map[string]int, len(a)+len(b))
	intern := func(ls []string) []int {
		out := make([]int, len(ls))
		for i, l := range ls {
			id, ok := ids[l]
			if !ok {
				id = len(ids)
				ids[l] = id
			}
			out[i] = id
		}
		return out
	}
	return diffInts(intern(a), intern(b), 0, 0, nil)
}

// diffInts appends to ops the script from x to y, offsetting indices by ao
// and bo.
func diffInts(x, y []int, ao, bo int, ops []diffOp) []diffOp {
	pre := 0
	for pre < len(x) && pre < len(y) && x[pre] == y[pre] {
		ops = append(ops, diffOp{opEqual, ao + pre, bo + pre})
		pre++
	}
	suf := 0
	for suf < len(x)-pre && suf < len(y)-pre && x[len(x)-1-suf] == y[len(y)-1-suf] {
		suf++
	}
	mx, my := x[pre:len(x)-suf], y[pre:len(y)-suf]
	if mops, ok := myers(mx, my, ao+pre, bo+pre); ok {
		ops = append(ops, mops...)
	} else {
		ops = patience(mx, my, ao+pre, bo+pre, ops)
	}
	for i := suf; i > 0; i-- {
		ops = append(ops, diffOp{opEqual, ao + len(x) - i, bo + len(y) - i})
	}
	return ops
}

// whole replaces x by y.
func whole(x, y []int, ao, bo int, ops []diffOp) []diffOp {
	for i := range x {
		ops = append(ops, diffOp{opDel, ao + i, -1})
	}
	for j := range y {
		ops = append(ops, diffOp{opIns, -1, bo + j})
	}
	return ops
}

// patience aligns x and y on the longest increasing run of lines that occur
// once in each, and diffs the gaps between them.
func patience(x, y []int, ao, bo int, ops []diffOp) []diffOp {
	type seen struct{ nx, ny, ix, iy int }
	count := make(map[int]*seen)
	for i, v := range x {
		c := count[v]
		if c == nil {
			c = &seen{}
			count[v] = c
		}
		c.nx++
		c.ix = i
	}
	for j, v := range y {
		if c := count[v]; c != nil {
			c.ny++
			c.iy = j
		}
	}
	// Unique common lines in x order, then the longest run increasing in y.
	var pairs [][2]int
	for _, v := range x {
		if c := count[v]; c.nx == 1 && c.ny == 1 {
			pairs = append(pairs, [2]int{c.ix, c.iy})
		}
	}
	if len(pairs) == 0 {
		return whole(x, y, ao, bo, ops)
	}
	var tails []int // index into pairs of the smallest tail of each run length
	prev := make([]int, len(pairs))
	for p, pr := range pairs {
		lo, hi := 0, len(tails)
		for lo < hi {
			mid := (lo + hi) / 2
			if pairs[tails[mid]][1] < pr[1] {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		prev[p] = -1
		if lo > 0 {
			prev[p] = tails[lo-1]
		}
		if lo == len(tails) {
			tails = append(tails, p)
		} else {
			tails[lo] = p
		}
	}
	anchors := make([][2]int, len(tails))
	for p, k := tails[len(tails)-1], len(tails)-1; p >= 0; p, k = prev[p], k-1 {
		anchors[k] = pairs[p]
	}
	i, j := 0, 0
	for _, an := range anchors {
		ops = diffInts(x[i:an[0]], y[j:an[1]], ao+i, bo+j, ops)
		ops = append(ops, diffOp{opEqual, ao + an[0], bo + an[1]})
		i, j = an[0]+1, an[1]+1
	}
	return diffInts(x[i:], y[j:], ao+i, bo+j, ops)
}

// myers diffs x against y, offsetting indices by ao and bo; ok is false if
// that takes more than maxEdits edits.
func myers(x, y []int, ao, bo int) (ops []diffOp, ok bool) {
	n, m := len(x), len(y)
	if n == 0 || m == 0 {
		return whole(x, y, ao, bo, nil), true
	}
	limit := min(n+m, maxEdits)
	off := limit + 1
	v := make([]int, 2*off+1)
	var trace [][]int // trace[d] = v[off-d : off+d+1] before step d
	for d := 0; d <= limit; d++ {
		trace = append(trace, append([]int(nil), v[off-d:off+d+1]...))
		for k := -d; k <= d; k += 2 {
			var i int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				i = v[off+k+1]
			} else {
				i = v[off+k-1] + 1
			}
			j := i - k
			for i < n && j < m && x[i] == y[j] {
				i++
				j++
			}
			v[off+k] = i
			if i >= n && j >= m {
				return backtrack(trace, d, k, n, m, ao, bo), true
			}
		}
	}
	return nil, false
}

func backtrack(trace [][]int, d, k, n, m, ao, bo int) []diffOp {
	var rev []diffOp
	i, j := n, m
	for ; d > 0; d-- {
		v := trace[d] // v before step d, indexed by k+d
		pk := k - 1
		if k == -d || (k != d && v[k-1+d] < v[k+1+d]) {
			pk = k + 1
		}
		pi := v[pk+d]
		pj := pi - pk
		si, sj := pi+1, pj // a deletion moved right
		if pk == k+1 {
			si, sj = pi, pj+1 // an insertion moved down
		}
		for i > si && j > sj {
			i--
			j--
			rev = append(rev, diffOp{opEqual, ao + i, bo + j})
		}
		if pk == k+1 {
			rev = append(rev, diffOp{opIns, -1, bo + pj})
		} else {
			rev = append(rev, diffOp{opDel, ao + pi, -1})
		}
		i, j, k = pi, pj, pk
	}
	for i > 0 && j > 0 {
		i--
		j--
		rev = append(rev, diffOp{opEqual, ao + i, bo + j})
	}
	ops := make([]diffOp, len(rev))
	for t, op := range rev {
		ops[len(rev)-1-t] = op
	}
	return ops
}
