// Package browsers starts, keeps and stops the Chromium processes sessions
// run in — one per profile (its persistent identity), one per folder a
// caller brings, a shared one for ephemeral sessions, or one attached over
// --cdp — and each session's browser context behind the egress guard. A
// browser that died is noticed at the next use and started again.
package browsers

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/browserd/browserd/internal/atrest"
	"github.com/browserd/browserd/internal/browser"
	"github.com/browserd/browserd/internal/chromium"
	"github.com/browserd/browserd/internal/sessions"
	"github.com/browserd/browserd/internal/snapshot"
	"github.com/browserd/browserd/internal/timing"
	"github.com/browserd/browserd/internal/tool"
)

// Pool is the daemon's browsers, kept in the registry's slots.
type Pool struct {
	*sessions.Registry
	Hooks
}

// Hooks is what a starting browser needs of the engine's other rooms.
type Hooks interface {
	// RestoreProfile puts a profile's saved cookies and storage into its
	// browser as it starts.
	RestoreProfile(ctx context.Context, br *browser.Browser, s *sessions.Session) error
	// SaveProfileState saves a profile's state before its browser stops.
	SaveProfileState(ctx context.Context, s *sessions.Session) error
}

// HoldSlot marks a tab being opened in sl until the returned func is
// called: an idle timeout shorter than a slow launch plus a slow tab must
// not close the browser under the tab.
func (e *Pool) HoldSlot(sl *sessions.Slot) func() {
	e.Mu.Lock()
	sl.Opening++
	e.Mu.Unlock()
	return func() {
		e.Mu.Lock()
		sl.Opening--
		sl.Used = time.Now()
		e.Mu.Unlock()
	}
}

// slotKey is the browser a session lives in. Call with mu held or on a
// session whose profile and window are fixed (they never change after
// creation). Ephemeral sessions that launch asked to show otherwise than
// the daemon's --headed share a second browser: "shared-headed" (or
// "shared-headless" in a headed daemon).
func (e *Pool) SlotKey(s *sessions.Session) string {
	switch {
	case e.Cfg.CDP != "":
		return "attached"
	case s.Profile != "":
		return "profile:" + s.Profile
	case s.Dir != "":
		return "dir:" + s.Dir
	case e.Shows(s) != e.Cfg.Headed && e.Shows(s):
		return "shared-headed"
	case e.Shows(s) != e.Cfg.Headed:
		return "shared-headless"
	}
	return "shared"
}

// slotOwner is the owner of the browser a session runs in: the session's
// owner for a profile's or a folder's browser, "" for a browser that
// every owner's sessions share (the shared ones, an attached one).
func (e *Pool) SlotOwner(s *sessions.Session) string {
	if e.Cfg.CDP != "" || (s.Profile == "" && s.Dir == "") {
		return ""
	}
	owner, _ := sessions.SplitName(s.ID)
	return owner
}

// shows reports whether the session's browser shows a window: launch's
// headless when it created the session, else the daemon's --headed.
func (e *Pool) Shows(s *sessions.Session) bool {
	if s.Headed != nil {
		return *s.Headed
	}
	return e.Cfg.Headed
}

// noDisplay is the refusal of a launch with headless: false in a daemon
// that has no display to show the window on; "" when it has one (or
// runs headed, or attached: see checkHeadless).
func NoDisplay() string {
	if os.Getenv("DISPLAY") != "" || os.Getenv("WAYLAND_DISPLAY") != "" {
		return ""
	}
	return "headless: false needs a display: no DISPLAY or WAYLAND_DISPLAY is set for the daemon; leave headless out and watch or take over the tab in the live view instead (status gives each tab's live-view URL when the daemon listens on HTTP, --listen)"
}

// checkHeadless refuses a launch that asks for a window where none can
// be shown, before anything is created.
func (e *Pool) CheckHeadless(in *tool.Input) error {
	if in.Headless == nil || *in.Headless || e.Cfg.Headed || e.Cfg.CDP != "" {
		return nil
	}
	if msg := NoDisplay(); msg != "" {
		return &tool.Error{Msg: msg}
	}
	return nil
}

// browserOf is the running browser of a session's slot, or nil.
func (e *Pool) BrowserOf(s *sessions.Session) *browser.Browser {
	e.Mu.Lock()
	defer e.Mu.Unlock()
	if sl := e.Slots[e.SlotKey(s)]; sl != nil {
		return sl.Br
	}
	return nil
}

// profileDir is a profile's Chromium user-data-dir.
// A profile's name is qualified by its owner (see owners.go).
func (e *Pool) ProfileDir(profile string) string {
	owner, name := sessions.SplitName(profile)
	return e.Cfg.Path("profiles", owner, name)
}

// sealLabel binds a profile's sealed credentials to the profile.
func SealLabel(profile string) string { return "profile-credentials:" + profile }

// closeBrowser closes the browser of slot key and, when it is a profile's,
// seals the cookies and storage Chromium left in the profile folder
// (internal/atrest): nothing of a login stays readable on disk while the
// browser is not running.
func (e *Pool) CloseBrowser(ctx context.Context, key string, br *browser.Browser) error {
	err := br.Close(ctx)
	profile, ok := strings.CutPrefix(key, "profile:")
	if !ok || br.Attached() {
		return err
	}
	if serr := atrest.Seal(e.Box, e.ProfileDir(profile), SealLabel(profile)); serr != nil {
		e.Log.Warn("sealing the profile's credentials failed", "profile", profile, "err", serr)
		return errors.Join(err, serr)
	}
	return err
}

// EnsureBrowser returns the live browser of the session, starting one when
// there is none or the last one died. note is set when a crash was seen.
func (e *Pool) EnsureBrowser(ctx context.Context, s *sessions.Session) (sl *sessions.Slot, note string, err error) {
	return e.ensureBrowser(ctx, s, false)
}

// Warm starts the browser of stand-in's slot before any call needs it
// (--warm: the default profile's, as the daemon starts for a client):
// stand-in is a session no caller sees, made as the first real session
// on the browser will be (recovery.NewSession). The first session that
// uses the browser takes it over (adopt); unused, it is closed after
// --idle-timeout like any browser no session uses. A browser running
// already is left as it is.
func (e *Pool) Warm(ctx context.Context, standIn *sessions.Session) error {
	_, _, err := e.ensureBrowser(ctx, standIn, true)
	return err
}

// adopt hands s the browser of sl that Warm started: what starting it did
// for the stand-in — the profile's saved storage, put back by a script in
// each new tab, and a login check due — is now s's. Call with mu held.
func (e *Pool) adopt(sl *sessions.Slot, s *sessions.Session) {
	w := sl.Warmed
	sl.Warmed = nil
	if s.InitScript == "" {
		s.InitScript = w.InitScript
	}
	s.LoginDue = true
}

// DropWarm closes the browser of s's slot if Warm started it and no
// session took it yet: a launch whose options apply as its browser starts
// (the profile's excluded cookie domains) gets a browser started for it.
func (e *Pool) DropWarm(ctx context.Context, s *sessions.Session) {
	e.LaunchMu.Lock()
	defer e.LaunchMu.Unlock()
	e.Mu.Lock()
	key := e.SlotKey(s)
	sl := e.Slots[key]
	if sl == nil || sl.Warmed == nil || sl.Warmed == s || sl.Br == nil {
		e.Mu.Unlock()
		return
	}
	br := sl.Br
	e.Mu.Unlock()
	e.DropBrowser(sl)
	_ = e.CloseBrowser(context.WithoutCancel(ctx), key, br)
}

func (e *Pool) ensureBrowser(ctx context.Context, s *sessions.Session, warming bool) (sl *sessions.Slot, note string, err error) {
	e.LaunchMu.Lock()
	defer e.LaunchMu.Unlock()
	e.Mu.Lock()
	key, headed := e.SlotKey(s), e.Shows(s)
	if e.Closed {
		e.Mu.Unlock()
		return nil, "", sessions.ErrClosed
	}
	sl = e.Slots[key]
	if sl == nil {
		sl = &sessions.Slot{Key: key, Profile: s.Profile}
		e.Slots[key] = sl
	}
	sl.Owner = e.SlotOwner(s)
	sl.Used = time.Now()
	br := sl.Br
	running := sl.Headed
	mismatch := br != nil && !br.Attached() && running != headed
	unclaimed := sl.Warmed != nil && sl.Warmed != s && !warming
	e.Mu.Unlock()
	if br != nil {
		select {
		case <-br.Done():
			note = fmt.Sprintf("the browser had exited (%s); browserd started a new one", br.DeathReason())
			if e.Cfg.NoCapture {
				note += " and this session's earlier tabs are gone (captures are off: --no-capture)"
			}
			e.Log.Warn("browser died; relaunching", "browser", key, "reason", br.DeathReason())
			e.DropBrowser(sl)
			_ = br.Close(context.WithoutCancel(ctx))
		default:
			switch {
			case warming:
				return sl, "", nil // a call started it first
			case mismatch && unclaimed:
				// Started ahead with the daemon's headless; the session
				// asks for the other: it gets a browser that shows as
				// asked.
				e.DropBrowser(sl)
				_ = e.CloseBrowser(context.WithoutCancel(ctx), key, br)
			case mismatch:
				// A profile's browser that still runs from before its
				// session was made again with another headless.
				return nil, "", tool.Fail("the browser of profile %s runs with headless %v, and headless applies when it starts: close the session (the close action) so that the browser exits, then launch again", sessions.BareName(s.Profile), !running)
			default:
				if unclaimed {
					e.Mu.Lock()
					if sl.Warmed != nil && sl.Br == br {
						e.adopt(sl, s)
					}
					e.Mu.Unlock()
				}
				return sl, "", nil
			}
		}
	}
	br, started, err := e.launch(ctx, s, key, headed)
	note = JoinNote(note, started)
	if err != nil {
		return nil, note, err
	}
	timing.Mark(ctx, "launched")
	spares := e.spareTabs(ctx, br)
	timing.Mark(ctx, "spares")
	if s.Profile != "" && !br.Attached() {
		if err := e.RestoreProfile(ctx, br, s); err != nil {
			e.Log.Warn("profile state not restored", "profile", s.Profile, "err", err)
			note = JoinNote(note, "the profile's saved state could not be restored: "+err.Error())
		}
		timing.Mark(ctx, "restored")
	}
	e.Mu.Lock()
	if e.Closed {
		e.Mu.Unlock()
		_ = br.Close(context.WithoutCancel(ctx))
		return nil, "", sessions.ErrClosed
	}
	sl.Br, sl.Spares, sl.Used, sl.Headed = br, spares, time.Now(), headed
	sl.Warmed = nil
	if warming {
		sl.Warmed = s
	}
	// Its browser started: is it still logged in? (the engine's
	// logincheck.go runs the check it may have)
	s.LoginDue = true
	e.Mu.Unlock()
	return sl, note, nil
}

// launch starts the browser of slot key for s — attached over --cdp, the
// profile's, on the caller's folder, or an ephemeral one — behind the
// guard; note says what had to be repaired on the way.
func (e *Pool) launch(ctx context.Context, s *sessions.Session, key string, headed bool) (br *browser.Browser, note string, err error) {
	start := time.Now()
	if e.Cfg.CDP != "" {
		br, err = browser.Attach(ctx, e.Cfg.CDP)
	} else {
		dir := e.Cfg.Path("run", key)
		proxyURL := e.Proxy.URL()
		if s.Profile != "" || s.Dir != "" {
			dir = cmp.Or(s.Dir, e.ProfileDir(s.Profile))
			eg, err := e.EgressFor(s)
			if err != nil {
				return nil, "", err
			}
			proxyURL = eg.URL()
		} else {
			// Nothing of an ephemeral browser outlives it.
			_ = os.RemoveAll(dir)
		}
		opts := chromium.Options{
			Exec:        e.Cfg.Chromium,
			UserDataDir: dir,
			Headed:      headed,
			Width:       e.Cfg.Width,
			Height:      e.Cfg.Height,
			PIDFile:     e.Cfg.Path("run", PIDFile(key)),
			// Every request of the default context goes through the guard,
			// loopback included (Chromium bypasses proxies for loopback
			// unless told "<-loopback>").
			ExtraArgs: append(e.ProxyArgs(proxyURL), pageMemoryArgs(e.Cfg.PageMemoryMB)...),
			// A profile's or a throwaway folder keeps no record of the
			// pages once the browser stops; a caller's folder is theirs.
			Forget: s.Dir == "",
			// A caller's folder is a Chrome profile of theirs: it runs on
			// Chromium, which restores its session cookies.
			HeadlessShell: e.Cfg.HeadlessShell && s.Dir == "",
		}
		switch {
		case s.Profile != "":
			br, note, err = e.startProfile(ctx, s.Profile, opts)
		case s.Dir != "":
			br, err = startFolder(ctx, opts)
		default:
			br, err = browser.Start(ctx, opts)
		}
	}
	if err != nil {
		return nil, note, err
	}
	br.OnPopup = e.OnPopup
	if err := br.SetDownloads(ctx, "", e.Cfg.Path("downloads")); err != nil {
		e.Log.Warn("downloads folder not set for the default context", "err", err)
	}
	e.Log.Info("browser started", "browser", key, "pid", br.PID(), "attached", br.Attached(), "took", time.Since(start).Round(time.Millisecond))
	return br, note, nil
}

// spareTabs are the blank tabs a browser browserd started opened on its
// own: the first tasks take them instead of opening windows.
func (e *Pool) spareTabs(ctx context.Context, br *browser.Browser) []string {
	if br.Attached() {
		return nil
	}
	var spares []string
	// Chromium answers CDP a moment before it opens its first tab:
	// wait for it briefly, since using it beats opening a window.
	for try := 0; try < 15 && len(spares) == 0; try++ {
		if try > 0 {
			time.Sleep(10 * time.Millisecond)
		}
		targets, err := br.Targets(ctx)
		if err != nil {
			break
		}
		for _, t := range targets {
			if t.Type == "page" && t.URL == "about:blank" && !t.Attached {
				spares = append(spares, t.TargetID)
			}
		}
	}
	return spares
}

// PIDFile is the name of the file that records the pid of slot key's
// Chromium (see chromium.Options.PIDFile).
func PIDFile(key string) string {
	if rest, ok := strings.CutPrefix(key, "dir:"); ok {
		// A path: its session's name stands for it.
		key = "dir-" + strings.TrimPrefix(sessions.FolderSession(rest), "folder-")
	}
	return "chromium-" + strings.ReplaceAll(key, ":", "-") + ".pid"
}

// startFolder starts a browser on a caller's folder: a lock Chromium left
// there when it died is cleared, but a folder Chromium will not start on
// is the caller's to look at, never moved aside as a profile's is.
func startFolder(ctx context.Context, opts chromium.Options) (*browser.Browser, error) {
	if _, err := chromium.ClearStaleLock(opts.UserDataDir); err != nil {
		return nil, &tool.Error{Msg: strings.Replace(err.Error(), "profile folder", "folder", 1)}
	}
	br, err := browser.Start(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("Chromium would not start on folder %s (%w): check that it is a Chrome user-data-dir, or name a new folder", opts.UserDataDir, err)
	}
	return br, nil
}

func (e *Pool) ProxyArgs(url string) []string {
	if e.NoProxy {
		return nil
	}
	// The certificates the guard shows for the sites it presents a
	// client certificate to carry a key only it holds (egress's
	// clientcert.go): Chromium trusts those, and only those.
	return []string{"--proxy-server=" + url, "--proxy-bypass-list=<-loopback>", "--ignore-certificate-errors-spki-list=" + e.Proxy.BridgeSPKI()}
}

// dropBrowser forgets the tabs and contexts of a browser that died.
func (e *Pool) DropBrowser(sl *sessions.Slot) {
	e.Mu.Lock()
	defer e.Mu.Unlock()
	for id, tb := range e.Tabs {
		if e.SlotKey(tb.Task.Sess) == sl.Key {
			delete(e.Tabs, id)
		}
	}
	e.ResetSlot(sl)
}

// resetSlot forgets a browser: its sessions lose their contexts, refs and
// tabs. Call with mu held.
func (e *Pool) ResetSlot(sl *sessions.Slot) {
	sl.Br, sl.Spares, sl.Warmed = nil, nil, nil
	for _, s := range e.Sessions {
		if e.SlotKey(s) != sl.Key {
			continue
		}
		s.CtxID = ""
		s.Refs = snapshot.NewRefs()
		for _, t := range s.Tasks {
			if len(t.Tabs) > 0 && s.Stored && !s.Parked && !e.Cfg.NoCapture {
				s.Rehydrate = true // its tabs come back on its next action
			}
			t.Tabs, t.Active, t.Popups = nil, nil, nil
		}
	}
}

func JoinNote(a, b string) string {
	if a == "" || b == "" {
		return a + b
	}
	return a + "; " + b
}

// startProfile starts a profile's browser, repairing the profile when it
// has to: a lock left by a dead Chromium (or one from another machine) is
// cleared; a profile Chromium still cannot start on is moved aside to
// <name>.corrupt-<time> (the newest three are kept), recreated, and its
// saved state restored — one retry. repaired says what was done.
func (e *Pool) startProfile(ctx context.Context, profile string, opts chromium.Options) (*browser.Browser, string, error) {
	var repaired string
	if cleared, err := chromium.ClearStaleLock(opts.UserDataDir); err != nil {
		return nil, "", err
	} else if cleared {
		repaired = "cleared a stale lock left in the profile by a Chromium that is gone"
		e.Log.Warn("cleared a stale profile lock", "profile", profile)
	}
	// The profile's cookies and storage come out of their seal (see
	// sealProfile).
	if err := atrest.Open(e.Box, opts.UserDataDir, SealLabel(profile)); err != nil {
		e.Log.Warn("profile credentials not restored", "profile", profile, "err", err)
		repaired = JoinNote(repaired, err.Error())
	}
	br, err := browser.Start(ctx, opts)
	if err == nil {
		return br, repaired, nil
	}
	if _, statErr := os.Stat(opts.UserDataDir); statErr != nil {
		return nil, repaired, err
	}
	aside, mvErr := chromium.MoveAside(opts.UserDataDir, 3)
	if mvErr != nil {
		return nil, repaired, fmt.Errorf("%w; and the profile could not be moved aside: %w", err, mvErr)
	}
	e.Log.Warn("profile would not start; moved aside and recreated", "profile", profile, "err", err, "kept", aside)
	e.Mu.Lock()
	e.Repairs[profile] = fmt.Sprintf("%s: Chromium would not start on it (%v); moved aside to %s and recreated from the saved state", time.Now().Format(time.RFC3339), err, aside)
	e.Mu.Unlock()
	br, err2 := browser.Start(ctx, opts)
	if err2 != nil {
		return nil, repaired, fmt.Errorf("profile %s would not start (%v), nor once recreated: %w", profile, err, err2)
	}
	return br, JoinNote(repaired, fmt.Sprintf("profile %s would not start; it was moved aside to %s, recreated and its saved state restored", profile, aside)), nil
}

// StopUnused closes the browsers none of whose sessions has a tab left and
// that nobody picked up after unusedSince (profile state saved first),
// and returns their keys. only, when set, limits it to that browser and
// also spares one any open session still lives in (a session with no tab
// yet keeps its context, its injected login with it). An attached browser
// (--cdp) is never closed.
func (e *Pool) StopUnused(ctx context.Context, only string, unusedSince time.Time) []string {
	e.Mu.Lock()
	busy := map[string]bool{}
	for _, tb := range e.Tabs {
		busy[e.SlotKey(tb.Task.Sess)] = true
	}
	for _, s := range e.Sessions {
		if s.Resuming != nil {
			busy[e.SlotKey(s)] = true // its tabs are on their way
		}
	}
	if only != "" {
		for _, s := range e.Sessions {
			if s.Stored && !s.Parked && !s.Closing {
				busy[e.SlotKey(s)] = true
			}
		}
	}
	var idleSlots []*sessions.Slot
	for key, sl := range e.Slots {
		if sl.Br == nil || busy[key] || sl.Opening > 0 || sl.Used.After(unusedSince) || (only != "" && key != only) || sl.Br.Attached() {
			continue
		}
		idleSlots = append(idleSlots, sl)
	}
	var toSave []*sessions.Session
	for _, s := range e.Sessions {
		for _, sl := range idleSlots {
			if s.Profile != "" && e.SlotKey(s) == sl.Key {
				toSave = append(toSave, s)
			}
		}
	}
	e.Mu.Unlock()
	for _, s := range toSave {
		if err := e.SaveProfileState(ctx, s); err != nil {
			e.Log.Warn("saving profile state failed", "profile", s.Profile, "err", err)
		}
	}
	type idleBrowser struct {
		key string
		br  *browser.Browser
	}
	var idleBrowsers []idleBrowser
	e.LaunchMu.Lock() // no action can start one of these browsers meanwhile
	e.Mu.Lock()
	for _, sl := range idleSlots {
		// Look again: an action may have picked the browser up meanwhile.
		used := false
		for _, tb := range e.Tabs {
			if e.SlotKey(tb.Task.Sess) == sl.Key {
				used = true
			}
		}
		if sl.Br != nil && !used && sl.Opening == 0 && !sl.Used.After(unusedSince) {
			idleBrowsers = append(idleBrowsers, idleBrowser{sl.Key, sl.Br})
			e.ResetSlot(sl)
		}
	}
	e.Mu.Unlock()
	e.LaunchMu.Unlock()
	var keys []string
	for _, ib := range idleBrowsers {
		_ = e.CloseBrowser(ctx, ib.key, ib.br)
		e.Log.Info("closed a browser no session uses", "browser", ib.key)
		keys = append(keys, ib.key)
	}
	return keys
}

// pageMemoryArgs bounds V8's heap in each renderer (--page-memory): a
// page past it crashes its own tab, not the machine's memory.
func pageMemoryArgs(mb int) []string {
	if mb <= 0 {
		return nil
	}
	return []string{fmt.Sprintf("--js-flags=--max-old-space-size=%d", mb)}
}
