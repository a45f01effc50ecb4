package chromium

import (
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
)

// On macOS the browser runs in a process group of its own, killed whole
// on Kill. macOS has no parent-death signal: a watchdog in the group (see
// watchdog.go) kills it when the daemon's end of a pipe closes, which the
// system does however the daemon ends.

func lockThread() {}

func sysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// holdTree starts the group's watchdog.
func holdTree(p *os.Process) (tree, error) {
	w, err := startWatchdog(p.Pid)
	if err != nil {
		_ = syscall.Kill(-p.Pid, syscall.SIGKILL)
		return nil, err
	}
	return &group{pgid: p.Pid, watchdog: w}, nil
}

// commandLine is pid's command line as ps prints it.
func commandLine(pid int) string {
	out, _ := exec.Command("ps", "-p", strconv.Itoa(pid), "-o", "command=").Output()
	return string(out)
}

// KillLeftovers kills the process group recorded in pidFile by an earlier
// daemon that could not clean up, if its leader still runs Chromium on the
// recorded profile folder (the watchdog normally did it already). It
// returns what it killed.
func KillLeftovers(pidFile string) (int, error) {
	b, err := os.ReadFile(pidFile)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	defer os.Remove(pidFile)
	lines := strings.SplitN(strings.TrimSpace(string(b)), "\n", 2)
	pid, err := strconv.Atoi(lines[0])
	if err != nil || pid <= 1 || len(lines) < 2 || !strings.Contains(commandLine(pid), "--user-data-dir="+lines[1]) {
		return 0, nil
	}
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	return 1, nil
}
