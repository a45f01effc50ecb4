package sessions

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/browserd/browserd/internal/config"
)

// TestUploadFile: files are taken from the upload folder only, named
// relative to it or by an absolute path inside it; everything else is
// refused with what to do instead.
func TestUploadFile(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(root, "data")
	real := filepath.Join(root, "real-uploads") // --upload-dir, reached through a link
	link := filepath.Join(root, "uploads")
	outside := filepath.Join(root, "secret.txt")
	bobDir := filepath.Join(data, "owners", "bob", "uploads")
	for _, d := range []string{filepath.Join(real, "sub"), bobDir} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(real, "a.txt"), filepath.Join(real, "sub", "b.txt"), filepath.Join(real, "x..y.txt"), outside, filepath.Join(bobDir, "c.txt")} {
		if err := os.WriteFile(f, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for from, to := range map[string]string{link: real, filepath.Join(real, "escape.txt"): outside, filepath.Join(real, "out"): root} {
		if err := os.Symlink(to, from); err != nil {
			t.Fatal(err)
		}
	}
	e := &Registry{Cfg: config.Config{Data: data, UploadDir: link}}

	for _, tc := range []struct {
		owner, name, want string
	}{
		{"", "a.txt", filepath.Join(real, "a.txt")},
		{"admin", "sub/b.txt", filepath.Join(real, "sub", "b.txt")},
		{"", "./a.txt", filepath.Join(real, "a.txt")},
		{"", "x..y.txt", filepath.Join(real, "x..y.txt")}, // ".." inside a name is no escape
		{"", filepath.Join(link, "a.txt"), filepath.Join(real, "a.txt")},
		{"", filepath.Join(link, "sub", "b.txt"), filepath.Join(real, "sub", "b.txt")},
		{"", filepath.Join(real, "a.txt"), filepath.Join(real, "a.txt")}, // the folder's real path
		{"", link + "//sub/./b.txt", filepath.Join(real, "sub", "b.txt")},
		{"bob", "c.txt", filepath.Join(bobDir, "c.txt")},
		{"bob", filepath.Join(bobDir, "c.txt"), filepath.Join(bobDir, "c.txt")},
	} {
		got, err := e.UploadFile(tc.owner, tc.name)
		if err != nil || got != tc.want {
			t.Errorf("uploadFile(%q, %q) = %q, %v; want %q", tc.owner, tc.name, got, err, tc.want)
		}
	}

	for _, tc := range []struct {
		owner, name string
		want        []string // in the error, which says what to do
	}{
		{"", "/etc/passwd", []string{"is outside the upload folder " + link, "copy the file into " + link + " (or start browserd with --upload-dir"}},
		{"", outside, []string{"is outside the upload folder", "copy the file into"}},
		{"", link + "-other/a.txt", []string{"is outside the upload folder"}},
		{"", link, []string{"is outside the upload folder"}},
		{"", "../secret.txt", []string{"without '..'", "relative to it or by its absolute path"}},
		{"", link + "/../secret.txt", []string{"without '..'"}},
		{"", "sub/../../secret.txt", []string{"without '..'"}},
		{"", "escape.txt", []string{"symbolic link that leads outside " + link, "copy the file itself into"}},
		{"", filepath.Join(link, "escape.txt"), []string{"symbolic link that leads outside"}},
		{"", "out/secret.txt", []string{"symbolic link that leads outside"}},
		{"", "missing.txt", []string{"not found in " + link, "check the name"}},
		{"", filepath.Join(link, "missing.txt"), []string{"not found in"}},
		{"", "sub", []string{"not a regular file", "name a file inside"}},
		{"", "", []string{"name is empty"}},
		// Another owner uploads from its own folder only, and cannot
		// move it with --upload-dir.
		{"bob", filepath.Join(link, "a.txt"), []string{"is outside the upload folder " + bobDir, "copy the file into " + bobDir + ", then"}},
		{"bob", "../../../uploads/a.txt", []string{"without '..'"}},
	} {
		got, err := e.UploadFile(tc.owner, tc.name)
		if err == nil {
			t.Errorf("uploadFile(%q, %q) = %q, want an error", tc.owner, tc.name, got)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("uploadFile(%q, %q): error %q lacks %q", tc.owner, tc.name, err, w)
			}
		}
	}

	// No folder: say how to make one.
	e = &Registry{Cfg: config.Config{Data: data, UploadDir: filepath.Join(root, "none")}}
	if _, err := e.UploadFile("", "a.txt"); err == nil || !strings.Contains(err.Error(), "create it") {
		t.Errorf("missing upload folder: %v", err)
	}
}
