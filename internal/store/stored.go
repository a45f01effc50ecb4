package store

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/browserd/browserd/internal/storagestate"
)

// StoredSession is a named storageState kept for injection into new
// sessions (source 003's "session store"): uploaded, or captured from a
// live session. The state is credentials and is sealed at rest; the rest
// is the listing.
type StoredSession struct {
	ID      string
	Owner   string
	Name    string
	Domains []string // cookie domains and origin hosts, sorted, unique
	Cookies int
	// AuthExpiry is the earliest expiry of its persistent auth cookies
	// (HttpOnly, or named like a session or token); zero when none.
	AuthExpiry time.Time
	// ExpiresAt is when the stored session stops being injectable; zero
	// for never.
	ExpiresAt time.Time
	Created   time.Time
	// State is the storageState; nil in listings.
	State *storagestate.State
}

// StoredSessions keeps stored sessions. Every method is scoped to one
// owner: another owner's stored session is ErrNotFound.
type StoredSessions interface {
	// SaveStored inserts s (its ID must be new).
	SaveStored(ctx context.Context, s StoredSession) error
	// GetStored returns owner's stored session id with its State.
	GetStored(ctx context.Context, owner, id string) (StoredSession, error)
	// ListStored lists owner's stored sessions, newest first, without State.
	ListStored(ctx context.Context, owner string) ([]StoredSession, error)
	// DeleteStored deletes owner's stored session id.
	DeleteStored(ctx context.Context, owner, id string) error
}

// Describe fills the listing fields of s from s.State.
func (s *StoredSession) Describe() {
	st := s.State
	s.Domains, s.Cookies, s.AuthExpiry = nil, 0, time.Time{}
	if st == nil {
		return
	}
	s.Cookies = len(st.Cookies)
	for _, c := range st.Cookies {
		s.Domains = append(s.Domains, strings.TrimPrefix(strings.ToLower(c.Domain), "."))
		if c.Expires > 0 && IsAuthCookie(c) {
			exp := time.Unix(int64(c.Expires), 0).UTC()
			if s.AuthExpiry.IsZero() || exp.Before(s.AuthExpiry) {
				s.AuthExpiry = exp
			}
		}
	}
	for _, o := range st.Origins {
		if h := storagestate.OriginHost(o.Origin); h != "" {
			s.Domains = append(s.Domains, h)
		}
	}
	slices.Sort(s.Domains)
	s.Domains = slices.Compact(s.Domains)
}

// IsAuthCookie guesses whether a cookie carries a login: HttpOnly, or a
// name that says session, auth, token, sid or login.
func IsAuthCookie(c storagestate.Cookie) bool {
	if c.HTTPOnly {
		return true
	}
	n := strings.ToLower(c.Name)
	for _, w := range []string{"sess", "auth", "token", "sid", "login", "jwt"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}
