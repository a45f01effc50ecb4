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

// TestCacheTyped: a stored secret is replaced whole until a call types
// it, then by its runs too; a value typed stays replaced after the secret
// changes or goes; what the owner's calls wrote is left as it is.
func TestCacheTyped(t *testing.T) {
	var c Cache
	log := slog.New(slog.DiscardHandler)
	ss := &countingSecrets{values: map[string]string{"PW": "Hunter2-Sekrit-99"}}
	red := func(s string) string { return c.For(t.Context(), ss, "alice", log).String(s) }
	if got := red("so far Hunter2-Sek, whole Hunter2-Sekrit-99"); got != "so far Hunter2-Sek, whole <secret PW>" {
		t.Errorf("before typing: %q", got)
	}
	c.Typed("alice", "PW", "Hunter2-Sekrit-99")
	if got := red("so far Hunter2-Sek"); got != "so far <secret PW>" {
		t.Errorf("after typing: %q", got)
	}
	ss.values["PW"] = "another-value-42"
	delete(ss.values, "PW")
	c.Forget("alice")
	if got := red("so far Hunter2-Sek"); got != "so far <secret PW>" {
		t.Errorf("after the secret went: %q", got)
	}
	c.Said("alice", "https://x.example/?q=hunt+sekr")
	if got := red("https://x.example/?q=hunt+sekr and Hunter2"); got != "https://x.example/?q=hunt+sekr and <secret PW>" {
		t.Errorf("what alice wrote: %q", got)
	}
	if got := c.For(t.Context(), ss, "bob", log); got != nil {
		t.Errorf("bob has alice's typed values: %v", got)
	}
}
