package snapshot

import (
	"slices"
	"strings"
	"testing"
)

func TestMemo(t *testing.T) {
	ns := nodes(tableTree(3, userCells))
	frames := []Frame{{Key: "m", Nodes: ns}}
	refs := NewRefs()
	opt := Options{Owner: "t1", Origin: "http://h"}
	var m Memo
	first := m.Build(frames, refs, opt)
	if first.Text != Build(frames, refs, opt).Text {
		t.Fatalf("the memo's first build differs from Build:\n%s", first.Text)
	}
	// The same read: its text comes from the memo, so an edit made in
	// place (which no read does) does not show.
	i := slices.IndexFunc(ns, func(n Node) bool { return n.Name == "User 2" })
	if i < 0 {
		t.Fatal("no node named User 2 in the test table")
	}
	ns[i].Name = "Renamed"
	if got := m.Build(frames, refs, opt); got.Text != first.Text {
		t.Fatalf("the same frames were built again:\n%s", got.Text)
	}
	// A new read (new node slices), other options, other refs: built.
	again := []Frame{{Key: "m", Nodes: slices.Clone(ns)}}
	if got := m.Build(again, refs, opt); !strings.Contains(got.Text, "Renamed") {
		t.Fatalf("a new read was not built:\n%s", got.Text)
	}
	for _, o := range []Options{{Owner: "t2", Origin: "http://h"}, {Owner: "t1", Origin: "http://h", Windows: []Key{{Frame: "m", Backend: 1}}}} {
		again[0].Nodes[i].Name = "Other " + o.Owner
		if got := m.Build(again, refs, o); !strings.Contains(got.Text, again[0].Nodes[i].Name) {
			t.Fatalf("other options (%+v) were not built:\n%s", o, got.Text)
		}
	}
	m.Build(again, refs, opt)
	again[0].Nodes[i].Name = "Thrice"
	if got := m.Build(again, NewRefs(), opt); !strings.Contains(got.Text, "Thrice") {
		t.Fatalf("other refs were not built:\n%s", got.Text)
	}
	// A part of the page is never kept.
	root := Key{Frame: "m", Backend: ns[i].BackendID}
	m.Build(again, refs, Options{Root: &root})
	if m.frames != nil {
		t.Fatal("a build with Root was kept")
	}
}
