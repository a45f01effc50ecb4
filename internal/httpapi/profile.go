package httpapi

import (
	"archive/tar"
	"compress/gzip"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/browserd/browserd/internal/chromeprofile"
)

// storedProfile is GET /api/stored-sessions/{id}/profile: the stored
// session as a Chrome user-data-dir (see chromeprofile), as a tar.gz whose
// top folder is "profile".
func (a *api) storedProfile(w http.ResponseWriter, r *http.Request) {
	if !a.allowed(w, r, "state_save", "exporting a stored session as a profile") {
		return
	}
	ss, ok := a.getStored(w, r)
	if !ok {
		return
	}
	if a.tmp != "" {
		if err := os.MkdirAll(a.tmp, 0o700); err != nil {
			writeError(w, http.StatusInternalServerError, err.Error())
			return
		}
	}
	tmp, err := os.MkdirTemp(a.tmp, "profile-")
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, "profile")
	if _, err := chromeprofile.Build(r.Context(), ss.State, dir, time.Now()); err != nil {
		writeError(w, http.StatusInternalServerError, "building the profile: "+err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/gzip")
	w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", ss.ID+"-profile.tar.gz"))
	w.Header().Set("Cache-Control", "no-store")
	if err := writeTarGz(w, tmp, "profile"); err != nil {
		a.log.Warn("sending a profile archive failed", "err", err)
	}
}

// writeTarGz writes root/top and everything under it as a gzipped tar.
func writeTarGz(w io.Writer, root, top string) error {
	gz := gzip.NewWriter(w)
	tw := tar.NewWriter(gz)
	err := filepath.WalkDir(filepath.Join(root, top), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		hdr, err := tar.FileInfoHeader(info, "")
		if err != nil {
			return err
		}
		hdr.Name = filepath.ToSlash(rel)
		if d.IsDir() {
			hdr.Name += "/"
		}
		hdr.Uname, hdr.Gname, hdr.Uid, hdr.Gid = "", "", 0, 0
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if !info.Mode().IsRegular() {
			return nil
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = io.Copy(tw, f)
		return err
	})
	if err != nil {
		return err
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}
