//go:build linux

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/browserd/browserd/internal/client"
	"github.com/browserd/browserd/internal/tool"
)

// onDemandFlags are daemonFlags without --listen: what an agent's MCP
// config or a shell user gives.
func onDemandFlags(data string) []string {
	return []string{"--data", data, "--allow-host", "127.0.0.1", "--allow-host", "localhost"}
}

// runCLI runs one --json CLI command and returns its result and stderr.
func runCLI(t *testing.T, args ...string) (tool.Result, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, browserdBin(t), append([]string{"--json"}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	_ = cmd.Run()
	var r tool.Result
	if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
		t.Fatalf("browserd %v: stdout %q stderr %q: %v", args, stdout.String(), stderr.String(), err)
	}
	return r, stderr.String()
}

// TestOnDemandDaemonsSideBySide: the daemons that `browserd mcp` and a CLI
// command start for two data directories, given no --listen, run at once:
// each serves its Unix socket only, which is all MCP over stdio, the CLI
// and the socket API need. (Both used to bind 127.0.0.1:8765, so the
// second could not start.) A command given other settings than its
// running daemon's says so.
func TestOnDemandDaemonsSideBySide(t *testing.T) {
	mcpData, cliData := t.TempDir(), t.TempDir()
	c := mcp.NewClient(&mcp.Implementation{Name: "e2e-ondemand", Version: "1"}, nil)
	sess, err := c.Connect(context.Background(), &mcp.CommandTransport{
		Command: exec.Command(browserdBin(t), append([]string{"mcp"}, onDemandFlags(mcpData)...)...)}, nil)
	if err != nil {
		t.Fatalf("connecting to browserd mcp: %v", err)
	}
	t.Cleanup(func() {
		sess.Close()
		stopDaemon(t, mcpData)
		stopDaemon(t, cliData)
		waitNoChromium(t, mcpData)
		waitNoChromium(t, cliData)
	})
	md := &mcpDriver{sess: sess, data: mcpData}
	contains(t, nav(t, md, "od", site.URL("/form")).Title, "Sign up")

	r, stderr := runCLI(t, append(onDemandFlags(cliData), "open", site.URL("/form"))...)
	if !r.Success || !strings.Contains(r.Title, "Sign up") || stderr != "" {
		t.Fatalf("CLI open on a second data dir while the first daemon runs: %+v, stderr %q", r, stderr)
	}
	for _, data := range []string{mcpData, cliData} {
		cl := client.New(filepath.Join(data, "browserd.sock"))
		h, err := cl.HealthInfo(context.Background())
		cl.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range h.Settings {
			if s.Flag == "listen" && (len(s.Values) != 1 || s.Values[0] != "") {
				t.Errorf("daemon of %s listens on %q, want the Unix socket only", data, s.Values)
			}
		}
	}

	// The CLI drives the daemon `browserd mcp` started, through its socket:
	// the same settings, so no warning.
	r, stderr = runCLI(t, append(onDemandFlags(mcpData), "--session", "od", "snapshot")...)
	if !r.Success || !strings.Contains(r.Content, "Sign up") || stderr != "" {
		t.Fatalf("CLI snapshot of the MCP-started daemon's task: %+v, stderr %q", r, stderr)
	}
	out, err := exec.Command(browserdBin(t), append(onDemandFlags(cliData), "token", "create", "--owner", "bob")...).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "bd_") {
		t.Errorf("token create over the socket: %v\n%s", err, out)
	}

	// Another setting than the running daemon's: the command still runs,
	// on the daemon as it is, and says what to do to apply it.
	pid, _, _ := client.DaemonPID(cliData)
	r, stderr = runCLI(t, append(onDemandFlags(cliData), "--block-host", "example.com", "status")...)
	want := fmt.Sprintf("browserd: warning: the running browserd daemon (pid %d) was started with other settings", pid)
	if !r.Success || !strings.Contains(stderr, want) || !strings.Contains(stderr, "--block-host example.com") ||
		!strings.Contains(stderr, "browserd stop --data "+cliData) {
		t.Errorf("status with another --block-host: %+v, stderr %q; want a warning starting %q", r, stderr, want)
	}
}

// TestStopAfterDataDirDeleted deletes a running daemon's data directory:
// `browserd stop --data DIR` still finds the daemon (by the lock file it
// holds open) and stops it, Chromium included.
func TestStopAfterDataDirDeleted(t *testing.T) {
	data := t.TempDir()
	if r := cli(t, data, "open", site.URL("/form")); !r.Success {
		t.Fatal(r.Error)
	}
	pid, running, _ := client.DaemonPID(data)
	if !running || pid <= 0 || len(chromiumPIDs(data)) == 0 {
		t.Fatalf("daemon %d running %v, Chromium %v", pid, running, chromiumPIDs(data))
	}
	t.Cleanup(func() {
		if client.HoldsDeletedLock(pid, data) { // stop failed
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		waitNoChromium(t, data)
	})
	// Chromium may write into its profile while the folder goes.
	for i := 0; ; i++ {
		err := os.RemoveAll(data)
		if err == nil {
			break
		}
		if i == 20 {
			t.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond)
	}

	out, err := exec.Command(browserdBin(t), "stop", "--data", data).CombinedOutput()
	want := fmt.Sprintf("stopped browserd (pid %d), which still ran for %s after its lock file was deleted", pid, data)
	if err != nil || !strings.Contains(string(out), want) {
		t.Fatalf("browserd stop: %v\n%s\nwant %q", err, out, want)
	}
	if client.HoldsDeletedLock(pid, data) {
		t.Error("the daemon still runs after stop")
	}
	waitNoChromium(t, data)
}
