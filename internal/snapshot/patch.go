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
	// The old nodes by id (indexes into old); the change's nodes override
	// them; dropped ids are gone.
	oldID := make(map[string]int, len(old))
	root := ""
	for i := range old {
		n := &old[i]
		if isHidden(n.ID) {
			continue // made again by the caller
		}
		if root == "" && n.ParentID == "" {
			root = n.ID
		}
		oldID[n.ID] = i
	}
	if root == "" {
		root = old[0].ID
	}
	repl := map[string]*Node{}
	gone := map[string]bool{}
	lookup := func(id string) (*Node, bool) {
		if n, ok := repl[id]; ok {
			return n, true
		}
		if gone[id] {
			return nil, false
		}
		i, ok := oldID[id]
		if !ok {
			return nil, false
		}
		return &old[i], true
	}
	for _, sub := range ch.Subtrees {
		if len(sub) == 0 {
			continue
		}
		top := sub[0]
		if _, ok := lookup(top.ID); !ok {
			if _, ok := lookup(top.ParentID); !ok || top.ParentID == "" {
				return nil, fmt.Errorf("subtree %s hangs from %q, not in the tree", top.ID, top.ParentID)
			}
		}
		// What hung under the root before goes; the subtree's nodes come in.
		stack := []string{top.ID}
		for len(stack) > 0 {
			id := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			n, ok := lookup(id)
			if !ok {
				continue
			}
			gone[id] = true
			delete(repl, id)
			stack = append(stack, n.ChildIDs...)
		}
		for i := range sub {
			n := normalize(sub[i])
			repl[n.ID] = &n
		}
	}
	for i := range ch.Nodes {
		n := normalize(ch.Nodes[i])
		if n.ID == "" || n.ID == "0" {
			continue // a DOM node with no accessibility node: nothing to show
		}
		if _, ok := lookup(n.ID); !ok {
			return nil, fmt.Errorf("node %s is not in the tree", n.ID)
		}
		repl[n.ID] = &n
	}
	out := make([]Node, 0, len(old)+len(repl))
	seen := make(map[string]bool, len(old)+len(repl))
	stack := []string{root}
	for len(stack) > 0 {
		id := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[id] {
			continue
		}
		seen[id] = true
		n, ok := lookup(id)
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
