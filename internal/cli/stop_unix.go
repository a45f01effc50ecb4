//go:build unix

package cli

import (
	"errors"
	"syscall"
)

// askToStop sends the daemon pid SIGTERM: it closes its tasks and its
// browsers, and removes its socket, before it exits.
func askToStop(pid int) error {
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
		return err
	}
	return nil
}
