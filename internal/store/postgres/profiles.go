package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/browserd/browserd/internal/store"
)

// SaveProfileState implements store.ProfileStates.
func (s *Store) SaveProfileState(ctx context.Context, owner, name string, plain []byte, taken time.Time) error {
	sealed := s.box.Seal(plain, store.ProfileLabel(owner, name))
	_, err := s.pool.Exec(ctx, `INSERT INTO profiles (owner_id, name, state, created_at, updated_at) VALUES ($1, $2, $3, $4, $4)
ON CONFLICT (owner_id, name) DO UPDATE SET state = $3, updated_at = $4 WHERE profiles.updated_at <= $4 OR profiles.state IS NULL`,
		owner, name, sealed, ms(taken))
	if err != nil {
		return fmt.Errorf("postgres store: saving profile %s/%s's state: %w", owner, name, err)
	}
	return nil
}

// LoadProfileState implements store.ProfileStates.
func (s *Store) LoadProfileState(ctx context.Context, owner, name string) ([]byte, time.Time, error) {
	var (
		sealed []byte
		at     time.Time
	)
	err := s.pool.QueryRow(ctx, `SELECT state, updated_at FROM profiles WHERE owner_id = $1 AND name = $2 AND state IS NOT NULL`, owner, name).Scan(&sealed, &at)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, time.Time{}, fmt.Errorf("%w: no saved state of profile %s/%s", store.ErrNotFound, owner, name)
	}
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("postgres store: reading profile %s/%s's state: %w", owner, name, err)
	}
	plain, err := s.box.Open(sealed, store.ProfileLabel(owner, name))
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("%w: profile %s/%s's saved state: %v", store.ErrCorrupt, owner, name, err)
	}
	return plain, at.UTC(), nil
}

// SetProfileExcludes implements store.ProfileStates.
func (s *Store) SetProfileExcludes(ctx context.Context, owner, name string, domains []string) error {
	if domains == nil {
		domains = []string{}
	}
	_, err := s.pool.Exec(ctx, `INSERT INTO profiles (owner_id, name, exclude_domains, created_at, updated_at) VALUES ($1, $2, $3, $4, 'epoch')
ON CONFLICT (owner_id, name) DO UPDATE SET exclude_domains = $3`, owner, name, domains, ms(time.Now()))
	if err != nil {
		return fmt.Errorf("postgres store: setting profile %s/%s's excluded domains: %w", owner, name, err)
	}
	return nil
}

// ProfileExcludes implements store.ProfileStates.
func (s *Store) ProfileExcludes(ctx context.Context, owner, name string) ([]string, error) {
	var out []string
	err := s.pool.QueryRow(ctx, `SELECT exclude_domains FROM profiles WHERE owner_id = $1 AND name = $2`, owner, name).Scan(&out)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("postgres store: reading profile %s/%s's excluded domains: %w", owner, name, err)
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

// SetProfileLoginCheck implements store.ProfileStates.
func (s *Store) SetProfileLoginCheck(ctx context.Context, owner, name string, c *store.LoginCheck) error {
	sealed, err := store.SealLoginCheck(s.box, owner, name, c)
	if err != nil {
		return err
	}
	_, err = s.pool.Exec(ctx, `INSERT INTO profiles (owner_id, name, login_check, created_at, updated_at) VALUES ($1, $2, $3, $4, 'epoch')
ON CONFLICT (owner_id, name) DO UPDATE SET login_check = $3`, owner, name, sealed, ms(time.Now()))
	if err != nil {
		return fmt.Errorf("postgres store: setting profile %s/%s's login check: %w", owner, name, err)
	}
	return nil
}

// ProfileLoginCheck implements store.ProfileStates.
func (s *Store) ProfileLoginCheck(ctx context.Context, owner, name string) (*store.LoginCheck, error) {
	var sealed []byte
	err := s.pool.QueryRow(ctx, `SELECT login_check FROM profiles WHERE owner_id = $1 AND name = $2`, owner, name).Scan(&sealed)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("postgres store: reading profile %s/%s's login check: %w", owner, name, err)
	}
	return store.OpenLoginCheck(s.box, owner, name, sealed)
}
