//go:build linux

package e2e

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/browserd/browserd/internal/chromium"
	"github.com/browserd/browserd/internal/client"
	"github.com/browserd/browserd/internal/tool"
)

// groupPIDs lists the live processes of process group pgid.
func groupPIDs(pgid int) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		st, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		f := strings.Fields(string(st[bytes.LastIndexByte(st, ')')+1:]))
		if len(f) < 3 || f[0] == "Z" {
			continue
		}
		if g, _ := strconv.Atoi(f[2]); g == pgid {
			out = append(out, pid)
		}
	}
	return out
}

// TestHeadlessShell: with --headless-shell a headless session runs on
// Chromium's headless shell — navigate, click, snapshot, a second tab,
// a screenshot — and its processes (which do not name the data folder)
// all go with a daemon killed -9.
func TestHeadlessShell(t *testing.T) {
	if _, err := chromium.FindHeadless(""); err != nil {
		t.Skip("no Chromium")
	}
	shell := ""
	for _, c := range chromium.HeadlessShells("linux") {
		if _, err := os.Stat(c); err == nil {
			shell = c
		}
	}
	if shell == "" {
		t.Skip("no headless shell installed (apt-get install chromium-headless-shell)")
	}
	t.Parallel() // its own daemon and data folder
	data := t.TempDir()
	d := startDaemon(t, data, "--headless-shell")
	c := client.New(filepath.Join(data, "browserd.sock"))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	do := func(in tool.Input) tool.Result {
		t.Helper()
		r, err := c.Do(ctx, in)
		if err != nil || !r.Success {
			t.Fatalf("%s: %v %s", in.Action, err, r.Error)
		}
		return r
	}
	r := do(tool.Input{Action: "navigate", URL: site.URL("/form")})
	if !strings.Contains(r.Content, `textbox "Name"`) {
		t.Fatalf("the form's snapshot: %q", r.Content)
	}
	do(tool.Input{Action: "type", Role: "textbox", Name: "Name", Text: "Ada"})
	r = do(tool.Input{Action: "click", Role: "checkbox", Name: "Subscribe"})
	do(tool.Input{Action: "tab_new", URL: site.URL("/table")})
	if r = do(tool.Input{Action: "screenshot"}); r.ScreenshotPath == "" {
		t.Errorf("no screenshot: %+v", r)
	}

	b, err := os.ReadFile(filepath.Join(data, "run", "chromium-profile-default.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.SplitN(string(b), "\n", 2)[0])
	cmd, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
	if !bytes.Contains(cmd, []byte("headless-shell")) {
		t.Fatalf("the browser is not the headless shell: %s", bytes.ReplaceAll(cmd, []byte{0}, []byte{' '}))
	}
	procs := groupPIDs(pid)
	if len(procs) < 3 {
		t.Fatalf("the browser's process group holds %v, want the browser and its helpers", procs)
	}
	if err := d.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); len(groupPIDs(pid)) > 0; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the headless shell's processes outlived the daemon: %v", groupPIDs(pid))
		}
	}
}
