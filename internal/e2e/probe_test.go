package e2e

import (
	"testing"

	"github.com/browserd/browserd/internal/tool"
)

func TestProbe(t *testing.T) {
	cfg := testConfig(t)
	e, _ := newEngine(t, cfg)
	d := &engineDriver{e: e, data: cfg.Data}
	r := nav(t, d, "p", site.URL("/c/zz-probe"))
	t.Logf("%s", r.Content)
	r = ok(t, d, tool.Input{Action: "click", Task: "p", Role: "button", Name: "Actions"})
	t.Logf("%s", r.Content)
	r = ok(t, d, tool.Input{Action: "click", Task: "p", Role: "button", Name: "Archive"})
	t.Logf("%s", r.Content)
	r = ok(t, d, tool.Input{Action: "click", Task: "p", Selector: "summary"})
	t.Logf("%q %q %s", r.Notes, r.Details, r.Content)
	r = ok(t, d, tool.Input{Action: "snapshot", Task: "p"})
	t.Logf("%s", r.Content)
	r = ok(t, d, tool.Input{Action: "click", Task: "p", Role: "button", Name: "Open dialog"})
	t.Logf("%s", r.Content)
}
