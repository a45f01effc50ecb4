package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/browserd/browserd/internal/store"
)

// migrations are the schema steps, in order; step i has version i+1. Each
// is applied once, in its own transaction, and recorded in
// schema_migrations. Append new steps; never edit an applied one.
var migrations = []string{
	// 1: sessions, captures and leases (source 002, adapted).
	`
CREATE TABLE sessions (
	session_id      TEXT    PRIMARY KEY,
	owner           TEXT    NOT NULL DEFAULT '',
	profile         TEXT    NOT NULL DEFAULT '',
	state           TEXT    NOT NULL CHECK (state IN ('active', 'recoverable', 'stale', 'closed', 'failed')),
	reason          TEXT    NOT NULL DEFAULT '',
	created_at      INTEGER NOT NULL,
	updated_at      INTEGER NOT NULL,
	last_capture_at INTEGER,
	tabs            INTEGER NOT NULL DEFAULT 0,
	url             TEXT    NOT NULL DEFAULT ''
);
CREATE INDEX idx_sessions_state ON sessions (state);
CREATE INDEX idx_sessions_owner_created ON sessions (owner, created_at DESC);

CREATE TABLE session_snapshots (
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
	session_id TEXT    NOT NULL REFERENCES sessions (session_id) ON DELETE CASCADE,
	taken_at   INTEGER NOT NULL,
	payload    BLOB    NOT NULL
);
CREATE INDEX idx_session_snapshots_session_time ON session_snapshots (session_id, taken_at DESC);

CREATE TABLE leases (
	session_id TEXT    PRIMARY KEY REFERENCES sessions (session_id) ON DELETE CASCADE,
	node       TEXT    NOT NULL,
	expires_at INTEGER NOT NULL
);
`,
	// 2: the rest of the DESIGN's tables, not used yet.
	`
CREATE TABLE owners (
	owner_id   TEXT    PRIMARY KEY,
	name       TEXT    NOT NULL DEFAULT '',
	created_at INTEGER NOT NULL
);

CREATE TABLE tokens (
	token_hash   BLOB    PRIMARY KEY,
	owner_id     TEXT    NOT NULL REFERENCES owners (owner_id) ON DELETE CASCADE,
	label        TEXT    NOT NULL DEFAULT '',
	created_at   INTEGER NOT NULL,
	expires_at   INTEGER,
	last_used_at INTEGER
);
CREATE INDEX idx_tokens_owner ON tokens (owner_id);

CREATE TABLE profiles (
	owner_id        TEXT    NOT NULL,
	name            TEXT    NOT NULL,
	exclude_domains TEXT    NOT NULL DEFAULT '[]',
	state           BLOB,
	created_at      INTEGER NOT NULL,
	updated_at      INTEGER NOT NULL,
	PRIMARY KEY (owner_id, name)
);

CREATE TABLE stored_states (
	owner_id   TEXT    NOT NULL,
	name       TEXT    NOT NULL,
	domains    TEXT    NOT NULL DEFAULT '[]',
	expires_at INTEGER,
	payload    BLOB    NOT NULL,
	created_at INTEGER NOT NULL,
	updated_at INTEGER NOT NULL,
	PRIMARY KEY (owner_id, name)
);

CREATE TABLE tasks (
	session_id TEXT    NOT NULL REFERENCES sessions (session_id) ON DELETE CASCADE,
	task       TEXT    NOT NULL,
	tab_id     TEXT    NOT NULL DEFAULT '',
	created_at INTEGER NOT NULL,
	updated_at INTEGER NOT NULL,
	PRIMARY KEY (session_id, task)
);
`,
	// 3: tokens by id (list and revoke need one) and stored sessions by id;
	// the tables of step 2 they replace were never written.
	`
DROP TABLE tokens;
DROP TABLE stored_states;

CREATE TABLE api_tokens (
	token_id   TEXT    PRIMARY KEY,
	token_hash TEXT    NOT NULL UNIQUE,
	owner      TEXT    NOT NULL,
	label      TEXT    NOT NULL DEFAULT '',
	created_at INTEGER NOT NULL
);
CREATE INDEX idx_api_tokens_owner ON api_tokens (owner);

CREATE TABLE stored_sessions (
	id          TEXT    PRIMARY KEY,
	owner       TEXT    NOT NULL,
	name        TEXT    NOT NULL DEFAULT '',
	domains     TEXT    NOT NULL DEFAULT '[]',
	cookies     INTEGER NOT NULL DEFAULT 0,
	auth_expiry INTEGER,
	expires_at  INTEGER,
	created_at  INTEGER NOT NULL,
	payload     BLOB    NOT NULL
);
CREATE INDEX idx_stored_sessions_owner_created ON stored_sessions (owner, created_at DESC);
`,
	// 4: the key check, a known text sealed with the store's key (see
	// checkKey).
	`
CREATE TABLE key_check (
	id         INTEGER PRIMARY KEY CHECK (id = 1),
	sealed     BLOB    NOT NULL,
	created_at INTEGER NOT NULL
);
`,
	// 5: the node registry (see store.Nodes).
	`
CREATE TABLE nodes (
	node_id        TEXT    PRIMARY KEY,
	url            TEXT    NOT NULL DEFAULT '',
	instance       TEXT    NOT NULL,
	version        TEXT    NOT NULL DEFAULT '',
	started_at     INTEGER NOT NULL,
	heartbeat_at   INTEGER NOT NULL,
	sessions       INTEGER NOT NULL DEFAULT 0,
	tabs           INTEGER NOT NULL DEFAULT 0,
	chromium_bytes INTEGER NOT NULL DEFAULT 0
);
`,
	// 6: the listing URL, sealed (store.SealURL): url_sealed replaces url,
	// which stays empty from now on; sealURLs seals what earlier versions
	// kept in it.
	`
ALTER TABLE sessions ADD COLUMN url_sealed BLOB;
`,
	// 7: each owner's secrets (see store.Secrets): the value sealed under
	// store.SecretLabel, the origins a JSON array.
	`
CREATE TABLE secrets (
	owner_id   TEXT    NOT NULL,
	name       TEXT    NOT NULL,
	value      BLOB    NOT NULL,
	origins    TEXT    NOT NULL DEFAULT '[]',
	updated_at INTEGER NOT NULL,
	PRIMARY KEY (owner_id, name)
);
`,
	// 8: a profile's login check (store.LoginCheck), sealed beside its
	// excluded domains (see SetProfileLoginCheck).
	`
ALTER TABLE profiles ADD COLUMN login_check BLOB;
`,
	// 9: a token's policy (package policy), its canonical JSON; '' for
	// none (the daemon's default applies).
	`
ALTER TABLE api_tokens ADD COLUMN policy TEXT NOT NULL DEFAULT '';
`,
}

// migrate applies the steps not yet recorded in schema_migrations. It is
// safe to run on every open, also by two processes at once: each step's
// transaction takes the write lock before it checks the version.
func (s *Store) migrate(ctx context.Context) error {
	if _, err := s.db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
	version    INTEGER PRIMARY KEY,
	applied_at INTEGER NOT NULL
)`); err != nil {
		return fmt.Errorf("creating schema_migrations: %w", err)
	}
	for i, step := range migrations {
		version := i + 1
		err := s.write(ctx, func(tx *sql.Tx) error {
			var n int
			if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM schema_migrations WHERE version = ?`, version).Scan(&n); err != nil {
				return err
			}
			if n > 0 {
				return nil
			}
			if _, err := tx.ExecContext(ctx, step); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)`, version, time.Now().UnixMilli())
			return err
		})
		if err != nil {
			return fmt.Errorf("applying schema migration %d: %w", version, err)
		}
	}
	return nil
}

// sealURLs seals the listing URLs a store of an earlier version kept in
// the clear (column url, before migration 6) into url_sealed, then
// rewrites the file (VACUUM) and empties the WAL, so that no old copy of
// them stays on disk: a URL's query and fragment may hold a reset token
// or an OAuth code. A store with none to seal is left as it is. Run it
// once the key is checked.
func (s *Store) sealURLs(ctx context.Context, path string) error {
	n := 0
	err := s.write(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT session_id, url FROM sessions WHERE url <> ''`)
		if err != nil {
			return err
		}
		plain := map[string]string{}
		for rows.Next() {
			var id, url string
			if err := rows.Scan(&id, &url); err != nil {
				rows.Close()
				return err
			}
			plain[id] = url
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for id, url := range plain {
			if _, err := tx.ExecContext(ctx, `UPDATE sessions SET url_sealed = ?, url = '' WHERE session_id = ?`, store.SealURL(s.box, id, url), id); err != nil {
				return err
			}
		}
		n = len(plain)
		return nil
	})
	if err != nil {
		return fmt.Errorf("sqlite store: %s: sealing the sessions' URLs: %w", path, err)
	}
	if n == 0 {
		return nil
	}
	if _, err := s.db.ExecContext(ctx, `VACUUM`); err != nil {
		return fmt.Errorf("sqlite store: %s: the sessions' URLs are sealed, but rewriting the file without their old copies failed: %w — stop every browserd on it and run: sqlite3 %s VACUUM", path, err, path)
	}
	if _, err := s.db.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		return fmt.Errorf("sqlite store: %s: emptying the WAL after sealing the sessions' URLs: %w", path, err)
	}
	return nil
}
