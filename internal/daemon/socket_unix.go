//go:build unix

package daemon

import (
	"os"
	"runtime"
)

// maxSocketPath is the longest socket path: sun_path holds 108 bytes on
// Linux, 104 on macOS, the terminating NUL included.
var maxSocketPath = func() int {
	if runtime.GOOS == "darwin" {
		return 103
	}
	return 107
}()

// ownerOnly lets only the socket's owner connect to it (and the data
// folder, 0700, already keeps others out).
func ownerOnly(sock string) error { return os.Chmod(sock, 0o600) }
