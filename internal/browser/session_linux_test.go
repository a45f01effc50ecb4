package browser

import (
	"syscall"
	"testing"
)

// Chromium runs in a session of its own (chromium's sysProcAttr): Linux's
// scheduler (autogroup) then shares the cores between the browser's
// processes and the daemon's as between two programs, not among their
// threads alike — a daemon that wakes to answer an agent is not queued
// behind a busy page's dozen threads.
func TestBrowserInItsOwnSession(t *testing.T) {
	_, br, _ := startTestPage(t)
	pid := br.PID()
	sid, err := getsid(pid)
	if err != nil {
		t.Fatal(err)
	}
	own, err := getsid(0)
	if err != nil {
		t.Fatal(err)
	}
	if sid != pid || sid == own {
		t.Errorf("Chromium (pid %d) runs in session %d, the test's is %d: want a session of its own", pid, sid, own)
	}
	if g, err := syscall.Getpgid(pid); err != nil || g != pid {
		t.Errorf("Chromium (pid %d) is in process group %d (%v): want its own, which Kill kills whole", pid, g, err)
	}
}

func getsid(pid int) (int, error) {
	r, _, errno := syscall.RawSyscall(syscall.SYS_GETSID, uintptr(pid), 0, 0)
	if errno != 0 {
		return 0, errno
	}
	return int(r), nil
}
