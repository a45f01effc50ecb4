// Package sqlite is the store in one SQLite file (<data>/browserd.db by
// default), through the pure-Go modernc.org/sqlite driver: WAL journal,
// immediate write transactions, schema migrations in code. Capture
// payloads and the sessions' listing URLs are sealed with a sealkey.Box;
// the other listing columns stay in the clear.
//
// A key check — a known text sealed with the key, written on the first
// open — makes Open refuse a key other than the one the store's data was
// sealed with (store.ErrWrongKey), instead of failing every capture it
// reads later. A store that holds nothing sealed yet (no capture, no stored
// session) takes the new key: nothing is lost, as when the engine makes a
// new key over a data folder with nothing sealed in it. A store made before
// the check is checked against its newest sealed rows on its first open.
package sqlite

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	msqlite "modernc.org/sqlite" // the "sqlite" database/sql driver
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/browserd/browserd/internal/sealkey"
	"github.com/browserd/browserd/internal/store"
)

// Store is a store.Store in a SQLite file.
type Store struct {
	db  *sql.DB
	box *sealkey.Box
	// wmu admits one writer of this process at a time, waiting in Go where
	// a cancelled context is noticed at once; SQLite's busy timeout then
	// only covers writers of other processes.
	wmu chan struct{}
}

var _ store.Store = (*Store)(nil)

// Open opens (creating it, mode 0600, with its folder) the database at
// path, brings its schema up to date and checks that box has the key the
// store's data was sealed with (store.ErrWrongKey if not). box seals the
// captures and stored sessions.
func Open(path string, box *sealkey.Box) (*Store, error) {
	if box == nil {
		return nil, errors.New("sqlite store: no secret box")
	}
	if store.IsPostgresURL(path) {
		return nil, fmt.Errorf("sqlite store: %s is a PostgreSQL URL, not a file: open it with package store/backend", store.RedactURL(path))
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("sqlite store: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("sqlite store: %w", err)
	}
	f.Close()
	// SQLite gives the -wal and -shm files the main file's mode.
	if err := os.Chmod(path, 0o600); err != nil {
		return nil, fmt.Errorf("sqlite store: %w", err)
	}
	db, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		return nil, fmt.Errorf("sqlite store: opening %s: %w", path, err)
	}
	db.SetMaxOpenConns(16)
	db.SetMaxIdleConns(16)
	db.SetConnMaxIdleTime(5 * time.Minute)
	s := &Store{db: db, box: box, wmu: make(chan struct{}, 1)}
	if err := s.migrate(context.Background()); err != nil {
		db.Close()
		if strings.Contains(err.Error(), "file is not a database") {
			return nil, fmt.Errorf("sqlite store: %s is not a SQLite database (damaged, or another file): browserd left it as it is — move it aside to start with an empty store, or point --db at the right file: %w", path, err)
		}
		return nil, fmt.Errorf("sqlite store: %s: %w", path, err)
	}
	if err := s.checkKey(context.Background(), path); err != nil {
		db.Close()
		return nil, err
	}
	if err := s.sealURLs(context.Background(), path); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// checkKey makes sure the store's data was sealed with s.box's key: it
// opens the key check, or writes it on the first open. See the package
// documentation.
func (s *Store) checkKey(ctx context.Context, path string) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		var sealed []byte
		err := tx.QueryRowContext(ctx, `SELECT sealed FROM key_check WHERE id = 1`).Scan(&sealed)
		switch {
		case err == nil && store.KeyMatches(s.box, sealed):
			return nil
		case err == nil:
			// Another key's check: refused unless nothing is sealed yet.
			n, err := countSealed(ctx, tx)
			if err != nil {
				return err
			}
			if n > 0 {
				return wrongKey(path, n)
			}
		case errors.Is(err, sql.ErrNoRows):
			// A new store, or one made before the key check: its newest
			// sealed rows say whether the key is right.
			rows, err := sampleSealed(ctx, tx)
			if err != nil {
				return err
			}
			if !store.AnyOpens(s.box, rows) {
				n, err := countSealed(ctx, tx)
				if err != nil {
					return err
				}
				return wrongKey(path, n)
			}
		default:
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO key_check (id, sealed, created_at) VALUES (1, ?, ?)
ON CONFLICT (id) DO UPDATE SET sealed = excluded.sealed, created_at = excluded.created_at`, store.SealKeyCheck(s.box), millis(time.Now()))
		return err
	})
	if err != nil && !errors.Is(err, store.ErrWrongKey) {
		return fmt.Errorf("sqlite store: %s: checking the secret key against the store: %w", path, err)
	}
	return err
}

func wrongKey(path string, sealed int) error {
	return fmt.Errorf("sqlite store: %s: %w (captures and stored sessions that do not open with the key given: %d) — point --secret-key-file at the key the store was made with (every daemon sharing the store needs that same key); to start afresh without them, move %s aside", path, store.ErrWrongKey, sealed, path)
}

// sealedTables are the tables whose payload is sealed with the key.
var sealedTables = []string{"session_snapshots", "stored_sessions"}

// countSealed counts the rows of the store sealed with the key, the key
// check aside.
func countSealed(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}) (int, error) {
	n := 0
	for _, table := range sealedTables {
		var c int
		if err := q.QueryRowContext(ctx, "SELECT count(*) FROM "+table).Scan(&c); err != nil {
			return 0, fmt.Errorf("counting %s: %w", table, err)
		}
		n += c
	}
	return n, nil
}

// sampleSealed returns the newest few captures and stored sessions.
func sampleSealed(ctx context.Context, tx *sql.Tx) ([]store.Sealed, error) {
	var out []store.Sealed
	for _, q := range []struct {
		query string
		label func(string) string
	}{
		{`SELECT session_id, payload FROM session_snapshots ORDER BY id DESC LIMIT 10`, store.CaptureLabel},
		{`SELECT id, payload FROM stored_sessions ORDER BY created_at DESC LIMIT 10`, store.StoredLabel},
	} {
		rows, err := tx.QueryContext(ctx, q.query)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var (
				id      string
				payload []byte
			)
			if err := rows.Scan(&id, &payload); err != nil {
				rows.Close()
				return nil, err
			}
			out = append(out, store.Sealed{Payload: payload, Label: q.label(id)})
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// SealedRows counts the rows of the store at path that hold data sealed
// with the secret key: captures and stored sessions. A missing file, or
// one without those tables yet, has none. It opens the file read-only and
// needs no key.
func SealedRows(path string) (int, error) {
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		return 0, err
	}
	defer db.Close()
	n := 0
	for _, table := range sealedTables {
		var c int
		err := db.QueryRow("SELECT count(*) FROM " + table).Scan(&c)
		if err != nil && strings.Contains(err.Error(), "no such table") {
			continue
		}
		if err != nil {
			return 0, fmt.Errorf("reading %s: %w", path, err)
		}
		n += c
	}
	return n, nil
}

// dsn is the driver's name for the file at path, with the connection
// settings every pooled connection gets.
func dsn(path string) string {
	// In a file: URI, '?' and '#' end the path and '%' escapes.
	p := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(path)
	return "file:" + p + "?_pragma=journal_mode(WAL)&_pragma=busy_timeout(10000)&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(1)&_txlock=immediate"
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// busyWait is how long a writer waits for another process's write lock,
// as the DSN's busy_timeout says; busyStep is how long SQLite waits at a
// time before the writer looks at its context again. SQLite's own busy
// handler does not notice a cancelled context.
const (
	busyWait = 10 * time.Second
	busyStep = 25
)

// write runs fn in an immediate transaction, committing if fn returns nil.
func (s *Store) write(ctx context.Context, fn func(*sql.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	select {
	case s.wmu <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-s.wmu }()
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	tx, err := begin(ctx, conn)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// begin starts an immediate transaction on conn, waiting for another
// process's write lock in busyStep slices until busyWait or ctx ends. The
// connection's busy timeout is back at busyWait when it returns.
func begin(ctx context.Context, conn *sql.Conn) (*sql.Tx, error) {
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("PRAGMA busy_timeout = %d", busyStep)); err != nil {
		return nil, err
	}
	deadline := time.Now().Add(busyWait)
	var (
		tx  *sql.Tx
		err error
	)
	for {
		tx, err = conn.BeginTx(ctx, nil)
		if !isBusy(err) || time.Now().After(deadline) {
			break
		}
		if ctx.Err() != nil {
			err = ctx.Err()
			break
		}
	}
	restore := fmt.Sprintf("PRAGMA busy_timeout = %d", busyWait.Milliseconds())
	if err != nil {
		conn.ExecContext(context.Background(), restore)
		return nil, err
	}
	if _, err := tx.ExecContext(ctx, restore); err != nil {
		tx.Rollback()
		return nil, err
	}
	return tx, nil
}

// isBusy reports whether err is SQLITE_BUSY (or one of its extended codes).
func isBusy(err error) bool {
	var e *msqlite.Error
	return errors.As(err, &e) && e.Code()&0xff == sqlite3.SQLITE_BUSY
}

func millis(t time.Time) int64 { return t.UnixMilli() }

func fromMillis(ms int64) time.Time { return time.UnixMilli(ms).UTC() }

// sessionColumns are a session's listing columns. The URL is read from
// url_sealed; the url column of migration 1 stays empty (see sealURLs).
const sessionColumns = `session_id, owner, profile, state, reason, created_at, updated_at, last_capture_at, tabs, url_sealed`

type scanner interface{ Scan(dest ...any) error }

// scanSession reads a row of sessionColumns, opening its URL with box.
func scanSession(box *sealkey.Box, r scanner) (store.Session, error) {
	var (
		s                store.Session
		state            string
		created, updated int64
		lastCapture      sql.NullInt64
		url              []byte
	)
	if err := r.Scan(&s.ID, &s.Owner, &s.Profile, &state, &s.Reason, &created, &updated, &lastCapture, &s.Tabs, &url); err != nil {
		return store.Session{}, err
	}
	s.URL = store.OpenURL(box, s.ID, url)
	s.State = store.SessionState(state)
	s.CreatedAt = fromMillis(created)
	s.UpdatedAt = fromMillis(updated)
	if lastCapture.Valid {
		s.LastCaptureAt = fromMillis(lastCapture.Int64)
	}
	return s, nil
}

// CreateSession implements store.Store.
func (s *Store) CreateSession(ctx context.Context, sess store.Session) error {
	if sess.ID == "" {
		return errors.New("sqlite store: creating a session: empty id")
	}
	now := time.Now()
	if sess.CreatedAt.IsZero() {
		sess.CreatedAt = now
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		var state string
		err := tx.QueryRowContext(ctx, `SELECT state FROM sessions WHERE session_id = ?`, sess.ID).Scan(&state)
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return fmt.Errorf("sqlite store: creating session %q: %w", sess.ID, err)
		case state == string(store.Active) || state == string(store.Recoverable):
			return fmt.Errorf("%w: session %q exists and is %s", store.ErrConflict, sess.ID, state)
		default:
			// Closed, stale or failed: replaced, with its captures and lease.
			if _, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE session_id = ?`, sess.ID); err != nil {
				return fmt.Errorf("sqlite store: replacing %s session %q: %w", state, sess.ID, err)
			}
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO sessions (session_id, owner, profile, state, reason, created_at, updated_at, last_capture_at, tabs, url, url_sealed)
VALUES (?, ?, ?, ?, '', ?, ?, NULL, 0, '', NULL)`, sess.ID, sess.Owner, sess.Profile, string(store.Active), millis(sess.CreatedAt), millis(now))
		if err != nil {
			return fmt.Errorf("sqlite store: creating session %q: %w", sess.ID, err)
		}
		return nil
	})
}

// GetSession implements store.Store.
func (s *Store) GetSession(ctx context.Context, id string) (store.Session, error) {
	sess, err := scanSession(s.box, s.db.QueryRowContext(ctx, `SELECT `+sessionColumns+` FROM sessions WHERE session_id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return store.Session{}, fmt.Errorf("%w: session %q", store.ErrNotFound, id)
	}
	if err != nil {
		return store.Session{}, fmt.Errorf("sqlite store: reading session %q: %w", id, err)
	}
	return sess, nil
}

// ListSessions implements store.Store.
func (s *Store) ListSessions(ctx context.Context, owner string, state store.SessionState) ([]store.Session, error) {
	if state != "" && !state.Valid() {
		return nil, fmt.Errorf("sqlite store: listing sessions: unknown state %q", state)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+sessionColumns+` FROM sessions
WHERE (?1 = '' OR owner = ?1) AND (?2 = '' OR state = ?2)
ORDER BY created_at DESC, session_id DESC`, owner, string(state))
	if err != nil {
		return nil, fmt.Errorf("sqlite store: listing sessions: %w", err)
	}
	defer rows.Close()
	out := []store.Session{}
	for rows.Next() {
		sess, err := scanSession(s.box, rows)
		if err != nil {
			return nil, fmt.Errorf("sqlite store: listing sessions: %w", err)
		}
		out = append(out, sess)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite store: listing sessions: %w", err)
	}
	return out, nil
}

// SetState implements store.Store.
func (s *Store) SetState(ctx context.Context, id string, state store.SessionState, reason string) error {
	if !state.Valid() {
		return fmt.Errorf("sqlite store: session %q: unknown state %q", id, state)
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE sessions SET state = ?, reason = ?, updated_at = ? WHERE session_id = ?`,
			string(state), reason, millis(time.Now()), id)
		if err != nil {
			return fmt.Errorf("sqlite store: setting session %q %s: %w", id, state, err)
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return fmt.Errorf("%w: session %q", store.ErrNotFound, id)
		}
		return nil
	})
}

// SaveCapture implements store.Store.
func (s *Store) SaveCapture(ctx context.Context, c store.Capture, keep int) error {
	keep = max(keep, 1)
	now := time.Now()
	sc, err := store.SealCapture(s.box, c)
	if err != nil {
		return err
	}
	sealed, url := sc.Sealed, sc.URL
	taken := millis(sc.Taken)
	return s.write(ctx, func(tx *sql.Tx) error {
		if c.Node != "" {
			var holder string
			err := tx.QueryRowContext(ctx, `SELECT node FROM leases WHERE session_id = ?`, c.SessionID).Scan(&holder)
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return fmt.Errorf("sqlite store: saving a capture of session %q: %w", c.SessionID, err)
			}
			if err == nil && holder != c.Node {
				return fmt.Errorf("%w: session %q is node %s's, not %s's", store.ErrLeaseLost, c.SessionID, holder, c.Node)
			}
		}
		// The session's listing follows the newest capture, which this one
		// may not be if captures arrive out of order.
		res, err := tx.ExecContext(ctx, `UPDATE sessions SET
	tabs            = CASE WHEN last_capture_at IS NULL OR last_capture_at <= ?1 THEN ?2 ELSE tabs END,
	url_sealed      = CASE WHEN last_capture_at IS NULL OR last_capture_at <= ?1 THEN ?3 ELSE url_sealed END,
	last_capture_at = CASE WHEN last_capture_at IS NULL OR last_capture_at <= ?1 THEN ?1 ELSE last_capture_at END,
	updated_at      = ?4
WHERE session_id = ?5`, taken, len(c.Tabs), url, millis(now), c.SessionID)
		if err != nil {
			return fmt.Errorf("sqlite store: saving a capture of session %q: %w", c.SessionID, err)
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return fmt.Errorf("%w: session %q", store.ErrNotFound, c.SessionID)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO session_snapshots (session_id, taken_at, payload) VALUES (?, ?, ?)`,
			c.SessionID, taken, sealed); err != nil {
			return fmt.Errorf("sqlite store: saving a capture of session %q: %w", c.SessionID, err)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM session_snapshots WHERE session_id = ?1 AND id NOT IN (
	SELECT id FROM session_snapshots WHERE session_id = ?1 ORDER BY taken_at DESC, id DESC LIMIT ?2)`,
			c.SessionID, keep); err != nil {
			return fmt.Errorf("sqlite store: pruning the captures of session %q: %w", c.SessionID, err)
		}
		return nil
	})
}

// LatestCapture implements store.Store.
func (s *Store) LatestCapture(ctx context.Context, sessionID string) (store.Capture, error) {
	var (
		taken  int64
		sealed []byte
	)
	err := s.db.QueryRowContext(ctx, `SELECT taken_at, payload FROM session_snapshots WHERE session_id = ?
ORDER BY taken_at DESC, id DESC LIMIT 1`, sessionID).Scan(&taken, &sealed)
	if errors.Is(err, sql.ErrNoRows) {
		return store.Capture{}, fmt.Errorf("%w: no capture of session %q", store.ErrNotFound, sessionID)
	}
	if err != nil {
		return store.Capture{}, fmt.Errorf("sqlite store: reading the capture of session %q: %w", sessionID, err)
	}
	return store.OpenCapture(s.box, sessionID, fromMillis(taken), sealed)
}

// ListCaptures implements store.Store.
func (s *Store) ListCaptures(ctx context.Context, sessionID string) ([]store.CaptureInfo, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, taken_at, payload FROM session_snapshots WHERE session_id = ?
ORDER BY taken_at DESC, id DESC`, sessionID)
	if err != nil {
		return nil, fmt.Errorf("sqlite store: listing the captures of session %q: %w", sessionID, err)
	}
	defer rows.Close()
	out := []store.CaptureInfo{}
	for rows.Next() {
		var (
			id, taken int64
			sealed    []byte
		)
		if err := rows.Scan(&id, &taken, &sealed); err != nil {
			return nil, fmt.Errorf("sqlite store: listing the captures of session %q: %w", sessionID, err)
		}
		out = append(out, store.DescribeCapture(s.box, sessionID, id, fromMillis(taken), sealed))
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite store: listing the captures of session %q: %w", sessionID, err)
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
		taken  int64
		sealed []byte
	)
	err := s.db.QueryRowContext(ctx, `SELECT taken_at, payload FROM session_snapshots WHERE session_id = ? AND id = ?`,
		sessionID, id).Scan(&taken, &sealed)
	if errors.Is(err, sql.ErrNoRows) {
		return store.Capture{}, fmt.Errorf("%w: no capture %d of session %q", store.ErrNotFound, id, sessionID)
	}
	if err != nil {
		return store.Capture{}, fmt.Errorf("sqlite store: reading capture %d of session %q: %w", id, sessionID, err)
	}
	return store.OpenCapture(s.box, sessionID, fromMillis(taken), sealed)
}

// Recover implements store.Store.
func (s *Store) Recover(ctx context.Context, node string, now time.Time, maxAge time.Duration) ([]store.Session, error) {
	var changed []store.Session
	err := s.write(ctx, func(tx *sql.Tx) error {
		changed = nil
		rows, err := tx.QueryContext(ctx, `SELECT s.session_id,
	(SELECT MAX(taken_at) FROM session_snapshots WHERE session_id = s.session_id)
FROM sessions s
LEFT JOIN leases l ON l.session_id = s.session_id AND l.expires_at > ? AND l.node <> ?
WHERE s.state = 'active' AND l.session_id IS NULL
ORDER BY s.created_at DESC, s.session_id DESC`, millis(now), node)
		if err != nil {
			return err
		}
		type orphan struct {
			id    string
			taken sql.NullInt64
		}
		var orphans []orphan
		for rows.Next() {
			var o orphan
			if err := rows.Scan(&o.id, &o.taken); err != nil {
				rows.Close()
				return err
			}
			orphans = append(orphans, o)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, o := range orphans {
			state, reason := decide(o.taken, now, maxAge)
			if _, err := tx.ExecContext(ctx, `UPDATE sessions SET state = ?, reason = ?, updated_at = ? WHERE session_id = ?`,
				string(state), reason, millis(now), o.id); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `DELETE FROM leases WHERE session_id = ?`, o.id); err != nil {
				return err
			}
			sess, err := scanSession(s.box, tx.QueryRowContext(ctx, `SELECT `+sessionColumns+` FROM sessions WHERE session_id = ?`, o.id))
			if err != nil {
				return err
			}
			changed = append(changed, sess)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("sqlite store: recovering sessions: %w", err)
	}
	return changed, nil
}

// decide is source 002's start-up rule for a session left active.
func decide(taken sql.NullInt64, now time.Time, maxAge time.Duration) (store.SessionState, string) {
	if !taken.Valid {
		return store.RecoverState(time.Time{}, now, maxAge)
	}
	return store.RecoverState(fromMillis(taken.Int64), now, maxAge)
}

// AcquireLease implements store.Store.
func (s *Store) AcquireLease(ctx context.Context, sessionID, node string, now time.Time, ttl time.Duration) (bool, error) {
	if node == "" {
		return false, fmt.Errorf("sqlite store: lease of session %q: empty node", sessionID)
	}
	if ttl <= 0 {
		return false, fmt.Errorf("sqlite store: lease of session %q: ttl %s is not positive", sessionID, ttl)
	}
	var ok bool
	err := s.write(ctx, func(tx *sql.Tx) error {
		var one int
		err := tx.QueryRowContext(ctx, `SELECT 1 FROM sessions WHERE session_id = ?`, sessionID).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("%w: session %q", store.ErrNotFound, sessionID)
		}
		if err != nil {
			return fmt.Errorf("sqlite store: lease of session %q: %w", sessionID, err)
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO leases (session_id, node, expires_at) VALUES (?1, ?2, ?3)
ON CONFLICT (session_id) DO UPDATE SET node = excluded.node, expires_at = excluded.expires_at
WHERE leases.node = excluded.node OR leases.expires_at <= ?4`, sessionID, node, millis(now.Add(ttl)), millis(now))
		if err != nil {
			return fmt.Errorf("sqlite store: lease of session %q: %w", sessionID, err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return err
		}
		ok = n == 1
		return nil
	})
	if err != nil {
		return false, err
	}
	return ok, nil
}

// ReleaseLease implements store.Store.
func (s *Store) ReleaseLease(ctx context.Context, sessionID, node string) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM leases WHERE session_id = ? AND node = ?`, sessionID, node); err != nil {
			return fmt.Errorf("sqlite store: releasing the lease of session %q: %w", sessionID, err)
		}
		return nil
	})
}

// CorruptLatest overwrites the payload of the session's newest capture
// with random bytes, for tests of what a damaged file does (see
// storetest.Corrupter).
func (s *Store) CorruptLatest(ctx context.Context, sessionID string) error {
	garbage := make([]byte, 64)
	rand.Read(garbage)
	return s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE session_snapshots SET payload = ? WHERE id = (
	SELECT id FROM session_snapshots WHERE session_id = ? ORDER BY taken_at DESC, id DESC LIMIT 1)`, garbage, sessionID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("%w: no capture of session %q", store.ErrNotFound, sessionID)
		}
		return nil
	})
}

// CountCaptures returns how many captures of the session are kept (see
// storetest.Counter).
func (s *Store) CountCaptures(ctx context.Context, sessionID string) (int, error) {
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM session_snapshots WHERE session_id = ?`, sessionID).Scan(&n); err != nil {
		return 0, fmt.Errorf("sqlite store: counting the captures of session %q: %w", sessionID, err)
	}
	return n, nil
}
