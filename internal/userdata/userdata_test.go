package userdata

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// setup makes a root with a folder, a file, a link out and a folder
// outside it, all in a fresh temp dir.
func setup(t testing.TB) (root, outside string) {
	t.Helper()
	base := t.TempDir()
	root, outside = filepath.Join(base, "root"), filepath.Join(base, "outside")
	for _, d := range []string{filepath.Join(root, "prof", "Default"), outside} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "file"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "Cookies"), []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "out")); err != nil {
		t.Fatal(err)
	}
	return root, outside
}

func TestResolve(t *testing.T) {
	root, outside := setup(t)
	roots := []string{root}
	ok := []struct{ name, want string }{
		{"prof", filepath.Join(root, "prof")},
		{filepath.Join(root, "prof"), filepath.Join(root, "prof")},
		{filepath.Join(root, "prof") + "/", filepath.Join(root, "prof")},
		{"new", filepath.Join(root, "new")},                      // made
		{"a/b/c", filepath.Join(root, "a", "b", "c")},            // made, with its parents
		{"prof/Default", filepath.Join(root, "prof", "Default")}, // any folder inside
	}
	for _, tt := range ok {
		got, err := Resolve(roots, tt.name, "hint")
		if err != nil || got != tt.want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", tt.name, got, err, tt.want)
			continue
		}
		if fi, err := os.Stat(got); err != nil || !fi.IsDir() {
			t.Errorf("Resolve(%q): %s is not a folder: %v", tt.name, got, err)
		}
	}
	bad := []struct{ name, want string }{
		{"", "empty"},
		{"../outside", "without '..'"},
		{"prof/../../outside", "without '..'"},
		{outside, "outside the folders allowed"},
		{"/etc", "outside the folders allowed"},
		{root, "root of the allowed folders"},
		{"out", "leads outside"},
		{"out/sub", "leads outside"}, // not made: nothing is created outside
		{"file", "not a folder"},
		{"a\x00b", "not a path"},
	}
	for _, tt := range bad {
		got, err := Resolve(roots, tt.name, "start browserd with --user-data-root")
		var e *Error
		if err == nil || !errors.As(err, &e) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Resolve(%q) = %q, %v; want a refusal saying %q", tt.name, got, err, tt.want)
		}
	}
	if _, err := os.Stat(filepath.Join(outside, "sub")); err == nil {
		t.Error("a refused path was created outside the root")
	}
	if _, err := Resolve(roots, "/nowhere/x", "start browserd with --user-data-root"); err == nil || !strings.Contains(err.Error(), "--user-data-root") {
		t.Errorf("the refusal does not carry the hint: %v", err)
	}
}

// TestResolveLinksInside: a link inside the folder that leads out of the
// root is refused; one that stays inside, and Chromium's own lock links,
// are not.
func TestResolveLinksInside(t *testing.T) {
	root, outside := setup(t)
	prof := filepath.Join(root, "prof")
	if err := os.Symlink("host-123", filepath.Join(prof, "SingletonLock")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/tmp/.org.chromium.Chromium.x/SingletonSocket", filepath.Join(prof, "SingletonSocket")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../file", filepath.Join(prof, "inside-link")); err != nil {
		t.Fatal(err)
	}
	if _, err := Resolve([]string{root}, "prof", ""); err != nil {
		t.Fatalf("links Chromium keeps, or that stay inside the root, are refused: %v", err)
	}
	link := filepath.Join(prof, "Default", "Cookies")
	if err := os.Symlink(filepath.Join(outside, "Cookies"), link); err != nil {
		t.Fatal(err)
	}
	if _, err := Resolve([]string{root}, "prof", ""); err == nil || !strings.Contains(err.Error(), "Default/Cookies") {
		t.Errorf("a link to a file outside the root = %v; want a refusal naming it", err)
	}
	os.Remove(link)
	// A lock-named link below the top is not Chromium's.
	if err := os.Symlink(outside, filepath.Join(prof, "Default", "SingletonLock")); err != nil {
		t.Fatal(err)
	}
	if _, err := Resolve([]string{root}, "prof", ""); err == nil {
		t.Error("a link named like Chromium's lock below the top was let through")
	}
}

// TestResolveRootThroughLink: a root reached through a symbolic link (as
// /tmp often is) takes names spelled either way.
func TestResolveRootThroughLink(t *testing.T) {
	root, _ := setup(t)
	alias := filepath.Join(t.TempDir(), "alias")
	if err := os.Symlink(root, alias); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{filepath.Join(alias, "prof"), filepath.Join(root, "prof"), "prof"} {
		got, err := Resolve([]string{alias}, name, "")
		if err != nil || got != filepath.Join(root, "prof") {
			t.Errorf("Resolve(%q) under a linked root = %q, %v", name, got, err)
		}
	}
	// A second root is tried too.
	other := t.TempDir()
	if got, err := Resolve([]string{alias, other}, filepath.Join(other, "p"), ""); err != nil || got != filepath.Join(other, "p") {
		t.Errorf("Resolve in the second root = %q, %v", got, err)
	}
}

func TestSource(t *testing.T) {
	dir := t.TempDir()
	if _, ok, err := ReadSource(dir); ok || err != nil {
		t.Fatalf("ReadSource of a folder without one = %v, %v", ok, err)
	}
	src := Source{Kind: "file", Name: "/x/s.json", Size: 10, Modified: time.Unix(100, 5).UTC(), Hash: "ab", Converted: time.Now().UTC()}
	if err := WriteSource(dir, src); err != nil {
		t.Fatal(err)
	}
	got, ok, err := ReadSource(dir)
	if err != nil || !ok || !got.Same(src) {
		t.Fatalf("ReadSource = %+v, %v, %v", got, ok, err)
	}
	changed := src
	changed.Modified = changed.Modified.Add(time.Second)
	if got.Same(changed) {
		t.Error("a newer modification time counts as the same source")
	}
	if err := os.WriteFile(filepath.Join(dir, SourceFile), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ReadSource(dir); err == nil || !strings.Contains(err.Error(), "remove it") {
		t.Errorf("a damaged note = %v; want an error that says what to do", err)
	}
	if empty, err := Empty(filepath.Join(dir, "none")); !empty || err != nil {
		t.Errorf("Empty(missing) = %v, %v", empty, err)
	}
	if empty, err := Empty(dir); empty || err != nil {
		t.Errorf("Empty(a folder with a file) = %v, %v", empty, err)
	}
}

// FuzzResolve: whatever the name, Resolve never panics, and what it
// returns is a folder inside the root.
func FuzzResolve(f *testing.F) {
	for _, s := range []string{"prof", "../x", "/etc/passwd", "out/x", "a/./b", "//", ".", "prof/Default", "file/x", "~", "a\\..\\b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		base := t.TempDir()
		root := filepath.Join(base, "root")
		if err := os.MkdirAll(filepath.Join(root, "prof"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(base, filepath.Join(root, "out")); err != nil {
			t.Fatal(err)
		}
		got, err := Resolve([]string{root}, name, "")
		if err != nil {
			return
		}
		real, _ := filepath.EvalSymlinks(root)
		if _, ok := inside(real, got); !ok {
			t.Fatalf("Resolve(%q) = %q, outside the root %s", name, got, root)
		}
		if fi, err := os.Stat(got); err != nil || !fi.IsDir() {
			t.Fatalf("Resolve(%q) = %q, not a folder", name, got)
		}
	})
}
