package engine

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/browserd/browserd/internal/auth"
	"github.com/browserd/browserd/internal/browser"
	"github.com/browserd/browserd/internal/chromeprofile"
	"github.com/browserd/browserd/internal/emulation"
	"github.com/browserd/browserd/internal/inject"
	"github.com/browserd/browserd/internal/sessions"
	"github.com/browserd/browserd/internal/storagestate"
	"github.com/browserd/browserd/internal/store"
	"github.com/browserd/browserd/internal/tool"
	"github.com/browserd/browserd/internal/userdata"
)

// injection carries an injected state through a launch call: what to
// inject and check (in), what it did (out).
type injection struct {
	state   *storagestate.State
	expires time.Time // the stored session's expiresAt
	allowed []string
	policy  inject.Policy

	// fresh: the session must be new (POST /api/sessions); one made live
	// meanwhile by another call is a conflict.
	fresh bool
	// created: the call made the session (so a failed Inject closes it).
	created bool

	// emu is the environment the new session's pages see.
	emu browser.Emulation
	// stored and storedAt name the stored session the state comes from
	// ("" for an inline state): a converted folder notes them.
	stored   string
	storedAt time.Time
	// converted: the state was written into a new folder session's
	// folder before its browser started (convertInto), not injected.
	converted bool

	domains []string
	dropped storagestate.Errors
	err     *inject.Error // the refusal, for Inject's caller
}

// conflict refuses a fresh session whose name another call took.
func (inj *injection) conflict(id string) error {
	inj.err = &inject.Error{Kind: inject.Conflict, Msg: fmt.Sprintf("session %q is active; pick another name, or DELETE it first", sessions.BareName(id))}
	return &userError{Msg: inj.err.Msg}
}

// prepareInjection resolves and checks the state a launch injects, before
// any session is created: a refused state leaves nothing behind.
func (c *call) prepareInjection(ctx context.Context) error {
	in := &c.in
	if c.inj == nil {
		emu, err := emulation.Launch(in)
		if err != nil {
			return &userError{Msg: err.Error()}
		}
		if len(in.State) == 0 && in.StoredSession == "" && emu.IsZero() {
			return nil
		}
		if fields := emu.Check(); len(fields) > 0 {
			return fail("launch: %v", fields)
		}
		c.inj = &injection{emu: emu}
	}
	inj := c.inj
	refuse := func(err error) error {
		var ie *inject.Error
		if errors.As(err, &ie) {
			inj.err = ie
			return &userError{Msg: ie.Error()}
		}
		return err
	}
	switch {
	case in.StoredSession != "":
		ss, err := c.e.Store.GetStored(ctx, c.owner, in.StoredSession)
		if errors.Is(err, store.ErrNotFound) {
			return refuse(&inject.Error{Kind: inject.NotFound, Msg: fmt.Sprintf("no stored session %q; GET /api/stored-sessions lists yours", in.StoredSession)})
		}
		if err != nil {
			return fmt.Errorf("reading stored session %q: %w", in.StoredSession, err)
		}
		inj.state, inj.expires = ss.State, ss.ExpiresAt
		inj.stored, inj.storedAt = ss.ID, ss.Created
	case len(in.State) > 0 && inj.state == nil:
		st, err := storagestate.Parse(in.State)
		if err != nil {
			ie := &inject.Error{Kind: inject.Malformed, Msg: "state is not a valid storageState"}
			if !errors.As(err, &ie.Fields) {
				ie.Msg = err.Error()
			}
			return refuse(ie)
		}
		inj.state = st
	}
	if inj.state == nil {
		return nil
	}
	dropped, err := inject.Check(inj.state, inj.expires, inj.allowed, inj.policy, time.Now())
	if err != nil {
		return refuse(err)
	}
	inj.dropped = dropped
	inj.domains = inject.Domains(inj.state)
	return nil
}

// sameEnvironment refuses a launch on a session that already runs (the
// call did not create it) when it asks for another environment or window
// than the session has (emulation.Same).
func (e *Engine) sameEnvironment(s *sessions.Session, in *tool.Input) error {
	e.Mu.Lock()
	emu, shows := s.Emu, e.Shows(s)
	e.Mu.Unlock()
	return emulation.Same(sessions.BareName(s.ID), emu, shows, e.Cfg.CDP != "", in)
}

// emulate gives the launched session its environment: for its tabs to come
// and those it has.
func (c *call) emulate(ctx context.Context, s *sessions.Session) error {
	emu := c.inj.emu
	e := c.e
	ctxID, err := e.ContextFor(ctx, c.slot, s)
	if err != nil {
		return err
	}
	if emu.Geolocation != nil {
		if err := inject.GrantGeolocation(ctx, c.slot.Br, ctxID); err != nil {
			return fmt.Errorf("granting the position: %w", err)
		}
	}
	e.Mu.Lock()
	s.Emu = emu
	pages := s.Pages()
	e.Mu.Unlock()
	for _, pg := range pages {
		if err := pg.Emulate(ctx, emu); err != nil {
			return err
		}
	}
	e.MarkDirty(s)
	return nil
}

// injectState puts the prepared state into the launched session.
func (c *call) injectState(ctx context.Context, s *sessions.Session) error {
	inj := c.inj
	if inj != nil && !inj.emu.IsZero() && c.opened {
		if err := c.emulate(ctx, s); err != nil {
			return err
		}
	}
	if inj == nil || inj.state == nil {
		return nil
	}
	c.res.Content = inject.Hint(c.res.Session, inj.state, inj.domains, nil)
	if inj.converted {
		return nil // the browser started on the converted folder
	}
	excluded, err := c.e.LoadState(ctx, c.slot, s, inj.state)
	if err != nil {
		return fmt.Errorf("injecting the state: %w", err)
	}
	if excluded > 0 {
		c.res.Notes = append(c.res.Notes, fmt.Sprintf("%d cookies of excluded domains were left out (--exclude-cookie-domains)", excluded))
	}
	for _, d := range inj.dropped {
		c.res.Notes = append(c.res.Notes, "dropped (domainPolicy filter): "+d.Msg)
	}
	return nil
}

// Inject creates a session for the caller's owner with an injected state
// (POST /api/sessions). Refusals are *inject.Error.
func (e *Engine) Inject(ctx context.Context, req inject.Request) (inject.Session, error) {
	owner := auth.Owner(ctx)
	if err := e.OwnerAllowed(owner); err != nil {
		return inject.Session{}, &inject.Error{Kind: inject.Malformed, Msg: err.Error()}
	}
	if req.Session == "" {
		req.Session = req.Profile
	}
	if req.Session == "" {
		b := make([]byte, 4)
		rand.Read(b)
		req.Session = "s-" + hex.EncodeToString(b)
	}
	if err := sessions.CheckName("session", req.Session); err != nil {
		return inject.Session{}, &inject.Error{Kind: inject.Malformed, Msg: err.Error()}
	}
	if req.Profile != "" && req.Profile != req.Session {
		return inject.Session{}, &inject.Error{Kind: inject.Malformed, Msg: fmt.Sprintf("a profile's session is named like the profile: leave out name, or set it to %q", req.Profile)}
	}
	q := sessions.Qualify(owner, req.Session)
	e.Mu.Lock()
	s := e.Sessions[q]
	live := s != nil && s.Stored && !s.Parked
	e.Mu.Unlock()
	if live {
		return inject.Session{}, &inject.Error{Kind: inject.Conflict, Msg: fmt.Sprintf("session %q is active; pick another name, or DELETE /api/sessions/%s first", req.Session, req.Session)}
	}
	if row, err := e.Store.GetSession(ctx, q); err == nil && (row.State == store.Active || row.State == store.Recoverable) {
		return inject.Session{}, &inject.Error{Kind: inject.Conflict, Msg: fmt.Sprintf("session %q is %s; resume it, pick another name, or DELETE it first", req.Session, row.State)}
	}
	in := tool.Input{Action: "launch", Session: req.Session, Profile: req.Profile, StoredSession: req.StoredID, Width: req.Width, Height: req.Height, Headless: req.Headless, UserDataDir: req.UserDataDir}
	if err := in.Validate(); err != nil {
		return inject.Session{}, &inject.Error{Kind: inject.Malformed, Msg: err.Error()}
	}
	if err := e.CheckHeadless(&in); err != nil {
		return inject.Session{}, &inject.Error{Kind: inject.Malformed, Msg: err.Error()}
	}
	if fields := req.Emulation.Check(); len(fields) > 0 {
		return inject.Session{}, &inject.Error{Kind: inject.Malformed, Msg: "the emulation settings are not valid", Fields: fields}
	}
	inj := &injection{state: req.State, allowed: req.AllowedDomains, policy: req.Policy, fresh: true, emu: req.Emulation}
	res := e.do(ctx, in, inj)
	if inj.err != nil {
		return inject.Session{}, inj.err
	}
	if !res.Success {
		if inj.created {
			// Nothing half-made stays behind: a retry can use the name.
			if err := e.CloseSession(ctx, req.Session); err != nil {
				e.Log.Warn("closing a session whose creation failed", "session", req.Session, "err", err)
			}
		}
		if strings.Contains(res.Error, "is in use") || strings.Contains(res.Error, "another browserd") || strings.Contains(res.Error, "earlier run") {
			return inject.Session{}, &inject.Error{Kind: inject.Conflict, Msg: res.Error}
		}
		return inject.Session{}, errors.New(res.Error)
	}
	out := inject.Session{ID: req.Session, State: string(store.Active), Profile: req.Profile, AuthenticatedDomains: inj.domains, Notes: res.Notes}
	if out.AuthenticatedDomains == nil {
		out.AuthenticatedDomains = []string{}
	}
	out.PromptHint = inject.Hint(req.Session, inj.state, out.AuthenticatedDomains, nil)
	for _, d := range inj.dropped {
		out.Dropped = append(out.Dropped, d.Path+": "+d.Msg)
	}
	return out, nil
}

// setCredentials gives the session the launch call's HTTP logins, for its
// tabs to come and those it has. A login replaces the one of its origin.
func (c *call) setCredentials(ctx context.Context, s *sessions.Session) error {
	e := c.e
	e.Mu.Lock()
	creds := slices.Clone(s.Creds)
	e.Mu.Unlock()
	var origins []string
	for i, hc := range c.in.HTTPCredentials {
		origin, err := browser.CanonicalOrigin(hc.Origin)
		if err != nil {
			return fail("httpCredentials[%d]: %v", i, err)
		}
		creds = slices.DeleteFunc(creds, func(cr browser.Credential) bool { return cr.Origin == origin })
		creds = append(creds, browser.Credential{Origin: origin, Username: hc.Username, Password: hc.Password})
		origins = append(origins, origin)
	}
	e.Mu.Lock()
	s.Creds = creds
	pages := s.Pages()
	e.Mu.Unlock()
	for _, pg := range pages {
		if err := pg.SetCredentials(ctx, creds); err != nil && !pg.Closed() {
			return fmt.Errorf("giving a tab the HTTP logins: %w", err)
		}
	}
	e.MarkDirty(s)
	c.res.Notes = append(c.res.Notes, "HTTP logins set for "+strings.Join(origins, ", "))
	return nil
}

// convertInto writes the state a launch injects into the new folder
// session's folder, as a Chrome profile (source 003's conversion), when
// the folder is empty: Chromium then starts on it logged in, and the
// folder stays a profile stock Chromium opens. It notes the source in the
// folder, so that a later launch of the same source on it is not
// converted again. A folder that holds anything already is left as it is;
// the state then goes in over CDP like any injected state.
func (c *call) convertInto(ctx context.Context, s *sessions.Session) error {
	inj := c.inj
	if inj == nil || inj.state == nil || s.Dir == "" || !c.opened {
		return nil
	}
	src := inj.source()
	if old, ok, err := userdata.ReadSource(s.Dir); err == nil && ok && old.Same(src) {
		c.res.Notes = append(c.res.Notes, fmt.Sprintf("folder %s was converted from this %s already (%s): not converted again; the state goes in over CDP on top of what the folder holds now", s.Dir, src.Kind, old.Converted.Local().Format(time.DateTime)))
		return nil
	}
	empty, err := userdata.Empty(s.Dir)
	if err != nil || !empty {
		return err
	}
	st := *inj.state
	st.Cookies = slices.Clone(st.Cookies)
	st.Exclude(append(c.e.ExcludedFor(ctx, s), c.e.Cfg.ExcludeCookieDomains...))
	start := time.Now()
	res, err := chromeprofile.Build(ctx, &st, s.Dir, start)
	if err != nil {
		return fmt.Errorf("converting the state into folder %s: %w", s.Dir, err)
	}
	src.Converted = start.UTC()
	if err := userdata.WriteSource(s.Dir, src); err != nil {
		c.e.Log.Warn("noting a converted folder's source failed", "err", err)
	}
	inj.converted = true
	c.res.Notes = append(c.res.Notes, fmt.Sprintf("converted the state into folder %s as a Chrome profile (%d cookies, %d localStorage items of %d origins, %s); stock Chromium opens it logged in too",
		s.Dir, res.Cookies, res.Items, res.Origins, time.Since(start).Round(time.Millisecond)))
	for _, sk := range res.Skipped {
		c.res.Notes = append(c.res.Notes, "not converted: "+sk)
	}
	return nil
}

// source names what the injected state came from, for a converted
// folder's note: the stored session (stored sessions never change), or
// the inline state's hash.
func (inj *injection) source() userdata.Source {
	b, _ := json.Marshal(inj.state)
	sum := sha256.Sum256(b)
	src := userdata.Source{Kind: "inline", Hash: hex.EncodeToString(sum[:])}
	if inj.stored != "" {
		src.Kind, src.Name, src.Modified = "stored", inj.stored, inj.storedAt.UTC()
	}
	return src
}
