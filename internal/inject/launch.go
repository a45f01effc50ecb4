package inject

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/browserd/browserd/internal/browser"
	"github.com/browserd/browserd/internal/chromeprofile"
	"github.com/browserd/browserd/internal/storagestate"
	"github.com/browserd/browserd/internal/store"
	"github.com/browserd/browserd/internal/tool"
	"github.com/browserd/browserd/internal/userdata"
)

// A launch that injects: the state a launch call (or POST /api/sessions)
// puts into the session it creates, carried through the call — what to
// inject and check, and what it did. The engine puts it in over CDP, or
// Convert writes it into a new folder session's empty folder first.

// Launch carries an injected state through a launch call.
type Launch struct {
	State   *storagestate.State
	Expires time.Time // the stored session's expiresAt
	Allowed []string
	Policy  Policy

	// Fresh: the session must be new (POST /api/sessions); one made live
	// meanwhile by another call is a conflict.
	Fresh bool
	// Created: the call made the session (so a failed Inject closes it).
	Created bool

	// Emu is the environment the new session's pages see.
	Emu browser.Emulation
	// Stored and StoredAt name the stored session the state comes from
	// ("" for an inline state): a converted folder notes them.
	Stored   string
	StoredAt time.Time
	// Converted: the state was written into a new folder session's
	// folder before its browser started (Convert), not injected.
	Converted bool

	Domains []string
	Dropped storagestate.Errors
	Err     *Error // the refusal, for Inject's caller
}

// StoredSessions reads an owner's stored sessions (the store).
type StoredSessions interface {
	GetStored(ctx context.Context, owner, id string) (store.StoredSession, error)
}

// Taken refuses a fresh session whose name another call took.
func (l *Launch) Taken(name string) error {
	l.Err = &Error{Kind: Conflict, Msg: fmt.Sprintf("session %q is active; pick another name, or DELETE it first", name)}
	return &tool.Error{Msg: l.Err.Msg}
}

// Prepare resolves and checks the state in injects (owner's stored
// session, or the inline state), before any session is created: a refused
// state leaves nothing behind. A refusal is kept in Err and returned as a
// *tool.Error.
func (l *Launch) Prepare(ctx context.Context, ss StoredSessions, owner string, in *tool.Input) error {
	refuse := func(err error) error {
		var ie *Error
		if errors.As(err, &ie) {
			l.Err = ie
			return &tool.Error{Msg: ie.Error()}
		}
		return err
	}
	switch {
	case in.StoredSession != "":
		st, err := ss.GetStored(ctx, owner, in.StoredSession)
		if errors.Is(err, store.ErrNotFound) {
			return refuse(&Error{Kind: NotFound, Msg: fmt.Sprintf("no stored session %q; GET /api/stored-sessions lists yours", in.StoredSession)})
		}
		if err != nil {
			return fmt.Errorf("reading stored session %q: %w", in.StoredSession, err)
		}
		l.State, l.Expires = st.State, st.ExpiresAt
		l.Stored, l.StoredAt = st.ID, st.Created
	case len(in.State) > 0 && l.State == nil:
		st, err := storagestate.Parse(in.State)
		if err != nil {
			ie := &Error{Kind: Malformed, Msg: "state is not a valid storageState"}
			if !errors.As(err, &ie.Fields) {
				ie.Msg = err.Error()
			}
			return refuse(ie)
		}
		l.State = st
	}
	if l.State == nil {
		return nil
	}
	dropped, err := Check(l.State, l.Expires, l.Allowed, l.Policy, time.Now())
	if err != nil {
		return refuse(err)
	}
	l.Dropped = dropped
	l.Domains = Domains(l.State)
	return nil
}

// Convert writes the state into a new folder session's folder dir, as a
// Chrome profile (source 003's conversion), when the folder is empty:
// Chromium then starts on it logged in, and the folder stays a profile
// stock Chromium opens. It notes the source in the folder, so that a
// later launch of the same source on it is not converted again. A folder
// that holds anything already is left as it is; the state then goes in
// over CDP like any injected state. exclude gives the cookie domains kept
// out. It returns the notes for the call's answer.
func (l *Launch) Convert(ctx context.Context, dir string, exclude func() []string, log *slog.Logger) ([]string, error) {
	src := l.Source()
	if old, ok, err := userdata.ReadSource(dir); err == nil && ok && old.Same(src) {
		return []string{fmt.Sprintf("folder %s was converted from this %s already (%s): not converted again; the state goes in over CDP on top of what the folder holds now", dir, src.Kind, old.Converted.Local().Format(time.DateTime))}, nil
	}
	empty, err := userdata.Empty(dir)
	if err != nil || !empty {
		return nil, err
	}
	st := *l.State
	st.Cookies = slices.Clone(st.Cookies)
	st.Exclude(exclude())
	start := time.Now()
	res, err := chromeprofile.Build(ctx, &st, dir, start)
	if err != nil {
		return nil, fmt.Errorf("converting the state into folder %s: %w", dir, err)
	}
	src.Converted = start.UTC()
	if err := userdata.WriteSource(dir, src); err != nil {
		log.Warn("noting a converted folder's source failed", "err", err)
	}
	l.Converted = true
	notes := []string{fmt.Sprintf("converted the state into folder %s as a Chrome profile (%d cookies, %d localStorage items of %d origins, %s); stock Chromium opens it logged in too",
		dir, res.Cookies, res.Items, res.Origins, time.Since(start).Round(time.Millisecond))}
	for _, sk := range res.Skipped {
		notes = append(notes, "not converted: "+sk)
	}
	return notes, nil
}

// Source names what the injected state came from, for a converted
// folder's note: the stored session (stored sessions never change), or
// the inline state's hash.
func (l *Launch) Source() userdata.Source {
	b, _ := json.Marshal(l.State)
	sum := sha256.Sum256(b)
	src := userdata.Source{Kind: "inline", Hash: hex.EncodeToString(sum[:])}
	if l.Stored != "" {
		src.Kind, src.Name, src.Modified = "stored", l.Stored, l.StoredAt.UTC()
	}
	return src
}
