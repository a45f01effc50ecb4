package filelock

import (
	"os"
	"path/filepath"
	"testing"
)

// TestTryLock: a second open file description cannot take the lock while
// the first holds it, and can once it is released.
func TestTryLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	a, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if held, err := TryLock(a); !held || err != nil {
		t.Fatalf("first TryLock = %v, %v; want true, nil", held, err)
	}
	if held, err := TryLock(b); held || err != nil {
		t.Fatalf("TryLock while held = %v, %v; want false, nil", held, err)
	}
	if err := Unlock(a); err != nil {
		t.Fatal(err)
	}
	if held, err := TryLock(b); !held || err != nil {
		t.Fatalf("TryLock after Unlock = %v, %v; want true, nil", held, err)
	}
	_ = Unlock(b)
}
