package chromium

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
)

// On Linux the browser runs in a session of its own — and so a process
// group of its own, killed whole on Kill — and gets SIGKILL from the kernel
// when the daemon thread that started it exits (Pdeathsig): however the
// daemon ends, no Chromium outlives it.
//
// The session is for the scheduler: with autogroup (Linux's default where
// processes share the root cgroup) each session is scheduled as one, so a
// browser busy drawing a page shares the cores with the daemon as two
// programs do, rather than the daemon's threads queueing among Chromium's
// dozen (its compositor and IO threads at nice -8, which Chromium sets
// where it may) whenever it wakes to answer an agent (the table's click: 137 ms
// → 112 at the client, measured interleaved).

// lockThread keeps the goroutine that starts Chromium on its OS thread,
// which Pdeathsig is tied to.
func lockThread() { runtime.LockOSThread() }

func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
}

// holdTree: the process group is all it takes.
func holdTree(p *os.Process) (tree, error) { return &group{pgid: p.Pid}, nil }

// commandLine is pid's command line, its arguments separated by NULs.
func commandLine(pid int) string {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	return string(b)
}

// KillLeftovers kills the process group recorded in pidFile by an earlier
// daemon that could not clean up (SIGKILL, power loss), if that group still
// runs Chromium on the recorded profile folder. It returns what it killed.
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
	if err != nil || pid <= 1 || len(lines) < 2 {
		return 0, nil
	}
	if !strings.Contains(commandLine(pid), "--user-data-dir="+lines[1]) {
		// Gone, or the pid was reused by something else: leave it alone, but
		// still sweep the group's other members that run on the folder.
		return killGroupMembers(pid, lines[1]), nil
	}
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	return 1 + killGroupMembers(pid, lines[1]), nil
}

// killGroupMembers kills processes of group pgid whose command line names dir.
func killGroupMembers(pgid int, dir string) int {
	ents, _ := os.ReadDir("/proc")
	n := 0
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if g, err := syscall.Getpgid(pid); err != nil || g != pgid {
			continue
		}
		if bytes.Contains([]byte(commandLine(pid)), []byte(dir)) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			n++
		}
	}
	return n
}
