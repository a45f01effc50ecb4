//go:build linux

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/browserd/browserd/internal/recording"
	"github.com/browserd/browserd/internal/store"
	"github.com/browserd/browserd/internal/tool"
)

// TestRecording: every call of a task is recorded — the action, its
// arguments, its outcome, the console errors and requests it caused, a
// frame of the page after it — and the recording is its owner's only, as
// JSON, as one HTML file (the frames inlined), and from the CLI.
func TestRecording(t *testing.T) {
	data := t.TempDir()
	addr := freeAddr(t)
	startDaemon(t, data, "--listen", addr)
	admin := tcpAPI(t, addr, adminToken(t, data))
	var tokA, tokB struct {
		Token string `json:"token"`
	}
	admin.expect(201, "POST", "/api/tokens", map[string]string{"owner": "alice"}, &tokA)
	admin.expect(201, "POST", "/api/tokens", map[string]string{"owner": "bob"}, &tokB)
	alice, bob := tcpAPI(t, addr, tokA.Token), tcpAPI(t, addr, tokB.Token)
	var res struct {
		Success bool   `json:"success"`
		Error   string `json:"error"`
	}
	// inlined counts the frames the task's HTML trace has.
	inlined := func() int {
		t.Helper()
		status, b := alice.call("GET", "/api/sessions/rec/trace?task=shop&format=html", nil, nil)
		if status != 200 {
			t.Fatalf("GET trace html: %d %s", status, b)
		}
		return bytes.Count(b, []byte("data:image/jpeg;base64,"))
	}
	// An agent reads the answer before it acts again: the frame is taken
	// meanwhile — FrameDelay after the answer, and on a loaded machine a
	// capture can take longer than an agent reads, so the test waits for
	// the frame (a frame the next action overtakes is given up: it would
	// not show this action's page).
	waitFrames := func(n int) {
		time.Sleep(recording.FrameDelay)
		for deadline := time.Now().Add(10 * time.Second); inlined() < n && time.Now().Before(deadline); {
			time.Sleep(100 * time.Millisecond)
		}
	}
	act := func(in map[string]any, frames int) {
		t.Helper()
		in["session"], in["task"] = "rec", "shop"
		alice.expect(200, "POST", "/api/actions", in, &res)
		if !res.Success {
			t.Fatalf("%v: %s", in, res.Error)
		}
		if frames > 0 {
			waitFrames(frames)
		}
	}
	act(map[string]any{"action": "navigate", "url": site.URL("/console?n=3")}, 1)
	act(map[string]any{"action": "navigate", "url": site.URL("/form")}, 2)
	act(map[string]any{"action": "type", "selector": "input[name=name]", "text": "Ada"}, 3)
	alice.expect(200, "POST", "/api/actions", map[string]any{"action": "click", "session": "rec", "task": "shop", "selector": "#nowhere", "timeout": 300}, &res)

	var tr recording.Export
	alice.expect(200, "GET", "/api/sessions/rec/trace?task=shop", nil, &tr)
	var actions []recording.Entry
	console := map[int][]string{}
	requests := map[int]int{}
	for _, e := range tr.Entries {
		switch e.Type {
		case "action":
			actions = append(actions, e)
		case "console":
			console[e.Of] = append(console[e.Of], e.Level+" "+e.Text)
		case "request":
			requests[e.Of]++
		}
	}
	if len(actions) != 4 {
		t.Fatalf("%d actions recorded, want 4: %+v", len(actions), actions)
	}
	nav, typ, click := actions[0], actions[2], actions[3]
	if nav.Name != "navigate" || nav.Args["url"] != site.URL("/console?n=3") || nav.OK == nil || !*nav.OK || nav.Frame == "" || nav.AnswerBytes == 0 {
		t.Errorf("the first navigate's entry: %+v", nav)
	}
	if got := strings.Join(console[nav.Seq], "; "); !strings.Contains(got, "error boom") || !strings.Contains(got, "warning careful") {
		t.Errorf("the console errors of the first navigate: %q", got)
	}
	if requests[nav.Seq] == 0 {
		t.Errorf("the first navigate caused no recorded request")
	}
	if typ.Name != "type" || typ.Args["text"] != "Ada" {
		t.Errorf("the type's entry: %+v", typ)
	}
	if click.OK == nil || *click.OK || click.Error == "" {
		t.Errorf("the failed click's entry: %+v", click)
	}
	// The HTML file, frames inlined (they are taken just after the
	// answers).
	var html []byte
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		status, b := alice.call("GET", "/api/sessions/rec/trace?task=shop&format=html", nil, nil)
		if status != 200 {
			t.Fatalf("GET trace html: %d %s", status, b)
		}
		html = b
		if bytes.Count(b, []byte("data:image/jpeg;base64,")) >= 3 {
			break
		}
	}
	if !bytes.HasPrefix(html, []byte("<!doctype html>")) || bytes.Count(html, []byte("data:image/jpeg;base64,")) < 3 {
		t.Errorf("the HTML trace has %d frames inlined, want at least 3", bytes.Count(html, []byte("data:image/jpeg;base64,")))
	}
	if status, body := bob.call("GET", "/api/sessions/rec/trace?task=shop", nil, nil); status != 404 {
		t.Errorf("bob read alice's trace: %d %.200s", status, body)
	}
	// From the CLI (admin's: its own default session, with the task
	// named by --session).
	cliJSON := func(args ...string) recording.Export {
		t.Helper()
		out, err := exec.Command(browserdBin(t), append(append([]string{}, daemonFlags(data)...), args...)...).Output()
		if err != nil {
			t.Fatalf("browserd %v: %v", args, err)
		}
		var x recording.Export
		if err := json.Unmarshal(out, &x); err != nil {
			t.Fatalf("browserd %v printed %q: %v", args, out, err)
		}
		return x
	}
	if r := cli(t, data, "--session", "cli", "open", site.URL("/form")); !r.Success {
		t.Fatal(r.Error)
	}
	if x := cliJSON("--session", "cli", "trace"); len(x.Entries) == 0 || x.Entries[0].Name != "navigate" {
		t.Errorf("browserd trace: %+v", x)
	}
	// Closing the task's tabs ends its recording.
	act(map[string]any{"action": "close"}, 0)
	if status, body := alice.call("GET", "/api/sessions/rec/trace?task=shop", nil, nil); status == 200 && strings.Contains(string(body), `"type": "action"`) {
		t.Errorf("the trace outlived the task's tabs: %.300s", body)
	}
}

// TestRecordOff: with --record=off nothing is recorded, and asking for a
// trace says why there is none.
func TestRecordOff(t *testing.T) {
	cfg := testConfig(t)
	cfg.Record = "off"
	e, do := newEngine(t, cfg)
	if r := do(tool.Input{Action: "navigate", Session: "quiet", URL: site.URL("/form"), Snapshot: new(false)}); !r.Success {
		t.Fatal(r.Error)
	}
	_, err := e.Trace(context.Background(), "quiet", "default", "json")
	if !errors.Is(err, store.ErrNotFound) || !strings.Contains(err.Error(), "--record=off") {
		t.Errorf("trace with --record=off: %v", err)
	}
	if _, err := os.Stat(filepath.Join(cfg.Data, "recordings")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("--record=off wrote %s/recordings: %v", cfg.Data, err)
	}
}
