package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/browserd/browserd/internal/browser"
)

// TestTreeTimeout: a read of the page's accessibility tree that ran out
// of time says the page is too big, with its size, and what to do — not
// that a script keeps it busy; the error is found through the wrapping
// the read adds.
func TestTreeTimeout(t *testing.T) {
	err := fmt.Errorf("reading the accessibility tree: %w", &browser.TreeReadError{Elements: 1_000_000, Err: context.DeadlineExceeded})
	if !errors.Is(err, context.DeadlineExceeded) || !errors.As(err, new(*browser.TreeReadError)) {
		t.Fatalf("the read's error %v is not a deadline, or not a TreeReadError", err)
	}
	msg := treeTimeout(err, "snapshot", 10*time.Second).Error()
	for _, want := range []string{"snapshot timed out after 10s", "too big to read in time", "1,000,000 elements", "not with a script of its own", "selector"} {
		if !strings.Contains(msg, want) {
			t.Errorf("%q does not say %q", msg, want)
		}
	}
	if strings.Contains(msg, "keeps it busy") {
		t.Errorf("%q blames a script", msg)
	}
}
