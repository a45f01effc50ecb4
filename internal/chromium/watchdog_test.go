//go:build unix

package chromium

import (
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// TestWatchdogKillsTheGroup: once the daemon's end of the pipe closes —
// as the system closes it when the daemon dies — the watchdog kills the
// whole process group (macOS's stand-in for Linux's parent-death signal).
func TestWatchdogKillsTheGroup(t *testing.T) {
	leader := exec.Command("sleep", "60")
	leader.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := leader.Start(); err != nil {
		t.Fatal(err)
	}
	pgid := leader.Process.Pid
	defer syscall.Kill(-pgid, syscall.SIGKILL)
	helper := exec.Command("sleep", "60")
	helper.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pgid: pgid}
	if err := helper.Start(); err != nil {
		t.Fatal(err)
	}
	w, err := startWatchdog(pgid)
	if err != nil {
		t.Fatal(err)
	}
	// The watchdog waits while the daemon's end is open.
	exited := make(chan error, 2)
	go func() { exited <- leader.Wait() }()
	go func() { exited <- helper.Wait() }()
	select {
	case err := <-exited:
		t.Fatalf("the group ended before the pipe closed: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
	w.stop()
	for range 2 {
		select {
		case err := <-exited:
			if ee, ok := err.(*exec.ExitError); !ok || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
				t.Errorf("a member ended with %v; want killed by SIGKILL", err)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("the group still runs after the watchdog's pipe closed")
		}
	}
}
