package chromium

import (
	"slices"
	"testing"
)

// TestArgsBoundTheCache: every browser's HTTP cache is bounded, so a
// profile used for months does not grow without end.
func TestArgsBoundTheCache(t *testing.T) {
	args := Options{UserDataDir: "/x", Width: 10, Height: 10}.Args()
	if !slices.Contains(args, "--disk-cache-size=67108864") {
		t.Errorf("no cache bound in %v", args)
	}
}
