package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/browserd/browserd/internal/store"
)

var _ store.Secrets = (*Store)(nil)

// SetSecret implements store.Secrets.
func (s *Store) SetSecret(ctx context.Context, sec store.Secret) error {
	sealed := s.box.Seal([]byte(sec.Value), store.SecretLabel(sec.Owner, sec.Name))
	updated := sec.Updated
	if updated.IsZero() {
		updated = time.Now()
	}
	_, err := s.pool.Exec(ctx, `INSERT INTO secrets (owner_id, name, value, origins, updated_at) VALUES ($1, $2, $3, $4, $5)
ON CONFLICT (owner_id, name) DO UPDATE SET value = $3, origins = $4, updated_at = $5`,
		sec.Owner, sec.Name, sealed, append([]string{}, sec.Origins...), ms(updated))
	if err != nil {
		return fmt.Errorf("postgres store: saving secret %s/%s: %w", sec.Owner, sec.Name, err)
	}
	return nil
}

// scanSecret reads a row of owner_id, name, origins, updated_at (and the
// sealed value into value, when not nil).
func scanSecret(r pgx.Row, value *[]byte) (store.Secret, error) {
	var sec store.Secret
	dest := []any{&sec.Owner, &sec.Name, &sec.Origins, &sec.Updated}
	if value != nil {
		dest = append(dest, value)
	}
	if err := r.Scan(dest...); err != nil {
		return sec, err
	}
	if len(sec.Origins) == 0 {
		sec.Origins = nil
	}
	sec.Updated = sec.Updated.UTC()
	return sec, nil
}

// GetSecret implements store.Secrets.
func (s *Store) GetSecret(ctx context.Context, owner, name string) (store.Secret, error) {
	var sealed []byte
	sec, err := scanSecret(s.pool.QueryRow(ctx, `SELECT owner_id, name, origins, updated_at, value FROM secrets WHERE owner_id = $1 AND name = $2`, owner, name), &sealed)
	if errors.Is(err, pgx.ErrNoRows) {
		return store.Secret{}, fmt.Errorf("%w: no secret %q", store.ErrNotFound, name)
	}
	if err != nil {
		return store.Secret{}, fmt.Errorf("postgres store: reading secret %s/%s: %w", owner, name, err)
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
	rows, err := s.pool.Query(ctx, `SELECT owner_id, name, origins, updated_at FROM secrets WHERE owner_id = $1 ORDER BY name COLLATE "C"`, owner)
	if err != nil {
		return nil, fmt.Errorf("postgres store: listing %s's secrets: %w", owner, err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (store.Secret, error) { return scanSecret(r, nil) })
	if err != nil {
		return nil, fmt.Errorf("postgres store: listing %s's secrets: %w", owner, err)
	}
	return out, nil
}

// DeleteSecret implements store.Secrets.
func (s *Store) DeleteSecret(ctx context.Context, owner, name string) error {
	tag, err := s.pool.Exec(ctx, `DELETE FROM secrets WHERE owner_id = $1 AND name = $2`, owner, name)
	if err != nil {
		return fmt.Errorf("postgres store: deleting secret %s/%s: %w", owner, name, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("%w: no secret %q", store.ErrNotFound, name)
	}
	return nil
}
