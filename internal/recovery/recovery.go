// Package recovery brings sessions back (source 002). Every session has a row in the store. While it
// lives, this daemon holds its lease and captures its state — every tab's
// URL, title, viewport and sessionStorage, the context's cookies and the
// localStorage of the tabs' origins — after state-changing actions, at
// most once per --snapshot-interval (the capturer goroutine does it, off
// the actions' path), when its pages changed something on their own (a
// probe every interval, capture.go), and always when a task closes, when
// the session goes idle and when the daemon stops. At start-up the
// store's Recover sorts the sessions an earlier run left active into
// closed, stale and recoverable; session_resume (or --auto-rehydrate, or
// simply the next action on the session) brings a recoverable one back
// from its last capture, or from any kept capture session_resume's
// capture names. When Chromium dies under a session, its next action does
// the same in the new browser.
package recovery

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/browserd/browserd/internal/browser"
	"github.com/browserd/browserd/internal/inject"
	"github.com/browserd/browserd/internal/sessions"
	"github.com/browserd/browserd/internal/snapshot"
	"github.com/browserd/browserd/internal/storagestate"
	"github.com/browserd/browserd/internal/store"
	"github.com/browserd/browserd/internal/timing"
	"github.com/browserd/browserd/internal/tool"
	"github.com/browserd/browserd/internal/untrusted"
	"github.com/browserd/browserd/internal/userdata"
)

// Recovery captures sessions and brings them back: at start-up, on
// session_resume, after a browser crash, and tab by tab as lazy tabs are
// used. It shares the engine's registry, and reaches the engine's other
// rooms through Rooms.
type Recovery struct {
	*sessions.Registry
	Rooms
}

// Rooms is what recovery needs of the rest of the engine: browsers and
// their contexts to open pages in, tasks to put the tabs in, and the
// profile state and folders a session is restored with.
type Rooms interface {
	EnsureBrowser(ctx context.Context, s *sessions.Session) (sl *sessions.Slot, note string, err error)
	BrowserOf(s *sessions.Session) *browser.Browser
	HoldSlot(sl *sessions.Slot) func()
	ContextFor(ctx context.Context, sl *sessions.Slot, s *sessions.Session) (string, error)
	SpareTab(sl *sessions.Slot, br *browser.Browser) string
	FetchGuard(s *sessions.Session) func(ctx context.Context, raw string) error
	TaskFor(s *sessions.Session, name string) (*sessions.Task, error)
	LeaseTTL() time.Duration
	StatePath(profile string) string
	SaveProfileState(ctx context.Context, s *sessions.Session) error
	ExcludedFor(ctx context.Context, s *sessions.Session) []string
	CheckFolder(id, dir string) error
	UserDataRoots(owner string) []string
	// CheckLogin runs the session's login check when one is due (a
	// resume makes it due) and returns what it found ("" when none ran).
	CheckLogin(ctx context.Context, s *sessions.Session) string
}

// isDone reports whether ch is closed.
func isDone(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// NotRestored is source 002's "cannot persist" list, told with every
// resume.
const NotRestored = "not restored: requests, timers, dialogs, uploads, WebSockets, refs"

// nodeID returns this data folder's node name for leases, made on first
// use: a daemon restarted on the same folder is the same node, so the
// leases of its earlier run are its own to drop.
func NodeID(path string) (string, error) {
	if b, err := os.ReadFile(path); err == nil {
		if id := strings.TrimSpace(string(b)); id != "" {
			return id, nil
		}
	}
	host, _ := os.Hostname()
	var r [6]byte
	_, _ = rand.Read(r[:])
	id := host + "-" + hex.EncodeToString(r[:])
	if err := os.WriteFile(path, []byte(id+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("writing the node id %s: %w", path, err)
	}
	return id, nil
}

// startRecovery runs source 002's start-up algorithm and returns the
// sessions to rehydrate: with --auto-rehydrate, those the last run left
// active that are recoverable (not those the idle policy closed).
func (e *Recovery) StartRecovery(ctx context.Context) ([]string, error) {
	changed, err := e.Store.Recover(ctx, e.Node, time.Now(), e.Cfg.MaxSessionAge)
	if err != nil {
		return nil, err
	}
	counts := map[store.SessionState]int{}
	for _, s := range changed {
		counts[s.State]++
	}
	// Tab ids stay the same across a resume: new tabs must not take the
	// ids of a recoverable session's tabs. A damaged capture is found now,
	// not when someone resumes it.
	rec, err := e.Store.ListSessions(ctx, "", store.Recoverable)
	if err != nil {
		return nil, err
	}
	justNow := map[string]bool{}
	for _, s := range changed {
		justNow[s.ID] = s.State == store.Recoverable
	}
	var ids []string
	for _, s := range rec {
		_, err := e.Store.LatestCapture(ctx, s.ID)
		if err != nil {
			reason := "its last capture cannot be read: " + err.Error()
			if errors.Is(err, store.ErrNotFound) {
				reason = "it has no capture to resume from"
			}
			e.Log.Warn("recoverable session cannot be resumed", "session", s.ID, "err", err)
			if err := e.Store.SetState(ctx, s.ID, store.Failed, reason); err != nil {
				return nil, err
			}
			counts[store.Recoverable]--
			counts[store.Failed]++
			continue
		}
		if justNow[s.ID] {
			ids = append(ids, s.ID) // left active by the last run, not parked
		}
	}
	if len(changed) > 0 {
		e.Log.Info("sessions left active by an earlier run", "recoverable", counts[store.Recoverable], "stale", counts[store.Stale], "closed", counts[store.Closed], "failed", counts[store.Failed])
	}
	if !e.Cfg.AutoRehydrate {
		return nil, nil
	}
	return ids, nil
}

// rehydrateAll brings back the sessions startRecovery found, one by one.
func (e *Recovery) RehydrateAll(ids []string) {
	for _, id := range ids {
		select {
		case <-e.Stop:
			return
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		s, rep, err := e.Resume(ctx, id, false)
		if err != nil {
			cancel()
			e.Log.Warn("auto-rehydrate failed", "session", id, "err", err)
			continue
		}
		e.Log.Info("session rehydrated", "session", id, "tabs", len(rep.Tabs))
		// Is it still logged in? status and list_sessions say it.
		if note := e.CheckLogin(ctx, s); note != "" {
			e.Log.Info("login check", "session", id, "result", note)
		}
		cancel()
	}
}

// errClosedStored ends a close call on a session that was only in the
// store: nothing to resume, it is closed.
var ErrClosedStored = errors.New("closed in the store")

// resumeReport says what a resume brought back.
type Report struct {
	Taken    time.Time
	Capture  int64 // the capture picked by id or time; 0: the newest
	Tabs     []tool.Tab
	Problems []string // page-derived: go inside the envelope
}

// resume is session_resume: it brings back a session that is not live in
// this daemon from its last capture. explicit calls refuse a session that
// is already live.
func (e *Recovery) Resume(ctx context.Context, id string, explicit bool) (*sessions.Session, Report, error) {
	return e.ResumeFrom(ctx, id, explicit, "")
}

// resumeFrom is resume from the capture ref names (session_resume's
// capture), the newest when ref is "". A picked capture also brings back
// a session that is closed, stale or failed — the caller chose what to
// restore — but never one that runs: its live state would be thrown away.
func (e *Recovery) ResumeFrom(ctx context.Context, id string, explicit bool, ref tool.CaptureRef) (*sessions.Session, Report, error) {
	if err := sessions.CheckQualified("session", id); err != nil {
		return nil, Report{}, &tool.Error{Msg: err.Error()}
	}
	e.ResumeMu.Lock()
	defer e.ResumeMu.Unlock()
	e.Mu.Lock()
	s := e.Sessions[id]
	live := s != nil && s.Stored && !s.Parked
	e.Mu.Unlock()
	if live {
		if ref != "" {
			return nil, Report{}, tool.Fail("session %q is running in this browserd: a capture is restored only into a session that is not running — close it first (close in each of its tasks, or DELETE /api/sessions/%s), then session_resume with capture", id, sessions.BareName(id))
		}
		if explicit {
			return nil, Report{}, tool.Fail("session %q is already active in this browserd; just use it", id)
		}
		return s, Report{}, nil
	}
	row, err := e.Store.GetSession(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, Report{}, tool.Fail("no session %q in the store; list_sessions shows the recoverable ones", id)
	}
	if err != nil {
		return nil, Report{}, err
	}
	switch row.State {
	case store.Recoverable:
	case store.Active:
		ok, err := e.Store.AcquireLease(ctx, id, e.Node, time.Now(), e.LeaseTTL())
		if err != nil {
			return nil, Report{}, err
		}
		if !ok {
			return nil, Report{}, sessions.Held("session %q is active in another browserd on this store; it cannot be resumed here", id)
		}
	case store.Stale, store.Closed, store.Failed:
		if ref != "" {
			break // the caller picked the capture
		}
		if row.State == store.Stale {
			return nil, Report{}, tool.Fail("session %q is stale: its last capture (%s) was older than --max-session-age when browserd started, so it is not resumed; session_resume with capture brings back one you pick (list_sessions with session lists them), and any other action under that name starts a new session", id, Ago(row.LastCaptureAt))
		}
		msg := fmt.Sprintf("session %q is %s and cannot be resumed", id, row.State)
		if row.Reason != "" {
			msg += ": " + row.Reason
		}
		return nil, Report{}, &tool.Error{Msg: msg + "; session_resume with capture brings back a capture you pick (list_sessions with session lists them), or start a new session under that name with any action"}
	default:
		return nil, Report{}, tool.Fail("session %q is %s and cannot be resumed", id, row.State)
	}
	var pick *Picked
	if ref != "" {
		if pick, err = e.PickCapture(ctx, id, ref); err != nil {
			if row.State == store.Active {
				_ = e.Store.ReleaseLease(context.WithoutCancel(ctx), id, e.Node)
			}
			return nil, Report{}, err
		}
		if s != nil && s.Profile == "" {
			// An ephemeral session's context may still hold what came
			// after the capture (a parked or closed session's cookies):
			// the picked capture goes into a new one.
			e.Discard(ctx, s)
			s = nil
		}
	}
	live2, rep, err := e.ResumeLocked(ctx, s, row, nil, pick)
	if err != nil || pick == nil || pick.Newest {
		return live2, rep, err
	}
	// An older capture than the newest now runs: capture it at once, so
	// that a crash from here on brings back this state, not the newer one.
	if err := e.CaptureSession(ctx, live2); err != nil {
		e.Log.Warn("capturing a session resumed from an older capture failed", "session", id, "err", err)
		rep.Problems = append(rep.Problems, "the resumed state could not be captured yet ("+err.Error()+"); until it is, a crash brings back the newest capture, not this one")
	}
	return live2, rep, nil
}

// pickedCapture is the capture session_resume's capture named.
type Picked struct {
	C      store.Capture
	ID     int64
	Newest bool // the session's newest kept capture
}

// pickCapture reads the kept capture of session id that ref names: its
// id, or the newest taken at or before a time.
func (e *Recovery) PickCapture(ctx context.Context, id string, ref tool.CaptureRef) (*Picked, error) {
	capID, at, err := tool.ParseCapture(ref, time.Now())
	if err != nil {
		return nil, &tool.Error{Msg: err.Error()}
	}
	list, err := e.Store.ListCaptures(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("listing the captures of session %q: %w", id, err)
	}
	if len(list) == 0 {
		return nil, tool.Fail("session %q keeps no capture to resume from", id)
	}
	i := slices.IndexFunc(list, func(c store.CaptureInfo) bool {
		if capID != 0 {
			return c.ID == capID
		}
		return !c.Taken.After(at)
	})
	if i < 0 {
		if capID != 0 {
			return nil, tool.Fail("session %q keeps no capture %d (it keeps its newest %d; list_sessions with session %q lists them)", id, capID, len(list), sessions.BareName(id))
		}
		return nil, tool.Fail("session %q keeps no capture taken at or before %s: its oldest kept one is of %s (list_sessions with session %q lists them)", id, at.Local().Format("2006-01-02 15:04:05"), Ago(list[len(list)-1].Taken), sessions.BareName(id))
	}
	info := list[i]
	if info.Err != nil {
		return nil, tool.Fail("capture %d of session %q cannot be read (%v); pick another (list_sessions with session %q lists them)", info.ID, id, info.Err, sessions.BareName(id))
	}
	c, err := e.Store.GetCapture(ctx, id, info.ID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, tool.Fail("capture %d of session %q is no longer kept (a newer capture replaced it); list_sessions with session %q lists the kept ones", info.ID, id, sessions.BareName(id))
	}
	if err != nil {
		return nil, tool.Fail("capture %d of session %q cannot be read (%v); pick another", info.ID, id, err)
	}
	return &Picked{C: c, ID: info.ID, Newest: i == 0}, nil
}

// TabRef names a task's tab: tab, or the task's active tab when tab is
// "". With Away, the call opens a tab of its own (tab_new): none of the
// task's tabs is needed now, so its front tab stays lazy like the others
// (it loads when it is used) instead of being opened and loaded.
type TabRef struct {
	Task, Tab string
	Away      bool
}

// leaves reports whether the captured tab ct belongs to the task of a call
// that opens its own tab (see Away): ct is not loaded now.
func (r *TabRef) leaves(ct store.Tab) bool {
	return r != nil && r.Away && cmp.Or(ct.Task, "default") == r.Task
}

// is reports whether the captured tab ct is the one r names.
func (r *TabRef) Is(ct store.Tab) bool {
	if r == nil || cmp.Or(ct.Task, "default") != r.Task {
		return false
	}
	if r.Tab != "" {
		return ct.ID == r.Tab
	}
	return ct.Active
}

// resumeLocked brings the session of row back (into s when it is parked
// here) from pick, or from its newest capture when pick is nil; the tab
// skip names is opened but not loaded. Call with resumeMu held.
func (e *Recovery) ResumeLocked(ctx context.Context, s *sessions.Session, row store.Session, skip *TabRef, pick *Picked) (_ *sessions.Session, _ Report, err error) {
	id := row.ID
	ok, err := e.Store.AcquireLease(ctx, id, e.Node, time.Now(), e.LeaseTTL())
	if err != nil {
		return nil, Report{}, fmt.Errorf("taking the lease of session %q: %w", id, err)
	}
	if !ok {
		return nil, Report{}, sessions.Held("session %q is being resumed by another browserd on this store", id)
	}
	defer func() { e.Counters.Resume(err == nil) }()
	if row.State == store.Active {
		// Active in the store but not live here: its node died or left
		// it, and this one takes it over.
		e.Counters.LeaseTakeover()
	}
	failed := func(reason string) {
		if err := e.Store.SetState(context.WithoutCancel(ctx), id, store.Failed, reason); err != nil {
			e.Log.Warn("marking a session failed", "session", id, "err", err)
		}
		_ = e.Store.ReleaseLease(context.WithoutCancel(ctx), id, e.Node)
	}
	var capt store.Capture
	if pick != nil {
		capt = pick.C
	} else if capt, err = e.Store.LatestCapture(ctx, id); err == nil {
		timing.Mark(ctx, "capture read")
	} else {
		reason := "its last capture cannot be read: " + err.Error()
		if errors.Is(err, store.ErrNotFound) {
			reason = "it has no capture to resume from"
		}
		failed(reason)
		return nil, Report{}, &tool.Error{Msg: fmt.Sprintf("session %q cannot be resumed: %s; it is now marked failed — start a new session, or session_resume with capture to resume an older one", id, reason)}
	}
	dir := ""
	if capt.UserDataDir != "" {
		// Its folder is checked again: the allowed roots may have changed
		// since.
		if dir, err = userdata.Resolve(e.UserDataRoots(row.Owner), capt.UserDataDir, "start browserd with --user-data-root set to a folder that holds it"); err == nil {
			e.Mu.Lock()
			err = e.CheckFolder(id, dir)
			e.Mu.Unlock()
		}
		if err != nil {
			_ = e.Store.ReleaseLease(context.WithoutCancel(ctx), id, e.Node)
			return nil, Report{}, tool.Fail("session %q ran on folder %s, which cannot be used now: %v", id, capt.UserDataDir, err)
		}
	}
	if s == nil {
		s = e.NewSession(id, row.Profile)
	}
	done := make(chan struct{})
	e.Mu.Lock()
	s.Stored, s.Parked, s.Dir = true, false, dir
	s.Resuming = done
	e.Sessions[id] = s
	e.Mu.Unlock()
	defer func() {
		e.Mu.Lock()
		s.Resuming = nil
		e.Mu.Unlock()
		close(done)
	}()
	rep, err := e.Rehydrate(ctx, s, capt, skip, pick != nil)
	if pick != nil {
		rep.Capture = pick.ID
	}
	if err != nil {
		e.Mu.Lock()
		delete(e.Sessions, id)
		e.Mu.Unlock()
		e.CloseSessionTabs(ctx, s)
		failed("rehydration failed: " + err.Error())
		return nil, Report{}, fmt.Errorf("resuming session %q failed (it is now marked failed): %w", id, err)
	}
	if err := e.Store.SetState(ctx, id, store.Active, ""); err != nil {
		return nil, rep, err
	}
	return s, rep, nil
}

// newSession makes the in-memory half of a session.
func (e *Recovery) NewSession(id, profile string) *sessions.Session {
	s := &sessions.Session{ID: id, Profile: profile, Refs: snapshot.NewRefs(), Tasks: map[string]*sessions.Task{}, Created: time.Now(), Policy: e.Guard}
	if profile == "default" {
		s.Egress = e.Proxy.Default()
	}
	return s
}

// discard forgets an ephemeral session: its tabs, its browser context and
// its guard listener.
func (e *Recovery) Discard(ctx context.Context, s *sessions.Session) {
	e.CloseSessionTabs(ctx, s)
	e.Mu.Lock()
	if e.Sessions[s.ID] == s {
		delete(e.Sessions, s.ID)
	}
	delete(e.Dirty, s)
	ctxID, eg := s.CtxID, s.Egress
	e.Mu.Unlock()
	if br := e.BrowserOf(s); br != nil && ctxID != "" {
		_ = br.DisposeContext(ctx, ctxID)
	}
	if eg != nil && eg != e.Proxy.Default() {
		eg.Close()
	}
}

// closeSessionTabs closes every tab of a session (a failed rehydration).
func (e *Recovery) CloseSessionTabs(ctx context.Context, s *sessions.Session) {
	e.Mu.Lock()
	var tabs []*sessions.Tab
	for _, t := range s.Tasks {
		tabs = append(tabs, t.Tabs...)
	}
	e.Mu.Unlock()
	for _, tb := range tabs {
		if tb.Page != nil {
			_ = tb.Page.Close(ctx)
		}
		e.RemoveTab(tb)
	}
}

// rehydrate puts a capture into a session's (new) browser context: cookies
// first, then each tab at its URL, with its id and viewport, its storage
// put back by a script that runs before the page's own. The tab skip names
// (nil: none) opens blank: the action that resumes is about to load it.
// A picked capture (session_resume's capture) wins over a profile's own
// state: its cookies are set whatever their age, and its storage replaces
// the keys the profile holds.
func (e *Recovery) Rehydrate(ctx context.Context, s *sessions.Session, c store.Capture, skip *TabRef, picked bool) (Report, error) {
	s.CapMu.Lock()
	defer s.CapMu.Unlock()
	rep := Report{Taken: c.Taken}
	sl, note, err := e.EnsureBrowser(ctx, s)
	if err != nil {
		return rep, err
	}
	timing.Mark(ctx, "resume's browser")
	if note != "" {
		rep.Problems = append(rep.Problems, note)
	}
	ctxID, err := e.ContextFor(ctx, sl, s)
	if err != nil {
		return rep, err
	}
	e.restoreEnvironment(ctx, s, sl, ctxID, c, &rep)
	if err := e.restoreCookies(ctx, s, sl, ctxID, c, picked); err != nil {
		return rep, err
	}
	timing.Mark(ctx, "cookies restored")
	tabs := slices.Clone(c.Tabs)
	slices.SortStableFunc(tabs, func(a, b store.Tab) int { return cmp.Compare(sessions.TabNum(a.ID), sessions.TabNum(b.ID)) })
	lazy := make([]bool, len(tabs))
	for i, ct := range tabs {
		// Behind its task's front tab: no target until it is used (lazy.go).
		lazy[i] = (!ct.Active || skip.leaves(ct)) && !ct.Review && webURL(ct.URL) && (!skip.Is(ct) || skip.leaves(ct))
	}
	pages, opts, err := e.openTabs(ctx, s, sl, ctxID, c, tabs, lazy, picked)
	if err != nil {
		return rep, err
	}
	tbs := e.adoptTabs(s, tabs, pages, opts, &rep)
	e.loadTabs(ctx, tabs, tbs, skip, &rep)
	e.Mu.Lock()
	s.LastCapture = time.Now() // what the capture held is what runs now
	s.LastTabs = resumedTabs(c, tabs, tbs)
	s.CapHash = CaptureHash(c)
	s.Rehydrate = false
	s.LoginDue = true // is it still logged in? (the engine's logincheck.go)
	e.Mu.Unlock()
	return rep, nil
}

// restoreEnvironment gives the session what its pages saw (user agent,
// time zone, locale, position), its HTTP logins and its upstream proxy,
// as captured: before any of its tabs loads.
func (e *Recovery) restoreEnvironment(ctx context.Context, s *sessions.Session, sl *sessions.Slot, ctxID string, c store.Capture, rep *Report) {
	var emu browser.Emulation
	if len(c.Emulation) > 0 && json.Unmarshal(c.Emulation, &emu) != nil {
		emu = browser.Emulation{} // an unreadable one: the browser's own
	}
	emu.UserAgent, emu.Timezone, emu.Locale, emu.Geolocation = c.UserAgent, c.Timezone, c.Locale, (*browser.Geolocation)(c.Geolocation)
	creds := make([]browser.Credential, len(c.Credentials))
	for i, cr := range c.Credentials {
		creds[i] = browser.Credential(cr)
	}
	proxy, err := sessionProxy(c.Proxy)
	if err != nil {
		rep.Problems = append(rep.Problems, "the session's proxy could not be read back ("+err.Error()+"): its requests go through the daemon's --proxy, or direct")
	}
	e.Mu.Lock()
	// A capture taken before the session's proxy was set holds none: a
	// session this daemon knows keeps its own, rather than going out
	// another way.
	if c.Proxy != nil || s.Proxy == nil {
		s.Proxy = proxy
	}
	proxy = s.Proxy
	if len(c.ClientCerts) > 0 {
		s.ClientCerts = c.ClientCerts
	}
	certs := s.ClientCerts
	eg := s.Egress
	e.Mu.Unlock()
	if eg != nil {
		if err := eg.SetUpstream(proxy); err != nil {
			rep.Problems = append(rep.Problems, "the session's proxy could not be set again: "+err.Error())
		}
		if len(certs) > 0 {
			parsed, err := sessions.ParseClientCerts(certs)
			if err != nil {
				rep.Problems = append(rep.Problems, "a client certificate of the session no longer loads: "+err.Error())
			}
			eg.SetClientCerts(parsed)
		}
	}
	e.Mu.Lock()
	// Captures before the locale was captured hold none: a session this
	// daemon knows keeps its own.
	if emu.Locale == "" {
		emu.Locale = s.Emu.Locale
	}
	s.Emu = emu
	s.Creds = creds
	s.Injected = c.InjectedDomains
	s.Exclude = c.ExcludeDomains
	// As with the proxy: a capture taken before the session's login
	// check was set holds none, and a session this daemon knows keeps
	// its own.
	if c.LoginCheck != nil || s.Check == nil {
		s.Check = c.LoginCheck
	}
	e.Mu.Unlock()
	if emu.Geolocation != nil {
		if err := inject.GrantGeolocation(ctx, sl.Br, ctxID); err != nil {
			rep.Problems = append(rep.Problems, "the position override could not be granted: "+err.Error())
		}
	}
}

// restoreCookies sets the capture's cookies in the session's context,
// but for the domains kept out of it.
func (e *Recovery) restoreCookies(ctx context.Context, s *sessions.Session, sl *sessions.Slot, ctxID string, c store.Capture, picked bool) error {
	// A profile keeps its own state, saved within a second of each action:
	// the capture's cookies go in only when they are newer.
	cookies := c.Cookies
	if s.Profile != "" && !picked {
		if fi, err := os.Stat(e.StatePath(s.Profile)); err == nil && fi.ModTime().After(c.Taken) {
			cookies = nil
		}
	}
	if len(cookies) > 0 {
		st := storagestate.State{Cookies: slices.Clone(cookies)}
		st.Exclude(e.ExcludedFor(ctx, s))
		cookies = st.Cookies
	}
	if len(cookies) == 0 {
		return nil
	}
	params := map[string]any{"cookies": storagestate.ToCDP(cookies)}
	if ctxID != "" {
		params["browserContextId"] = ctxID
	}
	if err := sl.Br.Conn().Browser().Call(ctx, "Storage.setCookies", params, nil); err != nil {
		return fmt.Errorf("restoring cookies: %w", err)
	}
	return nil
}

// openTabs opens a page for each captured tab that is not lazy, with the
// storage of its origin put back before its scripts run, and returns the
// options every tab opens with (a lazy one's, when it is used). The pages
// open at once: Chromium starts renderers in parallel, which on a cold
// context is most of a resume's time. On failure none stays open.
func (e *Recovery) openTabs(ctx context.Context, s *sessions.Session, sl *sessions.Slot, ctxID string, c store.Capture, tabs []store.Tab, lazy []bool, picked bool) ([]*browser.Page, []browser.PageOptions, error) {
	pages := make([]*browser.Page, len(tabs))
	all := make([]browser.PageOptions, len(tabs))
	errs := make([]error, len(tabs))
	var wg sync.WaitGroup
	for i, ct := range tabs {
		// The capture's storage first: it is the tab's own; the profile's
		// saved storage then fills in what the capture did not hold.
		all[i] = browser.PageOptions{Width: cmp.Or(ct.Width, e.Cfg.Width), Height: cmp.Or(ct.Height, e.Cfg.Height),
			InitScript: inject.StorageScriptOver(tabStorage(c, ct), "__browserd_resumed", picked)}
		if lazy[i] {
			continue
		}
		e.Mu.Lock()
		opts := all[i]
		opts.InitScript = inject.CombineScripts(opts.InitScript, s.InitScript)
		opts.Emulation, opts.Credentials, opts.Scope = s.Emu, s.Creds, s.ID
		e.Mu.Unlock()
		if sl.Br.Attached() && ctxID == "" {
			opts.Guard = e.FetchGuard(s)
		}
		wg.Go(func() { pages[i], errs[i] = e.OpenPage(ctx, sl, ctxID, opts) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		for _, pg := range pages {
			if pg != nil {
				_ = pg.Close(ctx)
			}
		}
		return nil, nil, fmt.Errorf("opening the session's tabs: %w", err)
	}
	return pages, all, nil
}

// webURL reports whether a tab's URL is a web page's (one a lazy tab can
// load again).
func webURL(u string) bool {
	return strings.HasPrefix(u, "http://") || strings.HasPrefix(u, "https://")
}

// tabStorage is the storage a captured tab gets back: the localStorage of
// every captured origin, and the tab's own sessionStorage beside its
// origin's localStorage.
func tabStorage(c store.Capture, ct store.Tab) []storagestate.Origin {
	var st storagestate.State
	st.MergeOrigins(slices.Clone(c.Origins))
	if len(ct.SessionStorage) == 0 {
		return st.Origins
	}
	if o := OriginOf(ct.URL); o != "" {
		// Beside the origin's localStorage, not instead of it
		// (MergeOrigins replaces an origin's entry whole).
		if i := slices.IndexFunc(st.Origins, func(x storagestate.Origin) bool { return x.Origin == o }); i >= 0 {
			st.Origins[i].SessionStorage = ct.SessionStorage
		} else {
			st.Origins = append(st.Origins, storagestate.Origin{Origin: o, SessionStorage: ct.SessionStorage})
		}
	}
	return st.Origins
}

// adoptTabs puts the opened pages in their tasks under their captured ids,
// each task's front tab and its tabs left for review as captured.
func (e *Recovery) adoptTabs(s *sessions.Session, tabs []store.Tab, pages []*browser.Page, opts []browser.PageOptions, rep *Report) []*sessions.Tab {
	tbs := make([]*sessions.Tab, len(tabs))
	for i, ct := range tabs {
		t, err := e.TaskFor(s, ct.Task)
		if err != nil { // a name from a damaged capture
			t, _ = e.TaskFor(s, "default")
			rep.Problems = append(rep.Problems, fmt.Sprintf("tab %s: task %q: %v; it joins task default", ct.ID, ct.Task, err))
		}
		tbs[i] = e.AddTabID(t, pages[i], ct.ID)
	}
	// Each task's tab in front is the captured one, whatever order the
	// tabs came back in (adding a tab brings it to the front).
	e.Mu.Lock()
	defer e.Mu.Unlock()
	for i, ct := range tabs {
		if pages[i] == nil {
			tbs[i].Lazy = &sessions.Lazy{URL: untrusted.Page(ct.URL), Title: untrusted.Page(ct.Title), Opts: opts[i], Since: time.Now()}
		}
		if ct.Active {
			tbs[i].Task.Active = tbs[i]
		}
		if ct.Review && !tbs[i].Task.Ended {
			// Left for review before the restart: still for a person, and
			// its grace starts again.
			tbs[i].Task.Ended, tbs[i].Task.EndedAt = true, time.Now()
		}
	}
	return tbs
}

// loadTabs loads each task's front tab and the tabs left for review at
// their captured URLs, all at once; the others load when used (lazy.go).
// skip is a tab not to load (the one whose page crashed it).
func (e *Recovery) loadTabs(ctx context.Context, tabs []store.Tab, tbs []*sessions.Tab, skip *TabRef, rep *Report) {
	problems := make([]string, len(tabs))
	var wg sync.WaitGroup
	for i, ct := range tabs {
		if !webURL(ct.URL) || skip.Is(ct) || tbs[i].Page == nil {
			continue // nothing to load, the call loads it, or lazy
		}
		wg.Go(func() {
			nctx, cancel := context.WithTimeout(ctx, e.Cfg.NavTime)
			defer cancel()
			if err := tbs[i].Page.Navigate(nctx, ct.URL); err != nil {
				problems[i] = fmt.Sprintf("tab %s did not load %s again: %v", tbs[i].ID, ct.URL, err)
			}
		})
	}
	wg.Wait()
	for i, ct := range tabs {
		if problems[i] != "" {
			rep.Problems = append(rep.Problems, problems[i])
		}
		url, title := e.TabInfo(ctx, tbs[i])
		rep.Tabs = append(rep.Tabs, tool.Tab{ID: tbs[i].ID, Task: tbs[i].Task.Name, URL: url.Unwrap(), Title: title.Unwrap(), Active: ct.Active})
	}
}

// resumedTabs is what a capture knew of the tabs a rehydration reopened
// (tabs[i] as tbs[i], under its id now), for the session's next capture:
// a tab it cannot read — the tab a resuming navigate is loading, whose
// blank document does not answer; one blocked by a dialog or slow — keeps
// its captured URL and storage, as in a session that was never resumed,
// rather than being captured blank and lost to the next resume.
func resumedTabs(c store.Capture, tabs []store.Tab, tbs []*sessions.Tab) map[string]sessions.CapturedTab {
	local := map[string][]storagestate.NameValue{}
	for _, o := range c.Origins {
		local[o.Origin] = o.LocalStorage
	}
	out := make(map[string]sessions.CapturedTab, len(tabs))
	for i, ct := range tabs {
		ct.ID = tbs[i].ID
		o := OriginOf(ct.URL)
		out[ct.ID] = sessions.CapturedTab{Tab: ct, Origin: o, Local: local[o]}
	}
	return out
}

// openPage opens a page in a context, using the browser's spare first tab
// for the default context.
func (e *Recovery) OpenPage(ctx context.Context, sl *sessions.Slot, ctxID string, opts browser.PageOptions) (*browser.Page, error) {
	defer e.HoldSlot(sl)()
	if ctxID == "" {
		if id := e.SpareTab(sl, sl.Br); id != "" {
			if pg, err := sl.Br.AttachPage(ctx, id, opts); err == nil {
				return pg, nil
			}
		}
	}
	return sl.Br.NewPage(ctx, ctxID, opts)
}

// originOf is the origin of an http(s) URL, or "".
func OriginOf(raw string) string {
	for _, p := range []string{"http://", "https://"} {
		if rest, ok := strings.CutPrefix(raw, p); ok {
			if i := strings.IndexAny(rest, "/?#"); i >= 0 {
				rest = rest[:i]
			}
			return p + rest
		}
	}
	return ""
}

// ago renders a capture time for a person: "12:03:04 (5m ago)".
func Ago(t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	return fmt.Sprintf("%s (%s ago)", t.Local().Format("2006-01-02 15:04:05"), time.Since(t).Round(time.Second))
}

// recoverCrash rehydrates a session whose browser died under it (see
// resetSlot) from its last capture, and says so.
func (e *Recovery) RecoverCrash(ctx context.Context, s *sessions.Session) string {
	e.Mu.Lock()
	need := s.Rehydrate
	e.Mu.Unlock()
	if !need {
		return ""
	}
	e.ResumeMu.Lock()
	defer e.ResumeMu.Unlock()
	e.Mu.Lock()
	need = s.Rehydrate
	e.Mu.Unlock()
	if !need {
		return ""
	}
	capt, err := e.Store.LatestCapture(ctx, s.ID)
	if err != nil {
		e.Mu.Lock()
		s.Rehydrate = false
		e.Mu.Unlock()
		if errors.Is(err, store.ErrNotFound) {
			return "this session had no capture yet, so its earlier tabs are gone"
		}
		return "this session's last capture could not be read (" + err.Error() + "), so its earlier tabs are gone"
	}
	rep, err := e.Rehydrate(ctx, s, capt, nil, false)
	if err != nil {
		e.Mu.Lock()
		s.Rehydrate = false
		e.Mu.Unlock()
		return "restoring this session from its last capture failed: " + err.Error()
	}
	e.Log.Info("session restored after a browser crash", "session", s.ID, "tabs", len(rep.Tabs))
	return fmt.Sprintf("this session was restored from its capture of %s: %d tabs, same ids, cookies and storage; %s", Ago(rep.Taken), len(rep.Tabs), NotRestored)
}
