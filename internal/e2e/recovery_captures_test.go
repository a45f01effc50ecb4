//go:build linux

package e2e

import (
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/browserd/browserd/internal/storagestate"
	"github.com/browserd/browserd/internal/tool"
)

// Issue 17 point 9: captures without an action, the state endpoint of a
// session that is not running, and resuming from an older capture.

// captures lists a session's kept captures, newest first.
func captures(t *testing.T, do func(tool.Input) tool.Result, session string) []tool.CaptureInfo {
	t.Helper()
	r := do(tool.Input{Action: "list_sessions", Session: session})
	if !r.Success {
		t.Fatalf("list_sessions %s: %s", session, r.Error)
	}
	return r.Captures
}

// waitCapture waits until session's newest capture was taken after since
// and its first tab's URL contains url; it returns that capture.
func waitCapture(t *testing.T, do func(tool.Input) tool.Result, session string, since time.Time, url string, within time.Duration) tool.CaptureInfo {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		cs := captures(t, do, session)
		if len(cs) > 0 && cs[0].Taken.After(since) && strings.Contains(cs[0].URL, url) {
			return cs[0]
		}
		if time.Now().After(deadline) {
			t.Fatalf("no capture of %s at %s taken after %s within %s: %+v", session, url, since.Format(time.StampMilli), within, cs)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// settledCapture is session's newest capture once no newer one has come
// for a second (10 s at most): the capturer has written what it had to.
// Its first tab's URL must contain url.
func settledCapture(t *testing.T, do func(tool.Input) tool.Result, session, url string) tool.CaptureInfo {
	t.Helper()
	var last tool.CaptureInfo
	since := time.Now()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		cs := captures(t, do, session)
		if len(cs) > 0 && cs[0].ID != last.ID {
			last, since = cs[0], time.Now()
		}
		if time.Since(since) >= time.Second || time.Now().After(deadline) {
			break
		}
	}
	if !strings.Contains(last.URL, url) {
		t.Fatalf("the newest capture of %s is at %s, want %s", session, last.URL, url)
	}
	return last
}

// killAndRestart kills the daemon of data with SIGKILL and starts another
// with extra flags; it returns the new daemon and a caller for it.
func killAndRestart(t *testing.T, d *exec.Cmd, data string, extra ...string) (*exec.Cmd, func(tool.Input) tool.Result) {
	t.Helper()
	if err := d.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_, _ = d.Process.Wait()
	waitNoChromium(t, data)
	_ = os.Remove(filepath.Join(data, "browserd.sock"))
	d = startDaemon(t, data, extra...)
	return d, socketDo(t, data)
}

func nameValue(nv []storagestate.NameValue, name string) string {
	for _, x := range nv {
		if x.Name == name {
			return x.Value
		}
	}
	return ""
}

// TestCaptureWithoutAction: a page that sets a cookie, localStorage and
// sessionStorage by a timer while the agent does nothing is captured
// within about --snapshot-interval; an idle page that changes nothing
// writes no more captures. After kill -9, the state endpoint of the
// session — no longer running — answers from that capture with the URL,
// the title and the tab's sessionStorage, and says so.
func TestCaptureWithoutAction(t *testing.T) {
	t.Parallel() // its own daemon or engine: waits more than it works, beside others (make test's budget)
	data := t.TempDir()
	const interval = 300 * time.Millisecond
	d := startDaemon(t, data, "--snapshot-interval", interval.String())
	do := socketDo(t, data)
	api := socketAPI(t, data)
	no := false
	started := time.Now()
	r := do(tool.Input{Action: "navigate", Session: "idle", Task: "k", URL: site.URL("/timer-state?ms=3000&v=tok1&stamp"), Snapshot: &no})
	if !r.Success {
		t.Fatal(r.Error)
	}
	// The navigation is captured as before; 3 s after its script ran, the
	// page sets its cookie and storage to tok1@<the time>, with no action
	// on the session since: a new capture follows.
	nav := waitCapture(t, do, "idle", started, "/timer-state", 5*time.Second)
	var c tool.CaptureInfo
	for deadline := time.Now().Add(3*time.Second + interval + 5*time.Second); ; time.Sleep(25 * time.Millisecond) {
		if cs := captures(t, do, "idle"); cs[0].ID != nav.ID {
			c = cs[0]
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no capture after the navigation's (%d at %s): the page's own change was not captured", nav.ID, nav.Taken.Format(time.StampMilli))
		}
	}
	// Nothing changes any more: no capture is written every interval.
	time.Sleep(5 * interval)
	if cs := captures(t, do, "idle"); cs[0].ID != c.ID {
		t.Errorf("an idle session with no change was captured again: %+v", cs[0:2])
	}
	// Running: the state endpoint reads the browser, with the tabs.
	var live storagestate.Export
	if code, raw := api.call("GET", "/api/sessions/idle/state", nil, &live); code != 200 {
		t.Fatalf("state of the running session: %d %s", code, raw)
	}
	if live.Source != "browser" || live.CapturedAt != nil || live.Title != "Timer state" || len(live.Tabs) != 1 || !strings.HasPrefix(nameValue(live.Tabs[0].SessionStorage, "timer"), "tok1@") {
		t.Errorf("state of the running session: %+v", live)
	}

	_, do = killAndRestart(t, d, data)
	api = socketAPI(t, data)
	var st storagestate.Export
	code, raw := api.call("GET", "/api/sessions/idle/state", nil, &st)
	if code != 200 {
		t.Fatalf("state of the interrupted session: %d %s", code, raw)
	}
	if st.Source != "capture" || st.CapturedAt == nil || !st.CapturedAt.Equal(c.Taken) {
		t.Errorf("state source %q captured at %v, want capture at %v", st.Source, st.CapturedAt, c.Taken)
	}
	if !strings.Contains(st.URL, "/timer-state?ms=3000&v=tok1&stamp") || st.Title != "Timer state" {
		t.Errorf("state url %q title %q", st.URL, st.Title)
	}
	if len(st.Tabs) != 1 || st.Tabs[0].Task != "k" || !st.Tabs[0].Active {
		t.Fatalf("state tabs: %+v", st.Tabs)
	}
	// The value tells when the page set it: the navigation's capture was
	// before, the new one within the interval (and a tick) after.
	val := nameValue(st.Tabs[0].SessionStorage, "timer")
	stamp, err := strconv.ParseInt(strings.TrimPrefix(val, "tok1@"), 10, 64)
	if !strings.HasPrefix(val, "tok1@") || err != nil {
		t.Fatalf("the tab's sessionStorage timer is %q, want tok1@<time>\n%s", val, raw)
	}
	fired := time.UnixMilli(stamp)
	if !nav.Taken.Before(fired) {
		t.Fatalf("the navigation's capture (%s) is not before the timer fired (%s)", nav.Taken.Format(time.StampMilli), fired.Format(time.StampMilli))
	}
	lag := c.Taken.Sub(fired)
	t.Logf("the page's change was captured %s after it was made (--snapshot-interval %s)", lag, interval)
	if lag < 0 || lag > interval+500*time.Millisecond {
		t.Errorf("the page's change at %s was captured at %s: %s later, want within the interval %s (and a tick)", fired.Format(time.StampMilli), c.Taken.Format(time.StampMilli), lag, interval)
	}
	cookie := ""
	for _, ck := range st.Cookies {
		if ck.Name == "timer" {
			cookie, _ = url.QueryUnescape(ck.Value) // the page encodes it
		}
	}
	origin := strings.TrimSuffix(site.URL("/"), "/")
	var local, session string
	for _, o := range st.Origins {
		if o.Origin == origin {
			local, session = nameValue(o.LocalStorage, "timer"), nameValue(o.SessionStorage, "timer")
		}
	}
	if cookie != val || local != val || session != val {
		t.Errorf("the timer's cookie %q, localStorage %q, sessionStorage %q in the capture; want %q\n%s", cookie, local, session, val, raw)
	}
	// The body still loads as a storageState.
	if ps, err := storagestate.Parse(raw); err != nil || len(ps.Cookies) != len(st.Cookies) {
		t.Errorf("the state does not parse as a storageState: %v", err)
	}
	// The session is still recoverable: reading its state resumed nothing.
	if s := states(do(tool.Input{Action: "list_sessions"}))["idle"]; s.State != "recoverable" {
		t.Errorf("after reading its state the session is %q", s.State)
	}
}

// TestResumeOlderCapture: session_resume with a capture id brings back
// that older capture's URL and storage, and makes it the newest; a
// running session is refused; a closed one comes back from the capture
// at or before a time.
func TestResumeOlderCapture(t *testing.T) {
	t.Parallel() // its own daemon or engine: waits more than it works, beside others (make test's budget)
	data := t.TempDir()
	d := startDaemon(t, data, "--snapshot-interval", "300ms")
	do := socketDo(t, data)
	no := false
	step := func(name string) (tool.CaptureInfo, string) {
		t.Helper()
		r := do(tool.Input{Action: "navigate", Session: "hist", Task: "k", URL: site.URL("/account?" + name), Snapshot: &no})
		if !r.Success {
			t.Fatal(r.Error)
		}
		// The evaluate's change makes the session due at once: its
		// capture may be written before the answer reaches here (a
		// loaded machine did), so it counts from before the call, and the
		// capture that holds the state is the newest once the capturer has
		// nothing more to write.
		before := time.Now()
		r = do(tool.Input{Action: "evaluate", Session: "hist", Task: "k", Expression: fmt.Sprintf("localStorage.setItem('acct', %q), sessionStorage.setItem('tabid', %q), 1", name, name)})
		if !r.Success {
			t.Fatal(r.Error)
		}
		waitCapture(t, do, "hist", before, "/account?"+name, 5*time.Second)
		return settledCapture(t, do, "hist", "/account?"+name), r.Tab
	}
	one, tab := step("one")
	two, _ := step("two")
	if two.ID == one.ID {
		t.Fatalf("one capture for two states: %+v", one)
	}

	_, do = killAndRestart(t, d, data)
	cs := captures(t, do, "hist")
	if len(cs) < 2 || cs[0].ID != two.ID {
		t.Fatalf("captures after the restart: %+v, want %d first", cs, two.ID)
	}
	r := do(tool.Input{Action: "list_sessions", Session: "hist"})
	if !strings.Contains(text(r), fmt.Sprintf("%d: ", one.ID)) || !strings.Contains(text(r), "session_resume with capture") {
		t.Errorf("list_sessions with session says:\n%s", text(r))
	}

	r = do(tool.Input{Action: "session_resume", Session: "hist", Capture: tool.CaptureRef(fmt.Sprint(one.ID))})
	if !r.Success {
		t.Fatalf("session_resume with capture %d: %s", one.ID, r.Error)
	}
	if !strings.Contains(r.Content, fmt.Sprintf("capture %d", one.ID)) {
		t.Errorf("the resume does not name the capture: %s", r.Content)
	}
	want := tabState{Tab: tab, Task: "k", URL: site.URL("/account?one"), Status: "Not logged in", Local: "one", Session: "one"}
	if got := readTab(t, do, "hist", "k", tab); got != want {
		t.Errorf("after resuming capture %d:\n got %+v\nwant %+v", one.ID, got, want)
	}
	// The resumed state is the newest capture now; the newer one is kept.
	cs = captures(t, do, "hist")
	if !strings.Contains(cs[0].URL, "/account?one") || !cs[0].Taken.After(two.Taken) {
		t.Errorf("newest capture after the resume: %+v", cs[0])
	}
	kept := false
	for _, c := range cs {
		kept = kept || c.ID == two.ID
	}
	if !kept {
		t.Errorf("capture %d is gone after resuming an older one: %+v", two.ID, cs)
	}

	// A running session is not replaced by a capture.
	r = do(tool.Input{Action: "session_resume", Session: "hist", Capture: tool.CaptureRef(fmt.Sprint(two.ID))})
	if r.Success || !strings.Contains(r.Error, "close it first") {
		t.Errorf("session_resume with capture of a running session: %+v", r)
	}
	if got := readTab(t, do, "hist", "k", tab); got.Local != "one" {
		t.Errorf("the refused resume changed the session: %+v", got)
	}

	// Closed, it comes back from the newest capture at or before a time.
	api := socketAPI(t, data)
	if code, raw := api.call("DELETE", "/api/sessions/hist", nil, nil); code != 204 {
		t.Fatalf("DELETE: %d %s", code, raw)
	}
	if r := do(tool.Input{Action: "session_resume", Session: "hist"}); r.Success || !strings.Contains(r.Error, "session_resume with capture") {
		t.Errorf("session_resume of a closed session without capture: %+v", r)
	}
	var res tool.Result
	code, raw := api.call("POST", "/api/sessions/hist/resume", map[string]any{"capture": two.Taken.Format(time.RFC3339Nano)}, &res)
	if code != 200 || !res.Success {
		t.Fatalf("resume at %s: %d %s", two.Taken.Format(time.RFC3339Nano), code, raw)
	}
	want = tabState{Tab: tab, Task: "k", URL: site.URL("/account?two"), Status: "Not logged in", Local: "two", Session: "two"}
	if got := readTab(t, do, "hist", "k", tab); got != want {
		t.Errorf("after resuming the capture at %s:\n got %+v\nwant %+v", two.Taken, got, want)
	}
	// A capture the session does not keep is refused clearly.
	if code, raw := api.call("POST", "/api/sessions/hist/resume?capture=999999", nil, nil); code != 409 || !strings.Contains(string(raw), "running") {
		t.Errorf("resume of a running session with an unknown capture: %d %s", code, raw)
	}
}
