package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/browserd/browserd/internal/store"
)

// Heartbeat implements store.Nodes.
func (s *Store) Heartbeat(ctx context.Context, n store.Node, fresh time.Duration) error {
	if n.ID == "" || n.Instance == "" {
		return fmt.Errorf("sqlite store: heartbeat without a node id or instance")
	}
	beat := n.Heartbeat
	if beat.IsZero() {
		beat = time.Now()
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		var (
			instance string
			last     int64
		)
		err := tx.QueryRowContext(ctx, `SELECT instance, heartbeat_at FROM nodes WHERE node_id = ?`, n.ID).Scan(&instance, &last)
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return fmt.Errorf("sqlite store: heartbeat of node %s: %w", n.ID, err)
		case instance != n.Instance && beat.Sub(fromMillis(last)) < fresh:
			return fmt.Errorf("%w: node %s heartbeat %s ago from another daemon", store.ErrNodeInUse, n.ID, beat.Sub(fromMillis(last)).Round(time.Millisecond))
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO nodes (node_id, url, instance, version, started_at, heartbeat_at, sessions, tabs, chromium_bytes)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
ON CONFLICT (node_id) DO UPDATE SET url = ?2, instance = ?3, version = ?4, started_at = ?5, heartbeat_at = ?6,
	sessions = ?7, tabs = ?8, chromium_bytes = ?9`,
			n.ID, n.URL, n.Instance, n.Version, millis(n.StartedAt), millis(beat), n.Sessions, n.Tabs, n.ChromiumBytes)
		if err != nil {
			return fmt.Errorf("sqlite store: heartbeat of node %s: %w", n.ID, err)
		}
		return nil
	})
}

// ListNodes implements store.Nodes.
func (s *Store) ListNodes(ctx context.Context) ([]store.Node, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT node_id, url, instance, version, started_at, heartbeat_at, sessions, tabs, chromium_bytes
FROM nodes ORDER BY node_id`)
	if err != nil {
		return nil, fmt.Errorf("sqlite store: listing nodes: %w", err)
	}
	defer rows.Close()
	out := []store.Node{}
	for rows.Next() {
		var (
			n             store.Node
			started, beat int64
		)
		if err := rows.Scan(&n.ID, &n.URL, &n.Instance, &n.Version, &started, &beat, &n.Sessions, &n.Tabs, &n.ChromiumBytes); err != nil {
			return nil, fmt.Errorf("sqlite store: listing nodes: %w", err)
		}
		n.StartedAt, n.Heartbeat = fromMillis(started), fromMillis(beat)
		out = append(out, n)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite store: listing nodes: %w", err)
	}
	return out, nil
}

// RemoveNode implements store.Nodes.
func (s *Store) RemoveNode(ctx context.Context, id, instance string) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM nodes WHERE node_id = ? AND instance = ?`, id, instance); err != nil {
			return fmt.Errorf("sqlite store: removing node %s: %w", id, err)
		}
		return nil
	})
}

// LeaseHolder implements store.Nodes.
func (s *Store) LeaseHolder(ctx context.Context, sessionID string) (string, time.Time, error) {
	var (
		node    string
		expires int64
	)
	err := s.db.QueryRowContext(ctx, `SELECT node, expires_at FROM leases WHERE session_id = ?`, sessionID).Scan(&node, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		return "", time.Time{}, fmt.Errorf("%w: no lease of session %q", store.ErrNotFound, sessionID)
	}
	if err != nil {
		return "", time.Time{}, fmt.Errorf("sqlite store: reading the lease of session %q: %w", sessionID, err)
	}
	return node, fromMillis(expires), nil
}

// Orphans implements store.Nodes.
func (s *Store) Orphans(ctx context.Context, now time.Time) ([]store.Session, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+sessionColumns+` FROM sessions s
WHERE s.state = 'active' AND s.last_capture_at IS NOT NULL
AND NOT EXISTS (SELECT 1 FROM leases l WHERE l.session_id = s.session_id AND l.expires_at > ?)
ORDER BY s.created_at, s.session_id`, millis(now))
	if err != nil {
		return nil, fmt.Errorf("sqlite store: listing orphaned sessions: %w", err)
	}
	defer rows.Close()
	out := []store.Session{}
	for rows.Next() {
		sess, err := scanSession(s.box, rows)
		if err != nil {
			return nil, fmt.Errorf("sqlite store: listing orphaned sessions: %w", err)
		}
		out = append(out, sess)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite store: listing orphaned sessions: %w", err)
	}
	return out, nil
}
