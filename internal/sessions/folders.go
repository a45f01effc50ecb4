package sessions

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/browserd/browserd/internal/auth"
)

// Each owner's files: what actions write (screenshots, PDFs, states) and
// what uploads read, in the owner's own folders of the data folder.

// DataFile returns the path for a file the agent names inside a data
// folder, refusing anything that is not a plain file name.
func (e *Registry) DataFile(owner, folder, name, fallback, ext string) (string, error) {
	dir := e.OwnerFolder(owner, folder)
	if name == "" {
		name = fallback
	} else if name != filepath.Base(name) || name == "." || name == ".." || strings.ContainsAny(name, `/\`) || strings.HasPrefix(name, ".") {
		return "", fmt.Errorf("path %q must be a plain file name; files are written only inside %s", name, dir)
	}
	if filepath.Ext(name) == "" {
		name += ext
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	p := filepath.Join(dir, name)
	if fi, err := os.Lstat(p); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		return "", fmt.Errorf("path %q is a symbolic link; refusing to write through it", name)
	}
	return p, nil
}

// OwnerFolder is where an owner's files of a kind (states, screenshots,
// pdf) go: admin's in the data dir as always, another owner's under
// owners/NAME, so no owner can load another's saved state by name.
func (e *Registry) OwnerFolder(owner, folder string) string {
	if owner == "" || owner == auth.Admin {
		return e.Cfg.Path(folder)
	}
	return e.Cfg.Path("owners", owner, folder)
}

// UploadFile resolves a file the agent names inside the upload folder:
// relative to it, or by an absolute path inside it (as the folder is
// spelled, or its real path when it is reached through symbolic links).
// Another owner than admin uploads from its own folder, owners/NAME/uploads.
//
// Refused, each with what to do instead: a ".." path element, an absolute
// path outside the folder (refused before the file system is looked at, so
// that the answer does not tell whether a file exists outside), a file
// that is missing or not a regular file, and a symbolic link that leads
// out of the folder.
func (e *Registry) UploadFile(owner, name string) (string, error) {
	dir := e.Cfg.UploadDir
	admin := owner == "" || owner == auth.Admin
	if !admin {
		dir = e.OwnerFolder(owner, "uploads")
	}
	// How to get a file into reach: the operator can move the folder for
	// admin; another owner's folder is fixed.
	putItThere := fmt.Sprintf("copy the file into %s (or start browserd with --upload-dir set to its folder)", dir)
	if !admin {
		putItThere = fmt.Sprintf("copy the file into %s", dir)
	}
	if name == "" {
		return "", fmt.Errorf("upload file name is empty: name a file inside %s, relative to it or by its absolute path", dir)
	}
	if slices.Contains(strings.Split(filepath.ToSlash(name), "/"), "..") {
		return "", fmt.Errorf("upload file %q: name a file inside %s, relative to it or by its absolute path, without '..'", name, dir)
	}
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", fmt.Errorf("upload folder %s is missing: create it and put the files there (or start browserd with --upload-dir)", dir)
	}
	rel := name
	if filepath.IsAbs(name) {
		var ok bool
		if rel, ok = inside(dir, name); !ok {
			if rel, ok = inside(realDir, name); !ok {
				return "", fmt.Errorf("upload file %q is outside the upload folder %s: %s, then name it relative to that folder or by its absolute path inside it", name, dir, putItThere)
			}
		}
	}
	p, err := filepath.EvalSymlinks(filepath.Join(realDir, rel))
	if err != nil {
		return "", fmt.Errorf("upload file %q not found in %s: check the name (relative to that folder, or an absolute path inside it), or %s", name, dir, putItThere)
	}
	if _, ok := inside(realDir, p); !ok {
		return "", fmt.Errorf("upload file %q is a symbolic link that leads outside %s; refusing: %s", name, dir, strings.Replace(putItThere, "copy the file", "copy the file itself", 1))
	}
	if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() {
		return "", fmt.Errorf("upload file %q is not a regular file: name a file inside %s, not a folder or a device", name, dir)
	}
	return p, nil
}

// inside returns path relative to dir, both absolute, when it is inside
// dir as written (without following symbolic links); dir itself is not
// inside.
func inside(dir, path string) (string, bool) {
	rel, err := filepath.Rel(filepath.Clean(dir), filepath.Clean(path))
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, "../") || filepath.IsAbs(rel) {
		return "", false
	}
	return rel, true
}
