package live

import (
	"crypto/rand"
	"encoding/hex"
	"sync"
	"time"
)

const (
	// codeTTL is how long a one-time sign-in URL works, once.
	codeTTL = 2 * time.Minute
	// cookieTTL is how long a dashboard sign-in lasts.
	cookieTTL = 12 * time.Hour
	// CookieName is the dashboard's session cookie.
	CookieName = "browserd_dashboard"
)

// signins keeps the one-time codes `browserd dashboard` hands out and the
// dashboard sessions they were exchanged for, each with its owner. Only
// memory: a daemon restart signs everyone out.
type signins struct {
	mu       sync.Mutex
	codes    map[string]grant
	sessions map[string]grant
	now      func() time.Time
}

type grant struct {
	owner   string
	expires time.Time
	csrf    string // a dashboard session's token for state-changing requests
}

func newSignins() *signins {
	return &signins{codes: map[string]grant{}, sessions: map[string]grant{}, now: time.Now}
}

func randomID() string {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("live: no randomness: " + err.Error())
	}
	return hex.EncodeToString(b[:])
}

// code makes a one-time sign-in code for owner.
func (s *signins) code(owner string) string {
	c := randomID()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gc()
	s.codes[c] = grant{owner: owner, expires: s.now().Add(codeTTL)}
	return c
}

// exchange trades a code, once, for a dashboard session id.
func (s *signins) exchange(code string) (id, owner string, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	g, found := s.codes[code]
	delete(s.codes, code) // used or not, never again
	if !found || s.now().After(g.expires) {
		return "", "", false
	}
	id = randomID()
	s.sessions[id] = grant{owner: g.owner, expires: s.now().Add(cookieTTL), csrf: randomID()}
	return id, g.owner, true
}

// owner is the owner of a dashboard session id, if it is valid.
func (s *signins) owner(id string) (string, bool) {
	g, ok := s.session(id)
	return g.owner, ok
}

// session is the grant of a dashboard session id, if it is valid.
func (s *signins) session(id string) (grant, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	g, ok := s.sessions[id]
	if !ok || s.now().After(g.expires) {
		delete(s.sessions, id)
		return grant{}, false
	}
	return g, true
}

// gc forgets expired codes and sessions. Call with mu held.
func (s *signins) gc() {
	now := s.now()
	for k, g := range s.codes {
		if now.After(g.expires) {
			delete(s.codes, k)
		}
	}
	for k, g := range s.sessions {
		if now.After(g.expires) {
			delete(s.sessions, k)
		}
	}
}
