package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/browserd/browserd/internal/auth"
	"github.com/browserd/browserd/internal/secrets"
	"github.com/browserd/browserd/internal/store"
	"github.com/browserd/browserd/internal/tool"
)

// Secrets: the management of the values an agent types by name without
// seeing them (issue 28 point 4) — PUT, GET and DELETE /api/secrets, and
// `browserd secret` — for the owner in ctx (auth.Owner). Each method
// implements httpapi.SecretStore. A value never leaves the engine through
// them, nor reaches its log.

// secretStore is the store's secrets: an error wrapping
// errors.ErrUnsupported when the store keeps none.
func (e *Engine) secretStore() (store.Secrets, error) {
	if ss, ok := e.Store.(store.Secrets); ok {
		return ss, nil
	}
	return nil, fmt.Errorf("%w: this daemon's store (%T) keeps no secrets", errors.ErrUnsupported, e.Store)
}

// SetSecret creates or replaces the caller's secret name, bound to
// origins (none: any origin), and returns it without its value, its
// origins normalized. A bad name, value or origin is a *tool.Error that
// says what to give; the value is never in an error.
func (e *Engine) SetSecret(ctx context.Context, name, value string, origins []string) (store.Secret, error) {
	ss, err := e.secretStore()
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
	e.forgetSecrets(s.Owner) // redact the new value from the next answer on
	if e.Log != nil {
		e.Log.Info("secret set", "owner", s.Owner, "secret", name, "origins", len(norm))
	}
	return s, nil
}

// ListSecrets lists the caller's secrets by name, without values.
func (e *Engine) ListSecrets(ctx context.Context) ([]store.Secret, error) {
	ss, err := e.secretStore()
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
func (e *Engine) DeleteSecret(ctx context.Context, name string) error {
	ss, err := e.secretStore()
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
	e.forgetSecrets(owner)
	if e.Log != nil {
		e.Log.Info("secret deleted", "owner", owner, "secret", name)
	}
	return nil
}
