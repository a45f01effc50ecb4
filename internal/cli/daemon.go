package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/browserd/browserd/internal/client"
	"github.com/browserd/browserd/internal/config"
	"github.com/browserd/browserd/internal/daemon"
	"github.com/browserd/browserd/internal/engine"
)

type serveCmd struct{}

// run runs the daemon until ctx ends (SIGINT or SIGTERM).
func (s serveCmd) run(ctx context.Context, e *env) error {
	cfg := s.config(e.g)
	log, err := newLogger(e.stderr, cfg.LogLevel)
	if err != nil {
		return usageError{err}
	}
	// The engine is made once the data directory is locked: a second
	// daemon must not touch the first one's sessions or Chromium.
	return daemon.RunWith(ctx, cfg, func() (daemon.Engine, error) { return engine.New(cfg, log) }, log)
}

// config is the daemon's settings: the command line's, listening on
// config.DefaultListen unless --listen (or BROWSERD_LISTEN) was given, even
// empty. A daemon that a command starts is always given --listen
// (config.DaemonArgs), so it listens on TCP only when asked to.
func (serveCmd) config(g *Globals) config.Config {
	cfg := g.Config
	if !g.listenSet {
		cfg.Listen = config.DefaultListen
	}
	return cfg
}

// newLogger logs JSON lines at level ("debug", "info", "warn" or "error").
func newLogger(w io.Writer, level string) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("--log-level %q: use debug, info, warn or error", level)
	}
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: l})), nil
}

// stopTimeout is how long stop waits for the daemon to exit.
const stopTimeout = 15 * time.Second

type stopCmd struct{}

// run sends SIGTERM to the daemon holding the data directory's lock and
// waits until the lock is free, which the daemon releases last. It also
// stops daemons that still run for the directory after their lock file
// was deleted (client.OrphanedDaemons), e.g. with the whole directory:
// nothing on disk leads to them any more, but they hold Chromium, the
// TCP port and their sessions until stopped.
func (stopCmd) run(ctx context.Context, e *env) error {
	data := e.g.Data
	pid, running, err := client.DaemonPID(data)
	if err != nil {
		return err
	}
	// A daemon that holds the lock but has no pid file yet is starting.
	for wait := 0; pid == 0 && running && wait < 20; wait++ {
		if err := sleep(ctx, 100*time.Millisecond); err != nil {
			return err
		}
		pid, running, _ = client.DaemonPID(data)
	}
	stopped := false
	if running {
		if pid <= 0 {
			return fmt.Errorf("a daemon holds the lock of %s but wrote no pid to %s/browserd.pid; find it with: fuser %s/browserd.lock", data, data, data)
		}
		if err := terminate(ctx, pid, data, func() bool { _, running, _ := client.DaemonPID(data); return !running }); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "stopped browserd (pid %d) for %s\n", pid, data)
		stopped = true
	}
	for _, pid := range client.OrphanedDaemons(data) {
		if err := terminate(ctx, pid, data, func() bool { return !client.HoldsDeletedLock(pid, data) }); err != nil {
			return fmt.Errorf("%w (it runs for %s, whose lock file was deleted under it)", err, data)
		}
		fmt.Fprintf(e.stdout, "stopped browserd (pid %d), which still ran for %s after its lock file was deleted (with the directory?)\n", pid, data)
		stopped = true
	}
	if !stopped {
		fmt.Fprintf(e.stdout, "no daemon running for %s\n", data)
	}
	return nil
}

// terminate sends SIGTERM to pid and waits until gone says it is.
func terminate(ctx context.Context, pid int, data string, gone func() bool) error {
	if err := askToStop(pid); err != nil {
		return fmt.Errorf("signal browserd (pid %d): %w", pid, err)
	}
	deadline := time.Now().Add(stopTimeout)
	for {
		if gone() {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("browserd (pid %d) is still running %s after being asked to stop; see %s/browserd.log, or end it with: kill -9 %d", pid, stopTimeout, data, pid)
		}
		if err := sleep(ctx, 100*time.Millisecond); err != nil {
			return fmt.Errorf("waiting for browserd (pid %d) to stop: %w", pid, err)
		}
	}
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
