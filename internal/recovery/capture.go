package recovery

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/browserd/browserd/internal/browser"
	"github.com/browserd/browserd/internal/egress"
	"github.com/browserd/browserd/internal/inject"
	"github.com/browserd/browserd/internal/sessions"
	"github.com/browserd/browserd/internal/storagestate"
	"github.com/browserd/browserd/internal/store"
)

// readTabJS reads, in one turn of the page's event loop (so a navigation
// cannot come between them), what a capture keeps of a tab: its URL and
// title, its viewport, and its origin's localStorage and the tab's
// sessionStorage.
const readTabJS = `(() => { const r = {url: location.href, title: document.title, origin: location.origin, w: innerWidth, h: innerHeight};
  try { r.local = Object.entries(localStorage); } catch (e) {}
  try { r.session = Object.entries(sessionStorage).filter(([k]) => !k.startsWith('__browserd_')); } catch (e) {}
  return r; })()`

type tabRead struct {
	URL     string      `json:"url"`
	Title   string      `json:"title"`
	Origin  string      `json:"origin"`
	W       int         `json:"w"`
	H       int         `json:"h"`
	Local   [][2]string `json:"local"`
	Session [][2]string `json:"session"`
}

// noteSave records how a background save of s went: the session's next
// actions say so while a save of any kind fails.
func (e *Recovery) NoteSave(s *sessions.Session, kind sessions.SaveKind, err error) {
	e.Mu.Lock()
	defer e.Mu.Unlock()
	if err == nil {
		delete(s.SaveErr, kind)
		return
	}
	if s.SaveErr == nil {
		s.SaveErr = map[sessions.SaveKind]string{}
	}
	s.SaveErr[kind] = err.Error()
}

func (e *Recovery) CaptureSession(ctx context.Context, s *sessions.Session) error {
	return e.CaptureIf(ctx, s, false)
}

// captureIf is capture; with probe (a session no action changed, looked
// at every interval for what its pages change on their own) it reads the
// session as a capture would, and writes a capture only when what it read
// differs from the last capture (captureHash). A probe leaves a session
// with a tab between two documents alone until the next tick: cookies the
// response set would be captured with the URL of the page before.
func (e *Recovery) CaptureIf(ctx context.Context, s *sessions.Session, probe bool) error {
	if e.Cfg.NoCapture {
		return nil
	}
	s.CapMu.Lock()
	defer s.CapMu.Unlock()
	items, prev, lastHash, due := e.captureItems(s, probe)
	if !due {
		return nil
	}
	ok := false
	defer func() {
		if !ok && !probe {
			e.Mu.Lock()
			s.CapDirty = true
			e.Mu.Unlock()
		}
	}()
	br := e.BrowserOf(s)
	if br == nil || isDone(br.Done()) {
		return nil
	}
	taken := time.Now()
	counted := !probe // a probe that finds nothing new is not a capture
	defer func() {
		if counted {
			e.Counters.Capture(ok, time.Since(taken))
		}
	}()
	c, err := e.captureSession(ctx, br, s, taken)
	if err != nil {
		return err
	}
	seen := e.captureTabs(ctx, &c, items, prev)
	hash := CaptureHash(c)
	if probe && hash == lastHash {
		ok = true
		return nil
	}
	counted = true
	if err := e.Store.SaveCapture(ctx, c, e.Cfg.MaxSessionSnapshots); err != nil {
		// ErrLeaseLost: another node runs the session now; the next
		// lease renewal lets it go here.
		return err
	}
	ok = true
	e.Mu.Lock()
	s.LastCapture = taken
	s.LastTabs = seen
	s.CapHash = hash
	if probe && s.Profile != "" {
		e.Dirty[s] = true // the profile's saved state follows too
	}
	e.Mu.Unlock()
	return nil
}

// captureItem is a tab to capture, with what its task says of it.
type captureItem struct {
	task   string
	tb     *sessions.Tab
	active bool
	review bool
}

// captureItems lists s's tabs to capture, and what the last capture knew;
// due is false when there is nothing to capture now: the session is not
// live here, or (a probe) an action's capture is coming anyway, it has no
// tab, or a tab is between documents.
func (e *Recovery) captureItems(s *sessions.Session, probe bool) (items []captureItem, prev map[string]sessions.CapturedTab, lastHash [32]byte, due bool) {
	e.Mu.Lock()
	if !s.Stored || s.Parked || s.Rehydrate || probe && s.CapDirty {
		e.Mu.Unlock()
		return nil, nil, lastHash, false
	}
	for _, t := range s.Tasks {
		for _, tb := range t.Tabs {
			items = append(items, captureItem{t.Name, tb, tb == t.Active, t.Ended})
		}
	}
	prev, lastHash = s.LastTabs, s.CapHash
	if !probe {
		s.CapDirty = false
	}
	e.Mu.Unlock()
	if probe {
		if len(items) == 0 {
			return nil, nil, lastHash, false // no page to change anything on its own
		}
		for _, it := range items {
			if it.tb.Page != nil && it.tb.Page.NavPending() {
				return nil, nil, lastHash, false
			}
		}
		e.Mu.Lock()
		s.LastProbe = time.Now()
		e.Mu.Unlock()
	}
	return items, prev, lastHash, true
}

// captureSession starts a capture of s with what its context holds
// (cookies) and what the session was made with.
func (e *Recovery) captureSession(ctx context.Context, br *browser.Browser, s *sessions.Session, taken time.Time) (store.Capture, error) {
	e.Mu.Lock()
	ctxID := s.CtxID
	e.Mu.Unlock()
	cookies, err := inject.ContextCookies(ctx, br, ctxID)
	if err != nil {
		return store.Capture{}, err
	}
	e.Mu.Lock()
	emu, dir := s.Emu, s.Dir
	injected := slices.Clone(s.Injected)
	exclude := slices.Clone(s.Exclude)
	creds := make([]store.Credential, len(s.Creds))
	for i, cr := range s.Creds {
		creds[i] = store.Credential(cr)
	}
	proxy := storeProxy(s.Proxy)
	certs := slices.Clone(s.ClientCerts)
	var check *store.LoginCheck
	if s.Check != nil {
		c := *s.Check
		check = &c
	}
	e.Mu.Unlock()
	return store.Capture{ClientCerts: certs, SessionID: s.ID, Node: e.Node, Taken: taken, Cookies: cookies,
		UserAgent: emu.UserAgent, Timezone: emu.Timezone, Locale: emu.Locale, UserDataDir: dir, Geolocation: (*store.Geolocation)(emu.Geolocation), Credentials: creds, Proxy: proxy, LoginCheck: check, InjectedDomains: injected, ExcludeDomains: exclude, Emulation: moreOf(emu)}, nil
}

// moreOf is what a capture keeps of emu beyond its user agent, time zone,
// locale and position (nil: nothing).
func moreOf(emu browser.Emulation) json.RawMessage {
	if emu.Device == nil && emu.More.IsZero() {
		return nil
	}
	b, _ := json.Marshal(browser.Emulation{Device: emu.Device, More: emu.More})
	return b
}

// storeProxy is a session's own upstream proxy as a capture keeps it.
func storeProxy(u *egress.Upstream) *store.Proxy {
	if u == nil {
		return nil
	}
	return &store.Proxy{Server: u.String(), Username: u.Username, Password: u.Password, Bypass: slices.Clone(u.Bypass)}
}

// sessionProxy is a captured upstream proxy as a session uses it.
func sessionProxy(p *store.Proxy) (*egress.Upstream, error) {
	if p == nil {
		return nil, nil
	}
	u, err := egress.ParseUpstream(p.Server)
	if err != nil {
		return nil, err
	}
	u.Username, u.Password, u.Bypass = p.Username, p.Password, slices.Clone(p.Bypass)
	if err := u.Validate(); err != nil {
		return nil, err
	}
	return &u, nil
}

// captureTabs reads each tab into c, with the localStorage of its origin;
// a tab that cannot be read now keeps what the last capture knew of it.
// It returns the tabs as captured, by id.
func (e *Recovery) captureTabs(ctx context.Context, c *store.Capture, items []captureItem, prev map[string]sessions.CapturedTab) map[string]sessions.CapturedTab {
	var st storagestate.State
	seen := map[string]sessions.CapturedTab{}
	slices.SortFunc(items, func(a, b captureItem) int { return cmp.Compare(sessions.TabNum(a.tb.ID), sessions.TabNum(b.tb.ID)) })
	for _, it := range items {
		t, read := e.ReadLoaded(ctx, it.tb)
		if !read {
			// Closed, crashed, blocked by a dialog or between documents:
			// keep what the last capture knew of the tab.
			if p, found := prev[it.tb.ID]; found {
				t = p
			}
		}
		if t.Origin != "" {
			st.MergeOrigins([]storagestate.Origin{{Origin: t.Origin, LocalStorage: t.Local}})
		}
		t.Tab.ID, t.Tab.Task, t.Tab.Active, t.Tab.Review = it.tb.ID, it.task, it.active, it.review
		c.Tabs = append(c.Tabs, t.Tab)
		seen[it.tb.ID] = t
	}
	c.Origins = st.Origins
	return seen
}

// captureHash sums what a capture holds that a resume brings back, in an
// order that does not depend on how the browser listed it: two captures
// of an unchanged session sum the same. Tab titles are left out (a page
// with a clock in its title would write a capture every interval, and a
// resume does not set the title); so are the time and the fence.
func CaptureHash(c store.Capture) [sha256.Size]byte {
	c.SessionID, c.Taken, c.Node = "", time.Time{}, ""
	sorted := func(nv []storagestate.NameValue) []storagestate.NameValue {
		nv = slices.Clone(nv)
		slices.SortStableFunc(nv, func(a, b storagestate.NameValue) int { return cmp.Compare(a.Name, b.Name) })
		return nv
	}
	c.Tabs = slices.Clone(c.Tabs)
	for i := range c.Tabs {
		c.Tabs[i].Title = ""
		c.Tabs[i].SessionStorage = sorted(c.Tabs[i].SessionStorage)
	}
	c.Cookies = slices.Clone(c.Cookies)
	slices.SortStableFunc(c.Cookies, func(a, b storagestate.Cookie) int {
		return cmp.Or(cmp.Compare(a.Domain, b.Domain), cmp.Compare(a.Path, b.Path), cmp.Compare(a.Name, b.Name))
	})
	c.Origins = slices.Clone(c.Origins)
	for i := range c.Origins {
		c.Origins[i].LocalStorage = sorted(c.Origins[i].LocalStorage)
		c.Origins[i].SessionStorage = sorted(c.Origins[i].SessionStorage)
	}
	slices.SortStableFunc(c.Origins, func(a, b storagestate.Origin) int { return cmp.Compare(a.Origin, b.Origin) })
	b, _ := json.Marshal(c)
	return sha256.Sum256(b)
}

// readTab reads a tab for a capture; false when it cannot be read now.
func (e *Recovery) ReadTab(ctx context.Context, pg *browser.Page) (sessions.CapturedTab, bool) {
	var t sessions.CapturedTab
	// A tab whose next document is on its way cannot answer until it
	// commits (Chromium holds commands to it): it keeps what the last
	// capture knew, at once, rather than holding up every session's
	// capture for the read's two seconds.
	if pg.Closed() || pg.Crashed() || pg.Dialog() != nil || pg.NavPending() {
		return t, false
	}
	rctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	var r tabRead
	if err := pg.Run(rctx, readTabJS, &r); err != nil {
		return t, false
	}
	t.URL, t.Title, t.Width, t.Height = r.URL, r.Title, r.W, r.H
	if r.Origin == "null" || OriginOf(r.URL) == "" {
		return t, true // about:blank, data: and the like keep no storage
	}
	t.Origin = r.Origin
	for _, kv := range r.Local {
		t.Local = append(t.Local, storagestate.NameValue{Name: kv[0], Value: kv[1]})
	}
	for _, kv := range r.Session {
		t.SessionStorage = append(t.SessionStorage, storagestate.NameValue{Name: kv[0], Value: kv[1]})
	}
	return t, true
}

// changed notes a state-changing action: the session is captured soon,
// at once when the last capture is older than the interval.
func (e *Recovery) Changed(s *sessions.Session) {
	e.Mu.Lock()
	s.CapDirty = true
	due := time.Since(s.LastCapture) >= e.Cfg.SnapshotInterval
	e.Mu.Unlock()
	if due {
		select {
		case e.CapWake <- struct{}{}:
		default:
		}
	}
}

// probeEvery is how often a live session that no action changed is
// looked at for changes its pages made on their own (a token refresh, a
// login in another tab, a cookie a timer sets): every interval, or every
// second with --snapshot-interval 0.
func (e *Recovery) ProbeEvery() time.Duration {
	if e.Cfg.SnapshotInterval > 0 {
		return e.Cfg.SnapshotInterval
	}
	return time.Second
}

// capTick is how often the capturer looks for sessions that are due: a
// quarter of probeEvery, between 50 ms and a second, so that a change is
// captured within about the interval.
func (e *Recovery) CapTick() time.Duration {
	return min(time.Second, max(e.ProbeEvery()/4, 50*time.Millisecond))
}

// captureDue captures the sessions that changed and whose last capture is
// older than the interval, and probes (captureIf) the live sessions that
// no action changed, in which no action runs or ran within probeEvery,
// and that were neither captured nor probed within probeEvery.
func (e *Recovery) CaptureDue(now time.Time) {
	if e.Cfg.NoCapture {
		return
	}
	type job struct {
		s     *sessions.Session
		probe bool
	}
	var due []job
	e.Mu.Lock()
	for _, s := range e.Sessions {
		if !s.Stored || s.Parked || s.Rehydrate {
			continue
		}
		switch {
		case s.CapDirty:
			if now.Sub(s.LastCapture) >= e.Cfg.SnapshotInterval {
				due = append(due, job{s, false})
			}
		case s.Resuming == nil && !s.Closing && !s.Working() && now.Sub(s.LastCapture) >= e.ProbeEvery() && now.Sub(s.LastProbe) >= e.ProbeEvery() &&
			now.Sub(s.LastActed()) >= e.ProbeEvery():
			due = append(due, job{s, true})
		}
	}
	e.Mu.Unlock()
	for _, j := range due {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err := e.CaptureIf(ctx, j.s, j.probe)
		if err != nil {
			e.Log.Warn("capturing session state failed; the last good capture stays", "session", j.s.ID, "err", err)
		}
		e.NoteSave(j.s, sessions.SaveCapture, err)
		cancel()
	}
}

// Capture captures a live session now, whatever the interval (benchmarks
// and tools that need a fresh capture use it).
func (e *Recovery) Capture(ctx context.Context, sessionID string) error {
	e.Mu.Lock()
	s := e.Sessions[sessionID]
	e.Mu.Unlock()
	if s == nil {
		return fmt.Errorf("no live session %q", sessionID)
	}
	return e.CaptureSession(ctx, s)
}
