package inject

import (
	"context"
	"errors"
	"testing"

	"github.com/browserd/browserd/internal/store"
	"github.com/browserd/browserd/internal/tool"
)

// stored is one owner's stored sessions.
type stored map[string]store.StoredSession

func (s stored) GetStored(_ context.Context, owner, id string) (store.StoredSession, error) {
	ss, ok := s[owner+"/"+id]
	if !ok {
		return store.StoredSession{}, store.ErrNotFound
	}
	return ss, nil
}

// TestPrepare: a stored session of another owner is not found, a state
// that is not one is malformed, and a good one is checked and named; each
// refusal is kept for Inject's caller and is the agent's to read.
func TestPrepare(t *testing.T) {
	ss := stored{"bob/s1": {ID: "s1", State: state(), Created: now}}
	var l Launch
	err := l.Prepare(context.Background(), ss, "alice", &tool.Input{StoredSession: "s1"})
	var te *tool.Error
	if !errors.As(err, &te) || l.Err == nil || l.Err.Kind != NotFound {
		t.Fatalf("alice's s1: %v, %+v", err, l.Err)
	}
	l = Launch{}
	if err := l.Prepare(context.Background(), ss, "bob", &tool.Input{State: []byte(`{"cookies":7}`)}); err == nil || l.Err == nil || l.Err.Kind != Malformed {
		t.Fatalf("a malformed state: %v, %+v", err, l.Err)
	}
	l = Launch{}
	if err := l.Prepare(context.Background(), ss, "bob", &tool.Input{StoredSession: "s1"}); err != nil {
		t.Fatal(err)
	}
	if l.Stored != "s1" || len(l.Domains) == 0 || l.Source().Kind != "stored" {
		t.Fatalf("bob's s1: %+v", l)
	}
	if inline := (&Launch{State: state()}).Source(); inline.Kind != "inline" || inline.Hash == "" {
		t.Fatalf("an inline state's source: %+v", inline)
	}
	if err := l.Taken("s1"); err == nil || l.Err.Kind != Conflict {
		t.Fatalf("Taken: %v", err)
	}
}
