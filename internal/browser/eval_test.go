package browser

import (
	"strings"
	"testing"
)

// TestBoundedResult: a result over the bound is cut on a character
// boundary, with its whole length kept; a whole one is written as
// encoding/json writes it (keys sorted, < escaped), as before the bound.
func TestBoundedResult(t *testing.T) {
	whole := bounded(`{"b":1,"a":"<"}`, 15, 100, true)
	if whole.Text != `{"a":"\u003c","b":1}` || whole.Cut() {
		t.Errorf("whole result: %+v", whole)
	}
	long := `"` + strings.Repeat("é", 20) + `"`
	cut := bounded(long, utf16Len([]byte(long)), 10, true)
	if cut.Text != `"`+strings.Repeat("é", 4) || cut.Shown != 5 || cut.Total != 22 || !cut.Cut() {
		t.Errorf("cut result: %+v", cut)
	}
	note := EvalNote(EvalResult{Text: "x", Total: 50_000_002, Shown: MaxEvalResult})
	for _, want := range []string{"50,000,002 characters", "1 MB", "the first 1,048,576 are shown", "48,951,426 left out", ".slice(1048000, 2048000)"} {
		if !strings.Contains(note, want) {
			t.Errorf("note %q does not say %q", note, want)
		}
	}
	if n := EvalNote(whole); n != "" {
		t.Errorf("a whole result has a note: %q", n)
	}
	if n := utf16Len([]byte("a😀")); n != 3 {
		t.Errorf("utf16Len(a😀) = %d, want 3", n)
	}
}
