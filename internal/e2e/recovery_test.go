//go:build linux

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/browserd/browserd/internal/client"
	"github.com/browserd/browserd/internal/tool"
)

// tabState is what a test reads back from one tab of a recovered session.
type tabState struct {
	Tab, Task, URL, Status, Local, Session string
}

// readTab reads a tab's URL, login status and storage.
func readTab(t *testing.T, do func(tool.Input) tool.Result, session, task, tab string) tabState {
	t.Helper()
	r := do(tool.Input{Action: "evaluate", Session: session, Task: task, Tab: tab,
		Expression: `JSON.stringify([location.href, (document.getElementById('status')||{}).textContent || '', localStorage.getItem('acct') || '', sessionStorage.getItem('tabid') || ''])`})
	if !r.Success {
		t.Fatalf("evaluate in %s/%s/%s: %s", session, task, tab, r.Error)
	}
	var v []string
	raw := text(r)
	var s string
	if err := json.Unmarshal([]byte(raw), &s); err == nil {
		raw = s
	}
	if err := json.Unmarshal([]byte(raw), &v); err != nil || len(v) != 4 {
		t.Fatalf("evaluate result %q: %v", raw, err)
	}
	return tabState{Tab: tab, Task: task, URL: v[0], Status: v[1], Local: v[2], Session: v[3]}
}

// socketDo returns a function that runs tool calls on the daemon of data.
func socketDo(t *testing.T, data string) func(tool.Input) tool.Result {
	c := client.New(filepath.Join(data, "browserd.sock"))
	t.Cleanup(c.Close)
	return func(in tool.Input) tool.Result {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		r, err := c.Do(ctx, in)
		if err != nil {
			t.Fatalf("%s: %v", in.Action, err)
		}
		return r
	}
}

// loginSession logs session in to the test site in three tabs over two
// tasks and returns what each tab holds, and when its last change ended: a
// capture taken after that holds it all (the reads after it change nothing,
// though they may trigger a capture before they return).
func loginSession(t *testing.T, do func(tool.Input) tool.Result, session string) ([]tabState, time.Time) {
	t.Helper()
	must := func(in tool.Input) tool.Result {
		t.Helper()
		in.Session = session
		no := false
		in.Snapshot = &no
		r := do(in)
		if !r.Success {
			t.Fatalf("%s %s: %s", session, in.Action, r.Error)
		}
		return r
	}
	must(tool.Input{Action: "navigate", Task: "a", URL: site.URL("/login")})
	must(tool.Input{Action: "type", Task: "a", Selector: "#username", Text: "user-" + session})
	must(tool.Input{Action: "type", Task: "a", Selector: "#password", Text: "pw"})
	must(tool.Input{Action: "click", Task: "a", Role: "button", Name: "Log in"})
	must(tool.Input{Action: "tab_new", Task: "a", URL: site.URL("/account?second")})
	r := must(tool.Input{Action: "navigate", Task: "b", URL: site.URL("/account?third")})
	changed := time.Now()
	var states []tabState
	tabs := must(tool.Input{Action: "tabs", Task: "a"}).Tabs
	tabs = append(tabs, must(tool.Input{Action: "tabs", Task: "b"}).Tabs...)
	if len(tabs) != 3 {
		t.Fatalf("%s has %d tabs, want 3: %+v", session, len(tabs), tabs)
	}
	_ = r
	for _, tb := range tabs {
		st := readTab(t, do, session, tb.Task, tb.ID)
		if !strings.Contains(st.Status, "Logged in as user-"+session) || st.Local != "user-"+session || st.Session == "" {
			t.Fatalf("%s tab %s is not logged in with storage: %+v", session, tb.ID, st)
		}
		states = append(states, st)
	}
	return states, changed
}

// waitCaptured waits until every session's last capture holds its three
// tabs and was taken after its last action (since[id]).
func waitCaptured(t *testing.T, do func(tool.Input) tool.Result, since map[string]time.Time) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		r := do(tool.Input{Action: "list_sessions", Filter: "active"})
		done := 0
		for _, s := range r.Sessions {
			if at, ok := since[s.ID]; ok && s.Tabs == 3 && s.LastCapture.After(at) {
				done++
			}
		}
		if done == len(since) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("sessions not captured after their last action: %+v", r.Sessions)
		}
	}
}

// TestRecoveryAfterKill9 is issue 5's acceptance run: five sessions of
// three tabs, each logged in with a session cookie, localStorage and
// sessionStorage; kill -9 of the daemon; no Chromium left; a new daemon
// lists five recoverable sessions and session_resume brings each back —
// every tab at its URL, under its id and task, logged in, its storage
// equal. With --auto-rehydrate the same happens without session_resume.
func TestRecoveryAfterKill9(t *testing.T) {
	t.Parallel() // waits more than it works: run beside another (make test's budget)
	for _, mode := range []string{"resume", "auto-rehydrate"} {
		t.Run(mode, func(t *testing.T) {
			data := t.TempDir()
			d := startDaemon(t, data, "--snapshot-interval", "200ms")
			do := socketDo(t, data)
			ids := []string{"s1", "s2", "s3", "s4", "s5"}
			before := map[string][]tabState{}
			since := map[string]time.Time{}
			for _, id := range ids {
				before[id], since[id] = loginSession(t, do, id)
			}
			waitCaptured(t, do, since)

			if err := d.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			_, _ = d.Process.Wait()
			waitNoChromium(t, data)

			var extra []string
			if mode == "auto-rehydrate" {
				extra = append(extra, "--auto-rehydrate")
			}
			// The killed daemon's socket file is still there: wait for the
			// new daemon to answer on it.
			_ = os.Remove(filepath.Join(data, "browserd.sock"))
			startDaemon(t, data, extra...)
			do = socketDo(t, data)
			if mode == "resume" {
				r := do(tool.Input{Action: "list_sessions", Filter: "recoverable"})
				var got []string
				for _, s := range r.Sessions {
					got = append(got, s.ID)
					if s.Tabs != 3 || !strings.Contains(s.URL, "/account") {
						t.Errorf("recoverable %s lists %d tabs at %q", s.ID, s.Tabs, s.URL)
					}
				}
				slices.Sort(got)
				if !slices.Equal(got, ids) {
					t.Fatalf("recoverable sessions = %v, want %v\n%s", got, ids, r.Content)
				}
				for _, id := range ids {
					r := do(tool.Input{Action: "session_resume", Session: id})
					if !r.Success {
						t.Fatalf("session_resume %s: %s", id, r.Error)
					}
					if len(r.Tabs) != 3 || !strings.Contains(strings.Join(r.Notes, " "), "not restored") {
						t.Errorf("session_resume %s: tabs %+v, notes %v", id, r.Tabs, r.Notes)
					}
				}
				if r := do(tool.Input{Action: "session_resume", Session: "s1"}); r.Success || !strings.Contains(r.Error, "already active") {
					t.Errorf("second resume of s1: %+v", r)
				}
			} else {
				for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(200 * time.Millisecond) {
					r := do(tool.Input{Action: "list_sessions", Filter: "active"})
					if len(r.Sessions) == len(ids) {
						break
					}
					if time.Now().After(deadline) {
						t.Fatalf("auto-rehydrate: active sessions %+v", r.Sessions)
					}
				}
			}
			for _, id := range ids {
				for _, want := range before[id] {
					got := readTab(t, do, id, want.Task, want.Tab)
					if got != want {
						t.Errorf("%s tab %s after recovery:\n got %+v\nwant %+v", id, want.Tab, got, want)
					}
				}
			}
		})
	}
}

// TestCrashRecovery: kill -9 of Chromium's browser process, then of the
// renderers, while a session works; the next action succeeds, says what
// happened, and the session's tabs, login and storage are intact.
func TestCrashRecovery(t *testing.T) {
	t.Parallel() // its own daemon or engine: waits more than it works, beside others (make test's budget)
	data := t.TempDir()
	startDaemon(t, data, "--snapshot-interval", "200ms")
	do := socketDo(t, data)
	before, changed := loginSession(t, do, "c1")
	waitCaptured(t, do, map[string]time.Time{"c1": changed})

	killBrowser(t, data, "chromium-shared.pid")
	r := do(tool.Input{Action: "tabs", Session: "c1", Task: "a"})
	// tabs does not touch the browser; the next page action does.
	_ = r
	r = do(tool.Input{Action: "snapshot", Session: "c1", Task: "b", Tab: before[2].Tab})
	if !r.Success {
		t.Fatalf("snapshot after the browser was killed: %s", r.Error)
	}
	notes := strings.Join(r.Notes, " ")
	if !strings.Contains(notes, "browser had exited") || !strings.Contains(notes, "restored from its capture") {
		t.Errorf("the result does not say the session was restored: %v", r.Notes)
	}
	for _, want := range before {
		if got := readTab(t, do, "c1", want.Task, want.Tab); got != want {
			t.Errorf("after the browser crash, tab %s:\n got %+v\nwant %+v", want.Tab, got, want)
		}
	}

	if n := killRenderers(t, data); n == 0 {
		t.Fatal("found no renderer to kill")
	}
	time.Sleep(300 * time.Millisecond)
	for i, want := range before {
		r := do(tool.Input{Action: "snapshot", Session: "c1", Task: want.Task, Tab: want.Tab})
		if !r.Success {
			t.Fatalf("snapshot of %s after the renderer crash: %s", want.Tab, r.Error)
		}
		if i == 0 && !strings.Contains(strings.Join(r.Notes, " "), "crashed") {
			t.Errorf("the result does not say the tab crashed: %v", r.Notes)
		}
		if got := readTab(t, do, "c1", want.Task, want.Tab); got != want {
			t.Errorf("after the renderer crash, tab %s:\n got %+v\nwant %+v", want.Tab, got, want)
		}
	}
}

// killBrowser kills -9 the Chromium browser process whose pid file (in
// <data>/run) is name.
func killBrowser(t *testing.T, data, name string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(data, "run", name))
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.SplitN(string(b), "\n", 2)[0])
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
}

// killRenderers kills -9 every renderer process of the data dir's
// Chromium and says how many.
func killRenderers(t *testing.T, data string) int {
	t.Helper()
	killed := 0
	for _, pid := range chromiumPIDs(data) {
		cmd, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
		if bytes.Contains(cmd, []byte("--type=renderer")) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			killed++
		}
	}
	return killed
}
