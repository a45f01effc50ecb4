package snapshot

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

func patchTree() []Node {
	return []Node{
		{ID: "1", Role: "RootWebArea", Name: "Page", ChildIDs: []string{"2", "5"}, BackendID: 1},
		{ID: "2", ParentID: "1", Role: "list", ChildIDs: []string{"3", "4"}, BackendID: 2},
		{ID: "3", ParentID: "2", Role: "listitem", Name: "Apples", BackendID: 3},
		{ID: "4", ParentID: "2", Role: "listitem", Name: "Pears", BackendID: 4, ChildIDs: []string{HiddenPrefix + "9"}},
		{ID: HiddenPrefix + "9", ParentID: "4", Role: "generic", BackendID: 9},
		{ID: "5", ParentID: "1", Role: "button", Name: "Add", BackendID: 5},
	}
}

func ids(ns []Node) string {
	var b []string
	for _, n := range ns {
		b = append(b, n.ID+":"+n.Name)
	}
	return strings.Join(b, " ")
}

func TestPatchReplacesSubtrees(t *testing.T) {
	old := patchTree()
	got, err := Patch(old, Change{
		Subtrees: [][]Node{{
			{ID: "2", ParentID: "1", Role: "list", ChildIDs: []string{"4", "6"}, BackendID: 2},
			{ID: "4", ParentID: "2", Role: "listitem", Name: "Pears", BackendID: 4},
			{ID: "6", ParentID: "2", Role: "listitem", Name: "Plums", BackendID: 6, Ignored: true},
		}},
		Nodes: []Node{{ID: "1", Role: "RootWebArea", Name: "Page 2", ChildIDs: []string{"2", "5"}, BackendID: 1}},
	})
	if err != nil {
		t.Fatal(err)
	}
	// Apples gone, Plums in (ignored: no name, role none, as a whole read
	// shows it), the root renamed, the hidden node left for the caller.
	if want := "1:Page 2 2: 4:Pears 6: 5:Add"; ids(got) != want {
		t.Fatalf("patched tree %q, want %q", ids(got), want)
	}
	if got[3].Role != "none" {
		t.Errorf("ignored node keeps role %q", got[3].Role)
	}
	if ids(old) != "1:Page 2: 3:Apples 4:Pears "+HiddenPrefix+"9: 5:Add" {
		t.Errorf("the old tree changed: %s", ids(old))
	}
}

func TestPatchRefusesWhatDoesNotHangTogether(t *testing.T) {
	cases := map[string]Change{
		"unknown child": {Nodes: []Node{{ID: "1", ChildIDs: []string{"2", "5", "77"}, BackendID: 1}}},
		"stray subtree": {Subtrees: [][]Node{{{ID: "40", ParentID: "99", BackendID: 40}}}},
		"unknown node":  {Nodes: []Node{{ID: "41", ParentID: "1", BackendID: 41}}},
	}
	for name, ch := range cases {
		if _, err := Patch(patchTree(), ch); err == nil {
			t.Errorf("%s: patched without an error", name)
		}
	}
	if _, err := Patch(nil, Change{}); err == nil {
		t.Error("patched an empty tree")
	}
	// A new subtree under a node the tree has is fine once its parent
	// lists it.
	got, err := Patch(patchTree(), Change{
		Subtrees: [][]Node{{{ID: "7", ParentID: "1", Role: "dialog", Name: "Notice", BackendID: 7}}},
		Nodes:    []Node{{ID: "1", Role: "RootWebArea", Name: "Page", ChildIDs: []string{"2", "5", "7"}, BackendID: 1}},
	})
	if err != nil || !strings.Contains(ids(got), "7:Notice") {
		t.Fatalf("new subtree: %v %s", err, ids(got))
	}
}

// TestSpliceAgreesWithTheWalk: on random trees and random changes of
// their subtrees and single nodes, the splice gives what the walk of the
// whole tree gives, or leaves the change to it.
func TestSpliceAgreesWithTheWalk(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	spliced := 0
	for round := range 500 {
		next := 1
		var tree []Node
		var grow func(parent string, depth int) string
		grow = func(parent string, depth int) string {
			id := strconv.Itoa(next)
			next++
			i := len(tree)
			tree = append(tree, Node{ID: id, ParentID: parent, Role: "generic", Name: "n" + id, BackendID: int64(next)})
			if depth < 4 {
				for range rng.IntN(4) {
					c := grow(id, depth+1)
					tree[i].ChildIDs = append(tree[i].ChildIDs, c)
				}
			}
			return id
		}
		grow("", 0)
		var ch Change
		for range 1 + rng.IntN(3) {
			n := tree[rng.IntN(len(tree))]
			if rng.IntN(2) == 0 {
				// the subtree under n, read again: its children replaced
				// by new ones (ids never used), or kept
				root := n
				root.Name += "'"
				sub := []Node{root}
				if rng.IntN(2) == 0 {
					root.ChildIDs = nil
					for range rng.IntN(3) {
						id := strconv.Itoa(1000*(round+1) + next)
						next++
						root.ChildIDs = append(root.ChildIDs, id)
						sub = append(sub, Node{ID: id, ParentID: root.ID, Role: "button", Name: "new" + id, Ignored: rng.IntN(3) == 0})
					}
					sub[0] = root
				} else {
					sub = subtreeOf(tree, n.ID)
					sub[0].Name += "'"
				}
				ch.Subtrees = append(ch.Subtrees, sub)
			} else {
				n.Name += "*"
				ch.Nodes = append(ch.Nodes, n)
			}
		}
		want, werr := walkPatch(tree, ch)
		got, ok := splice(tree, ch)
		if !ok {
			continue
		}
		spliced++
		if werr != nil {
			t.Fatalf("round %d: spliced what the walk refuses (%v)", round, werr)
		}
		if ids(got) != ids(want) {
			t.Fatalf("round %d:\nsplice %s\nwalk   %s", round, ids(got), ids(want))
		}
	}
	if spliced < 100 {
		t.Errorf("only %d of 500 changes spliced", spliced)
	}
}

func subtreeOf(tree []Node, id string) []Node {
	var out []Node
	in := map[string]bool{id: true}
	for _, n := range tree {
		if in[n.ID] || in[n.ParentID] {
			in[n.ID] = true
			out = append(out, n)
		}
	}
	return out
}

// walkPatch is Patch by the walk alone.
func walkPatch(old []Node, ch Change) ([]Node, error) {
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

// TestTreeOrder: a tree as Chromium's whole read lists it, level by
// level, comes out in tree order with what the root does not reach
// after — and a change to it then splices, giving what the walk gives.
func TestTreeOrder(t *testing.T) {
	levels := []Node{
		{ID: "1", Role: "RootWebArea", ChildIDs: []string{"2", "3"}},
		{ID: "2", ParentID: "1", Role: "status", ChildIDs: []string{"4"}},
		{ID: "3", ParentID: "1", Role: "button", Name: "Add", ChildIDs: []string{"5"}},
		{ID: "4", ParentID: "2", Role: "StaticText", Name: "Cart: empty", ChildIDs: []string{"6"}},
		{ID: "5", ParentID: "3", Role: "StaticText", Name: "Add"},
		{ID: "6", ParentID: "4", Role: "InlineTextBox", Name: "Cart: empty"},
		{ID: "9", ParentID: "77", Role: "generic", Name: "stray"},
	}
	ch := Change{Subtrees: [][]Node{{
		{ID: "2", ParentID: "1", Role: "status", ChildIDs: []string{"7"}},
		{ID: "7", ParentID: "2", Role: "StaticText", Name: "Cart: item 1"},
	}}}
	if _, ok := splice(levels, ch); ok {
		t.Fatal("spliced into a tree not in tree order")
	}
	ordered := TreeOrder(levels)
	if got, want := ids(ordered), "1: 2: 4:Cart: empty 6:Cart: empty 3:Add 5:Add 9:stray"; got != want {
		t.Fatalf("tree order %q, want %q", got, want)
	}
	got, ok := splice(ordered, ch)
	if !ok {
		t.Fatal("no splice into the tree in tree order")
	}
	want, err := walkPatch(levels, ch)
	if err != nil {
		t.Fatal(err)
	}
	if ids(got[:len(want)]) != ids(want) {
		t.Fatalf("spliced %q, the walk gives %q", ids(got), ids(want))
	}
	if ids(levels) != "1: 2: 3:Add 4:Cart: empty 5:Add 6:Cart: empty 9:stray" {
		t.Errorf("TreeOrder changed its input: %s", ids(levels))
	}
}
