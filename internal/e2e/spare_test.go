//go:build linux

package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/browserd/browserd/internal/browser"
	"github.com/browserd/browserd/internal/engine"
	"github.com/browserd/browserd/internal/tool"
)

// TestSpareTab (issue 40): once a task opens a second tab, a blank tab is
// opened ahead for its next (browsers.Pool.RefillSpare), and the next
// tab_new takes it: Chromium's 25–80 ms to open a tab are not waited for.
// The blank tab is nobody's: tabs does not list it, and it goes with the
// browser.
func TestSpareTab(t *testing.T) {
	cfg := testConfig(t)
	e, do := newEngine(t, cfg)
	do(tool.Input{Action: "navigate", URL: site.URL("/form"), Snapshot: new(bool)})
	if n := blankTargets(t, e); n != 0 {
		t.Fatalf("%d blank tabs after the first navigate, want none: a task with one tab gets no spare", n)
	}
	do(tool.Input{Action: "tab_new", URL: site.URL("/spa"), Snapshot: new(bool)})
	waitBlank := func(want int) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); blankTargets(t, e) != want; time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%d blank tabs, want %d", blankTargets(t, e), want)
			}
		}
	}
	waitBlank(1)
	spare := spareIDs(e)
	if len(spare) != 1 {
		t.Fatalf("spares %v, want one", spare)
	}
	r := do(tool.Input{Action: "tab_new", URL: site.URL("/table"), Snapshot: new(bool)})
	if !r.Success {
		t.Fatal(r.Error)
	}
	if got := r.Tab; got != "t3" {
		t.Errorf("third tab is %q, want t3", got)
	}
	// It took the spare: that target is the third tab now.
	e.Mu.Lock()
	var took bool
	for _, tb := range e.Tabs {
		if tb.Page.TargetID == spare[0] {
			took = tb.ID == "t3"
		}
	}
	e.Mu.Unlock()
	if !took {
		t.Errorf("the third tab is not the spare %s", spare[0])
	}
	waitBlank(1) // and another is opened ahead
	if tabs := do(tool.Input{Action: "tabs"}).Tabs; len(tabs) != 3 {
		t.Errorf("tabs lists %d, want 3 (no blank spare): %+v", len(tabs), tabs)
	}
}

// slotBrowser is the engine's one running browser.
func slotBrowser(t *testing.T, e *engine.Engine) *browser.Browser {
	t.Helper()
	e.Mu.Lock()
	defer e.Mu.Unlock()
	for _, sl := range e.Slots {
		if sl.Br != nil {
			return sl.Br
		}
	}
	t.Fatal("no browser running")
	return nil
}

// blankTargets counts the running browser's blank tabs nobody attached.
func blankTargets(t *testing.T, e *engine.Engine) int {
	t.Helper()
	targets, err := slotBrowser(t, e).Targets(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, tg := range targets {
		if tg.Type == "page" && tg.URL == "about:blank" && !tg.Attached {
			n++
		}
	}
	return n
}

func spareIDs(e *engine.Engine) []string {
	e.Mu.Lock()
	defer e.Mu.Unlock()
	var ids []string
	for _, sl := range e.Slots {
		ids = append(ids, sl.Spares...)
	}
	return ids
}
