package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/browserd/browserd/internal/sealkey"
	"github.com/browserd/browserd/internal/storagestate"
)

// What every backend seals, and how: the backends keep the sealed bytes
// and the listing columns, and leave encoding and sealing to these.

// SealedCapture is a capture made ready for a backend to write.
type SealedCapture struct {
	Taken time.Time // the capture's time: now when it had none
	// URL is the first tab's URL, for the session's listing, sealed with
	// SealURL (nil when the capture has no tab): a URL's query and
	// fragment carry reset tokens and OAuth codes.
	URL    []byte
	Sealed []byte // the payload (EncodeCapture), sealed under the session's label
}

// SealCapture encodes and seals c.
func SealCapture(box *sealkey.Box, c Capture) (SealedCapture, error) {
	if c.Taken.IsZero() {
		c.Taken = time.Now()
	}
	plain, err := EncodeCapture(c)
	if err != nil {
		return SealedCapture{}, err
	}
	out := SealedCapture{Taken: c.Taken, Sealed: box.Seal(plain, CaptureLabel(c.SessionID))}
	if len(c.Tabs) > 0 {
		out.URL = SealURL(box, c.SessionID, c.Tabs[0].URL)
	}
	return out, nil
}

// SealURL seals the listing URL of session sessionID (a sessions row's
// url_sealed): nil for none.
func SealURL(box *sealkey.Box, sessionID, url string) []byte {
	if url == "" {
		return nil
	}
	return box.Seal([]byte(url), URLLabel(sessionID))
}

// OpenURL opens what SealURL sealed for sessionID. A listing shows what it
// can: none (nil), or one that does not open (damaged, another key), is "".
func OpenURL(box *sealkey.Box, sessionID string, sealed []byte) string {
	if len(sealed) == 0 {
		return ""
	}
	plain, err := box.Open(sealed, URLLabel(sessionID))
	if err != nil {
		return ""
	}
	return string(plain)
}

// OpenCapture opens and decodes what SealCapture sealed for sessionID at
// taken; every failure wraps ErrCorrupt.
func OpenCapture(box *sealkey.Box, sessionID string, taken time.Time, sealed []byte) (Capture, error) {
	plain, err := box.Open(sealed, CaptureLabel(sessionID))
	if err != nil {
		return Capture{}, fmt.Errorf("%w: session %q: %v", ErrCorrupt, sessionID, err)
	}
	c, err := DecodeCapture(plain)
	if err != nil {
		return Capture{}, fmt.Errorf("session %q: %w", sessionID, err)
	}
	c.SessionID, c.Taken = sessionID, taken.UTC()
	return c, nil
}

// SealStored seals a stored session's state and fills its listing fields
// (Describe; Created is now when zero).
func SealStored(box *sealkey.Box, ss *StoredSession) ([]byte, error) {
	if ss.State == nil {
		return nil, errors.New("store: a stored session needs a state")
	}
	plain, err := json.Marshal(ss.State)
	if err != nil {
		return nil, fmt.Errorf("store: encoding stored session %q: %w", ss.ID, err)
	}
	ss.Describe()
	if ss.Created.IsZero() {
		ss.Created = time.Now()
	}
	return box.Seal(plain, StoredLabel(ss.ID)), nil
}

// OpenStored opens what SealStored sealed for stored session id; every
// failure wraps ErrCorrupt.
func OpenStored(box *sealkey.Box, id string, sealed []byte) (*storagestate.State, error) {
	plain, err := box.Open(sealed, StoredLabel(id))
	if err != nil {
		return nil, fmt.Errorf("%w: stored session %q: %v", ErrCorrupt, id, err)
	}
	var st storagestate.State
	if err := json.Unmarshal(plain, &st); err != nil {
		return nil, fmt.Errorf("%w: stored session %q: %v", ErrCorrupt, id, err)
	}
	return &st, nil
}

// DescribeCapture opens a sealed capture (see OpenCapture) for a listing:
// its tab count and first tab, or the reason it cannot be read.
func DescribeCapture(box *sealkey.Box, sessionID string, id int64, taken time.Time, sealed []byte) CaptureInfo {
	info := CaptureInfo{ID: id, Taken: taken.UTC()}
	c, err := OpenCapture(box, sessionID, taken, sealed)
	if err != nil {
		info.Err = err
		return info
	}
	info.Tabs = len(c.Tabs)
	if len(c.Tabs) > 0 {
		info.URL, info.Title = c.Tabs[0].URL, c.Tabs[0].Title
	}
	return info
}

// LoginCheckLabel binds a profile's sealed login check to its profile.
func LoginCheckLabel(owner, name string) string { return "profile-login-check:" + owner + "/" + name }

// SealLoginCheck seals a profile's login check as the backends keep it;
// nil for none.
func SealLoginCheck(box *sealkey.Box, owner, name string, c *LoginCheck) ([]byte, error) {
	if c == nil {
		return nil, nil
	}
	b, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	return box.Seal(b, LoginCheckLabel(owner, name)), nil
}

// OpenLoginCheck opens what SealLoginCheck sealed; nil for none.
func OpenLoginCheck(box *sealkey.Box, owner, name string, sealed []byte) (*LoginCheck, error) {
	if len(sealed) == 0 {
		return nil, nil
	}
	plain, err := box.Open(sealed, LoginCheckLabel(owner, name))
	if err != nil {
		return nil, fmt.Errorf("%w: profile %s/%s's login check: %v", ErrCorrupt, owner, name, err)
	}
	var c LoginCheck
	if err := json.Unmarshal(plain, &c); err != nil || c.URL == "" {
		return nil, fmt.Errorf("%w: profile %s/%s's login check: not a check", ErrCorrupt, owner, name)
	}
	return &c, nil
}
