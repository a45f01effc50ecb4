//go:build linux

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/browserd/browserd/internal/client"
	"github.com/browserd/browserd/internal/tool"
)

// chromiumPIDs lists the processes whose command line names the data dir:
// every Chromium process a daemon of that dir started.
func chromiumPIDs(data string) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmd, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !bytes.Contains(cmd, []byte(data)) || !bytes.Contains(cmd, []byte("chrom")) {
			continue
		}
		if st, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil {
			// A zombie has exited; its parent just has not reaped it yet.
			if f := strings.Fields(string(st[bytes.LastIndexByte(st, ')')+1:])); len(f) > 0 && f[0] == "Z" {
				continue
			}
		}
		out = append(out, pid)
	}
	return out
}

// waitNoChromium fails the test unless every Chromium process of the data
// dir is gone within 10 s.
func waitNoChromium(t testing.TB, data string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		left := chromiumPIDs(data)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			for _, pid := range left {
				cmd, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
				t.Errorf("orphan Chromium pid %d: %s", pid, bytes.ReplaceAll(cmd, []byte{0}, []byte{' '}))
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// startDaemon runs `browserd serve` as a child the test owns, with the
// flags every test daemon gets and extra.
func startDaemon(t testing.TB, data string, extra ...string) *exec.Cmd {
	t.Helper()
	return startDaemonArgs(t, data, append(daemonFlags(data), extra...)...)
}

// startDaemonArgs runs `browserd serve args…` for the data dir data (which
// args must name) as a child the test owns.
func startDaemonArgs(t testing.TB, data string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(browserdBin(t), append([]string{"serve"}, args...)...)
	logf, err := os.Create(filepath.Join(t.TempDir(), "daemon.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Politely, so the daemon closes Chromium before the test's
		// folders are removed; then for sure.
		_ = cmd.Process.Signal(syscall.SIGTERM)
		exited := make(chan struct{})
		go func() { _, _ = cmd.Process.Wait(); close(exited) }()
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
		waitNoChromium(t, data)
		logf.Close()
		if t.Failed() {
			if b, err := os.ReadFile(logf.Name()); err == nil {
				t.Logf("daemon log:\n%s", b)
			}
			keepLog(t, logf.Name())
		}
	})
	// Ready when this daemon holds the directory (its pid in the pid
	// file) and answers on the socket: a socket file alone may be a
	// killed daemon's, and a CLI call meanwhile would start another.
	sock := filepath.Join(data, "browserd.sock")
	want := strconv.Itoa(cmd.Process.Pid)
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if b, err := os.ReadFile(filepath.Join(data, "browserd.pid")); err == nil && strings.TrimSpace(string(b)) == want {
			if c, err := net.Dial("unix", sock); err == nil {
				c.Close()
				return cmd
			}
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(logf.Name())
			t.Fatalf("daemon did not answer on its socket in 15 s:\n%s", b)
		}
	}
}

// keepLog copies a failed test's daemon log into the folder
// BROWSERD_TEST_LOGS names, when set (.ci/run sets it and prints their
// last lines), as <test>--<name>: the next person reads the cause
// instead of running the suite again.
func keepLog(t testing.TB, path string) {
	dir := os.Getenv("BROWSERD_TEST_LOGS")
	if dir == "" {
		return
	}
	b, err := os.ReadFile(path)
	if err != nil || len(b) == 0 {
		return
	}
	name := strings.NewReplacer("/", "_", " ", "_").Replace(t.Name()) + "--" + filepath.Base(path)
	if err := os.MkdirAll(dir, 0o755); err == nil {
		_ = os.WriteFile(filepath.Join(dir, name), b, 0o644)
	}
}

// cli runs one CLI command against a data dir and decodes its JSON result.
func cli(t testing.TB, data string, args ...string) tool.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, _ := exec.CommandContext(ctx, browserdBin(t), append(append([]string{"--json"}, daemonFlags(data)...), args...)...).Output()
	var r tool.Result
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("browserd %v: %q: %v", args, out, err)
	}
	return r
}

func TestNoOrphansAfterKill9MidNavigation(t *testing.T) {
	data := t.TempDir()
	d := startDaemon(t, data)
	// A navigation that is still loading when the daemon dies. Sent by a
	// bare client: the CLI would start the daemon again and send it anew.
	go func() {
		_, _ = client.New(filepath.Join(data, "browserd.sock")).Do(context.Background(), tool.Input{Action: "navigate", URL: site.URL("/slow?ms=20000")})
	}()
	deadline := time.Now().Add(20 * time.Second)
	for len(chromiumPIDs(data)) < 3 { // browser, zygotes, renderer
		if time.Now().After(deadline) {
			t.Fatalf("Chromium did not start: %v", chromiumPIDs(data))
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(500 * time.Millisecond) // the navigation is in flight
	n := len(chromiumPIDs(data))
	if err := d.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_, _ = d.Process.Wait()
	waitNoChromium(t, data)
	t.Logf("%d Chromium processes were running; none survived the daemon's SIGKILL", n)
}

func TestNoOrphansAfterSIGTERMAndStop(t *testing.T) {
	for _, how := range []string{"sigterm", "stop"} {
		t.Run(how, func(t *testing.T) {
			data := t.TempDir()
			d := startDaemon(t, data)
			if r := cli(t, data, "open", site.URL("/form")); !r.Success {
				t.Fatal(r.Error)
			}
			if len(chromiumPIDs(data)) == 0 {
				t.Fatal("no Chromium running")
			}
			if how == "sigterm" {
				_ = d.Process.Signal(syscall.SIGTERM)
			} else {
				stopDaemon(t, data)
			}
			done := make(chan error, 1)
			go func() { _, err := d.Process.Wait(); done <- err }()
			select {
			case <-done:
			case <-time.After(15 * time.Second):
				t.Fatal("daemon did not exit within 15 s")
			}
			waitNoChromium(t, data)
			for _, f := range []string{"browserd.sock", "browserd.pid"} {
				if _, err := os.Stat(filepath.Join(data, f)); err == nil {
					t.Errorf("%s left behind", f)
				}
			}
		})
	}
}

func TestBrowserCrashRelaunch(t *testing.T) {
	data := t.TempDir()
	startDaemon(t, data)
	if r := cli(t, data, "open", site.URL("/form")); !r.Success {
		t.Fatal(r.Error)
	}
	killBrowser(t, data, "chromium-profile-default.pid")
	r := cli(t, data, "open", site.URL("/spa"))
	if !r.Success {
		t.Fatalf("action after the crash failed: %s", r.Error)
	}
	if !strings.Contains(strings.Join(r.Notes, " "), "browser had exited") {
		t.Fatalf("the result does not say the browser was relaunched: %v", r.Notes)
	}
	if !strings.Contains(r.Content, "Add item") {
		t.Fatalf("no snapshot after relaunch:\n%s", r.Content)
	}
	st := cli(t, data, "status")
	if !strings.Contains(st.Content, "browser: running") {
		t.Fatalf("status after relaunch: %s", st.Content)
	}
}

func TestSecondDaemonRefused(t *testing.T) {
	data := t.TempDir()
	startDaemon(t, data)
	out, err := exec.Command(browserdBin(t), append([]string{"serve"}, daemonFlags(data)...)...).CombinedOutput()
	if err == nil {
		t.Fatal("a second daemon on the same data dir started")
	}
	if !strings.Contains(string(out), "already running") || !strings.Contains(string(out), "browserd stop --data") {
		t.Fatalf("second daemon's message: %s", out)
	}
}

func TestRendererCrash(t *testing.T) {
	data := t.TempDir()
	startDaemon(t, data)
	if r := cli(t, data, "open", site.URL("/form")); !r.Success {
		t.Fatal(r.Error)
	}
	killed := 0
	for _, pid := range chromiumPIDs(data) {
		cmd, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
		if bytes.Contains(cmd, []byte("--type=renderer")) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			killed++
		}
	}
	if killed == 0 {
		t.Fatal("found no renderer process to kill")
	}
	time.Sleep(300 * time.Millisecond)
	r := cli(t, data, "snapshot")
	if !r.Success {
		t.Fatalf("snapshot after the renderer crash failed: %s", r.Error)
	}
	if !strings.Contains(strings.Join(r.Notes, " "), "crashed") {
		t.Fatalf("the result does not say the tab crashed: %v", r.Notes)
	}
	if !strings.Contains(r.Content, "Sign up") {
		t.Fatalf("the tab was not restored:\n%s", r.Content)
	}
}
