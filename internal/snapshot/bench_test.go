package snapshot

import (
	"strings"
	"testing"
)

func BenchmarkDecode(b *testing.B) {
	raw := cdpJSON(nodes(tableTree(1000, userCells)))
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decode(raw); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBuild builds the 1,000-row table's snapshot as an agent gets
// it (its rows summarised); BenchmarkBuildAll prints every row.
func BenchmarkBuild(b *testing.B) {
	frames := []Frame{{Key: "m", Nodes: nodes(tableTree(1000, userCells))}}
	refs := NewRefs()
	b.ReportAllocs()
	for b.Loop() {
		Build(frames, refs, Options{Origin: "http://127.0.0.1:8080"})
	}
}

func BenchmarkBuildAll(b *testing.B) {
	frames := []Frame{{Key: "m", Nodes: nodes(tableTree(1000, userCells))}}
	refs := NewRefs()
	b.ReportAllocs()
	for b.Loop() {
		Build(frames, refs, Options{Origin: "http://127.0.0.1:8080", All: true})
	}
}

func BenchmarkDiff(b *testing.B) {
	prev := Build([]Frame{{Key: "m", Nodes: nodes(tableTree(1000, userCells))}}, NewRefs(), Options{All: true}).Text
	cur := strings.Replace(prev, "User 500", "Renamed", 1)
	b.ReportAllocs()
	for b.Loop() {
		Diff(prev, cur)
	}
}

// FuzzBuild builds trees whose shape, roles and properties come from the
// fuzzer's bytes, and checks the budget and ref invariants.
func FuzzBuild(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, uint16(0), uint8(0))
	f.Add([]byte("a table with rows and cells and buttons"), uint16(120), uint8(2))
	roles := []string{"RootWebArea", "generic", "button", "link", "StaticText", "row", "cell",
		"rowgroup", "table", "Iframe", "listitem", "paragraph", "none", "textbox", "LineBreak", ""}
	f.Fuzz(func(t *testing.T, data []byte, maxChars uint16, depth uint8) {
		var ns []Node
		for i, c := range data {
			nd := Node{ID: string(rune('A' + i)), Role: roles[int(c)%len(roles)], BackendID: int64(c % 7),
				Name: strings.Repeat("x\"\n", int(c%5)), Ignored: c%11 == 0}
			if c%3 == 0 {
				nd.Props = map[string]string{"focusable": "true", "checked": "mixed", "url": "http://h/p"}
			}
			if i > 0 {
				// Parents come from the data too, cycles included.
				p := int(data[(i+int(c))%len(data)]) % len(data)
				nd.ParentID = string(rune('A' + p))
			}
			ns = append(ns, nd)
		}
		for i := range ns {
			for j := range ns {
				if ns[j].ParentID == ns[i].ID {
					ns[i].ChildIDs = append(ns[i].ChildIDs, ns[j].ID)
				}
			}
		}
		frames := []Frame{
			{Key: "a", Nodes: ns, Clickable: map[int64]bool{1: true, 3: true}},
			{Key: "b", Nodes: ns, ParentKey: "a", OwnerBackendID: 2},
			{Key: "c", Nodes: ns, ParentKey: "c", OwnerBackendID: 4},
		}
		refs := NewRefs()
		opt := Options{MaxChars: int(maxChars), Depth: int(depth % 5), Interactive: depth > 200, Origin: "http://h"}
		r := Build(frames, refs, opt)
		if opt.MaxChars > 0 && len(r.Text) > opt.MaxChars {
			t.Fatalf("%d bytes over MaxChars %d", len(r.Text), opt.MaxChars)
		}
		if n := strings.Count(r.Text, "[ref="); n != r.Refs {
			t.Fatalf("Refs = %d, text has %d:\n%s", r.Refs, n, r.Text)
		}
		if again := Build(frames, refs, opt); again.Text != r.Text || again.Refs != r.Refs || again.Omitted != r.Omitted {
			t.Fatalf("not deterministic")
		}
		Diff(r.Text, Build(frames[:1], refs, Options{}).Text)
	})
}
