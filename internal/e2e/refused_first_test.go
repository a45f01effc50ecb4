//go:build linux

package e2e

import (
	"testing"

	"github.com/browserd/browserd/internal/tool"
)

// TestRefusedFirstNavigationOpensNoTab: a task whose first call is a
// navigation the guard refuses (or a tab_new to a refused URL) is left
// with no tab — no about:blank in the task, nor on the dashboard, which
// lists the engine's tabs — and its next, allowed, navigation opens one.
func TestRefusedFirstNavigationOpensNoTab(t *testing.T) {
	cfg := testConfig(t)
	e, _ := newEngine(t, cfg)
	d := &engineDriver{e: e, data: cfg.Data}
	tabs := func() int {
		e.Mu.Lock()
		defer e.Mu.Unlock()
		return len(e.Tabs)
	}
	refused := "http://127.0.0.2/x"
	if r := d.do(t, tool.Input{Action: "navigate", Task: "first", URL: refused}); r.Success || r.Error == "" {
		t.Fatalf("the refused navigation succeeded: %+v", r)
	}
	if n := tabs(); n != 0 {
		t.Fatalf("the refused first navigation left %d tab(s) open", n)
	}
	if r := d.do(t, tool.Input{Action: "tabs", Task: "first"}); len(r.Tabs) != 0 {
		t.Fatalf("the task lists tabs after a refused first navigation: %+v", r.Tabs)
	}
	if r := d.do(t, tool.Input{Action: "navigate", Task: "first", URL: site.URL("/")}); !r.Success {
		t.Fatalf("the allowed navigation: %s", r.Error)
	}
	if n := tabs(); n != 1 {
		t.Fatalf("after the allowed navigation %d tabs, want 1", n)
	}
	if r := d.do(t, tool.Input{Action: "tab_new", Task: "first", URL: refused}); r.Success {
		t.Fatalf("tab_new to a refused URL succeeded: %+v", r)
	}
	if n := tabs(); n != 1 {
		t.Fatalf("a refused tab_new left a tab: %d tabs, want 1", n)
	}
}
