// Package userdata guards the Chromium user-data-dirs that callers name
// (source 003's AGENT_BROWSER_PROFILE, browserd's --user-data-dir): a
// folder is taken only inside one of its owner's allowed roots, as written
// and once every symbolic link on the way is followed, and only when no
// link inside it leads out of that root. It also keeps the note a
// converted folder carries of what it was converted from (Source), so that
// a conversion is done once per source and version, not on every launch.
//
// The checks are on paths only: a caller who can write inside a root can
// still put a hard link there to a file elsewhere on the same file system.
// Roots are therefore folders only their owner writes to (admin's are the
// operator's choice, --user-data-root; another owner's is inside the data
// folder, where only browserd writes).
package userdata

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// MaxEntries bounds the walk of a folder for links: a user-data-dir with
// more files than this is refused rather than read without end.
const MaxEntries = 100_000

// chromiumLinks are the links Chromium itself keeps at the top of a
// user-data-dir (its process lock, pointing at a host and pid, a temp
// folder's socket and a cookie); they are replaced at every start and
// lead nowhere a page can read.
var chromiumLinks = []string{"SingletonLock", "SingletonSocket", "SingletonCookie"}

// Error is a refused folder: the message says what to do instead.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

// UserError marks the refusal as the caller's to fix.
func (e *Error) UserError() bool { return true }

func refuse(format string, args ...any) error { return &Error{fmt.Sprintf(format, args...)} }

// Resolve returns the real path of the folder name names inside one of
// roots (absolute paths; the first is where a relative name is taken from),
// creating it (mode 0700) when it does not exist yet. hint says how to get
// a folder into reach (e.g. "start browserd with --user-data-root"), for
// the refusals.
//
// Refused, before anything is created: an empty name, a ".." element, an
// absolute path outside every root (as written, and as the roots really
// are), a root itself, a path whose existing part leads out of its root
// through a symbolic link, something that is not a folder, and a folder
// holding a symbolic link that leads out of the root.
func Resolve(roots []string, name, hint string) (string, error) {
	if len(roots) == 0 {
		return "", refuse("no folder is allowed for user-data-dirs here")
	}
	if name == "" {
		return "", refuse("userDataDir is empty: name a folder inside %s", roots[0])
	}
	if strings.ContainsRune(name, 0) || len(name) > 4096 {
		return "", refuse("userDataDir %q is not a path", name)
	}
	if slices.Contains(strings.Split(filepath.ToSlash(name), "/"), "..") {
		return "", refuse("userDataDir %q: name a folder inside %s without '..'", name, strings.Join(roots, " or "))
	}
	path := name
	if !filepath.IsAbs(path) {
		path = filepath.Join(roots[0], path)
	}
	path = filepath.Clean(path)
	root, realRoot, rel, ok := within(roots, path)
	if !ok && isRoot(roots, path) {
		return "", refuse("userDataDir %s is the root of the allowed folders itself: name a folder inside it", path)
	}
	if !ok {
		return "", refuse("userDataDir %s is outside the folders allowed for user-data-dirs (%s): %s", path, strings.Join(roots, ", "), hint)
	}
	if err := os.MkdirAll(realRoot, 0o700); err != nil {
		return "", fmt.Errorf("creating the user-data root %s: %w", root, err)
	}
	// Follow the part that exists; what does not exist yet is made inside
	// it.
	existing, missing := filepath.Join(realRoot, rel), ""
	for {
		if _, err := os.Lstat(existing); err == nil {
			break
		}
		missing = filepath.Join(filepath.Base(existing), missing)
		existing = filepath.Dir(existing)
	}
	real, err := filepath.EvalSymlinks(existing)
	if err != nil {
		return "", refuse("userDataDir %s cannot be followed (%v): name a folder inside %s", path, err, root)
	}
	if real != realRoot {
		if _, ok := inside(realRoot, real); !ok {
			return "", refuse("userDataDir %s leads outside %s through a symbolic link; refusing: name a folder inside it, not a link out of it", path, root)
		}
	}
	real = filepath.Join(real, missing)
	if real == realRoot {
		return "", refuse("userDataDir %s is the root of the allowed folders itself: name a folder inside it", path)
	}
	if missing != "" {
		if err := os.MkdirAll(real, 0o700); err != nil {
			return "", fmt.Errorf("creating the user-data-dir %s: %w", path, err)
		}
		return real, nil
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", fmt.Errorf("reading the user-data-dir %s: %w", path, err)
	}
	if !fi.IsDir() {
		return "", refuse("userDataDir %s is not a folder: name a folder (a Chrome user-data-dir, or a new one)", path)
	}
	if err := checkLinks(real, realRoot, root); err != nil {
		return "", err
	}
	return real, nil
}

// within finds the root path is inside, as written or as the root really
// is; rel is path relative to it.
func within(roots []string, path string) (root, realRoot, rel string, ok bool) {
	for _, r := range roots {
		r = filepath.Clean(r)
		rr, err := filepath.EvalSymlinks(r)
		if err != nil {
			rr = r // not made yet
		}
		if rel, ok := inside(r, path); ok {
			return r, rr, rel, true
		}
		if rel, ok := inside(rr, path); ok {
			return r, rr, rel, true
		}
	}
	return "", "", "", false
}

// isRoot reports whether path is one of roots, as written or as it
// really is.
func isRoot(roots []string, path string) bool {
	for _, r := range roots {
		rr, _ := filepath.EvalSymlinks(r)
		if filepath.Clean(r) == path || rr == path {
			return true
		}
	}
	return false
}

// checkLinks refuses a folder holding a symbolic link whose target lies
// outside realRoot (Chromium would follow it), or more than MaxEntries
// entries.
func checkLinks(dir, realRoot, root string) error {
	n := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir {
				return err
			}
			return nil // gone meanwhile, or unreadable: Chromium cannot use it either
		}
		if n++; n > MaxEntries {
			return refuse("userDataDir %s holds more than %d files: refusing to read it; name a Chrome user-data-dir or a new folder", dir, MaxEntries)
		}
		if d.Type()&fs.ModeSymlink == 0 {
			return nil
		}
		if filepath.Dir(p) == dir && slices.Contains(chromiumLinks, d.Name()) {
			return nil
		}
		target, err := os.Readlink(p)
		if err != nil {
			return nil
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(p), target)
		}
		if real, err := filepath.EvalSymlinks(target); err == nil {
			target = real
		}
		if _, ok := inside(realRoot, filepath.Clean(target)); !ok {
			rel, _ := filepath.Rel(dir, p)
			return refuse("userDataDir %s holds a symbolic link (%s) that leads outside %s; refusing: replace the link with the file itself", dir, rel, root)
		}
		return nil
	})
	var e *Error
	if err != nil && !errors.As(err, &e) {
		return fmt.Errorf("reading the user-data-dir %s: %w", dir, err)
	}
	return err
}

// inside returns path relative to dir when it is inside dir (lexically);
// dir itself is not inside.
func inside(dir, path string) (string, bool) {
	rel, err := filepath.Rel(dir, path)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return rel, true
}

// Empty reports whether dir holds nothing (a missing dir is empty).
func Empty(dir string) (bool, error) {
	f, err := os.Open(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	names, err := f.Readdirnames(1)
	if len(names) > 0 {
		return false, nil
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return false, err
	}
	return true, nil
}
