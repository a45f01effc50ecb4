//go:build unix

package chromium

import (
	"os"
	"os/exec"
	"sync"
	"syscall"
)

// tree holds a browser and its helpers together, so that they all go
// when killed.
type tree interface{ kill() }

// passPipes gives Chromium the debugging pipe as its fd 3 (commands) and
// fd 4 (replies), where --remote-debugging-pipe looks for it.
func passPipes(cmd *exec.Cmd, pp launchPipes) error {
	cmd.ExtraFiles = []*os.File{pp.cmdR, pp.respW}
	return nil
}

// group is the browser's process group: its pgid is the browser's pid, and
// its renderers and helpers are members. watchdog, when set (macOS), kills
// the group should the daemon die without doing so.
type group struct {
	pgid     int
	watchdog *watchdog
	once     sync.Once
}

func (g *group) kill() {
	_ = syscall.Kill(-g.pgid, syscall.SIGKILL)
	if g.watchdog != nil {
		g.once.Do(g.watchdog.stop)
	}
}

// processAlive reports whether pid is a running process.
func processAlive(pid int) bool { return syscall.Kill(pid, 0) == nil }
