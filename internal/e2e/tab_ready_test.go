//go:build linux

package e2e

import (
	"strings"
	"testing"

	"github.com/browserd/browserd/internal/tool"
)

// TestTabNewAnswersWhenReady (issue 40): tab_new answers once the new
// tab's document is ready (DOMContentLoaded), not once its slow image has
// loaded, and says the page is still loading; the next action on the tab
// waits for the rest, so its answer shows what the load event added.
func TestTabNewAnswersWhenReady(t *testing.T) {
	cfg := testConfig(t)
	e, _ := newEngine(t, cfg)
	d := &engineDriver{e: e, data: cfg.Data}
	r := ok(t, d, tool.Input{Action: "tab_new", Task: "ready", URL: site.URL("/late-image")})
	if got := text(r); !strings.Contains(got, "Ready") || strings.Contains(got, "All loaded") {
		t.Errorf("tab_new's answer: %q; want the ready document (its heading), before the load event's text", got)
	}
	if !strings.Contains(strings.Join(r.Notes, "\n"), "still loading") {
		t.Errorf("tab_new's notes: %q; want one saying the page was still loading", r.Notes)
	}
	r = ok(t, d, tool.Input{Action: "snapshot", Task: "ready", Tab: r.Tab})
	if got := text(r); !strings.Contains(got, "All loaded") {
		t.Errorf("the next snapshot: %q; want the rest of the load in it (the load event's text)", got)
	}
}
