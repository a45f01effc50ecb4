package redact

import (
	"context"
	"log/slog"
	"testing"

	"github.com/browserd/browserd/internal/store"
)

type countingSecrets struct {
	values map[string]string
	lists  int
}

func (s *countingSecrets) ListSecrets(context.Context, string) ([]store.Secret, error) {
	s.lists++
	var out []store.Secret
	for n := range s.values {
		out = append(out, store.Secret{Name: n})
	}
	return out, nil
}

func (s *countingSecrets) GetSecret(_ context.Context, owner, name string) (store.Secret, error) {
	return store.Secret{Owner: owner, Name: name, Value: s.values[name]}, nil
}

// TestCache: an owner's Redactor is read once and kept while fresh;
// Forget makes the next call read the secrets again; an owner without
// secrets gets none.
func TestCache(t *testing.T) {
	var c Cache
	log := slog.New(slog.DiscardHandler)
	ss := &countingSecrets{values: map[string]string{"PW": "Hunter2-Sekrit-99"}}
	if got := c.For(t.Context(), ss, "alice", log).String("pw=Hunter2-Sekrit-99"); got != "pw=<secret PW>" {
		t.Errorf("redacted: %q", got)
	}
	c.For(t.Context(), ss, "alice", log)
	if ss.lists != 1 {
		t.Errorf("the secrets were read %d times within Fresh, want 1", ss.lists)
	}
	ss.values["PW"] = "another-value-42"
	c.Forget("alice")
	if got := c.For(t.Context(), ss, "alice", log).String("another-value-42"); got != "<secret PW>" || ss.lists != 2 {
		t.Errorf("after Forget: %q, %d reads", got, ss.lists)
	}
	if r := c.For(t.Context(), &countingSecrets{}, "bob", log); r != nil {
		t.Errorf("an owner without secrets has a Redactor")
	}
}
