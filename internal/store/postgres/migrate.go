package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/browserd/browserd/internal/store"
)

// migrations are the schema steps, in order; step i has version i+1, the
// same version as the SQLite store's step of the same meaning (package
// sqlite), in PostgreSQL's types: times are timestamptz (kept to the
// millisecond, as SQLite keeps them), payloads bytea, domain lists text[].
// Append new steps; never edit an applied one.
var migrations = []string{
	// 1: sessions, captures and leases.
	`
CREATE TABLE sessions (
	session_id      text        PRIMARY KEY,
	owner           text        NOT NULL DEFAULT '',
	profile         text        NOT NULL DEFAULT '',
	state           text        NOT NULL CHECK (state IN ('active', 'recoverable', 'stale', 'closed', 'failed')),
	reason          text        NOT NULL DEFAULT '',
	created_at      timestamptz NOT NULL,
	updated_at      timestamptz NOT NULL,
	last_capture_at timestamptz,
	tabs            integer     NOT NULL DEFAULT 0,
	url             text        NOT NULL DEFAULT ''
);
CREATE INDEX idx_sessions_state ON sessions (state);
CREATE INDEX idx_sessions_owner_created ON sessions (owner, created_at DESC);

CREATE TABLE session_snapshots (
	id         bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	session_id text        NOT NULL REFERENCES sessions (session_id) ON DELETE CASCADE,
	taken_at   timestamptz NOT NULL,
	payload    bytea       NOT NULL
);
-- Sealed payloads do not compress: do not try.
ALTER TABLE session_snapshots ALTER COLUMN payload SET STORAGE EXTERNAL;
CREATE INDEX idx_session_snapshots_session_time ON session_snapshots (session_id, taken_at DESC);

CREATE TABLE leases (
	session_id text        PRIMARY KEY REFERENCES sessions (session_id) ON DELETE CASCADE,
	node       text        NOT NULL,
	expires_at timestamptz NOT NULL
);
`,
	// 2: the rest of the DESIGN's tables, not used yet (as in SQLite).
	`
CREATE TABLE owners (
	owner_id   text        PRIMARY KEY,
	name       text        NOT NULL DEFAULT '',
	created_at timestamptz NOT NULL
);

CREATE TABLE tokens (
	token_hash   bytea       PRIMARY KEY,
	owner_id     text        NOT NULL REFERENCES owners (owner_id) ON DELETE CASCADE,
	label        text        NOT NULL DEFAULT '',
	created_at   timestamptz NOT NULL,
	expires_at   timestamptz,
	last_used_at timestamptz
);
CREATE INDEX idx_tokens_owner ON tokens (owner_id);

CREATE TABLE profiles (
	owner_id        text        NOT NULL,
	name            text        NOT NULL,
	exclude_domains text[]      NOT NULL DEFAULT '{}',
	state           bytea,
	created_at      timestamptz NOT NULL,
	updated_at      timestamptz NOT NULL,
	PRIMARY KEY (owner_id, name)
);

CREATE TABLE stored_states (
	owner_id   text        NOT NULL,
	name       text        NOT NULL,
	domains    text[]      NOT NULL DEFAULT '{}',
	expires_at timestamptz,
	payload    bytea       NOT NULL,
	created_at timestamptz NOT NULL,
	updated_at timestamptz NOT NULL,
	PRIMARY KEY (owner_id, name)
);

CREATE TABLE tasks (
	session_id text        NOT NULL REFERENCES sessions (session_id) ON DELETE CASCADE,
	task       text        NOT NULL,
	tab_id     text        NOT NULL DEFAULT '',
	created_at timestamptz NOT NULL,
	updated_at timestamptz NOT NULL,
	PRIMARY KEY (session_id, task)
);
`,
	// 3: tokens by id and stored sessions by id; the tables of step 2 they
	// replace were never written.
	`
DROP TABLE tokens;
DROP TABLE stored_states;

CREATE TABLE api_tokens (
	token_id   text        PRIMARY KEY,
	token_hash text        NOT NULL UNIQUE,
	owner      text        NOT NULL,
	label      text        NOT NULL DEFAULT '',
	created_at timestamptz NOT NULL
);
CREATE INDEX idx_api_tokens_owner ON api_tokens (owner);

CREATE TABLE stored_sessions (
	id          text        PRIMARY KEY,
	owner       text        NOT NULL,
	name        text        NOT NULL DEFAULT '',
	domains     text[]      NOT NULL DEFAULT '{}',
	cookies     integer     NOT NULL DEFAULT 0,
	auth_expiry timestamptz,
	expires_at  timestamptz,
	created_at  timestamptz NOT NULL,
	payload     bytea       NOT NULL
);
ALTER TABLE stored_sessions ALTER COLUMN payload SET STORAGE EXTERNAL;
CREATE INDEX idx_stored_sessions_owner_created ON stored_sessions (owner, created_at DESC);
`,
	// 4: the key check, a known text sealed with the store's key (see
	// checkKey).
	`
CREATE TABLE key_check (
	id         integer     PRIMARY KEY CHECK (id = 1),
	sealed     bytea       NOT NULL,
	created_at timestamptz NOT NULL
);
`,
	// 5: the node registry (see store.Nodes).
	`
CREATE TABLE nodes (
	node_id        text        PRIMARY KEY,
	url            text        NOT NULL DEFAULT '',
	instance       text        NOT NULL,
	version        text        NOT NULL DEFAULT '',
	started_at     timestamptz NOT NULL,
	heartbeat_at   timestamptz NOT NULL,
	sessions       integer     NOT NULL DEFAULT 0,
	tabs           integer     NOT NULL DEFAULT 0,
	chromium_bytes bigint      NOT NULL DEFAULT 0
);
`,
	// 6: the listing URL, sealed (as in SQLite): url_sealed replaces url,
	// which stays empty from now on; sealURLs seals what earlier versions
	// kept in it.
	`
ALTER TABLE sessions ADD COLUMN url_sealed bytea;
`,
	// 7: each owner's secrets (as in SQLite): the value sealed under
	// store.SecretLabel.
	`
CREATE TABLE secrets (
	owner_id   text        NOT NULL,
	name       text        NOT NULL,
	value      bytea       NOT NULL,
	origins    text[]      NOT NULL DEFAULT '{}',
	updated_at timestamptz NOT NULL,
	PRIMARY KEY (owner_id, name)
);
`,
	// 8: a profile's login check, sealed (as in SQLite).
	`
ALTER TABLE profiles ADD COLUMN login_check bytea;
`,
	// 9: a token's policy (as in SQLite).
	`
ALTER TABLE api_tokens ADD COLUMN policy text NOT NULL DEFAULT '';
`,
}

// migrate applies the steps not yet recorded in schema_migrations, all in
// one transaction (PostgreSQL's DDL is transactional: a failed step leaves
// the schema as it was). Nodes starting at once take turns: the
// transaction first takes an advisory lock named after the schema, so the
// second finds the steps applied by the first.
func (s *Store) migrate(ctx context.Context) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('browserd schema migrations ' || current_schema(), 0))`); err != nil {
			return fmt.Errorf("taking the migration lock: %w", err)
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
	version    integer     PRIMARY KEY,
	applied_at timestamptz NOT NULL DEFAULT now()
)`); err != nil {
			return fmt.Errorf("creating schema_migrations: %w", err)
		}
		rows, err := tx.Query(ctx, `SELECT version FROM schema_migrations`)
		if err != nil {
			return fmt.Errorf("reading schema_migrations: %w", err)
		}
		applied, err := pgx.CollectRows(rows, pgx.RowTo[int32])
		if err != nil {
			return fmt.Errorf("reading schema_migrations: %w", err)
		}
		done := map[int]bool{}
		for _, v := range applied {
			done[int(v)] = true
		}
		for i, step := range migrations {
			version := i + 1
			if done[version] {
				continue
			}
			if _, err := tx.Exec(ctx, step); err != nil {
				return fmt.Errorf("applying schema migration %d: %w", version, err)
			}
			if _, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version) VALUES ($1)`, version); err != nil {
				return fmt.Errorf("recording schema migration %d: %w", version, err)
			}
		}
		return nil
	})
}

// sealURLs seals the listing URLs a store of an earlier version kept in
// the clear (column url, before migration 6) into url_sealed, then
// rewrites the table (VACUUM FULL), so that its files keep no old copy of
// them: a URL's query and fragment may hold a reset token or an OAuth
// code. (The server's WAL archives and backups are out of browserd's
// reach.) A store with none to seal is left as it is.
func (s *Store) sealURLs(ctx context.Context) error {
	n := 0
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT session_id, url FROM sessions WHERE url <> '' FOR UPDATE`)
		if err != nil {
			return err
		}
		var ids, urls []string
		var id, url string
		if _, err := pgx.ForEachRow(rows, []any{&id, &url}, func() error {
			ids, urls = append(ids, id), append(urls, url)
			return nil
		}); err != nil {
			return err
		}
		for i, id := range ids {
			if _, err := tx.Exec(ctx, `UPDATE sessions SET url_sealed = $1, url = '' WHERE session_id = $2`, store.SealURL(s.box, id, urls[i]), id); err != nil {
				return err
			}
		}
		n = len(ids)
		return nil
	})
	if err != nil {
		return fmt.Errorf("sealing the sessions' URLs: %w", err)
	}
	if n == 0 {
		return nil
	}
	if _, err := s.pool.Exec(ctx, `VACUUM FULL sessions`); err != nil {
		return fmt.Errorf("the sessions' URLs are sealed, but rewriting the table without their old copies failed: %w — run VACUUM FULL sessions on the database as its owner", err)
	}
	return nil
}
