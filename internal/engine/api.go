package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/browserd/browserd/internal/auth"
	"github.com/browserd/browserd/internal/sessions"
	"github.com/browserd/browserd/internal/store"
)

// What the HTTP API's session endpoints need beyond the browser tool.
// Every method acts for the owner in ctx (auth.Owner) and takes bare
// names; another owner's session is store.ErrNotFound.

// Tokens keeps the API's bearer tokens.
func (e *Engine) Tokens() auth.Store {
	if ts, ok := e.Store.(auth.Store); ok {
		return ts
	}
	return nil
}

// ErrSessionClosed ends the calls that run when their session is closed.
var ErrSessionClosed = errors.New("the session was closed while this call ran")

// CloseSession closes every task of the caller's session and marks it
// closed (DELETE /api/sessions/{id}); a session only in the store (such
// as a recoverable one) is closed there. Calls running in it end at once
// with ErrSessionClosed.
func (e *Engine) CloseSession(ctx context.Context, id string) error {
	started := time.Now()
	s, q, err := e.LiveSession(ctx, id)
	if err != nil {
		return err
	}
	row, err := e.Store.GetSession(ctx, q)
	if err != nil {
		return err
	}
	if s == nil {
		if row.State == store.Active {
			if ok, err := e.Store.AcquireLease(ctx, q, e.Node, time.Now(), e.LeaseTTL()); err != nil {
				return err
			} else if !ok {
				return fmt.Errorf("%w: session %q is active in another browserd on this store", store.ErrConflict, id)
			}
			defer e.Store.ReleaseLease(context.WithoutCancel(ctx), q, e.Node)
		}
		if row.State == store.Closed {
			return nil
		}
		e.Recorder.DropSession(q)
		return e.Store.SetState(ctx, q, store.Closed, "closed over the API")
	}
	// Running actions finish first (in the order actions take the locks:
	// the tasks', then resumeMu), and no resume runs meanwhile; calls that
	// arrive meanwhile are refused, calls that wait give up.
	e.Mu.Lock()
	s.Closing = true
	tasks := make([]*sessions.Task, 0, len(s.Tasks))
	for _, t := range s.Tasks {
		tasks = append(tasks, t)
		if t.Stop != nil {
			t.Stop(ErrSessionClosed) // a call stuck on the page ends now
		}
	}
	e.Mu.Unlock()
	slices.SortFunc(tasks, func(a, b *sessions.Task) int { return strings.Compare(a.Name, b.Name) })
	for _, t := range tasks {
		t.Run.Lock()
		defer t.Run.Unlock()
	}
	e.ResumeMu.Lock()
	defer e.ResumeMu.Unlock()
	if err := e.CaptureSession(ctx, s); err != nil {
		e.Log.Warn("capturing a session on close failed", "session", s.ID, "err", err)
	}
	e.Mu.Lock()
	s.Stored = false
	e.Mu.Unlock()
	defer func() {
		e.Mu.Lock()
		s.Closing = false // a profile's session reopens on its next call
		e.Mu.Unlock()
	}()
	if s.Profile == "" {
		e.Discard(ctx, s)
	} else {
		e.CloseSessionTabs(ctx, s)
	}
	if err := e.Store.SetState(ctx, q, store.Closed, "closed over the API"); err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	e.Recorder.DropSession(q)
	err = e.Store.ReleaseLease(context.WithoutCancel(ctx), q, e.Node)
	// The browser exits with its last session, as on the close action.
	e.Mu.Lock()
	key := e.SlotKey(s)
	e.Mu.Unlock()
	e.StopUnused(context.WithoutCancel(ctx), key, started)
	return err
}
