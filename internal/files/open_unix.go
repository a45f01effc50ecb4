//go:build unix

package files

import (
	"os"
	"syscall"
)

// openFlags opens a link's file for reading: O_NOFOLLOW, not through a
// symbolic link put in the file's place; O_NONBLOCK, a FIFO there does
// not hang the request.
const openFlags = os.O_RDONLY | syscall.O_NOFOLLOW | syscall.O_NONBLOCK
