//go:build linux

package e2e

import (
	"strings"
	"testing"

	"github.com/browserd/browserd/internal/tool"
)

// TestStatusAfterClose (issue 51 point 5): status lists what runs. A task
// that close said was closed is gone from it, and a session whose last
// task was closed is no longer counted; a new call by the task's name
// starts it afresh.
func TestStatusAfterClose(t *testing.T) {
	cfg := testConfig(t)
	e, _ := newEngine(t, cfg)
	d := &engineDriver{e: e, data: cfg.Data}
	nav(t, d, "keep", site.URL("/form"))
	nav(t, d, "gone", site.URL("/form"))
	contains(t, ok(t, d, tool.Input{Action: "close", Task: "gone"}).Content, `closed task "gone"`)
	st := ok(t, d, tool.Input{Action: "status"}).Content
	contains(t, st, "task keep:")
	if strings.Contains(st, "task gone") {
		t.Fatalf("status lists the task close closed:\n%s", st)
	}
	ok(t, d, tool.Input{Action: "close", Task: "keep"})
	st = ok(t, d, tool.Input{Action: "status"}).Content
	contains(t, st, "sessions: 0, tabs: 0")
	nav(t, d, "gone", site.URL("/form"))
	contains(t, ok(t, d, tool.Input{Action: "status"}).Content, "task gone:")
}
