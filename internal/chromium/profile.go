package chromium

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// ClearStaleLock removes the Singleton* files Chromium leaves in a
// user-data-dir when it dies without cleaning up, if the process the lock
// names is gone or the lock comes from another machine. It returns an error
// when a live Chromium holds the profile.
func ClearStaleLock(dir string) (cleared bool, err error) {
	lock := filepath.Join(dir, "SingletonLock")
	target, err := os.Readlink(lock)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		// Not a symlink: garbage; remove it.
		return true, removeSingletons(dir)
	}
	i := strings.LastIndexByte(target, '-')
	host, _ := os.Hostname()
	if i > 0 && target[:i] == host {
		if pid, err := strconv.Atoi(target[i+1:]); err == nil && pid > 0 {
			if processAlive(pid) {
				if strings.Contains(commandLine(pid), dir) {
					return false, fmt.Errorf("profile folder %s is in use by Chromium (pid %d) that browserd did not start; close that browser", dir, pid)
				}
			}
		}
	}
	return true, removeSingletons(dir)
}

func removeSingletons(dir string) error {
	var errs []error
	for _, f := range []string{"SingletonLock", "SingletonSocket", "SingletonCookie"} {
		if err := os.Remove(filepath.Join(dir, f)); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// MoveAside renames a profile folder that Chromium cannot start on to
// <dir>.corrupt-<time>, keeping the newest keep such copies for inspection,
// and returns the new name.
func MoveAside(dir string, keep int) (string, error) {
	aside := dir + ".corrupt-" + time.Now().UTC().Format("20060102-150405")
	if err := os.Rename(dir, aside); err != nil {
		return "", fmt.Errorf("moving the broken profile aside: %w", err)
	}
	old, _ := filepath.Glob(dir + ".corrupt-*")
	sort.Strings(old)
	for len(old) > keep {
		_ = os.RemoveAll(old[0])
		old = old[1:]
	}
	return aside, nil
}
