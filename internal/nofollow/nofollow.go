// Package nofollow reads a file a caller names inside one of browserd's
// folders without following a symbolic link out of it (O_NOFOLLOW: no
// window between a check and the open), without hanging on a FIFO, and
// no more than a bound: state_load's state files.
package nofollow

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"syscall"
)

// ErrLink is ReadFile's answer for a symbolic link.
var ErrLink = errors.New("a symbolic link")

// ReadFile reads a regular file, refusing a symbolic link (ErrLink) and
// anything else that is not a regular file; it reads at most max+1 bytes,
// so that a caller sees a file over max bytes as one.
func ReadFile(path string, max int) ([]byte, error) {
	f, err := open(path)
	if errors.Is(err, syscall.ELOOP) {
		return nil, ErrLink
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", filepath.Base(path))
	}
	return io.ReadAll(io.LimitReader(f, int64(max)+1))
}
