package traces

import (
	"context"
	"errors"
	"testing"

	"github.com/browserd/browserd/internal/sessions"
	"github.com/browserd/browserd/internal/store"
)

// TestRecordOff: a daemon that records nothing says so, as not found.
func TestRecordOff(t *testing.T) {
	tr := &Traces{Registry: &sessions.Registry{}}
	if _, err := tr.Trace(context.Background(), "s1", "", "html"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Trace with --record=off: %v, want store.ErrNotFound", err)
	}
}
