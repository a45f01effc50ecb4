//go:build linux

package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/browserd/browserd/internal/browser"
	"github.com/browserd/browserd/internal/tool"
)

// TestLazyTabsAfterResume: a resumed session loads each task's front tab
// (but not for a call that opens its own tab);
// a tab behind it stays unloaded ("not loaded yet", listed where it was)
// until used, and then holds its login and storage; a capture taken while
// it is unloaded keeps what it was, so a second crash brings it back too.
func TestLazyTabsAfterResume(t *testing.T) {
	t.Parallel() // its own daemon or engine: waits more than it works, beside others (make test's budget)
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

	// A call that opens a tab of its own resumes the session without
	// loading the task's front tab either (issue 40: a tab_new after a
	// restart waited for it): it loads, where it was, when it is used.
	front := before[1] // task a's front tab
	d, do = killAndRestart(t, d, data, "--snapshot-interval", "200ms")
	if r := do(tool.Input{Action: "tab_new", Session: "lz", Task: "a", URL: site.URL("/account?fifth"), Snapshot: new(bool)}); !r.Success {
		t.Fatalf("tab_new resuming the session: %s", r.Error)
	}
	if tb := stateOf(front.Tab); tb.State != "not loaded yet" || tb.URL != front.URL {
		t.Errorf("task a's front tab after a resuming tab_new: %+v; want it unloaded, at %s", tb, front.URL)
	}
	if got := readTab(t, do, "lz", front.Task, front.Tab); got != front {
		t.Errorf("task a's front tab, used after a resuming tab_new:\n got %+v\nwant %+v", got, front)
	}
}

// TestLazyTabsCostNothing (issue 29 point 5): after a restart, the tabs
// behind each task's front one have no target in the browser — no
// renderer — until used; used, one opens and loads where it was; and
// those nobody used for the review grace since the resume are closed.
func TestLazyTabsCostNothing(t *testing.T) {
	cfg := testConfig(t)
	cfg.IdleTimeout, cfg.ReviewGrace = 48*time.Hour, 2*time.Second
	e1, do1 := newEngine(t, cfg)
	for _, in := range []tool.Input{
		{Action: "navigate", Task: "a", URL: site.URL("/form")},
		{Action: "tab_new", Task: "a", URL: site.URL("/spa")},
		{Action: "tab_new", Task: "a", URL: site.URL("/table")},
	} {
		in.Snapshot = new(bool)
		do1(in)
	}
	if err := e1.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	waitNoChromium(t, cfg.Data)

	e2, do2 := newEngine(t, cfg)
	if r := do2(tool.Input{Action: "session_resume", Session: "default"}); len(r.Tabs) != 3 {
		t.Fatalf("resumed tabs: %+v", r.Tabs)
	}
	pages := func() (loaded, all int) {
		t.Helper()
		e2.Mu.Lock()
		var br *browser.Browser
		for _, sl := range e2.Slots {
			if sl.Br != nil {
				br = sl.Br
			}
		}
		e2.Mu.Unlock()
		targets, err := br.Targets(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, tg := range targets {
			if tg.Type == "page" {
				all++
				if tg.URL != "about:blank" {
					loaded++
				}
			}
		}
		return loaded, all
	}
	if loaded, all := pages(); loaded != 1 || all > 2 {
		t.Errorf("after the resume: %d loaded pages of %d page targets; want the front tab's alone (and at most the browser's own blank one)", loaded, all)
	}
	// Used, the first tab opens and loads where it was.
	r := do2(tool.Input{Action: "snapshot", Task: "a", Tab: "t1"})
	if !strings.Contains(r.Content, `textbox "Name"`) {
		t.Errorf("t1 after its first use:\n%.500s", r.Content)
	}
	if loaded, _ := pages(); loaded != 2 {
		t.Errorf("%d loaded pages after t1 was used, want 2", loaded)
	}
	// The one nobody used goes once the review grace has passed.
	time.Sleep(cfg.ReviewGrace + 100*time.Millisecond)
	e2.Reap(time.Now())
	var ids []string
	for _, tb := range do2(tool.Input{Action: "tabs", Task: "a"}).Tabs {
		ids = append(ids, tb.ID)
	}
	if strings.Join(ids, ",") != "t1,t3" {
		t.Errorf("tabs after the review grace: %v, want t1 and t3 (t2 was never used)", ids)
	}
}
