//go:build linux

package client_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/browserd/browserd/internal/client"
	"github.com/browserd/browserd/internal/config"
	"github.com/browserd/browserd/internal/daemon"
	"github.com/browserd/browserd/internal/tool"
)

// When Ensure spawns "<test binary> serve ...", TestMain plays the daemon
// (with a fake engine) or a daemon that fails to start, as the environment
// says.
const (
	envDaemon = "BROWSERD_CLIENT_TEST_DAEMON" // "serve" or "fail"
)

func TestMain(m *testing.M) {
	switch os.Getenv(envDaemon) {
	case "serve":
		os.Exit(serveForTest(os.Args[1:]))
	case "fail":
		fmt.Fprintln(os.Stderr, "browserd: error: --chromium /nope: no such file")
		os.Exit(1)
	}
	goleak.VerifyTestMain(m)
}

func serveForTest(args []string) int {
	cfg := config.Default()
	cfg.Listen = ""
	for i, a := range args {
		if a == "--data" && i+1 < len(args) {
			cfg.Data = args[i+1]
		}
	}
	if len(args) == 0 || args[0] != "serve" || cfg.Data == "" {
		fmt.Fprintf(os.Stderr, "test daemon: unexpected args %q\n", args)
		return 2
	}
	if err := cfg.Resolve(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	if err := daemon.Run(ctx, cfg, fakeEngine{}, nil); err != nil {
		fmt.Fprintln(os.Stderr, "browserd:", err)
		return 1
	}
	return 0
}

type fakeEngine struct{}

func (fakeEngine) Do(_ context.Context, in tool.Input) (tool.Result, error) {
	return tool.Result{Action: in.Action, Success: true, Content: "pid " + fmt.Sprint(os.Getpid())}, nil
}

func (fakeEngine) Close(context.Context) error { return nil }

func testConfig(t *testing.T) config.Config {
	t.Helper()
	dir, err := os.MkdirTemp("", "bd") // short: socket paths are limited
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

func TestUnreachable(t *testing.T) {
	cfg := testConfig(t)
	c := client.New(cfg.SocketPath())
	defer c.Close()
	_, err := c.Do(context.Background(), tool.Input{Action: "status"})
	if !errors.Is(err, client.ErrUnreachable) {
		t.Fatalf("Do with no daemon: %v, want ErrUnreachable", err)
	}
	if !strings.Contains(err.Error(), "browserd serve") {
		t.Errorf("error %q does not say how to start the daemon", err)
	}
	if _, running, err := client.DaemonPID(cfg.Data); running || err != nil {
		t.Errorf("DaemonPID on an empty dir = %v, %v", running, err)
	}
}

// TestEnsureInProcess points Ensure at a daemon already running in this
// process: it must connect, not spawn.
func TestEnsureInProcess(t *testing.T) {
	cfg := testConfig(t)
	ctx := runDaemon(t, cfg)
	waitFor(t, func() bool { _, running, _ := client.DaemonPID(cfg.Data); return running })
	waitFor(t, func() bool { c := client.New(cfg.SocketPath()); defer c.Close(); return c.Health(ctx) == nil })

	c, err := client.Ensure(ctx, cfg)
	if err != nil {
		t.Fatalf("Ensure: %v", err)
	}
	defer c.Close()
	res, err := c.Do(ctx, tool.Input{Action: "status"})
	if err != nil || !res.Success || res.Content != fmt.Sprint("pid ", os.Getpid()) {
		t.Errorf("Do = %+v, %v; want the in-process daemon's answer", res, err)
	}
}

// TestEnsureSpawnRace starts two clients at once on a fresh data dir: both
// must end up talking to the same, single daemon.
func TestEnsureSpawnRace(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	t.Setenv(envDaemon, "serve")
	cfg := testConfig(t)
	ctx := context.Background()

	var wg sync.WaitGroup
	pids := make([]int, 2)
	errs := make([]error, 2)
	for i := range 2 {
		wg.Go(func() {
			c, err := client.Ensure(ctx, cfg)
			if err != nil {
				errs[i] = err
				return
			}
			defer c.Close()
			h, err := c.HealthInfo(ctx)
			pids[i], errs[i] = h.PID, err
		})
	}
	wg.Wait()
	pid, running, _ := client.DaemonPID(cfg.Data)
	if running && pid > 0 {
		defer stopDaemon(t, cfg, pid)
	}
	for i, err := range errs {
		if err != nil {
			t.Fatalf("client %d: %v", i, err)
		}
	}
	if pids[0] != pids[1] || pids[0] != pid || pid == os.Getpid() {
		t.Errorf("clients talk to pids %v, lock holder is %d; want one spawned daemon", pids, pid)
	}
	// The losing daemon gives up on the lock within a moment and says so.
	waitFor(t, func() bool {
		log, _ := os.ReadFile(cfg.Path("browserd.log"))
		return strings.Contains(string(log), "is already running for "+cfg.Data)
	})
}

func TestEnsureReportsEarlyExit(t *testing.T) {
	t.Setenv(envDaemon, "fail")
	cfg := testConfig(t)
	start := time.Now()
	_, err := client.Ensure(context.Background(), cfg)
	if err == nil {
		t.Fatal("Ensure succeeded with a daemon that cannot start")
	}
	for _, want := range []string{"exited while starting", "exit status 1", "--chromium /nope: no such file"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %s to notice the daemon exited", d)
	}
}

// TestSettingsWarning: a client given settings the running daemon lacks
// is told which and what to do; one that gives the same, or none, is not.
func TestSettingsWarning(t *testing.T) {
	cfg := testConfig(t)
	cfg.AllowHosts = []string{"10.0.0.5"}
	ctx := runDaemon(t, cfg)
	c := client.New(cfg.SocketPath())
	defer c.Close()
	waitFor(t, func() bool { return c.Health(ctx) == nil })

	asked := cfg
	asked.AllowHosts = []string{"10.0.0.6"}
	asked.Headed = true
	w := c.SettingsWarning(ctx, asked)
	for _, want := range []string{
		fmt.Sprintf("the running browserd daemon (pid %d) was started with other settings", os.Getpid()),
		"this command gives --allow-host 10.0.0.6, the daemon has --allow-host 10.0.0.5",
		"this command gives --headed, the daemon runs without it",
		"run `browserd stop --data " + cfg.Data + "` and retry",
	} {
		if !strings.Contains(w, want) {
			t.Errorf("warning %q lacks %q", w, want)
		}
	}
	asked = cfg
	asked.Listen = "127.0.0.1:9"
	if w := c.SettingsWarning(ctx, asked); !strings.Contains(w, "this command gives --listen 127.0.0.1:9, the daemon serves its Unix socket only") {
		t.Errorf("listen warning %q", w)
	}

	same := cfg
	same.AllowHosts = []string{"10.0.0.5", "10.0.0.5"}
	none := cfg
	none.AllowHosts = nil
	for _, asked := range []config.Config{cfg, same, none} {
		if w := c.SettingsWarning(ctx, asked); w != "" {
			t.Errorf("allow-host %q: warning %q, want none", asked.AllowHosts, w)
		}
	}
}

// TestOrphanedDaemons deletes the data directory under a running daemon:
// DaemonPID no longer sees it, OrphanedDaemons does, until it exits.
func TestOrphanedDaemons(t *testing.T) {
	cfg, pid := spawnDaemon(t)
	if got := client.OrphanedDaemons(cfg.Data); len(got) != 0 {
		t.Errorf("OrphanedDaemons with the data dir in place = %v, want none", got)
	}
	if err := os.RemoveAll(cfg.Data); err != nil {
		t.Fatal(err)
	}
	if _, running, _ := client.DaemonPID(cfg.Data); running {
		t.Fatal("DaemonPID sees a daemon through a deleted lock file")
	}
	got := client.OrphanedDaemons(cfg.Data)
	if len(got) != 1 || got[0] != pid || !client.HoldsDeletedLock(pid, cfg.Data) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("OrphanedDaemons = %v, want [%d]", got, pid)
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return !client.HoldsDeletedLock(pid, cfg.Data) })
	var ws syscall.WaitStatus
	syscall.Wait4(pid, &ws, 0, nil) // reap our child if Ensure's reaper has not
	if got := client.OrphanedDaemons(cfg.Data); len(got) != 0 {
		t.Errorf("OrphanedDaemons after the daemon exited = %v", got)
	}
}

// spawnDaemon starts a daemon process of a fresh config as a client
// would, and returns the config and the daemon's pid.
func spawnDaemon(t *testing.T) (config.Config, int) {
	t.Helper()
	if testing.Short() {
		t.Skip("spawns a daemon process")
	}
	t.Setenv(envDaemon, "serve")
	cfg := testConfig(t)
	ctx := context.Background()
	c, err := client.Ensure(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	h, err := c.HealthInfo(ctx)
	c.Close()
	if err != nil {
		t.Fatal(err)
	}
	return cfg, h.PID
}

// TestStalePidFile: a pid file naming a process that does not hold the
// lock (a killed daemon's, its pid reused) is not trusted — `browserd
// stop` would signal a stranger — while the daemon holding the lock is
// named.
func TestStalePidFile(t *testing.T) {
	cfg, pid := spawnDaemon(t)
	defer stopDaemon(t, cfg, pid)
	if holds, known := client.HoldsLock(pid, cfg.Data); !known || !holds {
		t.Fatalf("HoldsLock(daemon) = %v, %v; want true, true", holds, known)
	}
	if pid, running, _ := client.DaemonPID(cfg.Data); !running || pid != pid {
		t.Fatalf("DaemonPID = %d, %v; want %d, true", pid, running, pid)
	}
	pidFile := filepath.Join(cfg.Data, "browserd.pid")
	// A live process that holds no lock of the directory.
	stranger := exec.Command("sleep", "30")
	if err := stranger.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = stranger.Process.Kill(); _ = stranger.Wait() }()
	if err := os.WriteFile(pidFile, fmt.Appendf(nil, "%d\n", stranger.Process.Pid), 0o600); err != nil {
		t.Fatal(err)
	}
	if pid, running, _ := client.DaemonPID(cfg.Data); !running || pid != 0 {
		t.Fatalf("DaemonPID with a stale pid file = %d, %v; want 0 (starting), true", pid, running)
	}
	if err := os.WriteFile(pidFile, fmt.Appendf(nil, "%d\n", pid), 0o600); err != nil {
		t.Fatal(err)
	}
}

func stopDaemon(t *testing.T, cfg config.Config, pid int) {
	t.Helper()
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		t.Errorf("stop daemon %d: %v", pid, err)
		return
	}
	waitFor(t, func() bool { _, running, _ := client.DaemonPID(cfg.Data); return !running })
	var ws syscall.WaitStatus
	syscall.Wait4(pid, &ws, 0, nil) // reap our child
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 10s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// runDaemon runs a daemon of cfg with a fake engine in this process until
// the test ends, and returns a context that lasts as long.
func runDaemon(t *testing.T, cfg config.Config) context.Context {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- daemon.Run(ctx, cfg, fakeEngine{}, nil) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("daemon: %v", err)
		}
	})
	return ctx
}
