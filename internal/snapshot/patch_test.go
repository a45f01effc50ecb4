package snapshot

import (
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
