//go:build linux

package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/browserd/browserd/internal/client"
	"github.com/browserd/browserd/internal/config"
	"github.com/browserd/browserd/internal/daemon"
	"github.com/browserd/browserd/internal/tool"
)

// envTestDaemon makes the test binary, started as `<test> serve ...` by
// client.Ensure, run a daemon with a fake engine instead of the tests.
const envTestDaemon = "BROWSERD_CLI_TEST_DAEMON"

func TestMain(m *testing.M) {
	if os.Getenv(envTestDaemon) == "1" {
		os.Exit(serveFake(os.Args[1:]))
	}
	goleak.VerifyTestMain(m)
}

func serveFake(args []string) int {
	var cli CLI
	target, code, err := parse(&cli, args, os.Stdout, os.Stderr)
	if _, ok := target.(*serveCmd); !ok {
		fmt.Fprintf(os.Stderr, "test daemon: want serve, got %q (%v)\n", args, err)
		return code + 10
	}
	if err := cli.Config.Resolve(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	if err := daemon.Run(ctx, cli.Config, echoEngine{}, nil); err != nil {
		fmt.Fprintln(os.Stderr, "browserd:", err)
		return 1
	}
	return 0
}

// echoEngine answers with the task and profile it was given.
type echoEngine struct{}

func (echoEngine) Do(_ context.Context, in tool.Input) (tool.Result, error) {
	return tool.Result{Action: in.Action, Success: true, Content: "task=" + in.Task + " profile=" + in.Profile}, nil
}

func (echoEngine) Close(context.Context) error { return nil }

func shortConfig(t *testing.T) config.Config {
	t.Helper()
	dir, err := os.MkdirTemp("", "bd") // socket paths are limited to 107 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	cfg := config.Default()
	cfg.Data = filepath.Join(dir, "data")
	cfg.Listen = ""
	if err := cfg.Resolve(); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestMCPForwarderStartsDaemonAndStop drives the mcp command's forwarder on a
// data dir with no daemon: the first call starts one (this test binary, see
// TestMain); then `browserd stop` stops it.
func TestMCPForwarderStartsDaemonAndStop(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a daemon process")
	}
	t.Setenv(envTestDaemon, "1")
	cfg := shortConfig(t)
	ctx := context.Background()

	f := &forwarder{cfg: cfg, task: "t1", profile: "p1"}
	res, err := f.Do(ctx, tool.Input{Action: "status"})
	f.close()
	pid, running, _ := client.DaemonPID(cfg.Data)
	if running && pid > 0 {
		t.Cleanup(func() { // if stop failed: a pid signalled once gone may be another's by now
			if holds, _ := client.HoldsLock(pid, cfg.Data); holds {
				syscall.Kill(pid, syscall.SIGKILL)
			}
			var ws syscall.WaitStatus
			syscall.Wait4(pid, &ws, 0, nil)
		})
	}
	if err != nil {
		t.Fatalf("forwarder: %v", err)
	}
	if res.Content != "task=t1 profile=p1" {
		t.Errorf("content %q, want the defaults filled in", res.Content)
	}
	if !running || pid == os.Getpid() {
		t.Fatalf("daemon pid %d running %v; want a spawned daemon", pid, running)
	}

	var out, errOut strings.Builder
	e := &env{stdout: &out, stderr: &errOut}
	code := run(ctx, []string{"--data", cfg.Data, "stop"}, e)
	if want := fmt.Sprintf("stopped browserd (pid %d) for %s\n", pid, cfg.Data); code != 0 || out.String() != want {
		t.Errorf("stop: exit %d, stdout %q, stderr %q; want %q", code, out.String(), errOut.String(), want)
	}
	if _, running, _ := client.DaemonPID(cfg.Data); running {
		t.Error("daemon still holds the lock after stop")
	}
	if _, err := os.Stat(cfg.SocketPath()); !os.IsNotExist(err) {
		t.Errorf("socket left after stop: %v", err)
	}
}

// runReal runs a command line the way main does: commands reach (and
// start) a real daemon, here this test binary playing one (TestMain).
func runReal(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut strings.Builder
	e := &env{stdout: &out, stderr: &errOut}
	e.connect = e.connectDaemon
	code = run(context.Background(), args, e)
	return code, out.String(), errOut.String()
}

// stopAtEnd stops the daemon of data when the test ends, whatever state
// the test left it in, and waits until its process is gone.
func stopAtEnd(t *testing.T, data string) {
	t.Cleanup(func() {
		pid, _, _ := client.DaemonPID(data)
		if code, out, errOut := runReal(t, "--data", data, "stop"); code != 0 {
			t.Errorf("stop: exit %d: %s%s", code, out, errOut)
		}
		if pid > 0 {
			waitGone(t, pid)
		}
	})
}

// waitGone waits until process pid has exited and been reaped (by the
// goroutine client.Ensure leaves for it), so that goleak finds no reaper.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); syscall.Kill(pid, 0) == nil; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Errorf("process %d still there 10s after stop", pid)
			return
		}
	}
}

// settingOf is the values of one setting a daemon reports.
func settingOf(t *testing.T, data, flag string) []string {
	t.Helper()
	c := client.New(filepath.Join(data, "browserd.sock"))
	defer c.Close()
	h, err := c.HealthInfo(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range h.Settings {
		if s.Flag == flag {
			return s.Values
		}
	}
	return nil
}

// TestStartedDaemonsListenOnSocketOnly: daemons that commands start for two
// data directories both run, serving their sockets only; before, both
// wanted 127.0.0.1:8765 and the second could not start.
func TestStartedDaemonsListenOnSocketOnly(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns daemon processes")
	}
	t.Setenv(envTestDaemon, "1")
	t.Setenv("BROWSERD_LISTEN", "") // as if unset: t.Setenv restores it
	os.Unsetenv("BROWSERD_LISTEN")
	for _, cfg := range []config.Config{shortConfig(t), shortConfig(t)} {
		stopAtEnd(t, cfg.Data)
		code, out, errOut := runReal(t, "--data", cfg.Data, "status")
		if code != 0 || out != "task= profile=\n" || errOut != "" {
			t.Fatalf("status on %s: exit %d, stdout %q, stderr %q", cfg.Data, code, out, errOut)
		}
		if got := settingOf(t, cfg.Data, "listen"); len(got) != 1 || got[0] != "" {
			t.Errorf("daemon of %s listens on %q, want the socket only", cfg.Data, got)
		}
	}
}

func TestServeListenDefault(t *testing.T) {
	for _, tc := range []struct {
		args []string
		env  *string // BROWSERD_LISTEN
		want string
	}{
		{[]string{"serve"}, nil, config.DefaultListen},
		{[]string{"serve", "--listen", ""}, nil, ""},
		{[]string{"--listen", "127.0.0.1:9", "serve"}, nil, "127.0.0.1:9"},
		{[]string{"serve"}, ptr("127.0.0.1:7"), "127.0.0.1:7"},
		{[]string{"serve"}, ptr(""), ""},
		{[]string{"serve", "--listen", "127.0.0.1:9"}, ptr(""), "127.0.0.1:9"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			t.Setenv("BROWSERD_LISTEN", "")
			if tc.env == nil {
				os.Unsetenv("BROWSERD_LISTEN")
			} else {
				t.Setenv("BROWSERD_LISTEN", *tc.env)
			}
			var cli CLI
			target, code, err := parse(&cli, tc.args, io.Discard, io.Discard)
			s, ok := target.(*serveCmd)
			if !ok {
				t.Fatalf("parse: %T, exit %d, %v", target, code, err)
			}
			if got := s.config(&cli.Globals).Listen; got != tc.want {
				t.Errorf("serve listens on %q, want %q", got, tc.want)
			}
		})
	}
}

// TestStopFindsDaemonOfDeletedDataDir deletes the data directory under a
// running daemon: stop still finds it (it holds the deleted lock file)
// and stops it.
func TestStopFindsDaemonOfDeletedDataDir(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a daemon process")
	}
	t.Setenv(envTestDaemon, "1")
	cfg := shortConfig(t)
	if code, _, errOut := runReal(t, "--data", cfg.Data, "status"); code != 0 {
		t.Fatalf("status: exit %d: %s", code, errOut)
	}
	pid, running, _ := client.DaemonPID(cfg.Data)
	if !running || pid <= 0 || pid == os.Getpid() {
		t.Fatalf("daemon pid %d running %v; want a spawned daemon", pid, running)
	}
	t.Cleanup(func() { // if stop failed; once gone, the pid may be another's
		if client.HoldsDeletedLock(pid, cfg.Data) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	if err := os.RemoveAll(cfg.Data); err != nil {
		t.Fatal(err)
	}

	code, out, errOut := runReal(t, "--data", cfg.Data, "stop")
	want := fmt.Sprintf("stopped browserd (pid %d), which still ran for %s after its lock file was deleted (with the directory?)\n", pid, cfg.Data)
	if code != 0 || out != want {
		t.Fatalf("stop: exit %d, stdout %q, stderr %q; want %q", code, out, errOut, want)
	}
	if client.HoldsDeletedLock(pid, cfg.Data) {
		t.Error("the daemon still holds its lock file after stop")
	}
	waitGone(t, pid)
	// Nothing left to stop.
	if code, out, _ := runReal(t, "--data", cfg.Data, "stop"); code != 0 || out != "no daemon running for "+cfg.Data+"\n" {
		t.Errorf("second stop: exit %d, stdout %q", code, out)
	}
}

// TestSettingsWarning: a command given other daemon settings than the
// running daemon's says so on stderr; one given the same, or none, does
// not.
func TestSettingsWarning(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a daemon process")
	}
	t.Setenv(envTestDaemon, "1")
	cfg := shortConfig(t)
	stopAtEnd(t, cfg.Data)
	d := []string{"--data", cfg.Data}
	if code, _, errOut := runReal(t, append(d, "--allow-host", "10.0.0.5", "status")...); code != 0 || errOut != "" {
		t.Fatalf("first status: exit %d, stderr %q", code, errOut)
	}
	pid, _, _ := client.DaemonPID(cfg.Data)

	code, out, errOut := runReal(t, append(d, "--json", "--allow-host", "10.0.0.6", "--headed", "status")...)
	for _, want := range []string{
		fmt.Sprintf("browserd: warning: the running browserd daemon (pid %d) was started with other settings", pid),
		"this command gives --allow-host 10.0.0.6, the daemon has --allow-host 10.0.0.5",
		"this command gives --headed, the daemon runs without it",
		"run `browserd stop --data " + cfg.Data + "` and retry this command",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr %q lacks %q", errOut, want)
		}
	}
	if code != 0 || !strings.HasPrefix(out, `{"action":"status","success":true`) {
		t.Errorf("exit %d, stdout %q: the warning must leave the result alone", code, out)
	}

	for _, args := range [][]string{
		{"--allow-host", "10.0.0.5", "status"},
		{"status"},
		{"--listen", "", "status"},
		{"--allow-host", "10.0.0.5,10.0.0.5", "tabs"},
	} {
		if code, _, errOut := runReal(t, append(d, args...)...); code != 0 || errOut != "" {
			t.Errorf("%q: exit %d, stderr %q; want no warning", args, code, errOut)
		}
	}
}

// TestMCPForwarderWarns: `browserd mcp` given other settings than its
// running daemon's warns on stderr and on the first result the agent reads.
func TestMCPForwarderWarns(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a daemon process")
	}
	t.Setenv(envTestDaemon, "1")
	cfg := shortConfig(t)
	stopAtEnd(t, cfg.Data)
	if code, _, errOut := runReal(t, "--data", cfg.Data, "status"); code != 0 {
		t.Fatalf("status: exit %d: %s", code, errOut)
	}
	asked := cfg
	asked.OnlyHosts = []string{"example.com"}
	var warn strings.Builder
	f := &forwarder{cfg: asked, warn: &warn}
	defer f.close()
	res, err := f.Do(context.Background(), tool.Input{Action: "status"})
	if err != nil || !res.Success {
		t.Fatalf("forwarder: %+v, %v", res, err)
	}
	const want = "this command gives --only-hosts example.com, the daemon has no --only-hosts (the default)"
	if len(res.Notes) != 1 || !strings.HasPrefix(res.Notes[0], "warning: the running browserd daemon") || !strings.Contains(res.Notes[0], want) {
		t.Errorf("notes %q, want the warning", res.Notes)
	}
	if !strings.Contains(warn.String(), want) {
		t.Errorf("stderr %q lacks the warning", warn.String())
	}
	res, _ = f.Do(context.Background(), tool.Input{Action: "status"})
	if len(res.Notes) != 0 {
		t.Errorf("second call's notes %q, want the warning once", res.Notes)
	}

	same := &forwarder{cfg: cfg, warn: &warn}
	defer same.close()
	warn.Reset()
	if res, err := same.Do(context.Background(), tool.Input{Action: "status"}); err != nil || len(res.Notes) != 0 || warn.Len() != 0 {
		t.Errorf("same settings: %+v, %v, stderr %q; want no warning", res, err, warn.String())
	}
}
