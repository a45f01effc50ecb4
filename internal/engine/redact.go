package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/browserd/browserd/internal/act"
	"github.com/browserd/browserd/internal/redact"
	"github.com/browserd/browserd/internal/store"
)

// Secrets the agent types by name (type's and fill's secret): resolved
// for the call from the owner's stored secrets, and redacted from every
// answer, HAR file and recording as `<secret NAME>`.

// secretsOrNil is the store's secrets, nil when it keeps none.
func (e *Engine) secretsOrNil() store.Secrets {
	s, _ := e.Store.(store.Secrets)
	return s
}

// forgetSecrets drops owner's cached redactor (a secret was set or
// deleted on this node).
func (e *Engine) forgetSecrets(owner string) { e.vault.Forget(owner) }

// Redactor is owner's redactor (redact.Cache): nil when the owner has no
// secrets or the store keeps none.
func (e *Engine) Redactor(ctx context.Context, owner string) *redact.Redactor {
	ss := e.secretsOrNil()
	if ss == nil {
		return nil
	}
	return e.vault.For(ctx, ss, owner, e.Log)
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
