package live

import (
	"testing"
	"time"
)

func TestSignins(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	s := newSignins()
	s.now = func() time.Time { return now }
	c := s.code("alice")
	if _, _, ok := s.exchange("wrong"); ok {
		t.Fatal("a wrong code signed in")
	}
	id, owner, ok := s.exchange(c)
	if !ok || owner != "alice" || id == "" {
		t.Fatalf("exchange: %q %q %v", id, owner, ok)
	}
	if _, _, ok := s.exchange(c); ok {
		t.Fatal("a code worked twice")
	}
	if o, ok := s.owner(id); !ok || o != "alice" {
		t.Fatalf("owner of the session: %q %v", o, ok)
	}
	// Codes and sessions expire.
	late := s.code("bob")
	now = now.Add(codeTTL + time.Second)
	if _, _, ok := s.exchange(late); ok {
		t.Fatal("an expired code signed in")
	}
	now = now.Add(cookieTTL)
	if _, ok := s.owner(id); ok {
		t.Fatal("an expired dashboard session still signs in")
	}
}
