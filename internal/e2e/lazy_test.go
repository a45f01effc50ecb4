package e2e

import (
	"testing"
	"time"

	"github.com/browserd/browserd/internal/tool"
)

// TestLazyTabsAfterResume: a resumed session loads each task's front tab;
// a tab behind it stays unloaded ("not loaded yet", listed where it was)
// until used, and then holds its login and storage; a capture taken while
// it is unloaded keeps what it was, so a second crash brings it back too.
func TestLazyTabsAfterResume(t *testing.T) {
	data := t.TempDir()
	d := startDaemon(t, data, "--snapshot-interval", "200ms")
	do := socketDo(t, data)
	before, changed := loginSession(t, do, "lz")
	waitCaptured(t, do, map[string]time.Time{"lz": changed})
	back := before[0] // task a's first tab, behind the one tab_new opened
	if back.Task != "a" {
		t.Fatalf("loginSession's first tab is %+v", back)
	}

	restart := func() {
		t.Helper()
		d, do = killAndRestart(t, d, data, "--snapshot-interval", "200ms")
		if r := do(tool.Input{Action: "session_resume", Session: "lz"}); !r.Success {
			t.Fatalf("session_resume: %s", r.Error)
		}
	}
	stateOf := func(tab string) tool.Tab {
		t.Helper()
		for _, tb := range do(tool.Input{Action: "tabs", Session: "lz", Task: "a"}).Tabs {
			if tb.ID == tab {
				return tb
			}
		}
		t.Fatalf("no tab %s in task a", tab)
		return tool.Tab{}
	}

	restart()
	if tb := stateOf(back.Tab); tb.State != "not loaded yet" || tb.URL != back.URL {
		t.Errorf("the tab behind task a's front one after the resume: %+v; want it unloaded, at %s", tb, back.URL)
	}
	// A change in another task is captured while the tab is unloaded.
	since := time.Now()
	if r := do(tool.Input{Action: "navigate", Session: "lz", Task: "b", URL: site.URL("/account?fourth"), Snapshot: new(bool)}); !r.Success {
		t.Fatal(r.Error)
	}
	waitCaptured(t, do, map[string]time.Time{"lz": since})
	if tb := stateOf(back.Tab); tb.State != "not loaded yet" {
		t.Fatalf("the capture loaded the tab: %+v", tb)
	}

	restart()
	if got := readTab(t, do, "lz", back.Task, back.Tab); got != back {
		t.Errorf("the tab unloaded through a capture and a second crash:\n got %+v\nwant %+v", got, back)
	}
	if tb := stateOf(back.Tab); tb.State == "not loaded yet" {
		t.Errorf("the tab is still unloaded after an action in it: %+v", tb)
	}
	for _, want := range before[1:2] {
		if got := readTab(t, do, "lz", want.Task, want.Tab); got != want {
			t.Errorf("tab %s:\n got %+v\nwant %+v", want.Tab, got, want)
		}
	}
}
