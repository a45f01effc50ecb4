package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

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
		t.Cleanup(func() {
			syscall.Kill(pid, syscall.SIGKILL)
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
