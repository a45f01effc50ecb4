// Package backend opens the store the --db setting names: a SQLite file
// (the default, <data>/browserd.db) or, for a postgres:// or
// postgresql:// URL, a PostgreSQL database that several daemons share.
package backend

import (
	"context"

	"github.com/browserd/browserd/internal/auth"
	"github.com/browserd/browserd/internal/sealkey"
	"github.com/browserd/browserd/internal/store"
	"github.com/browserd/browserd/internal/store/postgres"
	"github.com/browserd/browserd/internal/store/sqlite"
)

// Store is what every backend keeps: sessions, captures, leases, stored
// sessions and tokens.
type Store interface {
	store.Store
	auth.Store
}

var (
	_ Store = (*sqlite.Store)(nil)
	_ Store = (*postgres.Store)(nil)
)

// Open opens the store db names — a PostgreSQL URL, else the path of a
// SQLite file — with box sealing what it keeps. ctx bounds connecting to
// a server.
func Open(ctx context.Context, db string, box *sealkey.Box) (Store, error) {
	if store.IsPostgresURL(db) {
		return postgres.Open(ctx, db, box)
	}
	return sqlite.Open(db, box)
}

// SealedRows counts the captures and stored sessions sealed with the
// secret key in the SQLite store at db, without the key (see
// sqlite.SealedRows), so that no new key is made over them. A PostgreSQL
// store counts as none here: it refuses another key itself, when opened.
func SealedRows(db string) (int, error) {
	if store.IsPostgresURL(db) {
		return 0, nil
	}
	return sqlite.SealedRows(db)
}
