package files_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/browserd/browserd/internal/auth"
	"github.com/browserd/browserd/internal/files"
)

func TestRegistry(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	r := files.New(files.Options{Now: func() time.Time { return now }})
	if r.TTL() != files.DefaultTTL {
		t.Fatalf("TTL = %s, want the default", r.TTL())
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "a.png")
	if err := os.WriteFile(p, []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := r.Add("alice", p)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.ID) != 32 || l.URL() != "/api/files/"+l.ID || !l.Expires.Equal(now.Add(time.Hour)) {
		t.Fatalf("link %+v", l)
	}
	if l2, _ := r.Add("alice", p); l2.ID == l.ID {
		t.Fatal("two links share an id")
	}
	for _, owner := range []string{"alice", auth.Admin} {
		f, err := r.Open(owner, l.ID)
		if err != nil {
			t.Fatalf("%s: %v", owner, err)
		}
		b, _ := io.ReadAll(f)
		f.Close()
		if string(b) != "hello" || f.Name != "a.png" || f.Size != 5 {
			t.Errorf("%s read %q (%s, %d)", owner, b, f.Name, f.Size)
		}
	}
	for _, c := range []struct{ owner, id string }{{"bob", l.ID}, {"alice", "nope"}, {"alice", ""}} {
		if _, err := r.Open(c.owner, c.id); !errors.Is(err, files.ErrNotFound) {
			t.Errorf("Open(%q, %q) = %v, want ErrNotFound", c.owner, c.id, err)
		}
	}
	// Not registered: a folder, a symbolic link, a missing file.
	link := filepath.Join(dir, "l.png")
	os.Symlink(p, link)
	for _, bad := range []string{dir, link, filepath.Join(dir, "missing.png")} {
		if _, err := r.Add("alice", bad); err == nil {
			t.Errorf("Add(%s) registered it", bad)
		}
	}
	// Removed: gone.
	os.Remove(p)
	if _, err := r.Open("alice", l.ID); !errors.Is(err, files.ErrGone) {
		t.Errorf("removed file: %v, want ErrGone", err)
	}
	// Expired links are dropped: on Open, and by the sweep of a later Add.
	if err := os.WriteFile(p, []byte("again"), 0o600); err != nil {
		t.Fatal(err)
	}
	l3, _ := r.Add("alice", p)
	now = now.Add(time.Hour)
	if _, err := r.Open("alice", l3.ID); !errors.Is(err, files.ErrNotFound) {
		t.Errorf("expired: %v, want ErrNotFound", err)
	}
	if _, err := r.Add("alice", p); err != nil {
		t.Fatal(err)
	}
	if n := r.Len(); n != 1 {
		t.Errorf("%d links held after the sweep, want 1", n)
	}
	if _, err := os.Stat(p); err != nil {
		t.Errorf("the registry removed a file: %v", err)
	}
}
