package sessions

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/browserd/browserd/internal/auth"
	"github.com/browserd/browserd/internal/store"
)

// Owners. Every session and profile belongs to one owner (see package
// auth). Inside the engine, and in the store, a name is qualified by its
// owner — "bob~work" is owner bob's "work" — except admin's, which stay
// bare so that a daemon used only over its socket looks as it always did.
// Names the tool accepts cannot contain '~', so no caller can spell
// another owner's name: other owners' sessions are simply not there.

// ownerSep separates owner and name in a qualified name.
const OwnerSep = "~"

// qualify is owner's name as the engine keys it.
func Qualify(owner, name string) string {
	if owner == auth.Admin || owner == "" || name == "" {
		return name
	}
	return owner + OwnerSep + name
}

// splitName is the owner and the bare name of a qualified name.
func SplitName(q string) (owner, name string) {
	if o, n, ok := strings.Cut(q, OwnerSep); ok {
		return o, n
	}
	return auth.Admin, q
}

// bareName is a qualified name without its owner.
func BareName(q string) string {
	_, n := SplitName(q)
	return n
}

// checkQualified checks both parts of a qualified name.
func CheckQualified(what, q string) error {
	owner, name := SplitName(q)
	if err := auth.CheckOwner(owner); err != nil {
		return err
	}
	if name == "" {
		return fmt.Errorf("empty %s name", what)
	}
	return CheckName(what, name)
}

func CheckName(what, s string) error {
	if len(s) > 64 {
		return fmt.Errorf("%s name is longer than 64 characters", what)
	}
	if strings.HasPrefix(s, ".") {
		return fmt.Errorf("%s name %q may not start with '.'", what, s)
	}
	for _, r := range s {
		if !(r == '-' || r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return fmt.Errorf("%s name %q: use letters, digits, '-', '_' and '.' only", what, s)
		}
	}
	return nil
}

func TabNum(id string) int {
	var n int
	fmt.Sscanf(id, "t%d", &n)
	return n
}

// errHeld matches the refusal of a session another daemon on the store
// holds (heldError).
var ErrHeld = errors.New("session held by another daemon")

// heldError refuses a session another daemon on the store holds; with
// several nodes the call goes there instead (see do).
type HeldError struct{ Msg string }

func (e *HeldError) Error() string { return e.Msg }

// UserError marks the error as the caller's to fix (front ends answer
// it with a 4xx, not a 500).
func (e *HeldError) UserError() bool { return true }

func (*HeldError) Is(target error) bool { return target == ErrHeld }

func Held(format string, args ...any) error {
	return &HeldError{Msg: fmt.Sprintf(format, args...)}
}

// errClosed is returned for calls that arrive while the daemon shuts down.
var ErrClosed = errors.New("browserd is shutting down")

// folderSession is the session of a folder that a call names without
// naming a session: the same for every call on the folder.
func FolderSession(real string) string {
	sum := sha256.Sum256([]byte(real))
	return "folder-" + hex.EncodeToString(sum[:5])
}

// OwnerAllowed refuses other owners than admin on an attached browser.
func (e *Registry) OwnerAllowed(owner string) error {
	if e.Cfg.CDP != "" && owner != auth.Admin {
		return fmt.Errorf("this browserd is attached to a browser (--cdp) whose sessions share one login, so only admin may use it")
	}
	return nil
}

// LiveSession is the caller's session id if it is live in this daemon.
func (e *Registry) LiveSession(ctx context.Context, id string) (*Session, string, error) {
	if err := CheckName("session", id); err != nil {
		return nil, "", fmt.Errorf("%w: %v", store.ErrNotFound, err)
	}
	if err := e.OwnerAllowed(auth.Owner(ctx)); err != nil {
		return nil, "", err
	}
	q := Qualify(auth.Owner(ctx), id)
	e.Mu.Lock()
	defer e.Mu.Unlock()
	s := e.Sessions[q]
	if s == nil || !s.Stored || s.Parked {
		return nil, q, nil
	}
	return s, q, nil
}
