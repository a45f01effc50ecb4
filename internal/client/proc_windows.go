//go:build windows

package client

import (
	"os/exec"
	"strconv"
	"syscall"

	"golang.org/x/sys/windows"
)

// detach starts the daemon with no console and in a process group of its
// own, so that it outlives the client's console window.
func detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP | windows.DETACHED_PROCESS}
}

// reapNow says whether the process pid has exited, and how. Windows keeps
// no zombies: there is nothing to reap.
func reapNow(pid int) (status string, exited bool) {
	h, err := windows.OpenProcess(windows.SYNCHRONIZE|windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return "gone", true
	}
	defer windows.CloseHandle(h)
	if ev, _ := windows.WaitForSingleObject(h, 0); ev != windows.WAIT_OBJECT_0 {
		return "", false
	}
	var code uint32
	if windows.GetExitCodeProcess(h, &code) != nil {
		return "exited", true
	}
	return "exit status " + strconv.FormatUint(uint64(code), 10), true
}

// reapLater has nothing to do on Windows.
func reapLater(int) {}
