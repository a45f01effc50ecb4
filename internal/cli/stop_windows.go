package cli

import (
	"errors"
	"os"
)

// askToStop ends the daemon pid. Windows has no SIGTERM for a process
// without a console: the daemon is terminated, its browsers go with their
// job object (see internal/chromium), and the socket file it leaves is
// replaced by the next daemon.
func askToStop(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return nil // gone already
	}
	if err := p.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	return nil
}
