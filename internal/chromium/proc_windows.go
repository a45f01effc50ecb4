package chromium

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// On Windows the browser starts suspended, joins a job object that kills
// every process in it when its last handle closes
// (JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE), and only then runs: its helpers
// join the job as they start. The daemon holds the only handle, and the
// system closes it however the daemon ends, so no browser outlives it.

// tree holds a browser and its helpers together, so that they all go
// when killed.
type tree interface{ kill() }

// processSuspendResume is PROCESS_SUSPEND_RESUME.
const processSuspendResume = 0x0800

var ntResumeProcess = windows.NewLazySystemDLL("ntdll.dll").NewProc("NtResumeProcess")

func lockThread() {}

func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: windows.CREATE_SUSPENDED}
}

// passPipes gives Chromium the debugging pipe's handles: inherited, and
// named on its command line by --remote-debugging-io-pipes (Windows has
// no fd 3 and 4).
func passPipes(cmd *exec.Cmd, pp launchPipes) error {
	r, w := syscall.Handle(pp.cmdR.Fd()), syscall.Handle(pp.respW.Fd())
	for _, h := range []syscall.Handle{r, w} {
		if err := syscall.SetHandleInformation(h, syscall.HANDLE_FLAG_INHERIT, syscall.HANDLE_FLAG_INHERIT); err != nil {
			return fmt.Errorf("passing the debugging pipe: %w", err)
		}
	}
	cmd.SysProcAttr.AdditionalInheritedHandles = append(cmd.SysProcAttr.AdditionalInheritedHandles, r, w)
	// Before the last argument, the start page.
	n := len(cmd.Args)
	cmd.Args = append(cmd.Args[:n-1:n-1], fmt.Sprintf("--remote-debugging-io-pipes=%d,%d", r, w), cmd.Args[n-1])
	return nil
}

// job is the browser's job object.
type job struct {
	h    windows.Handle
	once sync.Once
}

func (j *job) kill() {
	j.once.Do(func() {
		_ = windows.TerminateJobObject(j.h, 1)
		_ = windows.CloseHandle(j.h)
	})
}

// holdTree puts the suspended browser p in a new kill-on-close job, then
// lets it run.
func holdTree(p *os.Process) (tree, error) {
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE|processSuspendResume, false, uint32(p.Pid))
	if err != nil {
		return nil, fmt.Errorf("opening the browser process: %w", err)
	}
	defer windows.CloseHandle(h)
	jh, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return nil, fmt.Errorf("creating a job object: %w", err)
	}
	j := &job{h: jh}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{
		BasicLimitInformation: windows.JOBOBJECT_BASIC_LIMIT_INFORMATION{LimitFlags: windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE},
	}
	if _, err := windows.SetInformationJobObject(jh, windows.JobObjectExtendedLimitInformation, uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		j.kill()
		return nil, fmt.Errorf("setting the job object's limits: %w", err)
	}
	if err := windows.AssignProcessToJobObject(jh, h); err != nil {
		j.kill()
		return nil, fmt.Errorf("putting the browser in its job object: %w", err)
	}
	if st, _, _ := ntResumeProcess.Call(uintptr(h)); st != 0 {
		j.kill()
		return nil, fmt.Errorf("resuming the browser: NTSTATUS %#x", st)
	}
	return j, nil
}

// processAlive: Chromium on Windows keeps no SingletonLock naming a pid,
// so nothing asks.
func processAlive(int) bool { return false }

func commandLine(int) string { return "" }

// KillLeftovers removes the pid file an earlier daemon left: its browsers
// went with its job object when it ended, so there is nothing to kill.
func KillLeftovers(pidFile string) (int, error) {
	if err := os.Remove(pidFile); err != nil && !errors.Is(err, os.ErrNotExist) {
		return 0, err
	}
	return 0, nil
}
