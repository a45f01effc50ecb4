package snapshot

import (
	"fmt"
	"slices"
	"strings"
)

// HiddenPrefix starts the ids of the nodes browserd adds to a frame's tree
// for clickable elements the accessibility tree leaves out (inside
// aria-hidden); they are not Chromium's and are made again after a Patch.
const HiddenPrefix = "browserd-hidden-"

// Change is what was read again of one frame's accessibility tree after the
// page changed, instead of the whole tree: the subtrees under the elements
// that changed, and single nodes — their ancestors, the nodes they label or
// describe — whose own name, state or children may have changed with them.
type Change struct {
	// Subtrees are whole subtrees, each as Accessibility.queryAXTree gives
	// it: every node under its root (included, ignored or not), the root
	// first.
	Subtrees [][]Node
	// Nodes replace their old versions one by one, children ids included
	// (Accessibility.getPartialAXTree without relatives).
	Nodes []Node
}

// Patch applies a change to a frame's nodes and returns the new nodes, in
// tree order from the root. The old frame is left as it was. It fails when
// the result does not hang together — a node names a child that neither
// the old tree nor the change holds, or a subtree's root hangs from a node
// outside the tree — and the caller must read the whole tree instead: a
// patch never guesses.
func Patch(old []Node, ch Change) ([]Node, error) {
	if len(old) == 0 {
		return nil, fmt.Errorf("no tree to patch")
	}
	if out, ok := splice(old, ch); ok {
		return out, nil
	}
	p := newPatcher(old)
	for _, sub := range ch.Subtrees {
		if err := p.replaceSubtree(sub); err != nil {
			return nil, err
		}
	}
	if err := p.replaceNodes(ch.Nodes); err != nil {
		return nil, err
	}
	return p.walk()
}

// patcher is a frame's tree while a Change is applied to it: the old nodes,
// left as they were, and what the change puts in their place.
type patcher struct {
	old []Node
	// The old nodes by id (indexes into old); the change's nodes override
	// them; dropped ids are gone.
	oldID map[string]int
	repl  map[string]*Node
	gone  map[string]bool
	root  string // the id the walk starts from
}

// newPatcher indexes the old nodes by id and finds the root: the first node
// without a parent, else the first node.
func newPatcher(old []Node) *patcher {
	p := &patcher{
		old:   old,
		oldID: make(map[string]int, len(old)),
		repl:  map[string]*Node{},
		gone:  map[string]bool{},
	}
	for i := range old {
		n := &old[i]
		if isHidden(n.ID) {
			continue // made again by the caller
		}
		if p.root == "" && n.ParentID == "" {
			p.root = n.ID
		}
		p.oldID[n.ID] = i
	}
	if p.root == "" {
		p.root = old[0].ID
	}
	return p
}

// lookup returns the node the patched tree holds under id: the change's
// version, else the old one unless it was dropped.
func (p *patcher) lookup(id string) (*Node, bool) {
	if n, ok := p.repl[id]; ok {
		return n, true
	}
	if p.gone[id] {
		return nil, false
	}
	i, ok := p.oldID[id]
	if !ok {
		return nil, false
	}
	return &p.old[i], true
}

// replaceSubtree puts a subtree read again in place of what hung under its
// root before. It fails when the subtree's root is new and hangs from a node
// the tree does not hold.
func (p *patcher) replaceSubtree(sub []Node) error {
	if len(sub) == 0 {
		return nil
	}
	top := sub[0]
	if _, ok := p.lookup(top.ID); !ok {
		if _, ok := p.lookup(top.ParentID); !ok || top.ParentID == "" {
			return fmt.Errorf("subtree %s hangs from %q, not in the tree", top.ID, top.ParentID)
		}
	}
	// What hung under the root before goes; the subtree's nodes come in.
	stack := []string{top.ID}
	for len(stack) > 0 {
		id := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n, ok := p.lookup(id)
		if !ok {
			continue
		}
		p.gone[id] = true
		delete(p.repl, id)
		stack = append(stack, n.ChildIDs...)
	}
	for i := range sub {
		n := normalize(sub[i])
		p.repl[n.ID] = &n
	}
	return nil
}

// replaceNodes puts single nodes read again in place of their old versions.
// It fails when one is not in the tree: a node is replaced, never added.
func (p *patcher) replaceNodes(nodes []Node) error {
	for i := range nodes {
		n := normalize(nodes[i])
		if n.ID == "" || n.ID == "0" {
			continue // a DOM node with no accessibility node: nothing to show
		}
		if _, ok := p.lookup(n.ID); !ok {
			return fmt.Errorf("node %s is not in the tree", n.ID)
		}
		p.repl[n.ID] = &n
	}
	return nil
}

// walk lists the patched tree's nodes in tree order from the root, leaving
// out the hidden nodes the caller makes again. It fails when a node names a
// child the tree does not hold.
func (p *patcher) walk() ([]Node, error) {
	out := make([]Node, 0, len(p.old)+len(p.repl))
	seen := make(map[string]bool, len(p.old)+len(p.repl))
	stack := []string{p.root}
	for len(stack) > 0 {
		id := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[id] {
			continue
		}
		seen[id] = true
		n, ok := p.lookup(id)
		if !ok {
			return nil, fmt.Errorf("node %s names child %s, which the tree does not hold", parentOf(out, id), id)
		}
		out = append(out, *n)
		if slices.ContainsFunc(n.ChildIDs, isHidden) {
			out[len(out)-1].ChildIDs = slices.DeleteFunc(slices.Clone(n.ChildIDs), isHidden)
		}
		for i := len(n.ChildIDs) - 1; i >= 0; i-- {
			if !isHidden(n.ChildIDs[i]) {
				stack = append(stack, n.ChildIDs[i])
			}
		}
	}
	return out, nil
}

// splice is Patch without walking the whole tree, for a change that
// keeps the tree's shape around what it replaces — the usual one: each
// subtree takes the place of the old subtree under the same root, which
// old holds in tree order, and each single node keeps its children. ok is
// false when the change does not, or when old holds hidden nodes: Patch
// then walks the tree.
func splice(old []Node, ch Change) (out []Node, ok bool) {
	if len(ch.Subtrees)+len(ch.Nodes) == 0 {
		return nil, false
	}
	at := make(map[string]int, len(ch.Subtrees)+len(ch.Nodes))
	for _, sub := range ch.Subtrees {
		if len(sub) == 0 {
			return nil, false
		}
		at[sub[0].ID] = -1
	}
	for _, n := range ch.Nodes {
		if n.ID != "" && n.ID != "0" {
			at[n.ID] = -1
		}
	}
	for i := range old {
		id := old[i].ID
		if isHidden(id) {
			return nil, false
		}
		if j, want := at[id]; want {
			if j >= 0 {
				return nil, false // an id twice
			}
			at[id] = i
		}
	}
	// What goes where: a subtree's old extent [from, to) and its nodes in
	// tree order, or a single node at from.
	type cut struct {
		from, to int
		nodes    []Node
	}
	cuts := make([]cut, 0, len(at))
	for _, sub := range ch.Subtrees {
		i := at[sub[0].ID]
		if i < 0 || old[i].ParentID != sub[0].ParentID {
			return nil, false
		}
		inside := map[string]bool{old[i].ID: true}
		links := len(old[i].ChildIDs)
		j := i + 1
		for ; j < len(old) && inside[old[j].ParentID]; j++ {
			inside[old[j].ID] = true
			links += len(old[j].ChildIDs)
		}
		if links != j-i-1 {
			return nil, false // old's subtree is not all in one run
		}
		nodes, ok := treeOrder(sub)
		if !ok {
			return nil, false
		}
		cuts = append(cuts, cut{i, j, nodes})
	}
	for _, n := range ch.Nodes {
		if n.ID == "" || n.ID == "0" {
			continue
		}
		i := at[n.ID]
		if i < 0 || !slices.Equal(old[i].ChildIDs, n.ChildIDs) {
			return nil, false
		}
		cuts = append(cuts, cut{i, i + 1, []Node{normalize(n)}})
	}
	slices.SortFunc(cuts, func(a, b cut) int { return a.from - b.from })
	grow := 0
	for k, c := range cuts {
		if k > 0 && c.from < cuts[k-1].to {
			return nil, false // one inside another
		}
		grow += len(c.nodes) - (c.to - c.from)
	}
	out = make([]Node, 0, len(old)+grow)
	last := 0
	for _, c := range cuts {
		out = append(out, old[last:c.from]...)
		out = append(out, c.nodes...)
		last = c.to
	}
	return append(out, old[last:]...), true
}

// TreeOrder returns nodes in tree order from the root (the first node
// without a parent, else the first node): each node before its children,
// every subtree in one run. Nodes the root does not reach follow, in the
// order they came. Chromium's whole-tree read lists nodes about level by
// level; Patch splices a change into a tree in tree order (see splice) in
// a fraction of the time it takes to walk one that is not.
func TreeOrder(nodes []Node) []Node {
	if len(nodes) < 2 {
		return nodes
	}
	byID := make(map[string]int, len(nodes))
	root := -1
	for i := range nodes {
		if _, dup := byID[nodes[i].ID]; !dup {
			byID[nodes[i].ID] = i
		}
		if root < 0 && nodes[i].ParentID == "" {
			root = i
		}
	}
	if root < 0 {
		root = 0
	}
	out := make([]Node, 0, len(nodes))
	done := make([]bool, len(nodes))
	stack := []int{root}
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if done[i] {
			continue
		}
		done[i] = true
		out = append(out, nodes[i])
		for k := len(nodes[i].ChildIDs) - 1; k >= 0; k-- {
			if c, ok := byID[nodes[i].ChildIDs[k]]; ok && !done[c] {
				stack = append(stack, c)
			}
		}
	}
	for i := range nodes {
		if !done[i] {
			out = append(out, nodes[i])
		}
	}
	return out
}

// treeOrder lists a subtree read again (its root first) in tree order,
// normalized; ok is false when a node names a child the subtree does not
// hold, or holds a node twice or one under none of the others.
func treeOrder(sub []Node) ([]Node, bool) {
	byID := make(map[string]int, len(sub))
	for i := range sub {
		if _, dup := byID[sub[i].ID]; dup {
			return nil, false
		}
		byID[sub[i].ID] = i
	}
	out := make([]Node, 0, len(sub))
	stack := []int{0}
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		out = append(out, normalize(sub[i]))
		if len(out) > len(sub) {
			return nil, false // a cycle
		}
		for k := len(sub[i].ChildIDs) - 1; k >= 0; k-- {
			c, ok := byID[sub[i].ChildIDs[k]]
			if !ok {
				return nil, false
			}
			stack = append(stack, c)
		}
	}
	return out, len(out) == len(sub)
}

func isHidden(id string) bool { return strings.HasPrefix(id, HiddenPrefix) }

// normalize makes a node from a subtree query look as the whole-tree read
// shows it: queryAXTree names ignored nodes and gives them their role,
// getFullAXTree gives them role "none" and no name.
func normalize(n Node) Node {
	if n.Ignored {
		n.Role, n.Name = "none", ""
	}
	return n
}

// parentOf names the node of out that lists child id, for an error.
func parentOf(out []Node, id string) string {
	for i := len(out) - 1; i >= 0; i-- {
		for _, c := range out[i].ChildIDs {
			if c == id {
				return out[i].ID
			}
		}
	}
	return "?"
}
