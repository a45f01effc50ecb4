package metrics

import (
	"context"
	"errors"
	"time"

	"github.com/browserd/browserd/internal/auth"
	"github.com/browserd/browserd/internal/store"
)

// storeOps are the op label values of browserd_store_errors_total: the
// methods of store.Store, auth.Store and store.Secrets, in snake case.
var storeOps = []string{
	"create_session", "get_session", "list_sessions", "set_state",
	"save_capture", "latest_capture", "list_captures", "get_capture", "recover",
	"acquire_lease", "release_lease", "close",
	"save_stored", "get_stored", "list_stored", "delete_stored",
	"create_token", "token_by_hash", "list_tokens", "revoke_token",
	"set_secret", "get_secret", "list_secrets", "delete_secret",
}

// WrapStore returns st with every error its methods return counted in
// browserd_store_errors_total by method, except answers that are not
// failures: store.ErrNotFound, store.ErrConflict, auth.ErrUnknown, and a
// context the caller canceled. Everything else passes through unchanged.
// When st also keeps tokens (auth.Store) or secrets (store.Secrets), so
// does the result. On a nil *Set it returns st itself.
//
// The result hides any other interface st implements; a method added to
// store.Store later passes through uncounted until it is added here.
func (s *Set) WrapStore(st store.Store) store.Store {
	if s == nil || st == nil {
		return st
	}
	c := &countingStore{Store: st, m: s}
	ts, tokens := st.(auth.Store)
	ss, secrets := st.(store.Secrets)
	switch {
	case tokens && secrets:
		return &countingTokenSecretStore{&countingTokenStore{countingStore: c, tokens: ts}, countingSecrets{c, ss}}
	case tokens:
		return &countingTokenStore{countingStore: c, tokens: ts}
	case secrets:
		return &countingSecretStore{c, countingSecrets{c, ss}}
	}
	return c
}

// countingStore counts a store.Store's failures.
type countingStore struct {
	store.Store
	m *Set
}

// count counts err under op if it is a failure, and returns it.
func (c *countingStore) count(op string, err error) error {
	if err != nil && !errors.Is(err, store.ErrNotFound) && !errors.Is(err, store.ErrConflict) &&
		!errors.Is(err, auth.ErrUnknown) && !errors.Is(err, context.Canceled) {
		c.m.StoreError(op)
	}
	return err
}

func (c *countingStore) CreateSession(ctx context.Context, s store.Session) error {
	return c.count("create_session", c.Store.CreateSession(ctx, s))
}

func (c *countingStore) GetSession(ctx context.Context, id string) (store.Session, error) {
	s, err := c.Store.GetSession(ctx, id)
	return s, c.count("get_session", err)
}

func (c *countingStore) ListSessions(ctx context.Context, owner string, state store.SessionState) ([]store.Session, error) {
	ss, err := c.Store.ListSessions(ctx, owner, state)
	return ss, c.count("list_sessions", err)
}

func (c *countingStore) SetState(ctx context.Context, id string, state store.SessionState, reason string) error {
	return c.count("set_state", c.Store.SetState(ctx, id, state, reason))
}

func (c *countingStore) SaveCapture(ctx context.Context, capture store.Capture, keep int) error {
	return c.count("save_capture", c.Store.SaveCapture(ctx, capture, keep))
}

func (c *countingStore) LatestCapture(ctx context.Context, sessionID string) (store.Capture, error) {
	capture, err := c.Store.LatestCapture(ctx, sessionID)
	return capture, c.count("latest_capture", err)
}

func (c *countingStore) ListCaptures(ctx context.Context, sessionID string) ([]store.CaptureInfo, error) {
	cs, err := c.Store.ListCaptures(ctx, sessionID)
	return cs, c.count("list_captures", err)
}

func (c *countingStore) GetCapture(ctx context.Context, sessionID string, id int64) (store.Capture, error) {
	capture, err := c.Store.GetCapture(ctx, sessionID, id)
	return capture, c.count("get_capture", err)
}

func (c *countingStore) Recover(ctx context.Context, node string, now time.Time, maxAge time.Duration) ([]store.Session, error) {
	ss, err := c.Store.Recover(ctx, node, now, maxAge)
	return ss, c.count("recover", err)
}

func (c *countingStore) AcquireLease(ctx context.Context, sessionID, node string, now time.Time, ttl time.Duration) (bool, error) {
	ok, err := c.Store.AcquireLease(ctx, sessionID, node, now, ttl)
	return ok, c.count("acquire_lease", err)
}

func (c *countingStore) ReleaseLease(ctx context.Context, sessionID, node string) error {
	return c.count("release_lease", c.Store.ReleaseLease(ctx, sessionID, node))
}

func (c *countingStore) Close() error {
	return c.count("close", c.Store.Close())
}

func (c *countingStore) SaveStored(ctx context.Context, s store.StoredSession) error {
	return c.count("save_stored", c.Store.SaveStored(ctx, s))
}

func (c *countingStore) GetStored(ctx context.Context, owner, id string) (store.StoredSession, error) {
	s, err := c.Store.GetStored(ctx, owner, id)
	return s, c.count("get_stored", err)
}

func (c *countingStore) ListStored(ctx context.Context, owner string) ([]store.StoredSession, error) {
	ss, err := c.Store.ListStored(ctx, owner)
	return ss, c.count("list_stored", err)
}

func (c *countingStore) DeleteStored(ctx context.Context, owner, id string) error {
	return c.count("delete_stored", c.Store.DeleteStored(ctx, owner, id))
}

// countingTokenStore is a countingStore of a store that keeps tokens too.
type countingTokenStore struct {
	*countingStore
	tokens auth.Store
}

func (c *countingTokenStore) CreateToken(ctx context.Context, t auth.Token) error {
	return c.count("create_token", c.tokens.CreateToken(ctx, t))
}

func (c *countingTokenStore) TokenByHash(ctx context.Context, hash string) (auth.Token, error) {
	t, err := c.tokens.TokenByHash(ctx, hash)
	return t, c.count("token_by_hash", err)
}

func (c *countingTokenStore) ListTokens(ctx context.Context, owner string) ([]auth.Token, error) {
	ts, err := c.tokens.ListTokens(ctx, owner)
	return ts, c.count("list_tokens", err)
}

func (c *countingTokenStore) RevokeToken(ctx context.Context, id string) error {
	return c.count("revoke_token", c.tokens.RevokeToken(ctx, id))
}

// countingSecrets counts the failures of a store's secrets; the store
// types below that keep secrets embed it.
type countingSecrets struct {
	c       *countingStore
	secrets store.Secrets
}

func (c countingSecrets) SetSecret(ctx context.Context, s store.Secret) error {
	return c.c.count("set_secret", c.secrets.SetSecret(ctx, s))
}

func (c countingSecrets) GetSecret(ctx context.Context, owner, name string) (store.Secret, error) {
	s, err := c.secrets.GetSecret(ctx, owner, name)
	return s, c.c.count("get_secret", err)
}

func (c countingSecrets) ListSecrets(ctx context.Context, owner string) ([]store.Secret, error) {
	ss, err := c.secrets.ListSecrets(ctx, owner)
	return ss, c.c.count("list_secrets", err)
}

func (c countingSecrets) DeleteSecret(ctx context.Context, owner, name string) error {
	return c.c.count("delete_secret", c.secrets.DeleteSecret(ctx, owner, name))
}

// countingSecretStore is a countingStore of a store that keeps secrets.
type countingSecretStore struct {
	*countingStore
	countingSecrets
}

// countingTokenSecretStore is a countingStore of a store that keeps
// tokens and secrets (both backends).
type countingTokenSecretStore struct {
	*countingTokenStore
	countingSecrets
}

var (
	_ store.Store   = (*countingStore)(nil)
	_ store.Store   = (*countingTokenStore)(nil)
	_ auth.Store    = (*countingTokenStore)(nil)
	_ store.Store   = (*countingSecretStore)(nil)
	_ store.Secrets = (*countingSecretStore)(nil)
	_ store.Store   = (*countingTokenSecretStore)(nil)
	_ auth.Store    = (*countingTokenSecretStore)(nil)
	_ store.Secrets = (*countingTokenSecretStore)(nil)
)
