//go:build unix

package chromium

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

// watchdog kills a process group when the daemon's end of a pipe closes:
// on Kill, or when the daemon dies however it dies, as the system closes
// a dead process's files. It is a shell in the group, reading the pipe;
// it goes with the group. macOS uses it in place of Linux's parent-death
// signal; it works on any Unix, which is where its test runs.
type watchdog struct{ w *os.File }

// watchdogScript waits for end of input, then kills the group "$1".
const watchdogScript = `read -r _; kill -s KILL -- -"$1"`

// startWatchdog starts the watchdog of the process group pgid, whose
// leader must be running.
func startWatchdog(pgid int) (*watchdog, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("watchdog pipe: %w", err)
	}
	cmd := exec.Command("/bin/sh", "-c", watchdogScript, "browserd-watchdog", strconv.Itoa(pgid))
	cmd.Stdin = r
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pgid: pgid}
	err = cmd.Start()
	r.Close()
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("starting the browser's watchdog: %w", err)
	}
	// Reaps the shell, which ends with the group.
	go func() { _ = cmd.Wait() }()
	return &watchdog{w: w}, nil
}

// stop closes the daemon's end: the watchdog kills the group and exits.
func (d *watchdog) stop() { d.w.Close() }
