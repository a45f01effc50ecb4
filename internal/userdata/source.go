package userdata

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// SourceFile is the note a converted folder keeps of its source, beside
// Chromium's own files (which never read it).
const SourceFile = "browserd-source.json"

// Source is what a folder was converted from: a file (its path, size and
// modification time), a stored session (its id and creation time: stored
// sessions never change) or an inline state; Hash is the SHA-256 of the
// storageState converted, whatever its kind.
type Source struct {
	Kind      string    `json:"kind"` // "file", "stored" or "inline"
	Name      string    `json:"name,omitempty"`
	Size      int64     `json:"size,omitempty"`
	Modified  time.Time `json:"modified,omitzero"`
	Hash      string    `json:"sha256"`
	Converted time.Time `json:"converted"`
}

// Same reports whether s and o name the same version of one source
// (Converted aside).
func (s Source) Same(o Source) bool {
	return s.Kind == o.Kind && s.Name == o.Name && s.Size == o.Size && s.Modified.Equal(o.Modified) && s.Hash == o.Hash
}

// ReadSource reads dir's note; ok is false when it has none.
func ReadSource(dir string) (src Source, ok bool, err error) {
	b, err := os.ReadFile(filepath.Join(dir, SourceFile))
	if errors.Is(err, fs.ErrNotExist) {
		return Source{}, false, nil
	}
	if err != nil {
		return Source{}, false, err
	}
	if err := json.Unmarshal(b, &src); err != nil {
		return Source{}, false, fmt.Errorf("%s in %s cannot be read (%v): remove it, or the folder", SourceFile, dir, err)
	}
	return src, true, nil
}

// WriteSource writes dir's note (mode 0600).
func WriteSource(dir string, src Source) error {
	b, err := json.MarshalIndent(src, "", "  ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, "."+SourceFile+".tmp")
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, SourceFile))
}
