// Package profiles keeps each profile's login. A profile's state — its
// whole cookie jar, session-only cookies included, and the localStorage
// and sessionStorage of the origins its tabs visited — is saved (encrypted) beside its user-data-dir: after page-changing
// actions (at most once a second, off the action's path), when its browser
// closes, and when the daemon stops. When the profile's browser starts, the
// cookies are set before any page loads, and the storage is put back by a
// script that runs before the pages' own scripts. Chromium keeps persistent
// cookies and localStorage on disk itself; the saved state covers what it
// does not (session cookies, sessionStorage) and a profile that had to be
// recreated.
//
// It also loads a storageState into a running session (state_load), and
// keeps the cookie domains a profile never gets back.
package profiles

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/browserd/browserd/internal/auth"
	"github.com/browserd/browserd/internal/browser"
	"github.com/browserd/browserd/internal/browsers"
	"github.com/browserd/browserd/internal/inject"
	"github.com/browserd/browserd/internal/recovery"
	"github.com/browserd/browserd/internal/sessions"
	"github.com/browserd/browserd/internal/storagestate"
	"github.com/browserd/browserd/internal/store"
	"github.com/browserd/browserd/internal/tool"
)

// Keeper saves and restores profiles' state. It shares the engine's
// registry, starts browsers' contexts through the pool, and marks sessions
// for capture through recovery.
type Keeper struct {
	*sessions.Registry
	*browsers.Pool
	*recovery.Recovery
}

// StatePath is where a profile's state is kept (outside its user-data-dir,
// so a profile moved aside as corrupt keeps it).
func (e *Keeper) StatePath(profile string) string {
	owner, name := sessions.SplitName(profile)
	return e.Cfg.Path("profiles", owner, name+".state")
}

// captureState reads a session's cookies and the storage of its open tabs.
func (e *Keeper) CaptureState(ctx context.Context, br *browser.Browser, s *sessions.Session) (*storagestate.State, error) {
	e.Mu.Lock()
	ctxID := s.CtxID
	pages := s.Pages()
	e.Mu.Unlock()
	cookies, err := inject.ContextCookies(ctx, br, ctxID)
	if err != nil {
		return nil, err
	}
	st := &storagestate.State{Cookies: cookies, Origins: []storagestate.Origin{}}
	for _, pg := range pages {
		if pg.Closed() || pg.Dialog() != nil {
			continue // a dialog blocks the page's scripts
		}
		pctx, cancel := context.WithTimeout(ctx, time.Second)
		var o struct {
			Origin  string      `json:"origin"`
			Local   [][2]string `json:"local"`
			Session [][2]string `json:"session"`
		}
		err := pg.Run(pctx, `(() => { try { return {origin: location.origin,
			local: Object.entries(localStorage), session: Object.entries(sessionStorage).filter(([k]) => !k.startsWith('__browserd_'))};
			} catch (e) { return {origin: ''} } })()`, &o)
		cancel()
		if err != nil || (len(o.Origin) < 7 || (o.Origin[:7] != "http://" && (len(o.Origin) < 8 || o.Origin[:8] != "https://"))) {
			continue
		}
		origin := storagestate.Origin{Origin: o.Origin, LocalStorage: []storagestate.NameValue{}}
		for _, kv := range o.Local {
			origin.LocalStorage = append(origin.LocalStorage, storagestate.NameValue{Name: kv[0], Value: kv[1]})
		}
		for _, kv := range o.Session {
			origin.SessionStorage = append(origin.SessionStorage, storagestate.NameValue{Name: kv[0], Value: kv[1]})
		}
		st.MergeOrigins([]storagestate.Origin{origin})
	}
	return st, nil
}

// loadProfileState reads a profile's saved state, the newer of the copy
// beside its user-data-dir and the store's (which another node sharing the
// store may have written); nil when there is none. fromStore is set when
// the store's copy is the newer: the user-data-dir is then an older cache.
func (e *Keeper) LoadProfileState(ctx context.Context, profile string) (st *storagestate.State, fromStore bool, err error) {
	var (
		plain []byte
		at    time.Time
	)
	b, ferr := os.ReadFile(e.StatePath(profile))
	switch {
	case errors.Is(ferr, os.ErrNotExist):
	case ferr != nil:
		return nil, false, ferr
	default:
		if plain, err = e.Box.Open(b, "profile:"+profile); err != nil {
			return nil, false, fmt.Errorf("profile %s's saved state: %w", profile, err)
		}
		if fi, err := os.Stat(e.StatePath(profile)); err == nil {
			at = fi.ModTime()
		}
	}
	owner, name := sessions.SplitName(profile)
	sp, sat, serr := e.Store.LoadProfileState(ctx, owner, name)
	switch {
	case errors.Is(serr, store.ErrNotFound):
	case serr != nil:
		e.Log.Warn("reading a profile's state from the store failed; using the local copy", "profile", profile, "err", serr)
	case plain == nil || sat.After(at.Add(time.Second)):
		plain, fromStore = sp, true
	}
	if plain == nil {
		return nil, false, nil
	}
	var out storagestate.State
	if err := json.Unmarshal(plain, &out); err != nil {
		return nil, false, fmt.Errorf("profile %s's saved state is damaged: %w", profile, err)
	}
	return &out, fromStore, nil
}

// saveProfile captures a profile session's state and writes it, keeping the
// storage of origins no tab has open now.
func (e *Keeper) SaveProfileState(ctx context.Context, s *sessions.Session) error {
	if s.Profile == "" {
		return nil
	}
	br := e.BrowserOf(s)
	if br == nil || br.Attached() {
		return nil
	}
	// Chromium ends a context's session cookies with its last tab: a
	// session whose tabs were all closed would save a jar without its
	// login. The save made while the tabs were open (closeTask makes
	// one) stands. The last tabs are not closed while a save reads the
	// jar (sessions.Registry.EndTabs).
	s.SaveMu.Lock()
	defer s.SaveMu.Unlock()
	e.Mu.Lock()
	ended := s.TabsEnded
	e.Mu.Unlock()
	if ended {
		return nil
	}
	st, err := e.CaptureState(ctx, br, s)
	if err != nil {
		return err
	}
	if old, _, err := e.LoadProfileState(ctx, s.Profile); err == nil && old != nil {
		old.Cookies = st.Cookies
		old.MergeOrigins(st.Origins)
		st = old
	}
	plain, err := json.Marshal(st)
	if err != nil {
		return err
	}
	taken := time.Now()
	path := e.StatePath(s.Profile)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, e.Box.Seal(plain, "profile:"+s.Profile), 0o600); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	// And in the store, for the nodes sharing it (docs/cluster.md).
	owner, name := sessions.SplitName(s.Profile)
	return e.Store.SaveProfileState(ctx, owner, name, plain, taken)
}

// restoreProfile puts a profile's saved state into its freshly started
// browser: cookies now, storage through each new tab's init script.
func (e *Keeper) RestoreProfile(ctx context.Context, br *browser.Browser, s *sessions.Session) error {
	st, fromStore, err := e.LoadProfileState(ctx, s.Profile)
	if err != nil || st == nil {
		return err
	}
	if n := st.Exclude(e.ExcludedFor(ctx, s)); n > 0 {
		e.Log.Info("excluded cookies not restored", "profile", s.Profile, "cookies", n)
	}
	if fromStore {
		// Another node ran the profile last: what this node's
		// user-data-dir holds is older (a logout there must not come back
		// to life here).
		if err := br.Conn().Browser().Call(ctx, "Storage.clearCookies", map[string]any{}, nil); err != nil {
			return fmt.Errorf("clearing the profile's older cookies: %w", err)
		}
	}
	if len(st.Cookies) > 0 {
		if err := br.Conn().Browser().Call(ctx, "Storage.setCookies", map[string]any{"cookies": storagestate.ToCDP(st.Cookies)}, nil); err != nil {
			return fmt.Errorf("restoring cookies: %w", err)
		}
	}
	script := inject.StorageScript(st.Origins)
	e.Mu.Lock()
	s.InitScript = script
	e.Mu.Unlock()
	return nil
}

// markDirty asks the saver to save a profile session soon, and the
// capturer to capture the session.
func (e *Keeper) MarkDirty(s *sessions.Session) {
	e.Changed(s)
	if s.Profile == "" {
		return
	}
	e.Mu.Lock()
	e.Dirty[s] = true
	e.Mu.Unlock()
}

// saver saves dirty profiles once a second, and captures the sessions
// that are due (every capTick), off the actions' path.
func (e *Keeper) Saver() {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	capTick := time.NewTicker(e.CapTick())
	defer capTick.Stop()
	for {
		select {
		case <-e.Stop:
			return
		case <-e.CapWake:
			e.CaptureDue(time.Now())
			continue
		case <-capTick.C:
			e.CaptureDue(time.Now())
			continue
		case <-tick.C:
		}
		e.Mu.Lock()
		var todo []*sessions.Session
		for s := range e.Dirty {
			todo = append(todo, s)
		}
		clear(e.Dirty)
		e.Mu.Unlock()
		for _, s := range todo {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			err := e.SaveProfileState(ctx, s)
			if err != nil {
				e.Log.Warn("saving profile state failed", "profile", s.Profile, "err", err)
			}
			e.NoteSave(s, sessions.SaveProfile, err)
			cancel()
		}
	}
}

// excludedFor is every cookie domain never put back into s (source 000's
// cookie domain filtering): the daemon's --exclude-cookie-domains for a
// profile's session, the profile's own list (kept in the store, set by
// launch or PUT /api/profiles/{name}/exclude-cookie-domains), and the
// session's (launch's excludeCookieDomains).
func (e *Keeper) ExcludedFor(ctx context.Context, s *sessions.Session) []string {
	e.Mu.Lock()
	out := slices.Clone(s.Exclude)
	profile := s.Profile
	e.Mu.Unlock()
	if profile == "" {
		return out
	}
	out = append(out, e.Cfg.ExcludeCookieDomains...)
	owner, name := sessions.SplitName(profile)
	if ds, err := e.Store.ProfileExcludes(ctx, owner, name); err != nil {
		e.Log.Warn("reading a profile's excluded cookie domains failed", "profile", profile, "err", err)
	} else {
		out = append(out, ds...)
	}
	return out
}

// ProfileExcludes returns the excluded cookie domains of owner's profile
// (GET /api/profiles/{name}/exclude-cookie-domains).
func (e *Keeper) ProfileExcludes(ctx context.Context, name string) ([]string, error) {
	owner := auth.Owner(ctx)
	if err := sessions.CheckName("profile", name); err != nil {
		return nil, &tool.Error{Msg: err.Error()}
	}
	o, n := sessions.SplitName(sessions.Qualify(owner, name))
	ds, err := e.Store.ProfileExcludes(ctx, o, n)
	if ds == nil {
		ds = []string{}
	}
	return ds, err
}

// SetProfileExcludes sets them (PUT …); they apply from the profile's next
// restore of saved cookies (its browser's next start, a resume, a
// state_load).
func (e *Keeper) SetProfileExcludes(ctx context.Context, name string, domains []string) error {
	owner := auth.Owner(ctx)
	if err := sessions.CheckName("profile", name); err != nil {
		return &tool.Error{Msg: err.Error()}
	}
	if err := tool.CheckDomains(domains); err != nil {
		return &tool.Error{Msg: "excluded cookie domains: " + err.Error()}
	}
	o, n := sessions.SplitName(sessions.Qualify(owner, name))
	return e.Store.SetProfileExcludes(ctx, o, n, NormDomains(domains))
}

// normDomains lower-cases domains, drops leading dots and repeats.
func NormDomains(ds []string) []string {
	out := make([]string, 0, len(ds))
	for _, d := range ds {
		d = strings.ToLower(strings.TrimPrefix(strings.TrimSpace(d), "."))
		if d != "" && !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

// loadState puts st into the session: cookies at once, storage into every
// page loaded from now on (before the page's own scripts). It returns how
// many cookies --exclude-cookie-domains left out.
func (e *Keeper) LoadState(ctx context.Context, sl *sessions.Slot, s *sessions.Session, st *storagestate.State) (int, error) {
	excluded := st.Exclude(append(e.ExcludedFor(ctx, s), e.Cfg.ExcludeCookieDomains...))
	if _, err := e.ContextFor(ctx, sl, s); err != nil {
		return 0, err
	}
	e.Mu.Lock()
	ctxID := s.CtxID
	e.Mu.Unlock()
	if len(st.Cookies) > 0 {
		params := map[string]any{"cookies": storagestate.ToCDP(st.Cookies)}
		if ctxID != "" {
			params["browserContextId"] = ctxID
		}
		if err := sl.Br.Conn().Browser().Call(ctx, "Storage.setCookies", params, nil); err != nil {
			return 0, fmt.Errorf("setting cookies: %w", err)
		}
	}
	script := inject.StorageScript(st.Origins)
	e.Mu.Lock()
	// The state's domains are logins put in on purpose: the prompt hint
	// names them, unlike the cookies pages set later.
	s.Injected = slices.Compact(slices.Sorted(slices.Values(append(slices.Clone(s.Injected), inject.Domains(st)...))))
	if script != "" {
		s.InitScript = inject.CombineScripts(s.InitScript, script)
	}
	pages := s.Pages()
	e.Mu.Unlock()
	if script != "" {
		for _, pg := range pages {
			_ = pg.AddInitScript(ctx, script)
		}
	}
	e.MarkDirty(s)
	return excluded, nil
}
