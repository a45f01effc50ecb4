package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/browserd/browserd/internal/auth"
	"github.com/browserd/browserd/internal/store"
)

var (
	_ store.StoredSessions = (*Store)(nil)
	_ auth.Store           = (*Store)(nil)
)

func nullMillis(t time.Time) sql.NullInt64 {
	if t.IsZero() {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: millis(t), Valid: true}
}

func fromNull(n sql.NullInt64) time.Time {
	if !n.Valid {
		return time.Time{}
	}
	return fromMillis(n.Int64)
}

// SaveStored implements store.StoredSessions.
func (s *Store) SaveStored(ctx context.Context, ss store.StoredSession) error {
	sealed, err := store.SealStored(s.box, &ss)
	if err != nil {
		return err
	}
	domains, _ := json.Marshal(append([]string{}, ss.Domains...))
	return s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO stored_sessions (id, owner, name, domains, cookies, auth_expiry, expires_at, created_at, payload)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, ss.ID, ss.Owner, ss.Name, string(domains), ss.Cookies,
			nullMillis(ss.AuthExpiry), nullMillis(ss.ExpiresAt), millis(ss.Created), sealed)
		if err != nil {
			return fmt.Errorf("sqlite store: saving stored session %q: %w", ss.ID, err)
		}
		return nil
	})
}

const storedColumns = `id, owner, name, domains, cookies, auth_expiry, expires_at, created_at`

func scanStored(r scanner, payload *[]byte) (store.StoredSession, error) {
	var (
		ss            store.StoredSession
		domains       string
		auth, expires sql.NullInt64
		created       int64
	)
	dest := []any{&ss.ID, &ss.Owner, &ss.Name, &domains, &ss.Cookies, &auth, &expires, &created}
	if payload != nil {
		dest = append(dest, payload)
	}
	if err := r.Scan(dest...); err != nil {
		return ss, err
	}
	_ = json.Unmarshal([]byte(domains), &ss.Domains)
	ss.AuthExpiry, ss.ExpiresAt, ss.Created = fromNull(auth), fromNull(expires), fromMillis(created)
	return ss, nil
}

// GetStored implements store.StoredSessions.
func (s *Store) GetStored(ctx context.Context, owner, id string) (store.StoredSession, error) {
	var sealed []byte
	ss, err := scanStored(s.db.QueryRowContext(ctx, `SELECT `+storedColumns+`, payload FROM stored_sessions WHERE id = ? AND owner = ?`, id, owner), &sealed)
	if errors.Is(err, sql.ErrNoRows) {
		return ss, fmt.Errorf("%w: no stored session %q", store.ErrNotFound, id)
	}
	if err != nil {
		return ss, fmt.Errorf("sqlite store: reading stored session %q: %w", id, err)
	}
	ss.State, err = store.OpenStored(s.box, id, sealed)
	return ss, err
}

// ListStored implements store.StoredSessions.
func (s *Store) ListStored(ctx context.Context, owner string) ([]store.StoredSession, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+storedColumns+` FROM stored_sessions WHERE owner = ? ORDER BY created_at DESC, id`, owner)
	if err != nil {
		return nil, fmt.Errorf("sqlite store: listing stored sessions: %w", err)
	}
	defer rows.Close()
	var out []store.StoredSession
	for rows.Next() {
		ss, err := scanStored(rows, nil)
		if err != nil {
			return nil, fmt.Errorf("sqlite store: listing stored sessions: %w", err)
		}
		out = append(out, ss)
	}
	return out, rows.Err()
}

// DeleteStored implements store.StoredSessions.
func (s *Store) DeleteStored(ctx context.Context, owner, id string) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		r, err := tx.ExecContext(ctx, `DELETE FROM stored_sessions WHERE id = ? AND owner = ?`, id, owner)
		if err != nil {
			return fmt.Errorf("sqlite store: deleting stored session %q: %w", id, err)
		}
		if n, _ := r.RowsAffected(); n == 0 {
			return fmt.Errorf("%w: no stored session %q", store.ErrNotFound, id)
		}
		return nil
	})
}

// CreateToken implements auth.Store.
func (s *Store) CreateToken(ctx context.Context, t auth.Token) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO api_tokens (token_id, token_hash, owner, label, created_at, policy) VALUES (?, ?, ?, ?, ?, ?)`,
			t.ID, t.Hash, t.Owner, t.Label, millis(t.Created), t.Policy.JSON())
		return err
	})
}

// TokenByHash implements auth.Store.
func (s *Store) TokenByHash(ctx context.Context, hash string) (auth.Token, error) {
	var (
		t       auth.Token
		created int64
		pol     string
	)
	err := s.db.QueryRowContext(ctx, `SELECT token_id, owner, label, created_at, token_hash, policy FROM api_tokens WHERE token_hash = ?`, hash).
		Scan(&t.ID, &t.Owner, &t.Label, &created, &t.Hash, &pol)
	if errors.Is(err, sql.ErrNoRows) {
		return t, auth.ErrUnknown
	}
	if err != nil {
		return t, fmt.Errorf("sqlite store: reading tokens: %w", err)
	}
	t.Created = fromMillis(created)
	if t.Policy, err = store.TokenPolicy(t.ID, pol); err != nil {
		return auth.Token{}, err
	}
	return t, nil
}

// ListTokens implements auth.Store.
func (s *Store) ListTokens(ctx context.Context, owner string) ([]auth.Token, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT token_id, owner, label, created_at, policy FROM api_tokens WHERE ? = '' OR owner = ? ORDER BY created_at, token_id`, owner, owner)
	if err != nil {
		return nil, fmt.Errorf("sqlite store: listing tokens: %w", err)
	}
	defer rows.Close()
	var out []auth.Token
	for rows.Next() {
		var (
			t       auth.Token
			created int64
			pol     string
		)
		if err := rows.Scan(&t.ID, &t.Owner, &t.Label, &created, &pol); err != nil {
			return nil, err
		}
		t.Created = fromMillis(created)
		if t.Policy, err = store.TokenPolicy(t.ID, pol); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// RevokeToken implements auth.Store.
func (s *Store) RevokeToken(ctx context.Context, id string) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		r, err := tx.ExecContext(ctx, `DELETE FROM api_tokens WHERE token_id = ?`, id)
		if err != nil {
			return fmt.Errorf("sqlite store: revoking token %q: %w", id, err)
		}
		if n, _ := r.RowsAffected(); n == 0 {
			return fmt.Errorf("%w %q", auth.ErrUnknown, id)
		}
		return nil
	})
}
