// Package atrest keeps the credentials a profile's Chromium writes to disk
// — its cookie database and its sites' storage — sealed while that
// Chromium is not running.
//
// With --password-store=basic Chromium encrypts cookie values with a fixed,
// public key, and leaves site storage in the clear: anyone who reads the
// disk reads the logins. So when browserd closes a profile's browser it
// gathers those files into one archive sealed with AES-256-GCM under the
// data folder's key (internal/sealkey) and removes them; before it starts
// the browser again it puts them back. While the browser runs they are
// plain files, as Chromium needs them; if the daemon dies without closing
// the browser they stay plain until the next clean close.
package atrest

import (
	"archive/tar"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"
)

// SealedFile is the sealed archive's name inside a user-data-dir.
const SealedFile = "credentials.sealed"

// Items are the parts of a user-data-dir that hold credentials, relative
// to it: the cookie database and the sites' local, session and IndexedDB
// storage.
var Items = []string{
	"Default/Cookies",
	"Default/Cookies-journal",
	"Default/Local Storage",
	"Default/Session Storage",
	"Default/IndexedDB",
}

// Box seals and opens; *secret.Box is one.
type Box interface {
	Seal(plain []byte, label string) []byte
	Open(sealed []byte, label string) ([]byte, error)
}

// Seal gathers the Items present in dir into dir/SealedFile, sealed under
// label, and removes them. With none present it does nothing (an earlier
// sealed archive stays). Call it only when no browser uses dir.
func Seal(box Box, dir, label string) error {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	var found []string
	for _, it := range Items {
		p := filepath.Join(dir, filepath.FromSlash(it))
		if _, err := os.Lstat(p); err != nil {
			continue
		}
		found = append(found, p)
		if err := addTree(tw, dir, p); err != nil {
			return fmt.Errorf("sealing %s: %w", it, err)
		}
	}
	if len(found) == 0 {
		return nil
	}
	if err := tw.Close(); err != nil {
		return err
	}
	sealed := box.Seal(buf.Bytes(), label)
	if err := writeAtomic(filepath.Join(dir, SealedFile), sealed); err != nil {
		return fmt.Errorf("writing the sealed credentials of %s: %w", dir, err)
	}
	for _, p := range found {
		if err := os.RemoveAll(p); err != nil {
			return fmt.Errorf("removing %s once sealed: %w", p, err)
		}
	}
	return nil
}

// addTree adds the regular files and folders at p (under root) to tw.
// Symbolic links and other special files are left out.
func addTree(tw *tar.Writer, root, p string) error {
	return filepath.WalkDir(p, func(fp string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, fp)
		if err != nil {
			return err
		}
		name := filepath.ToSlash(rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: name + "/", Mode: 0o700, ModTime: info.ModTime()})
		case d.Type().IsRegular():
			b, err := os.ReadFile(fp)
			if err != nil {
				return err
			}
			if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o600, Size: int64(len(b)), ModTime: info.ModTime()}); err != nil {
				return err
			}
			_, err = tw.Write(b)
			return err
		}
		return nil
	})
}

// Open puts back into dir what Seal sealed there under label. It does
// nothing when there is no sealed archive, or when the plain cookie
// database is newer than it (a browser ran on dir after the last seal and
// was not closed cleanly: its files are the truth). The archive stays until
// the next Seal replaces it.
func Open(box Box, dir, label string) error {
	sp := filepath.Join(dir, SealedFile)
	st, err := os.Stat(sp)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if ck, err := os.Stat(filepath.Join(dir, "Default", "Cookies")); err == nil && ck.ModTime().After(st.ModTime()) {
		return nil
	}
	sealed, err := os.ReadFile(sp)
	if err != nil {
		return err
	}
	plain, err := box.Open(sealed, label)
	if err != nil {
		return fmt.Errorf("the profile's sealed credentials (%s) do not open: %w; the browser starts without them, and the file is kept", sp, err)
	}
	return extract(plain, dir)
}

// extract writes a Seal archive into dir. Only names under Items are
// written; anything else in the archive is an error.
func extract(archive []byte, dir string) error {
	tr := tar.NewReader(bytes.NewReader(archive))
	var times []struct {
		p string
		t time.Time
	}
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("reading the sealed credentials: %w", err)
		}
		name := path.Clean(strings.TrimSuffix(h.Name, "/"))
		if !allowed(name) {
			return fmt.Errorf("the sealed credentials hold %q, which is not a credential file", h.Name)
		}
		p := filepath.Join(dir, filepath.FromSlash(name))
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(p, 0o700); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
				return err
			}
			f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
			if err != nil {
				return err
			}
			_, err = io.Copy(f, tr)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		default:
			continue
		}
		times = append(times, struct {
			p string
			t time.Time
		}{p, h.ModTime})
	}
	// The files keep their times: Open compares the cookie database's with
	// the archive's to tell which is newer.
	for _, x := range times {
		_ = os.Chtimes(x.p, x.t, x.t)
	}
	return nil
}

// allowed reports whether name (slash-separated, cleaned) is an Item or
// inside one.
func allowed(name string) bool {
	if name == "." || strings.HasPrefix(name, "../") || name == ".." || path.IsAbs(name) {
		return false
	}
	for _, it := range Items {
		if name == it || strings.HasPrefix(name, it+"/") {
			return true
		}
	}
	return false
}

// writeAtomic writes b to p by way of a temporary file and a rename, so a
// crash leaves the old file or the new one, never half of one.
func writeAtomic(p string, b []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(p), ".sealing-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), p)
}
