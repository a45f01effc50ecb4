package redact

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/browserd/browserd/internal/store"
)

// Secrets is where a Cache reads an owner's secrets (the store).
type Secrets interface {
	ListSecrets(ctx context.Context, owner string) ([]store.Secret, error)
	GetSecret(ctx context.Context, owner, name string) (store.Secret, error)
}

// Fresh is how long a Cache uses an owner's Redactor before it reads the
// owner's secrets again: another node may have changed them (this node's
// own changes call Forget).
const Fresh = 5 * time.Second

// Cache keeps each owner's Redactor. The zero Cache is ready to use.
type Cache struct {
	mu      sync.Mutex
	byOwner map[string]cached
}

type cached struct {
	r  *Redactor
	at time.Time
}

// Forget drops owner's Redactor: a secret of theirs was set or deleted.
func (c *Cache) Forget(owner string) {
	c.mu.Lock()
	delete(c.byOwner, owner)
	c.mu.Unlock()
}

// For is owner's Redactor: every one of the owner's secrets in ss, read
// at most every Fresh; nil when the owner has none. A store that cannot
// be read leaves the last one in use (and says so in log).
func (c *Cache) For(ctx context.Context, ss Secrets, owner string, log *slog.Logger) *Redactor {
	c.mu.Lock()
	old, ok := c.byOwner[owner]
	c.mu.Unlock()
	if ok && time.Since(old.at) < Fresh {
		return old.r
	}
	list, err := ss.ListSecrets(ctx, owner)
	if err != nil {
		log.Warn("reading the owner's secrets to redact them failed", "owner", owner, "err", err)
		return old.r
	}
	values := map[string]string{}
	for _, s := range list {
		full, err := ss.GetSecret(ctx, owner, s.Name)
		if err != nil {
			log.Warn("opening a secret to redact it failed", "owner", owner, "secret", s.Name, "err", err)
			continue
		}
		values[s.Name] = full.Value
	}
	r := New(values)
	c.mu.Lock()
	if c.byOwner == nil {
		c.byOwner = map[string]cached{}
	}
	c.byOwner[owner] = cached{r: r, at: time.Now()}
	c.mu.Unlock()
	return r
}
