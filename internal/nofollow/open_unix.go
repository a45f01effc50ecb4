//go:build unix

package nofollow

import (
	"os"
	"syscall"
)

// open opens path for reading, not through a symbolic link
// (O_NOFOLLOW: ELOOP), and without hanging on a FIFO (O_NONBLOCK).
func open(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
}
