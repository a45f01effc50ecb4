// Package postgres is the store in a PostgreSQL database, for several
// daemons ("nodes") that share their sessions: --db postgres://… (see
// package backend). It keeps what the SQLite store keeps, in the same
// schema versions: captures and stored sessions sealed with the same
// sealkey.Box and payload encoding (store.EncodeCapture), only the listing
// columns in the clear.
//
// It talks to the server through pgx's own interface and pool (pgxpool)
// rather than pgx's database/sql driver: little of the SQLite store's code
// would carry over either way — every query is rewritten for PostgreSQL
// ($1 placeholders, timestamptz, text[], FOR UPDATE SKIP LOCKED), and
// SQLite's one-writer lock and busy loop have no counterpart here — while
// pgx's own interface sends a capture's three statements as one batch,
// one round trip that PostgreSQL runs as one transaction, and takes the
// pool's settings (pool_max_conns, …) from the URL. Needs PostgreSQL 11 or
// later (tested with 15).
//
// # Nodes at once
//
//   - Migrations run in one transaction under an advisory lock
//     (pg_advisory_xact_lock), so nodes that start together apply each step
//     once.
//   - AcquireLease is one INSERT … ON CONFLICT DO UPDATE … WHERE the lease
//     is expired or the node's own: PostgreSQL decides between nodes that
//     race for a session, and exactly one wins.
//   - Recover locks the sessions it changes (FOR UPDATE SKIP LOCKED):
//     nodes that recover at once share the work and never change a session
//     twice. A session whose lease a node is taking at that moment is left
//     to that node: AcquireLease holds a share lock on the session's row.
//
// # Key check
//
// A known text sealed with the key is written on the first open and opened
// on every open: a node given another key than the store's data was sealed
// with refuses to start (store.ErrWrongKey), saying to give every node the
// same --secret-key-file, rather than failing every capture the others
// wrote, or writing captures they cannot read. Unlike SQLite's, the check
// is never replaced on its own, even over a store with nothing sealed yet:
// nodes starting together with different keys are caught at once.
//
// # URL
//
// Open takes a postgres:// or postgresql:// URL, with pgx's parameters
// (sslmode, connect_timeout, pool_max_conns, search_path, …); a password
// is better given in PGPASSWORD or ~/.pgpass than in the URL, which shows
// in the daemon's command line. Messages never show the password.
package postgres

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	neturl "net/url"
	"slices"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/browserd/browserd/internal/sealkey"
	"github.com/browserd/browserd/internal/store"
)

// Store is a store.Store in a PostgreSQL database.
type Store struct {
	pool *pgxpool.Pool
	box  *sealkey.Box
}

var _ store.Store = (*Store)(nil)

// connectTimeout bounds connecting when neither the URL's connect_timeout
// nor the context says how long to wait; maxConns is the pool's size
// unless the URL's pool_max_conns says otherwise (pgx's default, the
// number of CPUs, is few for a daemon whose sessions capture at once).
const (
	connectTimeout = 10 * time.Second
	maxConns       = 16
)

// Open connects to the database at url (postgres://…), brings its schema
// up to date and checks that box has the key the store's data was sealed
// with. box seals captures and stored sessions.
func Open(ctx context.Context, url string, box *sealkey.Box) (*Store, error) {
	if box == nil {
		return nil, errors.New("postgres store: no secret box")
	}
	shown := store.RedactURL(url)
	if !store.IsPostgresURL(url) {
		return nil, fmt.Errorf("postgres store: %s is not a PostgreSQL URL: want postgres://USER@HOST[:PORT]/DATABASE[?sslmode=…]", shown)
	}
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		// pgx's message names the part it cannot read, its password masked.
		return nil, fmt.Errorf("postgres store: cannot read --db %s: %w — want postgres://USER@HOST[:PORT]/DATABASE[?sslmode=…]", shown, err)
	}
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = connectTimeout
	}
	if u, err := neturl.Parse(url); err == nil && !u.Query().Has("pool_max_conns") {
		cfg.MaxConns = maxConns
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres store: %s: %w", shown, err)
	}
	s := &Store{pool: pool, box: box}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, connectError(shown, cfg.ConnConfig, err)
	}
	if err := s.migrate(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres store: %s: %w%s", shown, err, hint(err))
	}
	if err := s.checkKey(ctx); err != nil {
		pool.Close()
		if errors.Is(err, store.ErrWrongKey) {
			return nil, err
		}
		return nil, fmt.Errorf("postgres store: %s: checking the secret key against the store: %w", shown, err)
	}
	if err := s.sealURLs(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres store: %s: %w", shown, err)
	}
	return s, nil
}

// connectError says why connecting failed, and what to do.
func connectError(shown string, cc *pgx.ConnConfig, err error) error {
	where := net.JoinHostPort(cc.Host, fmt.Sprint(cc.Port))
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case "28P01", "28000": // invalid_password, invalid_authorization_specification
			return fmt.Errorf("postgres store: the server at %s refused the login of user %q to database %q: check the user and password (--db, or PGPASSWORD or ~/.pgpass) and the server's pg_hba.conf: %w", where, cc.User, cc.Database, err)
		case "3D000": // invalid_catalog_name
			return fmt.Errorf("postgres store: the server at %s has no database %q: create it (createdb %s) or fix the database in --db: %w", where, cc.Database, cc.Database, err)
		case "53300": // too_many_connections
			return fmt.Errorf("postgres store: the server at %s has no connection to spare: raise its max_connections, or lower pool_max_conns in --db: %w", where, err)
		}
		return fmt.Errorf("postgres store: %s: %w", shown, err)
	}
	var dnsErr *net.DNSError
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("postgres store: connecting to %s: %w", where, err)
	case errors.As(err, &dnsErr):
		return fmt.Errorf("postgres store: cannot find the host %q of --db %s: check the host name: %w", cc.Host, shown, err)
	case errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Errorf("postgres store: nothing accepts connections at %s: is PostgreSQL running there, and are the host and port in --db right? %w", where, err)
	case pgconn.Timeout(err) || isTimeout(err):
		return fmt.Errorf("postgres store: no answer from %s within %s: is the host reachable (firewall, address), and the server up? %w", where, cc.ConnectTimeout, err)
	}
	return fmt.Errorf("postgres store: cannot connect to %s (%s): %w", where, shown, err)
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// hint adds what to do to an error of the schema's set-up.
func hint(err error) string {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return ""
	}
	switch pgErr.Code {
	case "42501": // insufficient_privilege
		return " — the user in --db needs the right to create tables in the database's schema (GRANT CREATE ON SCHEMA … TO …)"
	case "3F000": // invalid_schema_name: search_path names no schema that exists
		return " — create the schema that search_path in --db names, or fix search_path"
	}
	return ""
}

// Close closes the pool's connections.
func (s *Store) Close() error {
	s.pool.Close()
	return nil
}

// checkKey makes sure the store's data was sealed with s.box's key: it
// opens the key check, or writes it when there is none (a new store). The
// check is written with ON CONFLICT DO NOTHING and read back, so that of
// nodes starting together the first one's key is the store's.
func (s *Store) checkKey(ctx context.Context) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var sealed []byte
		err := tx.QueryRow(ctx, `SELECT sealed FROM key_check WHERE id = 1`).Scan(&sealed)
		if errors.Is(err, pgx.ErrNoRows) {
			// A store whose check was deleted by hand may hold data:
			// its newest sealed rows say whether the key is right.
			rows, serr := sampleSealed(ctx, tx)
			if serr != nil {
				return serr
			}
			if !store.AnyOpens(s.box, rows) {
				return s.wrongKey(ctx, tx)
			}
			if _, err := tx.Exec(ctx, `INSERT INTO key_check (id, sealed, created_at) VALUES (1, $1, now()) ON CONFLICT (id) DO NOTHING`, store.SealKeyCheck(s.box)); err != nil {
				return err
			}
			// Ours, or that of a node that wrote it first.
			err = tx.QueryRow(ctx, `SELECT sealed FROM key_check WHERE id = 1`).Scan(&sealed)
		}
		if err != nil {
			return err
		}
		if !store.KeyMatches(s.box, sealed) {
			return s.wrongKey(ctx, tx)
		}
		return nil
	})
}

func (s *Store) wrongKey(ctx context.Context, tx pgx.Tx) error {
	var n int64
	if err := tx.QueryRow(ctx, `SELECT (SELECT count(*) FROM session_snapshots) + (SELECT count(*) FROM stored_sessions)`).Scan(&n); err != nil {
		return err
	}
	return fmt.Errorf("postgres store: %w (captures and stored sessions sealed with it: %d): give every node the same --secret-key-file — a copy of the key file of the nodes already using this store. If that key is lost, so is what it sealed: to start afresh with this key, delete the sealed rows and the key check (DELETE FROM session_snapshots; DELETE FROM stored_sessions; DELETE FROM key_check)", store.ErrWrongKey, n)
}

// sampleSealed returns the newest few captures and stored sessions.
func sampleSealed(ctx context.Context, tx pgx.Tx) ([]store.Sealed, error) {
	var out []store.Sealed
	for _, q := range []struct {
		query string
		label func(string) string
	}{
		{`SELECT session_id, payload FROM session_snapshots ORDER BY id DESC LIMIT 10`, store.CaptureLabel},
		{`SELECT id, payload FROM stored_sessions ORDER BY created_at DESC LIMIT 10`, store.StoredLabel},
	} {
		rows, err := tx.Query(ctx, q.query)
		if err != nil {
			return nil, err
		}
		var (
			id      string
			payload []byte
		)
		_, err = pgx.ForEachRow(rows, []any{&id, &payload}, func() error {
			out = append(out, store.Sealed{Payload: payload, Label: q.label(id)})
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// ms is t as stored: UTC, to the millisecond, as SQLite keeps it.
func ms(t time.Time) time.Time { return t.Truncate(time.Millisecond).UTC() }

// nullTime is t as stored, or NULL for a zero t.
func nullTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return ms(t)
}

// fromNull is a nullable column read back: zero for NULL.
func fromNull(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return t.UTC()
}

// isUnique reports whether err is a unique_violation.
func isUnique(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23505"
}

// retryable reports whether err is a serialization failure or deadlock,
// after which the whole transaction may be tried again.
func retryable(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && (pgErr.Code == "40001" || pgErr.Code == "40P01")
}

// tx runs fn in a transaction, committing if it returns nil; a
// transaction PostgreSQL aborts for a deadlock or serialization failure is
// tried again, up to three times.
func (s *Store) tx(ctx context.Context, fn func(pgx.Tx) error) error {
	var err error
	for range 3 {
		if err = pgx.BeginFunc(ctx, s.pool, fn); !retryable(err) {
			return err
		}
	}
	return err
}

// sessionColumns are a session's listing columns. The URL is read from
// url_sealed; the url column of migration 1 stays empty (see sealURLs).
const sessionColumns = `session_id, owner, profile, state, reason, created_at, updated_at, last_capture_at, tabs, url_sealed`

// scanSession reads a row of sessionColumns, opening its URL with box.
func scanSession(box *sealkey.Box, r pgx.Row) (store.Session, error) {
	var (
		s           store.Session
		state       string
		lastCapture *time.Time
		url         []byte
	)
	if err := r.Scan(&s.ID, &s.Owner, &s.Profile, &state, &s.Reason, &s.CreatedAt, &s.UpdatedAt, &lastCapture, &s.Tabs, &url); err != nil {
		return store.Session{}, err
	}
	s.URL = store.OpenURL(box, s.ID, url)
	s.State = store.SessionState(state)
	s.CreatedAt = s.CreatedAt.UTC()
	s.UpdatedAt = s.UpdatedAt.UTC()
	s.LastCaptureAt = fromNull(lastCapture)
	return s, nil
}

// CreateSession implements store.Store.
func (s *Store) CreateSession(ctx context.Context, sess store.Session) error {
	if sess.ID == "" {
		return errors.New("postgres store: creating a session: empty id")
	}
	now := time.Now()
	if sess.CreatedAt.IsZero() {
		sess.CreatedAt = now
	}
	err := s.tx(ctx, func(tx pgx.Tx) error {
		var state string
		err := tx.QueryRow(ctx, `SELECT state FROM sessions WHERE session_id = $1 FOR UPDATE`, sess.ID).Scan(&state)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
		case err != nil:
			return fmt.Errorf("postgres store: creating session %q: %w", sess.ID, err)
		case state == string(store.Active) || state == string(store.Recoverable):
			return fmt.Errorf("%w: session %q exists and is %s", store.ErrConflict, sess.ID, state)
		default:
			// Closed, stale or failed: replaced, with its captures and lease.
			if _, err := tx.Exec(ctx, `DELETE FROM sessions WHERE session_id = $1`, sess.ID); err != nil {
				return fmt.Errorf("postgres store: replacing %s session %q: %w", state, sess.ID, err)
			}
		}
		_, err = tx.Exec(ctx, `INSERT INTO sessions (session_id, owner, profile, state, reason, created_at, updated_at, last_capture_at, tabs, url, url_sealed)
VALUES ($1, $2, $3, $4, '', $5, $6, NULL, 0, '', NULL)`, sess.ID, sess.Owner, sess.Profile, string(store.Active), ms(sess.CreatedAt), ms(now))
		if isUnique(err) {
			// Another node created it between our look and our insert.
			return fmt.Errorf("%w: session %q exists and is %s", store.ErrConflict, sess.ID, store.Active)
		}
		if err != nil {
			return fmt.Errorf("postgres store: creating session %q: %w", sess.ID, err)
		}
		return nil
	})
	return err
}

// GetSession implements store.Store.
func (s *Store) GetSession(ctx context.Context, id string) (store.Session, error) {
	sess, err := scanSession(s.box, s.pool.QueryRow(ctx, `SELECT `+sessionColumns+` FROM sessions WHERE session_id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return store.Session{}, fmt.Errorf("%w: session %q", store.ErrNotFound, id)
	}
	if err != nil {
		return store.Session{}, fmt.Errorf("postgres store: reading session %q: %w", id, err)
	}
	return sess, nil
}

// ListSessions implements store.Store.
func (s *Store) ListSessions(ctx context.Context, owner string, state store.SessionState) ([]store.Session, error) {
	if state != "" && !state.Valid() {
		return nil, fmt.Errorf("postgres store: listing sessions: unknown state %q", state)
	}
	rows, err := s.pool.Query(ctx, `SELECT `+sessionColumns+` FROM sessions
WHERE ($1 = '' OR owner = $1) AND ($2 = '' OR state = $2)
ORDER BY created_at DESC, session_id COLLATE "C" DESC`, owner, string(state))
	if err != nil {
		return nil, fmt.Errorf("postgres store: listing sessions: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (store.Session, error) { return scanSession(s.box, r) })
	if err != nil {
		return nil, fmt.Errorf("postgres store: listing sessions: %w", err)
	}
	if out == nil {
		out = []store.Session{}
	}
	return out, nil
}

// SetState implements store.Store.
func (s *Store) SetState(ctx context.Context, id string, state store.SessionState, reason string) error {
	if !state.Valid() {
		return fmt.Errorf("postgres store: session %q: unknown state %q", id, state)
	}
	tag, err := s.pool.Exec(ctx, `UPDATE sessions SET state = $1, reason = $2, updated_at = $3 WHERE session_id = $4`,
		string(state), reason, ms(time.Now()), id)
	if err != nil {
		return fmt.Errorf("postgres store: setting session %q %s: %w", id, state, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("%w: session %q", store.ErrNotFound, id)
	}
	return nil
}

// SaveCapture implements store.Store. The capture is written in one round
// trip: a batch, which PostgreSQL runs as one transaction. Its first
// statement locks the session's row, so captures of one session are
// written one after the other.
func (s *Store) SaveCapture(ctx context.Context, c store.Capture, keep int) error {
	keep = max(keep, 1)
	now := time.Now()
	sc, err := store.SealCapture(s.box, c)
	if err != nil {
		return err
	}
	sealed, url := sc.Sealed, sc.URL
	taken := ms(sc.Taken)
	b := &pgx.Batch{}
	// A fenced capture (c.Node) first locks the session's lease row, so
	// that another node's AcquireLease waits for this write, and then
	// writes only while no other node holds the lease.
	b.Queue(`SELECT 1 FROM leases WHERE session_id = $1 FOR SHARE`, c.SessionID)
	// The session's listing follows the newest capture, which this one
	// may not be if captures arrive out of order.
	b.Queue(`UPDATE sessions SET
	tabs            = CASE WHEN last_capture_at IS NULL OR last_capture_at <= $1 THEN $2 ELSE tabs END,
	url_sealed      = CASE WHEN last_capture_at IS NULL OR last_capture_at <= $1 THEN $3::bytea ELSE url_sealed END,
	last_capture_at = CASE WHEN last_capture_at IS NULL OR last_capture_at <= $1 THEN $1 ELSE last_capture_at END,
	updated_at      = $4
WHERE session_id = $5 AND ($6 = '' OR NOT EXISTS (SELECT 1 FROM leases WHERE session_id = $5 AND node <> $6))`,
		taken, len(c.Tabs), url, ms(now), c.SessionID, c.Node)
	b.Queue(`INSERT INTO session_snapshots (session_id, taken_at, payload)
SELECT session_id, $2, $3 FROM sessions WHERE session_id = $1
AND ($4 = '' OR NOT EXISTS (SELECT 1 FROM leases WHERE session_id = $1 AND node <> $4))`, c.SessionID, taken, sealed, c.Node)
	b.Queue(`DELETE FROM session_snapshots WHERE session_id = $1 AND id NOT IN (
	SELECT id FROM session_snapshots WHERE session_id = $1 ORDER BY taken_at DESC, id DESC LIMIT $2)`, c.SessionID, keep)
	var found bool
	err = s.batch(ctx, b, func(br pgx.BatchResults) error {
		if _, err := br.Exec(); err != nil {
			return err
		}
		tag, err := br.Exec()
		if err != nil {
			return err
		}
		found = tag.RowsAffected() > 0
		for range 2 {
			if _, err := br.Exec(); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("postgres store: saving a capture of session %q: %w", c.SessionID, err)
	}
	if !found {
		// Nothing was written: the insert and prune found no session
		// either, or the lease is another node's.
		if c.Node != "" {
			if holder, _, err := s.LeaseHolder(ctx, c.SessionID); err == nil && holder != c.Node {
				return fmt.Errorf("%w: session %q is node %s's, not %s's", store.ErrLeaseLost, c.SessionID, holder, c.Node)
			}
		}
		return fmt.Errorf("%w: session %q", store.ErrNotFound, c.SessionID)
	}
	return nil
}

// batch sends b and reads its results with read; a batch aborted for a
// deadlock or serialization failure is sent again, up to three times.
func (s *Store) batch(ctx context.Context, b *pgx.Batch, read func(pgx.BatchResults) error) error {
	var err error
	for range 3 {
		br := s.pool.SendBatch(ctx, b)
		err = read(br)
		if cerr := br.Close(); err == nil {
			err = cerr
		}
		if !retryable(err) {
			return err
		}
	}
	return err
}

// LatestCapture implements store.Store.
func (s *Store) LatestCapture(ctx context.Context, sessionID string) (store.Capture, error) {
	var (
		taken  time.Time
		sealed []byte
	)
	err := s.pool.QueryRow(ctx, `SELECT taken_at, payload FROM session_snapshots WHERE session_id = $1
ORDER BY taken_at DESC, id DESC LIMIT 1`, sessionID).Scan(&taken, &sealed)
	if errors.Is(err, pgx.ErrNoRows) {
		return store.Capture{}, fmt.Errorf("%w: no capture of session %q", store.ErrNotFound, sessionID)
	}
	if err != nil {
		return store.Capture{}, fmt.Errorf("postgres store: reading the capture of session %q: %w", sessionID, err)
	}
	return store.OpenCapture(s.box, sessionID, taken, sealed)
}

// ListCaptures implements store.Store.
func (s *Store) ListCaptures(ctx context.Context, sessionID string) ([]store.CaptureInfo, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, taken_at, payload FROM session_snapshots WHERE session_id = $1
ORDER BY taken_at DESC, id DESC`, sessionID)
	if err != nil {
		return nil, fmt.Errorf("postgres store: listing the captures of session %q: %w", sessionID, err)
	}
	out := []store.CaptureInfo{}
	var (
		id     int64
		taken  time.Time
		sealed []byte
	)
	_, err = pgx.ForEachRow(rows, []any{&id, &taken, &sealed}, func() error {
		out = append(out, store.DescribeCapture(s.box, sessionID, id, taken, sealed))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("postgres store: listing the captures of session %q: %w", sessionID, err)
	}
	if len(out) == 0 {
		if _, err := s.GetSession(ctx, sessionID); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// GetCapture implements store.Store.
func (s *Store) GetCapture(ctx context.Context, sessionID string, id int64) (store.Capture, error) {
	var (
		taken  time.Time
		sealed []byte
	)
	err := s.pool.QueryRow(ctx, `SELECT taken_at, payload FROM session_snapshots WHERE session_id = $1 AND id = $2`,
		sessionID, id).Scan(&taken, &sealed)
	if errors.Is(err, pgx.ErrNoRows) {
		return store.Capture{}, fmt.Errorf("%w: no capture %d of session %q", store.ErrNotFound, id, sessionID)
	}
	if err != nil {
		return store.Capture{}, fmt.Errorf("postgres store: reading capture %d of session %q: %w", id, sessionID, err)
	}
	return store.OpenCapture(s.box, sessionID, taken, sealed)
}

// Recover implements store.Store. It locks the sessions it looks at (FOR
// UPDATE SKIP LOCKED): a session another node's Recover, or a lease being
// taken, holds at that moment is that node's to deal with.
func (s *Store) Recover(ctx context.Context, node string, now time.Time, maxAge time.Duration) ([]store.Session, error) {
	var changed []store.Session
	err := s.tx(ctx, func(tx pgx.Tx) error {
		changed = nil
		rows, err := tx.Query(ctx, `SELECT s.session_id FROM sessions s
WHERE s.state = 'active' AND NOT EXISTS (
	SELECT 1 FROM leases l WHERE l.session_id = s.session_id AND l.expires_at > $1 AND l.node <> $2)
ORDER BY s.created_at DESC, s.session_id COLLATE "C" DESC
FOR UPDATE OF s SKIP LOCKED`, ms(now), node)
		if err != nil {
			return err
		}
		ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil || len(ids) == 0 {
			return err
		}
		// Leases taken since the query's snapshot (a new statement sees
		// them; those taken from now on wait for our row locks).
		rows, err = tx.Query(ctx, `SELECT session_id FROM leases WHERE session_id = ANY($1) AND expires_at > $2 AND node <> $3`, ids, ms(now), node)
		if err != nil {
			return err
		}
		leased, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return err
		}
		ids = slices.DeleteFunc(ids, func(id string) bool { return slices.Contains(leased, id) })
		if len(ids) == 0 {
			return nil
		}
		rows, err = tx.Query(ctx, `SELECT session_id, max(taken_at) FROM session_snapshots WHERE session_id = ANY($1) GROUP BY session_id`, ids)
		if err != nil {
			return err
		}
		last := map[string]time.Time{}
		var (
			id    string
			taken time.Time
		)
		if _, err := pgx.ForEachRow(rows, []any{&id, &taken}, func() error {
			last[id] = taken.UTC()
			return nil
		}); err != nil {
			return err
		}
		states, reasons := make([]string, len(ids)), make([]string, len(ids))
		for i, id := range ids {
			st, reason := store.RecoverState(last[id], now, maxAge)
			states[i], reasons[i] = string(st), reason
		}
		rows, err = tx.Query(ctx, `UPDATE sessions s SET state = u.state, reason = u.reason, updated_at = $4
FROM unnest($1::text[], $2::text[], $3::text[]) AS u(id, state, reason)
WHERE s.session_id = u.id
RETURNING s.session_id, s.owner, s.profile, s.state, s.reason, s.created_at, s.updated_at, s.last_capture_at, s.tabs, s.url_sealed`,
			ids, states, reasons, ms(now))
		if err != nil {
			return err
		}
		updated, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (store.Session, error) { return scanSession(s.box, r) })
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM leases WHERE session_id = ANY($1)`, ids); err != nil {
			return err
		}
		// In the order of the listing: newest first.
		byID := map[string]store.Session{}
		for _, u := range updated {
			byID[u.ID] = u
		}
		for _, id := range ids {
			if u, ok := byID[id]; ok {
				changed = append(changed, u)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("postgres store: recovering sessions: %w", err)
	}
	return changed, nil
}

// AcquireLease implements store.Store: one statement, which takes a share
// lock on the session's row (keeping a concurrent Recover off it) and
// inserts the lease, or takes it over when it is expired or node's own.
// Of nodes racing for a free session, PostgreSQL lets one insert and
// makes the others see its lease.
func (s *Store) AcquireLease(ctx context.Context, sessionID, node string, now time.Time, ttl time.Duration) (bool, error) {
	if node == "" {
		return false, fmt.Errorf("postgres store: lease of session %q: empty node", sessionID)
	}
	if ttl <= 0 {
		return false, fmt.Errorf("postgres store: lease of session %q: ttl %s is not positive", sessionID, ttl)
	}
	var found, ok bool
	err := s.pool.QueryRow(ctx, `WITH s AS (
	SELECT session_id FROM sessions WHERE session_id = $1 FOR KEY SHARE
), l AS (
	INSERT INTO leases (session_id, node, expires_at) SELECT session_id, $2, $3 FROM s
	ON CONFLICT (session_id) DO UPDATE SET node = excluded.node, expires_at = excluded.expires_at
	WHERE leases.node = excluded.node OR leases.expires_at <= $4
	RETURNING 1
)
SELECT EXISTS (SELECT 1 FROM s), EXISTS (SELECT 1 FROM l)`, sessionID, node, ms(now.Add(ttl)), ms(now)).Scan(&found, &ok)
	if err != nil {
		return false, fmt.Errorf("postgres store: lease of session %q: %w", sessionID, err)
	}
	if !found {
		return false, fmt.Errorf("%w: session %q", store.ErrNotFound, sessionID)
	}
	return ok, nil
}

// ReleaseLease implements store.Store.
func (s *Store) ReleaseLease(ctx context.Context, sessionID, node string) error {
	if _, err := s.pool.Exec(ctx, `DELETE FROM leases WHERE session_id = $1 AND node = $2`, sessionID, node); err != nil {
		return fmt.Errorf("postgres store: releasing the lease of session %q: %w", sessionID, err)
	}
	return nil
}

// CorruptLatest overwrites the payload of the session's newest capture
// with random bytes, for tests of what a damaged capture does (see
// storetest.Corrupter).
func (s *Store) CorruptLatest(ctx context.Context, sessionID string) error {
	garbage := make([]byte, 64)
	rand.Read(garbage)
	tag, err := s.pool.Exec(ctx, `UPDATE session_snapshots SET payload = $1 WHERE id = (
	SELECT id FROM session_snapshots WHERE session_id = $2 ORDER BY taken_at DESC, id DESC LIMIT 1)`, garbage, sessionID)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("%w: no capture of session %q", store.ErrNotFound, sessionID)
	}
	return nil
}

// CountCaptures returns how many captures of the session are kept (see
// storetest.Counter).
func (s *Store) CountCaptures(ctx context.Context, sessionID string) (int, error) {
	var n int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM session_snapshots WHERE session_id = $1`, sessionID).Scan(&n); err != nil {
		return 0, fmt.Errorf("postgres store: counting the captures of session %q: %w", sessionID, err)
	}
	return n, nil
}
