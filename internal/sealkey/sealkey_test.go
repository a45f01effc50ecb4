package sealkey

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestSealOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d", "secret.key")
	b, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("key file mode: %v %v", st.Mode(), err)
	}
	sealed := b.Seal([]byte("sid=secret-cookie"), "profile:default")
	if bytes.Contains(sealed, []byte("secret-cookie")) {
		t.Fatal("plaintext visible in the sealed data")
	}
	plain, err := b.Open(sealed, "profile:default")
	if err != nil || string(plain) != "sid=secret-cookie" {
		t.Fatalf("Open: %q %v", plain, err)
	}
	if _, err := b.Open(sealed, "profile:other"); err == nil {
		t.Fatal("opened with another label")
	}
	sealed[len(sealed)-1] ^= 1
	if _, err := b.Open(sealed, "profile:default"); err == nil {
		t.Fatal("opened tampered data")
	}
	if _, err := b.Open([]byte(`{"cookies":[]}`), "x"); !errors.Is(err, ErrNotSealed) {
		t.Fatalf("plaintext: %v", err)
	}
	// The same key file gives the same key.
	b2, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b2.Open(b.Seal([]byte("x"), "l"), "l"); err != nil {
		t.Fatal(err)
	}
}

func TestBadKey(t *testing.T) {
	path := filepath.Join(t.TempDir(), "secret.key")
	os.WriteFile(path, []byte("short"), 0o600)
	if _, err := Load(path); err == nil {
		t.Fatal("a short key loaded")
	}
}
