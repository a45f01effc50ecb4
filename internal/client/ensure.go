package client

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/browserd/browserd/internal/config"
	"github.com/browserd/browserd/internal/filelock"
)

// StartTimeout is how long Ensure waits for a daemon it started to answer.
const StartTimeout = 15 * time.Second

// Files the daemon keeps in its data directory. internal/daemon writes them;
// the names are part of the contract between the two packages.
const (
	lockFile = "browserd.lock"
	pidFile  = "browserd.pid"
	logFile  = "browserd.log"
)

// Ensure returns a client of the daemon for cfg's data directory, starting
// one when none answers: `<this executable> serve <cfg.DaemonArgs()>`, in its
// own session, with stdin from /dev/null and its output appended to
// <data>/browserd.log. It waits up to StartTimeout for the daemon to answer.
//
// When two clients start daemons at once, the daemons' lock lets one win;
// the loser exits and its client connects to the winner.
//
// cfg must be resolved (config.Resolve).
func Ensure(ctx context.Context, cfg config.Config) (*Client, error) {
	c := New(cfg.SocketPath())
	err := c.Health(ctx)
	if err == nil {
		return c, nil
	}
	if !errors.Is(err, ErrUnreachable) {
		return nil, err
	}
	if err := start(ctx, c, cfg); err != nil {
		return nil, err
	}
	return c, nil
}

// start spawns a daemon and waits until c's socket answers.
func start(ctx context.Context, c *Client, cfg config.Config) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find the browserd executable to start the daemon: %w", err)
	}
	if err := os.MkdirAll(cfg.Data, 0o700); err != nil {
		return fmt.Errorf("create the data directory: %w", err)
	}
	logPath := cfg.Path(logFile)
	logf, err := os.OpenFile(logPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("open the daemon log: %w", err)
	}
	defer logf.Close()
	var logStart int64
	if st, err := logf.Stat(); err == nil {
		logStart = st.Size()
	}

	// Not CommandContext: the daemon outlives this client.
	cmd := exec.Command(exe, append([]string{"serve"}, cfg.DaemonArgs()...)...)
	cmd.Stdout, cmd.Stderr = logf, logf // stdin stays nil: /dev/null
	detach(cmd)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start the browserd daemon (%s serve): %w", exe, err)
	}
	pid := cmd.Process.Pid
	// Reap with reapNow below instead of Process.Wait, which would need a
	// goroutine blocked for the daemon's whole life.
	_ = cmd.Process.Release()

	deadline := time.Now().Add(StartTimeout)
	// Asked often: the daemon answers within tens of ms, and the call
	// that waits for it is the agent's.
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	exited := false
	for {
		hctx, cancel := context.WithTimeout(ctx, time.Second)
		err := c.Health(hctx)
		cancel()
		if err == nil {
			if !exited {
				// The daemon runs on: reap it whenever it exits, so a
				// long-lived client (browserd mcp) leaves no zombie. The
				// goroutine ends when the daemon does.
				go reapLater(pid)
			}
			return nil
		}
		if !exited {
			if status, done := reapNow(pid); done {
				exited = true
				if _, running, _ := DaemonPID(cfg.Data); !running {
					return fmt.Errorf("the browserd daemon exited while starting (%s)%s",
						status, logTail(logPath, logStart, 10))
				}
				// Another daemon holds the lock: it won a start race. Wait for it.
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the browserd daemon (pid %d) did not answer on %s within %s%s",
				pid, c.socket, StartTimeout, logTail(logPath, logStart, 10))
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for the browserd daemon to start: %w", ctx.Err())
		case <-tick.C:
		}
	}
}

// logTail quotes the last n lines written to path since offset, for an
// error message; it is empty when there are none.
func logTail(path string, offset int64, n int) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return ""
	}
	data, err := io.ReadAll(io.LimitReader(f, 1<<20))
	if err != nil {
		return ""
	}
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			lines = append(lines, "    "+l)
		}
	}
	if len(lines) == 0 {
		return "; " + path + " has nothing new"
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return "; the end of " + path + " says:\n" + strings.Join(lines, "\n")
}

// DaemonPID reports whether a daemon holds the data directory's lock, and
// its pid as written in <data>/browserd.pid (0 while it starts and has not
// written it yet). Probing takes the lock for an instant when it is free;
// the daemon retries briefly, so a probe never keeps one from starting.
func DaemonPID(data string) (pid int, running bool, err error) {
	f, err := os.Open(filepath.Join(data, lockFile))
	if errors.Is(err, os.ErrNotExist) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("check for a running daemon: %w", err)
	}
	defer f.Close()
	switch held, err := filelock.TryLock(f); {
	case err != nil:
		return 0, false, fmt.Errorf("check for a running daemon: lock %s: %w", f.Name(), err)
	case held:
		_ = filelock.Unlock(f)
		return 0, false, nil
	}
	b, err := os.ReadFile(filepath.Join(data, pidFile))
	if err != nil {
		return 0, true, nil
	}
	pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	if holds, known := HoldsLock(pid, data); known && !holds {
		// The file is an earlier daemon's (killed, it left it): the one
		// holding the lock is starting and writes its own at once.
		return 0, true, nil
	}
	return pid, true, nil
}
