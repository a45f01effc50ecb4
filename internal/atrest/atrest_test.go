package atrest

import (
	"archive/tar"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/browserd/browserd/internal/sealkey"
)

func box(t *testing.T) *sealkey.Box {
	t.Helper()
	b, err := sealkey.Load(filepath.Join(t.TempDir(), "secret.key"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestSealOpen(t *testing.T) {
	b := box(t)
	dir := t.TempDir()
	write(t, filepath.Join(dir, "Default", "Cookies"), "sid=SECRET-COOKIE")
	write(t, filepath.Join(dir, "Default", "Local Storage", "leveldb", "000003.log"), "token=SECRET-TOKEN")
	write(t, filepath.Join(dir, "Default", "Preferences"), "{}")
	if err := Seal(b, dir, "profile:p"); err != nil {
		t.Fatal(err)
	}
	// Nothing of the credentials is left in the clear; the rest is untouched.
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			data, _ := os.ReadFile(p)
			if bytes.Contains(data, []byte("SECRET")) {
				t.Errorf("%s holds a credential in the clear after Seal", p)
			}
		}
		return nil
	})
	for _, gone := range []string{"Default/Cookies", "Default/Local Storage"} {
		if _, err := os.Lstat(filepath.Join(dir, gone)); err == nil {
			t.Errorf("%s still there after Seal", gone)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "Default", "Preferences")); err != nil {
		t.Errorf("Seal touched a file that is not a credential: %v", err)
	}
	// Another label (another profile) does not open it.
	if err := Open(b, dir, "profile:q"); err == nil || !strings.Contains(err.Error(), "do not open") {
		t.Errorf("Open under another label: %v", err)
	}
	if err := Open(b, dir, "profile:p"); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]string{"Default/Cookies": "sid=SECRET-COOKIE", "Default/Local Storage/leveldb/000003.log": "token=SECRET-TOKEN"} {
		if got, err := os.ReadFile(filepath.Join(dir, p)); err != nil || string(got) != want {
			t.Errorf("%s after Open: %q %v", p, got, err)
		}
	}
	// A browser that ran without a clean close left newer files: they win.
	future := time.Now().Add(time.Hour)
	write(t, filepath.Join(dir, "Default", "Cookies"), "sid=NEWER")
	os.Chtimes(filepath.Join(dir, "Default", "Cookies"), future, future)
	if err := Open(b, dir, "profile:p"); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "Default", "Cookies")); string(got) != "sid=NEWER" {
		t.Errorf("Open replaced newer plain files with the older sealed ones: %q", got)
	}
	// Nothing to seal: the archive stays as it was.
	empty := t.TempDir()
	if err := Seal(b, empty, "profile:p"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(empty, SealedFile)); err == nil {
		t.Error("Seal with nothing to seal wrote an archive")
	}
	if err := Open(b, empty, "profile:p"); err != nil {
		t.Errorf("Open with nothing sealed: %v", err)
	}
}

// TestOpenRefusesStrayNames: an archive may only put back credential
// files, never write elsewhere.
func TestOpenRefusesStrayNames(t *testing.T) {
	b := box(t)
	for _, name := range []string{"../escape", "Default/Preferences", "/etc/x", "Default/Cookies/../../x"} {
		var buf bytes.Buffer
		tw := tar.NewWriter(&buf)
		tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Size: 1, Mode: 0o600})
		tw.Write([]byte("x"))
		tw.Close()
		dir := t.TempDir()
		write(t, filepath.Join(dir, SealedFile), string(b.Seal(buf.Bytes(), "l")))
		if err := Open(b, dir, "l"); err == nil || !strings.Contains(err.Error(), "not a credential file") {
			t.Errorf("%q: %v", name, err)
		}
	}
}
