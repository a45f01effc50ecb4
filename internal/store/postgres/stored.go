package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/browserd/browserd/internal/auth"
	"github.com/browserd/browserd/internal/store"
)

var (
	_ store.StoredSessions = (*Store)(nil)
	_ auth.Store           = (*Store)(nil)
)

// SaveStored implements store.StoredSessions.
func (s *Store) SaveStored(ctx context.Context, ss store.StoredSession) error {
	sealed, err := store.SealStored(s.box, &ss)
	if err != nil {
		return err
	}
	_, err = s.pool.Exec(ctx, `INSERT INTO stored_sessions (id, owner, name, domains, cookies, auth_expiry, expires_at, created_at, payload)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`, ss.ID, ss.Owner, ss.Name, append([]string{}, ss.Domains...), ss.Cookies,
		nullTime(ss.AuthExpiry), nullTime(ss.ExpiresAt), ms(ss.Created), sealed)
	if isUnique(err) {
		return fmt.Errorf("postgres store: saving stored session %q: the id is taken", ss.ID)
	}
	if err != nil {
		return fmt.Errorf("postgres store: saving stored session %q: %w", ss.ID, err)
	}
	return nil
}

const storedColumns = `id, owner, name, domains, cookies, auth_expiry, expires_at, created_at`

func scanStored(r pgx.Row, payload *[]byte) (store.StoredSession, error) {
	var (
		ss            store.StoredSession
		auth, expires *time.Time
	)
	dest := []any{&ss.ID, &ss.Owner, &ss.Name, &ss.Domains, &ss.Cookies, &auth, &expires, &ss.Created}
	if payload != nil {
		dest = append(dest, payload)
	}
	if err := r.Scan(dest...); err != nil {
		return ss, err
	}
	if len(ss.Domains) == 0 {
		ss.Domains = nil
	}
	ss.AuthExpiry, ss.ExpiresAt, ss.Created = fromNull(auth), fromNull(expires), ss.Created.UTC()
	return ss, nil
}

// GetStored implements store.StoredSessions.
func (s *Store) GetStored(ctx context.Context, owner, id string) (store.StoredSession, error) {
	var sealed []byte
	ss, err := scanStored(s.pool.QueryRow(ctx, `SELECT `+storedColumns+`, payload FROM stored_sessions WHERE id = $1 AND owner = $2`, id, owner), &sealed)
	if errors.Is(err, pgx.ErrNoRows) {
		return ss, fmt.Errorf("%w: no stored session %q", store.ErrNotFound, id)
	}
	if err != nil {
		return ss, fmt.Errorf("postgres store: reading stored session %q: %w", id, err)
	}
	ss.State, err = store.OpenStored(s.box, id, sealed)
	return ss, err
}

// ListStored implements store.StoredSessions.
func (s *Store) ListStored(ctx context.Context, owner string) ([]store.StoredSession, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+storedColumns+` FROM stored_sessions WHERE owner = $1 ORDER BY created_at DESC, id COLLATE "C"`, owner)
	if err != nil {
		return nil, fmt.Errorf("postgres store: listing stored sessions: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (store.StoredSession, error) { return scanStored(r, nil) })
	if err != nil {
		return nil, fmt.Errorf("postgres store: listing stored sessions: %w", err)
	}
	return out, nil
}

// DeleteStored implements store.StoredSessions.
func (s *Store) DeleteStored(ctx context.Context, owner, id string) error {
	tag, err := s.pool.Exec(ctx, `DELETE FROM stored_sessions WHERE id = $1 AND owner = $2`, id, owner)
	if err != nil {
		return fmt.Errorf("postgres store: deleting stored session %q: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("%w: no stored session %q", store.ErrNotFound, id)
	}
	return nil
}

// CreateToken implements auth.Store.
func (s *Store) CreateToken(ctx context.Context, t auth.Token) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO api_tokens (token_id, token_hash, owner, label, created_at, policy) VALUES ($1, $2, $3, $4, $5, $6)`,
		t.ID, t.Hash, t.Owner, t.Label, ms(t.Created), t.Policy.JSON())
	if err != nil {
		return fmt.Errorf("postgres store: saving token %q: %w", t.ID, err)
	}
	return nil
}

// TokenByHash implements auth.Store.
func (s *Store) TokenByHash(ctx context.Context, hash string) (auth.Token, error) {
	var (
		t   auth.Token
		pol string
	)
	err := s.pool.QueryRow(ctx, `SELECT token_id, owner, label, created_at, token_hash, policy FROM api_tokens WHERE token_hash = $1`, hash).
		Scan(&t.ID, &t.Owner, &t.Label, &t.Created, &t.Hash, &pol)
	if errors.Is(err, pgx.ErrNoRows) {
		return t, auth.ErrUnknown
	}
	if err != nil {
		return t, fmt.Errorf("postgres store: reading tokens: %w", err)
	}
	t.Created = t.Created.UTC()
	if t.Policy, err = store.TokenPolicy(t.ID, pol); err != nil {
		return auth.Token{}, err
	}
	return t, nil
}

// ListTokens implements auth.Store.
func (s *Store) ListTokens(ctx context.Context, owner string) ([]auth.Token, error) {
	rows, err := s.pool.Query(ctx, `SELECT token_id, owner, label, created_at, policy FROM api_tokens WHERE $1 = '' OR owner = $1 ORDER BY created_at, token_id COLLATE "C"`, owner)
	if err != nil {
		return nil, fmt.Errorf("postgres store: listing tokens: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (auth.Token, error) {
		var (
			t   auth.Token
			pol string
		)
		if err := r.Scan(&t.ID, &t.Owner, &t.Label, &t.Created, &pol); err != nil {
			return t, err
		}
		t.Created = t.Created.UTC()
		var err error
		t.Policy, err = store.TokenPolicy(t.ID, pol)
		return t, err
	})
	if err != nil {
		return nil, fmt.Errorf("postgres store: listing tokens: %w", err)
	}
	return out, nil
}

// RevokeToken implements auth.Store.
func (s *Store) RevokeToken(ctx context.Context, id string) error {
	tag, err := s.pool.Exec(ctx, `DELETE FROM api_tokens WHERE token_id = $1`, id)
	if err != nil {
		return fmt.Errorf("postgres store: revoking token %q: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("%w %q", auth.ErrUnknown, id)
	}
	return nil
}
