package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/browserd/browserd/internal/store"
)

var _ store.Secrets = (*Store)(nil)

// SetSecret implements store.Secrets.
func (s *Store) SetSecret(ctx context.Context, sec store.Secret) error {
	sealed := s.box.Seal([]byte(sec.Value), store.SecretLabel(sec.Owner, sec.Name))
	origins, err := json.Marshal(append([]string{}, sec.Origins...))
	if err != nil {
		return err
	}
	updated := sec.Updated
	if updated.IsZero() {
		updated = time.Now()
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO secrets (owner_id, name, value, origins, updated_at) VALUES (?1, ?2, ?3, ?4, ?5)
ON CONFLICT (owner_id, name) DO UPDATE SET value = ?3, origins = ?4, updated_at = ?5`,
			sec.Owner, sec.Name, sealed, string(origins), millis(updated))
		if err != nil {
			return fmt.Errorf("sqlite store: saving secret %s/%s: %w", sec.Owner, sec.Name, err)
		}
		return nil
	})
}

// scanSecret reads a row of owner_id, name, origins, updated_at (and the
// sealed value into value, when not nil).
func scanSecret(r scanner, value *[]byte) (store.Secret, error) {
	var (
		sec     store.Secret
		origins string
		updated int64
	)
	dest := []any{&sec.Owner, &sec.Name, &origins, &updated}
	if value != nil {
		dest = append(dest, value)
	}
	if err := r.Scan(dest...); err != nil {
		return sec, err
	}
	if err := json.Unmarshal([]byte(origins), &sec.Origins); err != nil {
		return sec, fmt.Errorf("%w: secret %s/%s's origins: %v", store.ErrCorrupt, sec.Owner, sec.Name, err)
	}
	if len(sec.Origins) == 0 {
		sec.Origins = nil
	}
	sec.Updated = fromMillis(updated)
	return sec, nil
}

// GetSecret implements store.Secrets.
func (s *Store) GetSecret(ctx context.Context, owner, name string) (store.Secret, error) {
	var sealed []byte
	sec, err := scanSecret(s.db.QueryRowContext(ctx, `SELECT owner_id, name, origins, updated_at, value FROM secrets WHERE owner_id = ? AND name = ?`, owner, name), &sealed)
	if errors.Is(err, sql.ErrNoRows) {
		return store.Secret{}, fmt.Errorf("%w: no secret %q", store.ErrNotFound, name)
	}
	if err != nil {
		if errors.Is(err, store.ErrCorrupt) {
			return store.Secret{}, err
		}
		return store.Secret{}, fmt.Errorf("sqlite store: reading secret %s/%s: %w", owner, name, err)
	}
	plain, err := s.box.Open(sealed, store.SecretLabel(owner, name))
	if err != nil {
		return store.Secret{}, fmt.Errorf("%w: secret %s/%s: %v", store.ErrCorrupt, owner, name, err)
	}
	sec.Value = string(plain)
	return sec, nil
}

// ListSecrets implements store.Secrets.
func (s *Store) ListSecrets(ctx context.Context, owner string) ([]store.Secret, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT owner_id, name, origins, updated_at FROM secrets WHERE owner_id = ? ORDER BY name`, owner)
	if err != nil {
		return nil, fmt.Errorf("sqlite store: listing %s's secrets: %w", owner, err)
	}
	defer rows.Close()
	var out []store.Secret
	for rows.Next() {
		sec, err := scanSecret(rows, nil)
		if err != nil {
			if errors.Is(err, store.ErrCorrupt) {
				return nil, err
			}
			return nil, fmt.Errorf("sqlite store: listing %s's secrets: %w", owner, err)
		}
		out = append(out, sec)
	}
	return out, rows.Err()
}

// DeleteSecret implements store.Secrets.
func (s *Store) DeleteSecret(ctx context.Context, owner, name string) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		r, err := tx.ExecContext(ctx, `DELETE FROM secrets WHERE owner_id = ? AND name = ?`, owner, name)
		if err != nil {
			return fmt.Errorf("sqlite store: deleting secret %s/%s: %w", owner, name, err)
		}
		if n, _ := r.RowsAffected(); n == 0 {
			return fmt.Errorf("%w: no secret %q", store.ErrNotFound, name)
		}
		return nil
	})
}
