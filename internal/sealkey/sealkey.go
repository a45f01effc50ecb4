// Package sealkey encrypts what browserd keeps at rest that is a credential
// — cookies and storage of profiles and captures — with AES-256-GCM under a
// key in <data>/secret.key (created on first use, mode 0600).
package sealkey

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Box seals and opens data with one key. Safe for concurrent use.
type Box struct {
	aead cipher.AEAD
	// derive is the root of Derive's keys, itself derived from the key
	// (the key is not kept beyond the cipher).
	derive []byte
}

const magic = "bd1:" // format marker, so a plaintext or foreign file is recognised

// Load reads the key file, creating it (and its folder) when missing.
func Load(path string) (*Box, error) {
	key, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		key = make([]byte, 32)
		if _, err := rand.Read(key); err != nil {
			return nil, err
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return nil, err
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, os.ErrExist) {
			return Load(path) // another process made it first
		}
		if err != nil {
			return nil, fmt.Errorf("creating the secret key %s: %w", path, err)
		}
		if _, err := f.Write(key); err != nil {
			f.Close()
			return nil, err
		}
		if err := f.Close(); err != nil {
			return nil, err
		}
	} else if err != nil {
		return nil, fmt.Errorf("reading the secret key %s: %w", path, err)
	}
	if len(key) != 32 {
		return nil, fmt.Errorf("secret key %s has %d bytes, want 32; restore it from a backup or remove it (saved states then become unreadable)", path, len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &Box{aead: aead, derive: mac(key, "browserd: derived keys v1")}, nil
}

// Derive returns a 32-byte key for label, the same on every daemon that
// loads the same key file and unrelated to the sealing key: the nodes of
// a cluster sign their requests to each other with Derive("cluster").
func (b *Box) Derive(label string) []byte { return mac(b.derive, label) }

func mac(key []byte, msg string) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(msg))
	return h.Sum(nil)
}

// Seal encrypts plain; label binds the ciphertext to its use (a file name),
// so a sealed file copied elsewhere does not open.
func (b *Box) Seal(plain []byte, label string) []byte {
	nonce := make([]byte, b.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		panic("secret: no randomness: " + err.Error())
	}
	out := append([]byte(magic), nonce...)
	return b.aead.Seal(out, nonce, plain, []byte(label))
}

// ErrNotSealed is returned (wrapped) for data Seal did not produce.
var ErrNotSealed = errors.New("secret: not sealed by browserd")

// Open decrypts what Seal produced with the same label.
func (b *Box) Open(sealed []byte, label string) ([]byte, error) {
	n := b.aead.NonceSize()
	if len(sealed) < len(magic)+n || string(sealed[:len(magic)]) != magic {
		return nil, ErrNotSealed
	}
	sealed = sealed[len(magic):]
	plain, err := b.aead.Open(nil, sealed[:n], sealed[n:], []byte(label))
	if err != nil {
		return nil, fmt.Errorf("secret: cannot decrypt (wrong key, or the file was changed): %w", err)
	}
	return plain, nil
}
