package client

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
)

// deletedSuffix is what Linux appends to the target of /proc/PID/fd/N when
// the file it names was unlinked.
const deletedSuffix = " (deleted)"

// OrphanedDaemons finds daemons that still run for the data directory data
// although their lock file is gone from it: the directory (or the lock
// file) was deleted, or replaced, under them. DaemonPID cannot see them, as
// it finds a daemon through <data>/browserd.lock.
//
// A daemon keeps its lock file open for its whole life (that is what makes
// it the daemon of its directory), so it is found by what it holds, not by
// what it left on disk: a process with an open file descriptor to
// "<data>/browserd.lock (deleted)", read from /proc/PID/fd. Unlike a pid
// file this cannot go stale or name a reused pid, and unlike matching
// command lines it finds a daemon whatever way it was given its data
// directory (--data, BROWSERD_DATA, the default). Only processes whose /proc
// entries this user may read (its own) are seen; where there is no /proc
// the answer is none.
func OrphanedDaemons(data string) []int {
	targets := lockTargets(data)
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	self := os.Getpid()
	var pids []int
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil || pid == self {
			continue
		}
		if holdsOpen(pid, targets) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// HoldsDeletedLock reports whether pid still holds data's lock file after it
// was deleted (see OrphanedDaemons).
func HoldsDeletedLock(pid int, data string) bool {
	return holdsOpen(pid, lockTargets(data))
}

// lockTargets are the fd link targets of data's deleted lock file: the path
// as given and, when the data directory's parent is reached through
// symbolic links, as the kernel spells it.
func lockTargets(data string) []string {
	lock := filepath.Join(data, lockFile)
	targets := []string{lock + deletedSuffix}
	if parent, err := filepath.EvalSymlinks(filepath.Dir(data)); err == nil {
		if real := filepath.Join(parent, filepath.Base(data), lockFile); real != lock {
			targets = append(targets, real+deletedSuffix)
		}
	}
	return targets
}

// HoldsLock reports whether pid holds data's lock file open, which a
// daemon of data does for its whole life: a pid read from a pid file is
// checked so before it is signalled, as the file may be stale (its
// daemon was killed) and the pid since reused by another process. known
// is false where there is no /proc to ask (macOS, Windows): the caller
// then trusts the pid file, which a daemon writes as it takes the lock.
func HoldsLock(pid int, data string) (holds, known bool) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		return false, false
	}
	lock := filepath.Join(data, lockFile)
	targets := []string{lock}
	if abs, err := filepath.Abs(lock); err == nil && abs != lock {
		targets = append(targets, abs)
	}
	if real, err := filepath.EvalSymlinks(lock); err == nil && !slices.Contains(targets, real) {
		targets = append(targets, real)
	}
	return holdsOpen(pid, targets), true
}

// holdsOpen reports whether pid has an open file whose /proc/PID/fd
// link target is one of targets.
func holdsOpen(pid int, targets []string) bool {
	dir := filepath.Join("/proc", strconv.Itoa(pid), "fd")
	fds, err := os.ReadDir(dir) // another user's process: permission denied
	if err != nil {
		return false
	}
	for _, fd := range fds {
		if t, err := os.Readlink(filepath.Join(dir, fd.Name())); err == nil && slices.Contains(targets, t) {
			return true
		}
	}
	return false
}
