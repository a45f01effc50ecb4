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
	a, b := splitLines(prev), splitLines(cur)
	ops := diffLines(a, b)
	changedRef := pairByRef(a, b, ops)
	skip := quietRefs(a, b, ops, changedRef, o.Target)
	parentA, parentB := parents(a), parents(b)
	eqA := make([]int, len(a)) // prev line -> cur line, -1 if changed
	eqB := make([]bool, len(b))
	for i := range eqA {
		eqA[i] = -1
	}
	for _, op := range ops {
		if op.kind == opEqual {
			eqA[op.ai] = op.bi
			eqB[op.bi] = true
		}
	}
	replaced, replacing := pairInPlace(a, b, ops, parentA, parentB, eqA)
	relist := relisted(a, b, ops, parentA, parentB, eqA, replaced, replacing, changedRef)

	// Changed lines with refs come first, without context; then the others,
	// each run after its path.
	var known, out strings.Builder
	path := "\x00" // the path printed last; none yet
	changed := false
	for _, op := range ops {
		var line, mark string
		var chain []int // the line's unchanged ancestors, outermost first, in its own text
		var text []string
		switch {
		case op.kind == opEqual:
			if p := parentB[op.bi]; p < 0 || !relist[p] {
				continue
			}
			// A kept item of a list that was filtered or re-sorted: the
			// list now is what the agent needs to read.
			line, mark, text = b[op.bi], "  ", b
			for p := parentB[op.bi]; p >= 0; p = parentB[p] {
				if eqB[p] {
					chain = append(chain, p)
				}
			}
		case op.kind == opDel:
			if changedRef[refOf(a[op.ai])] || replaced[op.ai] >= 0 {
				continue // shown as its new line
			}
			line, mark, text = a[op.ai], "- ", a
			for p := parentA[op.ai]; p >= 0; p = parentA[p] {
				if eqA[p] >= 0 {
					chain = append(chain, p)
				}
			}
		default:
			r := refOf(b[op.bi])
			if skip[r] {
				continue
			}
			line, mark, text = b[op.bi], "+ ", b
			if d, ok := replacing[op.bi]; ok {
				if focusOnly(a[d], line, o.Target) {
					continue
				}
				mark = "~ "
			}
			if changedRef[r] {
				mark = "~ "
			}
			for p := parentB[op.bi]; p >= 0; p = parentB[p] {
				if eqB[p] {
					chain = append(chain, p)
				}
			}
		}
		changed = true
		slices.Reverse(chain)
		if r := refOf(line); mark == "~ " && r != "" {
			if r == o.Target {
				line = withoutFocus(line) // it has the focus: it was acted on
			}
			known.WriteString(mark)
			known.WriteString(strings.TrimLeft(line, " "))
			known.WriteByte('\n')
			continue
		}
		depth := indent(line)
		root := ""
		if len(chain) > 0 && indent(text[chain[0]]) == 0 && strings.HasPrefix(text[chain[0]], "document") {
			root = text[chain[0]]
			chain = chain[1:] // the document's root: the same for every line
			depth -= 2
		}
		if p := pathOf(text, chain); p != path {
			if p == "" && path != "\x00" {
				p = root // back at the top, after a path
			}
			path = p
			if p != "" {
				out.WriteString(p)
				out.WriteString(":\n")
			}
		}
		if len(chain) > 0 {
			depth = indent(line) - indent(text[chain[len(chain)-1]]) - 2
		}
		out.WriteString(mark)
		out.WriteString(strings.Repeat(" ", max(depth, 0)))
		out.WriteString(strings.TrimLeft(line, " "))
		out.WriteByte('\n')
	}
	if !changed {
		return NoChanges
	}
	return strings.TrimSuffix(known.String()+out.String(), "\n")
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
