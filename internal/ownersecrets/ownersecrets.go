// Package ownersecrets keeps each owner's secrets for the engine — the values an
// agent types by name without seeing them (issue 28 point 4): their
// management for the owner in ctx (auth.Owner; PUT, GET and DELETE
// /api/secrets, and `browserd secret`; each method implements
// httpapi.SecretStore), the owner's cached redactor every answer, HAR file
// and recording passes through (`<secret NAME>`), and the secrets a call
// types, resolved for the action. A value never leaves it through the
// management methods, nor reaches its log. Package secrets says what a
// secret may be; package redact replaces values.
//
// The engine wires a Vault (its room).
package ownersecrets

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/browserd/browserd/internal/act"
	"github.com/browserd/browserd/internal/auth"
	"github.com/browserd/browserd/internal/redact"
	"github.com/browserd/browserd/internal/secrets"
	"github.com/browserd/browserd/internal/sessions"
	"github.com/browserd/browserd/internal/store"
	"github.com/browserd/browserd/internal/tool"
)

// Vault manages owners' secrets and keeps their redactors.
type Vault struct {
	*sessions.Registry
	cache redact.Cache // each owner's redactor
}

// secretStore is the store's secrets: an error wrapping
// errors.ErrUnsupported when the store keeps none.
func (v *Vault) secretStore() (store.Secrets, error) {
	if ss, ok := v.Store.(store.Secrets); ok {
		return ss, nil
	}
	return nil, fmt.Errorf("%w: this daemon's store (%T) keeps no secrets", errors.ErrUnsupported, v.Store)
}

// SetSecret creates or replaces the caller's secret name, bound to
// origins (none: any origin), and returns it without its value, its
// origins normalized. A bad name, value or origin is a *tool.Error that
// says what to give; the value is never in an error.
func (v *Vault) SetSecret(ctx context.Context, name, value string, origins []string) (store.Secret, error) {
	ss, err := v.secretStore()
	if err != nil {
		return store.Secret{}, err
	}
	if err := secrets.CheckName(name); err != nil {
		return store.Secret{}, &tool.Error{Msg: err.Error()}
	}
	if err := secrets.CheckValue(value); err != nil {
		return store.Secret{}, &tool.Error{Msg: err.Error()}
	}
	norm, err := secrets.Origins(origins)
	if err != nil {
		return store.Secret{}, &tool.Error{Msg: err.Error()}
	}
	s := store.Secret{Owner: auth.Owner(ctx), Name: name, Value: value, Origins: norm, Updated: time.Now().UTC().Truncate(time.Millisecond)}
	if err := ss.SetSecret(ctx, s); err != nil {
		return store.Secret{}, err
	}
	s.Value = ""
	v.cache.Forget(s.Owner) // redact the new value from the next answer on
	if v.Log != nil {
		v.Log.Info("secret set", "owner", s.Owner, "secret", name, "origins", len(norm))
	}
	return s, nil
}

// ListSecrets lists the caller's secrets by name, without values.
func (v *Vault) ListSecrets(ctx context.Context) ([]store.Secret, error) {
	ss, err := v.secretStore()
	if err != nil {
		return nil, err
	}
	list, err := ss.ListSecrets(ctx, auth.Owner(ctx))
	for i := range list {
		list[i].Value = "" // a store's listing has none; make sure
	}
	return list, err
}

// DeleteSecret deletes the caller's secret name: store.ErrNotFound
// (wrapped) when there is none.
func (v *Vault) DeleteSecret(ctx context.Context, name string) error {
	ss, err := v.secretStore()
	if err != nil {
		return err
	}
	if err := secrets.CheckName(name); err != nil {
		return &tool.Error{Msg: err.Error()}
	}
	owner := auth.Owner(ctx)
	if err := ss.DeleteSecret(ctx, owner, name); err != nil {
		return err
	}
	v.cache.Forget(owner)
	if v.Log != nil {
		v.Log.Info("secret deleted", "owner", owner, "secret", name)
	}
	return nil
}

// secretsOrNil is the store's secrets, nil when it keeps none.
func (v *Vault) secretsOrNil() store.Secrets {
	s, _ := v.Store.(store.Secrets)
	return s
}

// Redactor is owner's redactor (redact.Cache): nil when the owner has no
// secrets or the store keeps none.
func (v *Vault) Redactor(ctx context.Context, owner string) *redact.Redactor {
	ss := v.secretsOrNil()
	if ss == nil {
		return nil
	}
	return v.cache.For(ctx, ss, owner, v.Log)
}

// ResolveSecrets reads the secrets owner's call in types (type's secret,
// fill's fields'), for the action on the page (act.Tab.Secrets); nil when
// it types none. A secret the owner has not set is a *tool.Error that says
// how to set it.
func (v *Vault) ResolveSecrets(ctx context.Context, owner string, in *tool.Input) (map[string]act.Secret, error) {
	names := []string{}
	if in.Secret != "" {
		names = append(names, in.Secret)
	}
	for _, f := range in.Fields {
		if f.Secret != "" {
			names = append(names, f.Secret)
		}
	}
	if len(names) == 0 {
		return nil, nil
	}
	ss := v.secretsOrNil()
	if ss == nil {
		return nil, tool.Fail("this daemon's store keeps no secrets")
	}
	out := map[string]act.Secret{}
	for _, name := range names {
		if _, ok := out[name]; ok {
			continue
		}
		s, err := ss.GetSecret(ctx, owner, name)
		if errors.Is(err, store.ErrNotFound) {
			return nil, tool.Fail("no secret %q: set it with `browserd secret set %s` (the value on stdin) or PUT /api/secrets/%s; `browserd secret list` lists yours", name, name, name)
		}
		if err != nil {
			return nil, fmt.Errorf("reading secret %s: %w", name, err)
		}
		out[name] = act.Secret{Value: s.Value, Origins: s.Origins}
		// From now on its runs are replaced too, and its value stays
		// replaced if the secret changes (redact.Cache).
		v.cache.Typed(owner, name, s.Value)
	}
	return out, nil
}

// Said records the texts of a call of owner's — every string it gives —
// so that redaction leaves alone what the agent wrote itself
// (redact.Known).
func (v *Vault) Said(owner string, in tool.Input) {
	b, err := json.Marshal(in)
	if err != nil {
		return
	}
	var x any
	if json.Unmarshal(b, &x) != nil {
		return
	}
	var texts []string
	var walk func(any)
	walk = func(x any) {
		switch x := x.(type) {
		case string:
			texts = append(texts, x)
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(x)
	v.cache.Said(owner, texts...)
}
