//go:build unix

package nofollow

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestReadFile: state_load reads regular files only — a symbolic link
// (to a file outside the states folder, say) or a FIFO is refused.
func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "secret.json")
	if err := os.WriteFile(outside, []byte(`{"cookies":[],"origins":[]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(dir, "ok.json")
	if err := os.WriteFile(plain, []byte(`{"cookies":[],"origins":[]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadFile(plain, 1<<20); err != nil || len(b) == 0 {
		t.Fatalf("regular file: %q, %v", b, err)
	}
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(link, 1<<20); !errors.Is(err, ErrLink) {
		t.Fatalf("symlink: %v, want ErrLink", err)
	}
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	if _, err := ReadFile(fifo, 1<<20); err == nil {
		t.Fatal("a FIFO was read")
	}
}
