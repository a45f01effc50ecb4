package snapshot

import (
	"strconv"
	"strings"
	"testing"
)

// TestPartNote: a frame read in part says so in the last line, with what
// it left out and how to read another part — also when MaxChars cuts the
// rest of the snapshot.
func TestPartNote(t *testing.T) {
	nodes := []Node{{ID: "1", Role: "RootWebArea", Name: "Links", ChildIDs: []string{"404"}}}
	for i := range 20 {
		id := strconv.Itoa(i + 2)
		nodes[0].ChildIDs = append(nodes[0].ChildIDs, id)
		nodes = append(nodes, Node{ID: id, ParentID: "1", Role: "link", Name: "Link " + id, BackendID: int64(10 + i)})
	}
	f := Frame{Key: "k", Nodes: nodes, Part: &Part{Elements: 200_006, Read: 502, Max: 20_000}}
	r := Build([]Frame{f}, NewRefs(), Options{})
	lines := strings.Split(r.Text, "\n")
	want := "[page too big to read whole: it has 200,006 elements, more than the 20,000 a snapshot reads; this one shows the first 502 of them in document order and leaves out the other 199,504"
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, want) || !strings.Contains(last, `selector="…"`) {
		t.Errorf("last line = %q, want it to start %q", last, want)
	}
	if !strings.Contains(r.Text, `link "Link 3"`) {
		t.Errorf("the part read is not shown:\n%s", r.Text)
	}
	cut := Build([]Frame{f}, NewRefs(), Options{MaxChars: 400})
	if !strings.Contains(cut.Text, "leaves out the other 199,504") || len(cut.Text) > 400 || !strings.Contains(cut.Text, "snapshot cut") {
		t.Errorf("with MaxChars 400 (%d bytes):\n%s", len(cut.Text), cut.Text)
	}
	if tiny := Build([]Frame{f}, NewRefs(), Options{MaxChars: 100}); !strings.HasPrefix(tiny.Text, "[page too big") || tiny.Omitted == 0 {
		t.Errorf("with MaxChars 100: %+v", tiny)
	}
	f.Part.From = true
	if r := Build([]Frame{f}, NewRefs(), Options{}); !strings.Contains(r.Text, "502 of them, in document order from the element asked for on") {
		t.Errorf("from an element:\n%s", r.Text)
	}
	f.Part = nil
	if r := Build([]Frame{f}, NewRefs(), Options{}); strings.Contains(r.Text, "too big") {
		t.Errorf("a frame read whole has the note:\n%s", r.Text)
	}
}
