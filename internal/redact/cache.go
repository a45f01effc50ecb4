package redact

import (
	"context"
	"log/slog"
	"slices"
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

// Cache keeps each owner's Redactor, and what it is made of besides the
// stored secrets: the values the owner's calls typed (Typed) and the
// texts they wrote (Said). The zero Cache is ready to use.
//
// A stored secret is replaced whole; by its runs too once a call typed it
// (a page may then show or send it in parts: as it is typed, or cut).
// Before, no page of the owner's got it from browserd, so a part of it in
// a page would be the site's own text or the agent's — which runs would
// only turn into an oracle. A typed value stays replaced, runs and all,
// for the daemon's life, even when the secret is changed or deleted.
type Cache struct {
	mu      sync.Mutex
	byOwner map[string]cached
	typed   map[string][]Entry // owner → the values typed, Runs set
	known   map[string]*Known  // owner → what its calls wrote
}

// Typed records that a call of owner's typed secret name's value.
func (c *Cache) Typed(owner, name, value string) {
	if value == "" {
		return
	}
	e := Entry{Name: name, Value: value, Runs: true}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, t := range c.typed[owner] {
		if t == e {
			return
		}
	}
	if c.typed == nil {
		c.typed = map[string][]Entry{}
	}
	c.typed[owner] = append(c.typed[owner], e)
	delete(c.byOwner, owner)
}

// Said records texts a call of owner's wrote (see Known).
func (c *Cache) Said(owner string, texts ...string) {
	c.knownOf(owner).Add(texts...)
}

func (c *Cache) knownOf(owner string) *Known {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := c.known[owner]
	if k == nil {
		if c.known == nil {
			c.known = map[string]*Known{}
		}
		k = &Known{}
		c.known[owner] = k
	}
	return k
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
// at most every Fresh, and the values its calls typed; nil when there are
// none. A store that cannot
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
	known := c.knownOf(owner)
	c.mu.Lock()
	typed := append([]Entry(nil), c.typed[owner]...)
	c.mu.Unlock()
	entries := typed
	for _, s := range list {
		full, err := ss.GetSecret(ctx, owner, s.Name)
		if err != nil {
			log.Warn("opening a secret to redact it failed", "owner", owner, "secret", s.Name, "err", err)
			continue
		}
		e := Entry{Name: s.Name, Value: full.Value, Runs: true}
		if !slices.Contains(typed, e) {
			e.Runs = false
			entries = append(entries, e)
		}
	}
	r := NewEntries(entries, known)
	c.mu.Lock()
	if c.byOwner == nil {
		c.byOwner = map[string]cached{}
	}
	c.byOwner[owner] = cached{r: r, at: time.Now()}
	c.mu.Unlock()
	return r
}
