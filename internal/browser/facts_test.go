package browser

import (
	"maps"
	"testing"

	"github.com/browserd/browserd/internal/snapshot"
)

// TestMergeFacts: a patched frame keeps the old frame's DOM facts outside
// the changed subtrees and takes those read in them now, so that it holds
// what a whole read finds: aria-current moved from one link (changed, no
// longer current) to another (changed, now current), a third link outside
// the change kept; a clickable element inside the change gone, one outside
// kept with its text and anchor.
func TestMergeFacts(t *testing.T) {
	old := snapshot.Frame{
		Clickable:     map[int64]bool{5: true, 6: true, 9: true},
		ClickableText: map[int64]string{5: "five", 6: "six", 9: "nine"},
		Anchors:       map[int64]int64{9: 3},
		Current:       map[int64]bool{11: true, 13: true},
		Hints:         map[int64]string{5: "trash", 6: "pencil"},
	}
	changed := map[int64]bool{6: true, 11: true, 12: true}
	var f snapshot.Frame
	mergeFacts(&f, old, changed, domFacts{
		clickable: map[int64]bool{7: true},
		text:      map[int64]string{7: "seven"},
		anchors:   map[int64]int64{},
		current:   map[int64]bool{12: true},
		hints:     map[int64]string{7: "cart"},
	})
	for name, c := range map[string]struct{ got, want any }{
		"clickable": {f.Clickable, map[int64]bool{5: true, 7: true, 9: true}},
		"text":      {f.ClickableText, map[int64]string{5: "five", 7: "seven", 9: "nine"}},
		"anchors":   {f.Anchors, map[int64]int64{9: 3}},
		"current":   {f.Current, map[int64]bool{12: true, 13: true}},
		"hints":     {f.Hints, map[int64]string{5: "trash", 7: "cart"}},
	} {
		if !equalMaps(c.got, c.want) {
			t.Errorf("%s = %v, want %v", name, c.got, c.want)
		}
	}
	// A hidden clickable element whose anchor changed goes with it.
	mergeFacts(&f, old, map[int64]bool{3: true}, domFacts{})
	if f.Clickable[9] || f.Anchors[9] != 0 || !f.Current[11] {
		t.Errorf("anchor changed: clickable %v anchors %v current %v", f.Clickable, f.Anchors, f.Current)
	}
}

func equalMaps(a, b any) bool {
	switch a := a.(type) {
	case map[int64]bool:
		return maps.Equal(a, b.(map[int64]bool))
	case map[int64]string:
		return maps.Equal(a, b.(map[int64]string))
	case map[int64]int64:
		return maps.Equal(a, b.(map[int64]int64))
	}
	return false
}
