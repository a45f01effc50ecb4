package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/browserd/browserd/internal/store"
)

// Heartbeat implements store.Nodes: one transaction that locks the node's
// row, so two daemons starting under one id cannot both pass the check.
func (s *Store) Heartbeat(ctx context.Context, n store.Node, fresh time.Duration) error {
	if n.ID == "" || n.Instance == "" {
		return fmt.Errorf("postgres store: heartbeat without a node id or instance")
	}
	beat := n.Heartbeat
	if beat.IsZero() {
		beat = time.Now()
	}
	return s.tx(ctx, func(tx pgx.Tx) error {
		var (
			instance string
			last     time.Time
		)
		err := tx.QueryRow(ctx, `SELECT instance, heartbeat_at FROM nodes WHERE node_id = $1 FOR UPDATE`, n.ID).Scan(&instance, &last)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
		case err != nil:
			return fmt.Errorf("postgres store: heartbeat of node %s: %w", n.ID, err)
		case instance != n.Instance && beat.Sub(last) < fresh:
			return fmt.Errorf("%w: node %s heartbeat %s ago from another daemon", store.ErrNodeInUse, n.ID, beat.Sub(last).Round(time.Millisecond))
		}
		_, err = tx.Exec(ctx, `INSERT INTO nodes (node_id, url, instance, version, started_at, heartbeat_at, sessions, tabs, chromium_bytes)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
ON CONFLICT (node_id) DO UPDATE SET url = $2, instance = $3, version = $4, started_at = $5, heartbeat_at = $6,
	sessions = $7, tabs = $8, chromium_bytes = $9`,
			n.ID, n.URL, n.Instance, n.Version, ms(n.StartedAt), ms(beat), n.Sessions, n.Tabs, n.ChromiumBytes)
		if err != nil {
			return fmt.Errorf("postgres store: heartbeat of node %s: %w", n.ID, err)
		}
		return nil
	})
}

// ListNodes implements store.Nodes.
func (s *Store) ListNodes(ctx context.Context) ([]store.Node, error) {
	rows, err := s.pool.Query(ctx, `SELECT node_id, url, instance, version, started_at, heartbeat_at, sessions, tabs, chromium_bytes
FROM nodes ORDER BY node_id COLLATE "C"`)
	if err != nil {
		return nil, fmt.Errorf("postgres store: listing nodes: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (store.Node, error) {
		var n store.Node
		err := r.Scan(&n.ID, &n.URL, &n.Instance, &n.Version, &n.StartedAt, &n.Heartbeat, &n.Sessions, &n.Tabs, &n.ChromiumBytes)
		n.StartedAt, n.Heartbeat = n.StartedAt.UTC(), n.Heartbeat.UTC()
		return n, err
	})
	if err != nil {
		return nil, fmt.Errorf("postgres store: listing nodes: %w", err)
	}
	if out == nil {
		out = []store.Node{}
	}
	return out, nil
}

// RemoveNode implements store.Nodes.
func (s *Store) RemoveNode(ctx context.Context, id, instance string) error {
	if _, err := s.pool.Exec(ctx, `DELETE FROM nodes WHERE node_id = $1 AND instance = $2`, id, instance); err != nil {
		return fmt.Errorf("postgres store: removing node %s: %w", id, err)
	}
	return nil
}

// LeaseHolder implements store.Nodes.
func (s *Store) LeaseHolder(ctx context.Context, sessionID string) (string, time.Time, error) {
	var (
		node    string
		expires time.Time
	)
	err := s.pool.QueryRow(ctx, `SELECT node, expires_at FROM leases WHERE session_id = $1`, sessionID).Scan(&node, &expires)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", time.Time{}, fmt.Errorf("%w: no lease of session %q", store.ErrNotFound, sessionID)
	}
	if err != nil {
		return "", time.Time{}, fmt.Errorf("postgres store: reading the lease of session %q: %w", sessionID, err)
	}
	return node, expires.UTC(), nil
}

// Orphans implements store.Nodes.
func (s *Store) Orphans(ctx context.Context, now time.Time) ([]store.Session, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+sessionColumns+` FROM sessions s
WHERE s.state = 'active' AND s.last_capture_at IS NOT NULL
AND NOT EXISTS (SELECT 1 FROM leases l WHERE l.session_id = s.session_id AND l.expires_at > $1)
ORDER BY s.created_at, s.session_id COLLATE "C"`, ms(now))
	if err != nil {
		return nil, fmt.Errorf("postgres store: listing orphaned sessions: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (store.Session, error) { return scanSession(s.box, r) })
	if err != nil {
		return nil, fmt.Errorf("postgres store: listing orphaned sessions: %w", err)
	}
	if out == nil {
		out = []store.Session{}
	}
	return out, nil
}
