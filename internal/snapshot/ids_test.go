package snapshot

import (
	"strings"
	"testing"
)

// checkIDIndex compares idIndex with a map from id to the first position.
func checkIDIndex(t *testing.T, ids []string, probes []string) {
	t.Helper()
	nodes := make([]Node, len(ids))
	want := map[string]int{}
	for i, id := range ids {
		nodes[i].ID = id
		if _, dup := want[id]; !dup {
			want[id] = i
		}
	}
	x := newIDIndex(nodes)
	for _, id := range append(append([]string{}, ids...), probes...) {
		w, wok := want[id]
		g, gok := x.get(id)
		if wok != gok || wok && w != g {
			t.Fatalf("ids %q: get(%q) = %d, %v; want %d, %v", ids, id, g, gok, w, wok)
		}
	}
}

func TestIDIndex(t *testing.T) {
	checkIDIndex(t, []string{"1", "2", "3", "10"}, []string{"4", "0", "", "01", "11"})
	// Duplicates: the first wins. Spellings that are not canonical are
	// ids of their own.
	checkIDIndex(t, []string{"5", "05", "5", "+5", "x", "x", "0", "00"}, []string{"005", "6"})
	// An id far beyond the node count goes in the map.
	checkIDIndex(t, []string{"1", "999999999", "1000000000", "-1", "2"}, []string{"3", "99999999"})
	checkIDIndex(t, nil, []string{"1", ""})
}

func FuzzIDIndex(f *testing.F) {
	f.Add("1 2 3 10 02 x")
	f.Add("0 00 5 5 999999999 1234567890")
	f.Fuzz(func(t *testing.T, s string) {
		ids := strings.Fields(s)
		checkIDIndex(t, ids, []string{"0", "1", "", "007"})
	})
}
