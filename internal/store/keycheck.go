package store

import (
	"errors"

	"github.com/browserd/browserd/internal/sealkey"
)

// ErrWrongKey: the store's data was sealed with another secret key than
// the one it is opened with. Backends refuse to open such a store, so that
// a node with the wrong key neither fails every capture it reads nor
// writes captures the other nodes cannot read.
var ErrWrongKey = errors.New("the store's data was sealed with another key")

// The key check is a known text sealed with the store's key: a backend
// writes it on the first open and opens it on every open after (see
// SealKeyCheck and KeyMatches).
const keyCheckLabel = "key-check"

var keyCheckText = []byte("browserd store key check v1")

// SealKeyCheck returns the key check a backend keeps: a known text sealed
// with box.
func SealKeyCheck(box *sealkey.Box) []byte { return box.Seal(keyCheckText, keyCheckLabel) }

// KeyMatches reports whether the key check sealed opens with box, i.e.
// whether box has the key the store's data was sealed with.
func KeyMatches(box *sealkey.Box, sealed []byte) bool {
	plain, err := box.Open(sealed, keyCheckLabel)
	return err == nil && string(plain) == string(keyCheckText)
}

// Sealed is one sealed row of a store, for a backend that has no key
// check yet (a store made before there was one) to find out whether its
// key is the one the data was sealed with: the row's payload and the label
// it was sealed with.
type Sealed struct {
	Payload []byte
	Label   string
}

// CaptureLabel and StoredLabel are the labels captures and stored
// sessions are sealed with: a payload copied to another session's row
// does not open.
func CaptureLabel(sessionID string) string { return "capture:" + sessionID }

// StoredLabel: see CaptureLabel.
func StoredLabel(id string) string { return "stored:" + id }

// URLLabel is the label a session's listing URL is sealed with (SealURL).
func URLLabel(sessionID string) string { return "session-url:" + sessionID }

// AnyOpens reports whether box opens at least one of rows, or rows is
// empty: a store without a key check whose sampled rows all fail to open
// was sealed with another key (one damaged row among them does not make it
// so).
func AnyOpens(box *sealkey.Box, rows []Sealed) bool {
	if len(rows) == 0 {
		return true
	}
	for _, r := range rows {
		if _, err := box.Open(r.Payload, r.Label); err == nil {
			return true
		}
	}
	return false
}
