package live

import (
	"testing"
	"time"
)

func TestShares(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	sh := newShares()
	sh.now = func() time.Time { return now }
	a := sh.add("http://x", "alice", "s1", time.Hour)
	b := sh.add("http://x", "alice", "s1", 2*time.Hour)
	sh.add("http://x", "bob", "s1", time.Hour)
	secret := a.URL[len("http://x/dashboard/share/") : len(a.URL)-1]
	if got, ok := sh.get(secret); !ok || got.owner != "alice" || got.Session != "s1" {
		t.Fatalf("get: %+v %v", got, ok)
	}
	if _, ok := sh.get("nope"); ok {
		t.Fatal("a wrong secret works")
	}
	if l := sh.list("alice", "s1"); len(l) != 2 || l[0].ID != a.ID || l[1].ID != b.ID {
		t.Fatalf("list: %+v", l)
	}
	if n := sh.revoke("alice", "s1", a.ID); n != 1 {
		t.Fatalf("revoke one: %d", n)
	}
	if _, ok := sh.get(secret); ok {
		t.Fatal("a revoked link works")
	}
	if n := sh.revoke("alice", "s1", a.ID); n != 0 {
		t.Fatalf("revoking twice: %d", n)
	}
	now = now.Add(2*time.Hour + time.Second)
	if l := sh.list("alice", "s1"); len(l) != 0 {
		t.Fatalf("expired links listed: %+v", l)
	}
	if n := sh.revoke("bob", "s1", ""); n != 0 {
		t.Fatalf("bob's expired link revoked: %d", n)
	}
}
