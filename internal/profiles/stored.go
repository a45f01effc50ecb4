package profiles

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"time"

	"github.com/browserd/browserd/internal/auth"
	"github.com/browserd/browserd/internal/inject"
	"github.com/browserd/browserd/internal/storagestate"
	"github.com/browserd/browserd/internal/store"
)

// Stored sessions: a session's state kept under an id of its own, for a
// later launch (storedSession) or POST /api/sessions to inject; and the
// prompt block that tells an agent what a session or a stored session is
// logged in to. Every method acts for the owner in ctx (auth.Owner).

// StoreSession keeps the caller's session's current state as a stored
// session (POST /api/sessions/{id}/capture).
func (e *Keeper) StoreSession(ctx context.Context, id, name string, expiresAt time.Time) (store.StoredSession, error) {
	st, err := e.ExportState(ctx, id)
	if err != nil {
		return store.StoredSession{}, err
	}
	return e.SaveStored(ctx, cmp.Or(name, id), st, expiresAt)
}

// SaveStored stores st for the caller under a new id.
func (e *Keeper) SaveStored(ctx context.Context, name string, st *storagestate.State, expiresAt time.Time) (store.StoredSession, error) {
	b := make([]byte, 8)
	rand.Read(b)
	ss := store.StoredSession{ID: "ss_" + hex.EncodeToString(b), Owner: auth.Owner(ctx), Name: name, ExpiresAt: expiresAt, Created: time.Now().UTC(), State: st}
	if err := e.Store.SaveStored(ctx, ss); err != nil {
		return store.StoredSession{}, err
	}
	ss.Describe()
	ss.Created = ss.Created.Truncate(time.Millisecond)
	return ss, nil
}

// StoredSessions are the stored sessions (every method takes the owner).
func (e *Keeper) StoredSessions() store.StoredSessions { return e.Store }

// SessionHint is source 003 FR-5's prompt block for the caller's session
// (default: the default profile's) or stored session.
func (e *Keeper) SessionHint(ctx context.Context, session, stored string) (string, error) {
	if stored != "" {
		ss, err := e.Store.GetStored(ctx, auth.Owner(ctx), stored)
		if err != nil {
			return "", err
		}
		return inject.StoredHint(stored, ss.State, inject.Domains(ss.State)), nil
	}
	if session == "" {
		session = "default"
	}
	st, injected, err := e.SessionState(ctx, session)
	if err != nil {
		return "", err
	}
	return inject.Hint(session, st, injected, inject.Domains(st)), nil
}
