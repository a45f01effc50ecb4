package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/browserd/browserd/internal/act"
	"github.com/browserd/browserd/internal/redact"
	"github.com/browserd/browserd/internal/store"
)

// Secrets the agent types by name (type's and fill's secret): resolved
// for the call from the owner's stored secrets, and redacted from every
// answer, HAR file and recording as `<secret NAME>`.

// redactFresh is how long an owner's redactor is used before the store is
// read again: another node may have changed the owner's secrets (this
// node's own changes drop it at once, forgetSecrets).
const redactFresh = 5 * time.Second

// vault caches each owner's redactor.
type vault struct {
	mu      sync.Mutex
	byOwner map[string]cachedRedactor
}

type cachedRedactor struct {
	r  *redact.Redactor
	at time.Time
}

// secretsOrNil is the store's secrets, nil when it keeps none.
func (e *Engine) secretsOrNil() store.Secrets {
	s, _ := e.Store.(store.Secrets)
	return s
}

// forgetSecrets drops owner's cached redactor (a secret was set or
// deleted on this node).
func (e *Engine) forgetSecrets(owner string) {
	e.vault.mu.Lock()
	delete(e.vault.byOwner, owner)
	e.vault.mu.Unlock()
}

// redactor is owner's redactor: every one of the owner's secrets, read
// from the store at most every redactFresh. nil when the owner has none
// (or the store keeps none); a store that cannot be read leaves the last
// one in use.
func (e *Engine) redactor(ctx context.Context, owner string) *redact.Redactor {
	ss := e.secretsOrNil()
	if ss == nil {
		return nil
	}
	e.vault.mu.Lock()
	c, ok := e.vault.byOwner[owner]
	e.vault.mu.Unlock()
	if ok && time.Since(c.at) < redactFresh {
		return c.r
	}
	list, err := ss.ListSecrets(ctx, owner)
	if err != nil {
		e.Log.Warn("reading the owner's secrets to redact them failed", "owner", owner, "err", err)
		return c.r
	}
	values := map[string]string{}
	for _, s := range list {
		full, err := ss.GetSecret(ctx, owner, s.Name)
		if err != nil {
			e.Log.Warn("opening a secret to redact it failed", "owner", owner, "secret", s.Name, "err", err)
			continue
		}
		values[s.Name] = full.Value
	}
	r := redact.New(values)
	e.vault.mu.Lock()
	if e.vault.byOwner == nil {
		e.vault.byOwner = map[string]cachedRedactor{}
	}
	e.vault.byOwner[owner] = cachedRedactor{r: r, at: time.Now()}
	e.vault.mu.Unlock()
	return r
}

// resolveSecrets reads the secrets the call types (type's secret, fill's
// fields'), for the action on the page (act.Tab.Secrets).
func (c *call) resolveSecrets(ctx context.Context) (map[string]act.Secret, error) {
	names := []string{}
	if c.in.Secret != "" {
		names = append(names, c.in.Secret)
	}
	for _, f := range c.in.Fields {
		if f.Secret != "" {
			names = append(names, f.Secret)
		}
	}
	if len(names) == 0 {
		return nil, nil
	}
	ss := c.e.secretsOrNil()
	if ss == nil {
		return nil, fail("this daemon's store keeps no secrets")
	}
	out := map[string]act.Secret{}
	for _, name := range names {
		if _, ok := out[name]; ok {
			continue
		}
		s, err := ss.GetSecret(ctx, c.owner, name)
		if errors.Is(err, store.ErrNotFound) {
			return nil, fail("no secret %q: set it with `browserd secret set %s` (the value on stdin) or PUT /api/secrets/%s; `browserd secret list` lists yours", name, name, name)
		}
		if err != nil {
			return nil, fmt.Errorf("reading secret %s: %w", name, err)
		}
		out[name] = act.Secret{Value: s.Value, Origins: s.Origins}
	}
	return out, nil
}
