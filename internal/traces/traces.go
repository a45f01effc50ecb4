// Package traces gives each task's recording (internal/recording) to its
// owner: the trace as JSON or one HTML file (GET
// /api/sessions/{id}/trace), its steps and frames for the dashboard's
// timeline; and it starts the daemon's recorder, dropping the recordings
// of sessions that ended while the daemon was down. Another owner's
// session is not found.
//
// The engine wires Traces (its room); what each call adds to a
// recording is the engine's (recording.Args, recording.Since).
package traces

import (
	"context"
	"errors"
	"fmt"

	"github.com/browserd/browserd/internal/policy"
	"github.com/browserd/browserd/internal/recording"
	"github.com/browserd/browserd/internal/sessions"
	"github.com/browserd/browserd/internal/store"
)

// Traces serves the recordings of the caller's sessions.
type Traces struct {
	*sessions.Registry
}

// Trace is a task's recording for its owner (GET /api/sessions/{id}/trace):
// JSON, or one self-contained HTML file with format "html".
func (t *Traces) Trace(ctx context.Context, session, task, format string) ([]byte, error) {
	if t.Recorder == nil {
		return nil, fmt.Errorf("%w: this daemon records nothing (it runs with --record=off)", store.ErrNotFound)
	}
	q, err := t.ownedSession(ctx, session)
	if err != nil {
		return nil, err
	}
	if task == "" {
		task = "default"
	}
	// The caller's own name for the session, never the owner-qualified
	// one the recording is kept under (bob~s9).
	if format == "html" {
		// Its frames are pictures of the page: left out for a caller
		// whose policy denies screenshot.
		return t.Recorder.HTMLFrames(q, session, task, t.policy(ctx).MaySee() == nil)
	}
	return t.Recorder.JSONAs(q, session, task)
}

// TraceEntries and TraceFrame are a task's recording for the dashboard.
func (t *Traces) TraceEntries(ctx context.Context, session, task string) ([]recording.Entry, error) {
	q, err := t.ownedSession(ctx, session)
	if err != nil || t.Recorder == nil {
		return nil, err
	}
	return t.Recorder.Entries(q, task)
}

// TraceFrame is the frame after a task's step seq: refused (wrapping
// policy.ErrDenied) to a caller whose policy denies screenshot.
func (t *Traces) TraceFrame(ctx context.Context, session, task string, seq int) ([]byte, error) {
	q, err := t.ownedSession(ctx, session)
	if err != nil {
		return nil, err
	}
	if err := t.policy(ctx).MaySee(); err != nil {
		return nil, err
	}
	if t.Recorder == nil {
		return nil, recording.ErrNoFrame
	}
	return t.Recorder.Frame(q, task, seq)
}

// policy is the caller's policy: its token's, or the daemon's default.
func (t *Traces) policy(ctx context.Context) *policy.Policy {
	if p := policy.From(ctx); p != nil {
		return p
	}
	return t.Cfg.DefaultPolicy()
}

// ownedSession is the qualified id of the caller's session id, live or
// in the store: ErrNotFound for another owner's.
func (t *Traces) ownedSession(ctx context.Context, id string) (string, error) {
	s, q, err := t.LiveSession(ctx, id)
	if err != nil {
		return "", err
	}
	if s == nil {
		if _, err := t.Store.GetSession(ctx, q); err != nil {
			if errors.Is(err, store.ErrNotFound) {
				return "", fmt.Errorf("%w: no session %q", store.ErrNotFound, id)
			}
			return "", err
		}
	}
	return q, nil
}

// StartRecorder starts the recorder (unless --record=off) and deletes the
// recordings of sessions that ended while the daemon was down.
func (t *Traces) StartRecorder(ctx context.Context) {
	if t.Cfg.Record == "off" {
		return
	}
	t.Recorder = recording.New(recording.Options{Dir: t.Cfg.Path("recordings"), Box: t.Box}, t.Log)
	for _, id := range t.Recorder.Sessions() {
		s, err := t.Store.GetSession(ctx, id)
		switch {
		case errors.Is(err, store.ErrNotFound), err == nil && (s.State == store.Closed || s.State == store.Failed):
			t.Recorder.DropSession(id)
		}
	}
}
