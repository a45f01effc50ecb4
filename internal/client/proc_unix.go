//go:build unix

package client

import (
	"os/exec"
	"strconv"
	"syscall"
)

// detach starts the daemon in a session of its own, so that it outlives
// the client's terminal.
func detach(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }

// reapNow reaps the child pid if it has exited, and says how it ended.
func reapNow(pid int) (status string, exited bool) {
	var ws syscall.WaitStatus
	if wpid, _ := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil); wpid != pid {
		return "", false
	}
	if ws.Signaled() {
		return "killed by " + ws.Signal().String(), true
	}
	return "exit status " + strconv.Itoa(ws.ExitStatus()), true
}

// reapLater waits for the child pid to exit and reaps it, so a long-lived
// client (browserd mcp) leaves no zombie; it returns when the daemon ends.
func reapLater(pid int) {
	var ws syscall.WaitStatus
	_, _ = syscall.Wait4(pid, &ws, 0, nil)
}
