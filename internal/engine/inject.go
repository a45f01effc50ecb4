package engine

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/browserd/browserd/internal/auth"
	"github.com/browserd/browserd/internal/browser"
	"github.com/browserd/browserd/internal/emulation"
	"github.com/browserd/browserd/internal/inject"
	"github.com/browserd/browserd/internal/sessions"
	"github.com/browserd/browserd/internal/store"
	"github.com/browserd/browserd/internal/tool"
)

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
		c.inj = &inject.Launch{Emu: emu}
	}
	return c.inj.Prepare(ctx, c.e.Store, c.owner, in)
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
	emu := c.inj.Emu
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
	if inj != nil && !inj.Emu.IsZero() && c.opened {
		if err := c.emulate(ctx, s); err != nil {
			return err
		}
	}
	if inj == nil || inj.State == nil {
		return nil
	}
	c.res.Content = inject.Hint(c.res.Session, inj.State, inj.Domains, nil)
	if inj.Converted {
		return nil // the browser started on the converted folder
	}
	excluded, err := c.e.LoadState(ctx, c.slot, s, inj.State)
	if err != nil {
		return fmt.Errorf("injecting the state: %w", err)
	}
	if excluded > 0 {
		c.res.Notes = append(c.res.Notes, fmt.Sprintf("%d cookies of excluded domains were left out (--exclude-cookie-domains)", excluded))
	}
	for _, d := range inj.Dropped {
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
	inj := &inject.Launch{State: req.State, Allowed: req.AllowedDomains, Policy: req.Policy, Fresh: true, Emu: req.Emulation}
	res := e.do(ctx, in, inj)
	if inj.Err != nil {
		return inject.Session{}, inj.Err
	}
	if !res.Success {
		if inj.Created {
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
	out := inject.Session{ID: req.Session, State: string(store.Active), Profile: req.Profile, AuthenticatedDomains: inj.Domains, Notes: res.Notes}
	if out.AuthenticatedDomains == nil {
		out.AuthenticatedDomains = []string{}
	}
	out.PromptHint = inject.Hint(req.Session, inj.State, out.AuthenticatedDomains, nil)
	for _, d := range inj.Dropped {
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
// session's folder, as a Chrome profile, when the folder is empty
// (inject.Launch.Convert).
func (c *call) convertInto(ctx context.Context, s *sessions.Session) error {
	inj := c.inj
	if inj == nil || inj.State == nil || s.Dir == "" || !c.opened {
		return nil
	}
	exclude := func() []string { return append(c.e.ExcludedFor(ctx, s), c.e.Cfg.ExcludeCookieDomains...) }
	notes, err := inj.Convert(ctx, s.Dir, exclude, c.e.Log)
	c.res.Notes = append(c.res.Notes, notes...)
	return err
}
