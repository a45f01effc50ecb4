package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/browserd/browserd/internal/browser"
	"github.com/browserd/browserd/internal/storagestate"
)

// A profile's state — its whole cookie jar, session-only cookies included,
// and the localStorage and sessionStorage of the origins its tabs visited —
// is saved (encrypted) beside its user-data-dir: after page-changing
// actions (at most once a second, off the action's path), when its browser
// closes, and when the daemon stops. When the profile's browser starts, the
// cookies are set before any page loads, and the storage is put back by a
// script that runs before the pages' own scripts. Chromium keeps persistent
// cookies and localStorage on disk itself; the saved state covers what it
// does not (session cookies, sessionStorage) and a profile that had to be
// recreated.

// statePath is where a profile's state is kept (outside its user-data-dir,
// so a profile moved aside as corrupt keeps it).
func (e *Engine) statePath(profile string) string {
	owner, name := splitName(profile)
	return e.cfg.Path("profiles", owner, name+".state")
}

// contextCookies reads every cookie of a browser context ("" for the
// default one), session-only and HttpOnly ones included.
func contextCookies(ctx context.Context, br *browser.Browser, ctxID string) ([]storagestate.Cookie, error) {
	params := map[string]any{}
	if ctxID != "" {
		params["browserContextId"] = ctxID
	}
	var r struct {
		Cookies []storagestate.CDPCookie `json:"cookies"`
	}
	if err := br.Conn().Browser().Call(ctx, "Storage.getCookies", params, &r); err != nil {
		return nil, fmt.Errorf("reading cookies: %w", err)
	}
	return storagestate.FromCDP(r.Cookies), nil
}

// captureState reads a session's cookies and the storage of its open tabs.
func (e *Engine) captureState(ctx context.Context, br *browser.Browser, s *session) (*storagestate.State, error) {
	e.mu.Lock()
	ctxID := s.ctxID
	var pages []*browser.Page
	for _, t := range s.tasks {
		for _, tb := range t.tabs {
			pages = append(pages, tb.page)
		}
	}
	e.mu.Unlock()
	cookies, err := contextCookies(ctx, br, ctxID)
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

// loadProfileState reads a profile's saved state; nil when there is none.
func (e *Engine) loadProfileState(profile string) (*storagestate.State, error) {
	b, err := os.ReadFile(e.statePath(profile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	plain, err := e.box.Open(b, "profile:"+profile)
	if err != nil {
		return nil, fmt.Errorf("profile %s's saved state: %w", profile, err)
	}
	var st storagestate.State
	if err := json.Unmarshal(plain, &st); err != nil {
		return nil, fmt.Errorf("profile %s's saved state is damaged: %w", profile, err)
	}
	return &st, nil
}

// saveProfile captures a profile session's state and writes it, keeping the
// storage of origins no tab has open now.
func (e *Engine) saveProfile(ctx context.Context, s *session) error {
	if s.profile == "" {
		return nil
	}
	br := e.browserOf(s)
	if br == nil || br.Attached() {
		return nil
	}
	st, err := e.captureState(ctx, br, s)
	if err != nil {
		return err
	}
	if old, err := e.loadProfileState(s.profile); err == nil && old != nil {
		old.Cookies = st.Cookies
		old.MergeOrigins(st.Origins)
		st = old
	}
	plain, err := json.Marshal(st)
	if err != nil {
		return err
	}
	path := e.statePath(s.profile)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, e.box.Seal(plain, "profile:"+s.profile), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// restoreProfile puts a profile's saved state into its freshly started
// browser: cookies now, storage through each new tab's init script.
func (e *Engine) restoreProfile(ctx context.Context, br *browser.Browser, s *session) error {
	st, err := e.loadProfileState(s.profile)
	if err != nil || st == nil {
		return err
	}
	if n := st.Exclude(e.cfg.ExcludeCookieDomains); n > 0 {
		e.log.Info("excluded cookies not restored", "profile", s.profile, "cookies", n)
	}
	if len(st.Cookies) > 0 {
		if err := br.Conn().Browser().Call(ctx, "Storage.setCookies", map[string]any{"cookies": storagestate.ToCDP(st.Cookies)}, nil); err != nil {
			return fmt.Errorf("restoring cookies: %w", err)
		}
	}
	script := storageScript(st.Origins)
	e.mu.Lock()
	s.initScript = script
	e.mu.Unlock()
	return nil
}

// storageScript returns a script that, run before a page's own scripts,
// puts the saved localStorage and sessionStorage of the page's origin back
// (once per tab and origin, and only keys the page does not have).
func storageScript(origins []storagestate.Origin) string {
	return storageScriptMarked(origins, "__browserd_restored")
}

// storageScriptMarked is storageScript with its own sessionStorage marker,
// so that two restores (a resume's and a profile's) do not stop each other.
func storageScriptMarked(origins []storagestate.Origin, marker string) string {
	type items struct {
		L [][2]string `json:"l,omitempty"`
		S [][2]string `json:"s,omitempty"`
	}
	data := map[string]items{}
	for _, o := range origins {
		var it items
		for _, kv := range o.LocalStorage {
			it.L = append(it.L, [2]string{kv.Name, kv.Value})
		}
		for _, kv := range o.SessionStorage {
			it.S = append(it.S, [2]string{kv.Name, kv.Value})
		}
		if len(it.L)+len(it.S) > 0 {
			data[o.Origin] = it
		}
	}
	if len(data) == 0 {
		return ""
	}
	b, _ := json.Marshal(data)
	return `(() => { const d = (` + string(b) + `)[location.origin]; if (!d) return;
  try { if (sessionStorage.getItem('` + marker + `')) return; sessionStorage.setItem('` + marker + `', '1'); } catch (e) { return; }
  try { for (const [k, v] of d.l || []) if (localStorage.getItem(k) === null) localStorage.setItem(k, v); } catch (e) {}
  try { for (const [k, v] of d.s || []) if (sessionStorage.getItem(k) === null) sessionStorage.setItem(k, v); } catch (e) {}
})()`
}

// markDirty asks the saver to save a profile session soon, and the
// capturer to capture the session.
func (e *Engine) markDirty(s *session) {
	e.changed(s)
	if s.profile == "" {
		return
	}
	e.mu.Lock()
	e.dirty[s] = true
	e.mu.Unlock()
}

// saver saves dirty profiles once a second, and captures the sessions
// that are due, off the actions' path.
func (e *Engine) saver() {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-e.stop:
			return
		case <-e.capWake:
			e.captureDue(time.Now())
			continue
		case <-tick.C:
		}
		e.captureDue(time.Now())
		e.mu.Lock()
		var todo []*session
		for s := range e.dirty {
			todo = append(todo, s)
		}
		clear(e.dirty)
		e.mu.Unlock()
		for _, s := range todo {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			err := e.saveProfile(ctx, s)
			if err != nil {
				e.log.Warn("saving profile state failed", "profile", s.profile, "err", err)
			}
			e.noteSave(s, saveProfile, err)
			cancel()
		}
	}
}
