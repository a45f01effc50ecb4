package browser

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/browserd/browserd/internal/cdp"
	"github.com/browserd/browserd/internal/storagestate"
	"github.com/browserd/browserd/internal/tool"
	"github.com/browserd/browserd/internal/untrusted"
)

// PageOptions configures a tab.
type PageOptions struct {
	Width, Height int
	// ConsoleLimit bounds the console buffer (default 1000 messages).
	ConsoleLimit int
	// NetLimit bounds the network log (default 1000 requests).
	NetLimit int
	// InitScript runs in every new document before the page's scripts.
	InitScript string
	// Guard, when set, vets every request of the tab through CDP Fetch
	// interception: the fallback for a browser browserd did not start and
	// so could not route through its egress proxy. It returns nil to let
	// a request go, or the reason it is refused.
	Guard func(ctx context.Context, url string) error
	// Emulation overrides what the page sees of its environment.
	Emulation Emulation
	// Credentials answer HTTP authentication challenges of their origins.
	Credentials []Credential
	// Router, when set, answers the requests its routes match (the route
	// action, internal/routes); see route.go.
	Router Router
	// NoCache: every request bypasses the browser's HTTP cache (a
	// replay's tabs, which test what the site serves now).
	NoCache bool
	// Scope is who the tab's clipboard chords act for (browserd gives
	// each session its own): a paste in a tab sees only what a tab of the
	// same scope copied (clipboard.go). "": the tab alone.
	Scope string
}

// Emulation is what a session may override of the environment its pages
// see. The zero value overrides nothing.
type Emulation struct {
	UserAgent   string       `json:"userAgent,omitempty"`
	Timezone    string       `json:"timezone,omitempty"` // IANA id, e.g. Europe/Paris
	Geolocation *Geolocation `json:"geolocation,omitempty"`
	// Locale is a BCP 47 language tag (fr-FR): Intl's default locale,
	// navigator.language(s) and the Accept-Language header.
	Locale string `json:"locale,omitempty"`
	// Device is launch's device beyond its viewport (internal/emulation);
	// Media, Net, Headers, CPU, InitScripts and Permissions what it and
	// the emulate action set (see emulate.go).
	Device *Device `json:"device,omitempty"`
	More
}

// Geolocation is a position in degrees; Accuracy in metres.
type Geolocation struct {
	Latitude  float64 `json:"latitude"`
	Longitude float64 `json:"longitude"`
	Accuracy  float64 `json:"accuracy,omitempty"`
}

// Check lists what is wrong with e, by field (userAgent, timezone,
// geolocation.latitude, …).
func (e Emulation) Check() storagestate.Errors {
	var errs storagestate.Errors
	if len(e.UserAgent) > 1024 || strings.ContainsFunc(e.UserAgent, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		errs = append(errs, &storagestate.FieldError{Path: "userAgent", Msg: "at most 1024 characters, no control characters"})
	}
	if l := e.Locale; l != "" && !tool.ValidLocale(l) {
		errs = append(errs, &storagestate.FieldError{Path: "locale", Msg: fmt.Sprintf("%q: want a language tag such as fr-FR or en", l)})
	}
	if tz := e.Timezone; tz != "" && !tool.ValidZone(tz) {
		errs = append(errs, &storagestate.FieldError{Path: "timezone", Msg: fmt.Sprintf("%q: want an IANA time zone such as Europe/Paris", tz)})
	}
	if g := e.Geolocation; g != nil {
		if !(g.Latitude >= -90 && g.Latitude <= 90) {
			errs = append(errs, &storagestate.FieldError{Path: "geolocation.latitude", Msg: "want -90 to 90 degrees"})
		}
		if !(g.Longitude >= -180 && g.Longitude <= 180) {
			errs = append(errs, &storagestate.FieldError{Path: "geolocation.longitude", Msg: "want -180 to 180 degrees"})
		}
		if !(g.Accuracy >= 0 && g.Accuracy <= 1e7) {
			errs = append(errs, &storagestate.FieldError{Path: "geolocation.accuracy", Msg: "want metres, 0 or more"})
		}
	}
	return errs
}

// IsZero reports whether e overrides nothing.
func (e Emulation) IsZero() bool {
	return e.UserAgent == "" && e.Timezone == "" && e.Geolocation == nil && e.Locale == "" && e.Device == nil && e.More.IsZero()
}

// emulationSteps are the CDP commands that apply e to a tab.
func emulationSteps(e Emulation) [][2]any {
	var steps [][2]any
	if e.UserAgent != "" || e.Locale != "" {
		// An empty userAgent keeps the browser's own; acceptLanguage is
		// navigator.language(s) and the Accept-Language header.
		p := map[string]any{"userAgent": e.UserAgent}
		if e.Locale != "" {
			p["acceptLanguage"] = e.Locale
		}
		if e.UserAgent != "" {
			// Client Hints (navigator.userAgentData, Sec-CH-UA-*) that
			// agree with the user agent, as Playwright gives them.
			p["userAgentMetadata"] = uaMetadata(e.UserAgent, e.Device != nil && e.Device.Mobile)
		}
		steps = append(steps, [2]any{"Emulation.setUserAgentOverride", p})
	}
	if e.Locale != "" {
		steps = append(steps, [2]any{"Emulation.setLocaleOverride", map[string]any{"locale": e.Locale}})
	}
	if e.Timezone != "" {
		steps = append(steps, [2]any{"Emulation.setTimezoneOverride", map[string]any{"timezoneId": e.Timezone}})
	}
	if g := e.Geolocation; g != nil {
		acc := g.Accuracy
		if acc <= 0 {
			acc = 10
		}
		steps = append(steps, [2]any{"Emulation.setGeolocationOverride", map[string]any{"latitude": g.Latitude, "longitude": g.Longitude, "accuracy": acc}})
	}
	return append(steps, moreSteps(e.Device, e.More)...)
}

// Emulate applies e to the tab (pages loaded later keep it) and to the
// out-of-process frames it attaches from now on.
func (p *Page) Emulate(ctx context.Context, e Emulation) error {
	p.mu.Lock()
	old := p.opts.Emulation
	p.opts.Emulation = e
	p.mu.Unlock()
	steps := append(resetSteps(old.More, e.More), emulationSteps(e)...)
	steps = append(steps, p.newInitScripts(e.InitScripts)...)
	if err := p.grant(ctx, e.Permissions); err != nil {
		return err
	}
	for _, st := range steps {
		if err := p.sess.Call(ctx, st[0].(string), st[1], nil); err != nil && !sharedOverride(st[0].(string), err) {
			return fmt.Errorf("%s: %w", st[0], err)
		}
	}
	return nil
}

// sharedOverride reports whether err refuses a locale or time zone override
// because another tab in the same renderer process set it already: all
// such tabs are the same session's (one browser context), so the value is
// the one asked for (as Playwright reasons too).
func sharedOverride(method string, err error) bool {
	return (method == "Emulation.setLocaleOverride" || method == "Emulation.setTimezoneOverride") &&
		strings.Contains(err.Error(), "override is already in effect")
}

// ErrDialogOpen is the cause of an action's context when a JavaScript dialog
// opens while the action runs: the page is blocked until it is answered.
var ErrDialogOpen = errors.New("a JavaScript dialog is open")

// ErrCrashed is returned when the tab's renderer has crashed.
var ErrCrashed = errors.New("the tab's renderer crashed")

// Dialog is an open JavaScript dialog.
type Dialog struct {
	Type                   string // alert, confirm, prompt or beforeunload
	Message, DefaultPrompt untrusted.Text
}

// ConsoleMessage is one console line or page error.
type ConsoleMessage struct {
	Level string
	Text  string
}

// frameSession is an out-of-process iframe's CDP session.
type frameSession struct {
	sess        *cdp.Session
	parentFrame string
}

// Page is one tab: its CDP session, an event goroutine that keeps its state
// (console, dialog, network activity, frames), and the operations actions are
// made of. Safe for concurrent use, though the engine runs one action per
// tab at a time. The event goroutine stops when the tab's session ends.
type Page struct {
	b        *Browser
	TargetID string
	sess     *cdp.Session
	opts     PageOptions

	mu          sync.Mutex // protects the fields below
	changed     chan struct{}
	loadSeq     int // main-frame load events seen
	commitLoad  int // loadSeq when the current document committed
	readySeq    int // main-frame DOMContentLoaded events seen
	commitReady int // readySeq when the current document committed
	rest        int // loadSeq before a NavigateReady whose load is still to wait for; 0: none
	navSeq      int // main-frame cross-document navigations seen
	sameDocSeq  int // main-frame same-document navigations seen (hash, pushState, history)
	loading     bool
	navPending  bool // a main-frame navigation waits for its document; Chromium holds commands to the page meanwhile
	url         string
	inflight    map[string]time.Time // request id -> start
	lastNet     time.Time
	lastSubNet  time.Time // lastNet, but for the main document's own request (see afterLoad)
	docRequest  string    // the main document's request id
	console     []ConsoleMessage
	consoleHead int
	net         *netlog // the network log since the last navigation (netlog.go)
	dropped     int
	dialog      *Dialog
	dialogCtx   context.Context
	dialogEnd   context.CancelCauseFunc
	dialogsShut int                      // dialogs reported closed: another may open at once
	oopifs      map[string]*frameSession // frame id -> session
	worlds      map[string]int64         // frame id -> browserd's isolated world (see world.go)
	objs        map[objKey]string        // elements resolved since the last Release (see CallOn)
	journalSeq  int64                    // the last journal started (see journal.go)
	crashed     bool
	crashing    bool                   // unfreeze asked for the crash: actions go on
	fetching    map[string]RouteAnswer // Fetch request id -> its fetch route, until the server's answer pauses (route.go)
	windowOpens int
	// navRequests counts the navigations the tab's main frame was asked
	// for or started loading; downloadsBegun the downloads it began (see
	// NavCounts).
	navRequests    int
	downloadsBegun int
	blocked        []string       // refused by the Fetch guard, not yet reported
	invalid        []InvalidField // fields that stopped a form in the last action
	// settledJournal: the journal as the last input action's settle left
	// it, told by its last call into the page (see CleanAtSettle).
	settledJournal journalNow
	// loaded: the last input action's settle waited out a page load it
	// started (a click whose page navigates on a timer); the next
	// WaitLoad counts it as the load it waits for. markLoad: loadSeq
	// when the last input action began (or a WaitLoad took a load): a
	// load since, which ended after the action answered, counts too.
	loaded    bool
	markLoad  int
	authTried map[string]bool // requests already answered with a credential
	inits     map[string]bool // init scripts added (emulate.go)
	handled   int64           // events the loop has handled
	held      string          // the mouse button MouseDown pressed, not released yet (point.go)
	press     lastPress       // the last MouseDown, for the next one's click count (point.go)
	events    *cdp.Listener

	loopDone chan struct{}
}

func newPage(ctx context.Context, b *Browser, targetID string, sess *cdp.Session, o PageOptions) (*Page, error) {
	if o.ConsoleLimit <= 0 {
		o.ConsoleLimit = 1000
	}
	if o.NetLimit <= 0 {
		o.NetLimit = 1000
	}
	p := &Page{
		b: b, TargetID: targetID, sess: sess, opts: o,
		changed:  make(chan struct{}),
		inflight: map[string]time.Time{},
		oopifs:   map[string]*frameSession{},
		worlds:   map[string]int64{},
		net:      newNetlog(o.NetLimit),
		loopDone: make(chan struct{}),
	}
	p.dialogCtx, p.dialogEnd = context.WithCancelCause(context.Background())
	l := sess.Listen(pageEventNames()...)
	p.events = l
	go p.loop(l)
	// DOM stays disabled on purpose: DOM events flood on big pages, and
	// every element operation works from backend node ids. The setup
	// commands are pipelined: they only need to arrive in order.
	type step struct {
		method string
		params any
	}
	steps := []step{{"Page.enable", nil}, {"Runtime.enable", nil}, {"Network.enable", nil}, {"Inspector.enable", nil},
		// A background tab acts as the focused one: focus events, :focus,
		// document.hasFocus() as for a person's foreground tab.
		{"Emulation.setFocusEmulationEnabled", map[string]any{"enabled": true}}}
	if o.NoCache {
		steps = append(steps, step{"Network.setCacheDisabled", map[string]any{"cacheDisabled": true}})
	}
	if o.Width > 0 && o.Height > 0 {
		steps = append(steps, step{"Emulation.setDeviceMetricsOverride", deviceMetrics(o.Width, o.Height, o.Emulation.Device)})
	}
	for _, st := range emulationSteps(o.Emulation) {
		steps = append(steps, step{st[0].(string), st[1]})
	}
	// Short timers are followed for the settle wait (timers.go).
	steps = append(steps, step{"Page.addScriptToEvaluateOnNewDocument", map[string]any{"source": timersJS}})
	// browserd's isolated world is made with each document, and its
	// context reported (onContextCreated): the first read of a new page
	// does not wait for Page.createIsolatedWorld (world.go).
	steps = append(steps, step{"Page.addScriptToEvaluateOnNewDocument", map[string]any{"source": "", "worldName": utilityWorld}})
	if o.InitScript != "" {
		steps = append(steps, step{"Page.addScriptToEvaluateOnNewDocument", map[string]any{"source": o.InitScript}})
	}
	for _, st := range p.newInitScripts(o.Emulation.InitScripts) {
		steps = append(steps, step{st[0].(string), st[1]})
	}
	if err := p.grant(ctx, o.Emulation.Permissions); err != nil {
		return nil, fmt.Errorf("setting up tab: %w", err)
	}
	if setup := fetchSetup(o.Guard != nil || routing(o.Router), o.Credentials); setup != nil {
		steps = append(steps, step{"Fetch.enable", setup})
	}
	steps = append(steps, step{"Target.setAutoAttach", map[string]any{"autoAttach": true, "waitForDebuggerOnStart": false, "flatten": true}})
	waits := make([]func(any) error, len(steps))
	for i, st := range steps {
		waits[i] = sess.Send(ctx, st.method, st.params)
	}
	var first error
	for i, w := range waits {
		if err := w(nil); err != nil && first == nil && !sharedOverride(steps[i].method, err) {
			first = fmt.Errorf("setting up tab: %w", err)
		}
	}
	if first != nil {
		return nil, first
	}
	return p, nil
}

// Session is the tab's CDP session.
func (p *Page) Session() *cdp.Session { return p.sess }

// Browser is the browser the tab lives in.
func (p *Page) Browser() *Browser { return p.b }

// Done is closed when the tab's event goroutine has stopped (tab closed,
// browser gone).
func (p *Page) Done() <-chan struct{} { return p.loopDone }

// NavPending reports whether a main-frame navigation waits for its new
// document: until it commits, Chromium holds commands to the page.
func (p *Page) NavPending() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.navPending
}

// Closed reports whether the tab is gone.
func (p *Page) Closed() bool {
	select {
	case <-p.loopDone:
		return true
	default:
		return false
	}
}

// Crashed reports whether the renderer crashed.
func (p *Page) Crashed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.crashed
}

// recovered clears the crash state once a new document loads. Call with mu
// held.
func (p *Page) recovered() {
	if !p.crashed {
		return
	}
	p.crashed = false
	if p.dialog == nil && p.dialogCtx.Err() != nil {
		p.dialogCtx, p.dialogEnd = context.WithCancelCause(context.Background())
	}
}

// notify wakes everyone waiting for a state change. Call with mu held.
func (p *Page) notify() {
	close(p.changed)
	p.changed = make(chan struct{})
}

func (p *Page) loop(l *cdp.Listener) {
	defer close(p.loopDone)
	defer l.Close()
	ctx := context.Background()
	for {
		ev, ok := l.Next(ctx)
		if !ok {
			p.mu.Lock()
			p.notify()
			p.mu.Unlock()
			p.dialogEnd(ErrClosedTab)
			return
		}
		p.handle(ev)
	}
}

// Sync returns once the event goroutine has handled every event Chromium
// sent before now (a dialog, a popup, a navigation request that an input
// event caused), so the caller's view of the tab is current.
func (p *Page) Sync(ctx context.Context) error {
	// A browser-side round trip: it answers even while a dialog blocks the
	// page, and everything Chromium wrote before the answer is queued.
	if err := p.b.conn.Browser().Call(ctx, "Target.getTargetInfo", map[string]any{"targetId": p.TargetID}, nil); err != nil {
		return err
	}
	target := p.events.Pushed()
	return p.waitUntil(ctx, func() bool { return p.handled >= target })
}

// ErrClosedTab is the cause of an action's context when its tab closes.
var ErrClosedTab = errors.New("the tab was closed")

// handle updates the tab's state from one event, through its handler in
// pageEvents, and wakes everyone waiting for a change.
func (p *Page) handle(ev cdp.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.handled++
	defer p.notify()
	if h := pageEvents[ev.Method]; h != nil {
		h(p, ev)
	}
}

// guardFrame vets an out-of-process frame's requests too. Its event
// goroutine ends with the frame's session.
func (p *Page) guardFrame(s *cdp.Session) {
	l := s.Listen("Fetch.requestPaused")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	err := s.Call(ctx, "Fetch.enable", map[string]any{"patterns": []map[string]any{{"urlPattern": "*", "requestStage": "Request"}}}, nil)
	cancel()
	if err != nil {
		l.Close()
		return
	}
	go func() {
		defer l.Close()
		for {
			ev, ok := l.Next(context.Background())
			if !ok {
				return
			}
			var e struct {
				RequestID string `json:"requestId"`
				Request   struct {
					URL string `json:"url"`
				} `json:"request"`
			}
			if ev.Decode(&e) == nil {
				go p.vetOn(s, e.RequestID, "", e.Request.URL) // its requests are not in the tab's log
			}
		}
	}()
}

// vet answers one intercepted request with the guard's verdict.
func (p *Page) vet(id, networkID, url string) { p.vetOn(p.sess, id, networkID, url) }

func (p *Page) vetOn(s *cdp.Session, id, networkID, url string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.opts.Guard(ctx, url); err != nil {
		p.mu.Lock()
		if len(p.blocked) < 256 {
			p.blocked = append(p.blocked, err.Error())
		}
		p.mu.Unlock()
		p.netRefused(networkID, err.Error())
		_ = s.Call(ctx, "Fetch.failRequest", map[string]any{"requestId": id, "errorReason": "BlockedByClient"}, nil)
		return
	}
	continueRequest(s, id)
}

// continueRequest lets a paused request go on unchanged.
func continueRequest(s *cdp.Session, id string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = s.Call(ctx, "Fetch.continueRequest", map[string]any{"requestId": id}, nil)
}

// TakeBlocked returns (and forgets) the requests the tab's Fetch guard
// refused.
func (p *Page) TakeBlocked() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	b := p.blocked
	p.blocked = nil
	return b
}

// addConsole keeps the last ConsoleLimit messages in a ring.
func (p *Page) addConsole(level, text string) {
	if len(text) > 2000 {
		text = text[:2000] + "…"
	}
	m := ConsoleMessage{Level: level, Text: text}
	if len(p.console) < p.opts.ConsoleLimit {
		p.console = append(p.console, m)
		return
	}
	p.console[p.consoleHead] = m
	p.consoleHead = (p.consoleHead + 1) % len(p.console)
	p.dropped++
}

// ConsoleSeq counts the console messages the tab has had (ConsoleSince).
func (p *Page) ConsoleSeq() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.dropped + len(p.console)
}

// ConsoleSince returns the messages since ConsoleSeq said seq, those the
// buffer still holds, oldest first.
func (p *Page) ConsoleSince(seq int) []ConsoleMessage {
	p.mu.Lock()
	defer p.mu.Unlock()
	total := p.dropped + len(p.console)
	n := min(total-seq, len(p.console))
	if n <= 0 {
		return nil
	}
	out := make([]ConsoleMessage, 0, n)
	for i := len(p.console) - n; i < len(p.console); i++ {
		out = append(out, p.console[(p.consoleHead+i)%len(p.console)])
	}
	return out
}

// Console returns the buffered console messages, oldest first, and how many
// older ones the bounded buffer dropped.
func (p *Page) Console() ([]ConsoleMessage, int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]ConsoleMessage, 0, len(p.console))
	out = append(out, p.console[p.consoleHead:]...)
	out = append(out, p.console[:p.consoleHead]...)
	return out, p.dropped
}

// Frames returns the ids of the tab's frames it knows of: its main frame
// and its out-of-process frames.
func (p *Page) Frames() map[string]bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	m := map[string]bool{p.TargetID: true}
	for id := range p.oopifs {
		m[id] = true
	}
	return m
}

// WindowOpens counts the new windows (popups, target=_blank) the page opened.
func (p *Page) WindowOpens() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.windowOpens
}

// NavCounts is what the tab's main frame did with navigations: how many
// it was asked for or started loading (requested), how many committed
// (committed: a new document, or a move within the document), and how many downloads the tab began. A
// navigation requested since an earlier count that committed nothing may
// be turning into a download whose events are yet to come.
type NavCounts struct{ Requested, Committed, Downloads int }

// NavCounts returns the tab's counts so far (see NavCounts).
func (p *Page) NavCounts() NavCounts {
	p.mu.Lock()
	defer p.mu.Unlock()
	return NavCounts{Requested: p.navRequests, Committed: p.navSeq + p.sameDocSeq, Downloads: p.downloadsBegun}
}

// Dialog returns the open dialog, if any.
func (p *Page) Dialog() *Dialog {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.dialog == nil {
		return nil
	}
	d := *p.dialog
	return &d
}

// NavSeq counts main-frame cross-document navigations; refs of a tab are
// only valid within one.
func (p *Page) NavSeq() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.navSeq
}

// ActionContext returns ctx, ended early with cause ErrDialogOpen when a
// dialog opens (or ErrCrashed, ErrClosedTab), so that no call hangs behind
// a blocked page. cancel must be called.
func (p *Page) ActionContext(ctx context.Context) (context.Context, context.CancelFunc) {
	p.mu.Lock()
	dctx := p.dialogCtx
	p.mu.Unlock()
	actx, cancel := context.WithCancelCause(ctx)
	stop := context.AfterFunc(dctx, func() { cancel(context.Cause(dctx)) })
	return actx, func() {
		stop()
		cancel(context.Canceled)
	}
}

// waitUntil waits for cond (called with mu held) to hold.
func (p *Page) waitUntil(ctx context.Context, cond func() bool) error {
	for {
		p.mu.Lock()
		ok := cond()
		ch := p.changed
		p.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-ch:
		case <-p.loopDone:
			return ErrClosedTab
		}
	}
}

// Close closes the tab.
func (p *Page) Close(ctx context.Context) error {
	err := p.b.CloseTarget(ctx, p.TargetID)
	select {
	case <-p.loopDone:
	case <-time.After(2 * time.Second):
	case <-p.b.Done():
	}
	return err
}

// Info returns the tab's current URL and title: page text, both.
func (p *Page) Info(ctx context.Context) (url, title untrusted.Text, err error) {
	var r struct {
		TargetInfo TargetInfo `json:"targetInfo"`
	}
	if err := p.b.conn.Browser().Call(ctx, "Target.getTargetInfo", map[string]any{"targetId": p.TargetID}, &r); err != nil {
		return untrusted.Text{}, untrusted.Text{}, err
	}
	return untrusted.Page(r.TargetInfo.URL), untrusted.Page(r.TargetInfo.Title), nil
}

// remoteObject is the part of a CDP RemoteObject used for text.
type remoteObject struct {
	Type        string `json:"type"`
	Subtype     string `json:"subtype"`
	Value       any    `json:"value"`
	Description string `json:"description"`
	ObjectID    string `json:"objectId"`
}

func (o remoteObject) text() string {
	switch {
	case o.Type == "string":
		s, _ := o.Value.(string)
		return s
	case o.Value != nil:
		return fmt.Sprint(o.Value)
	case o.Description != "":
		return o.Description
	case o.Type == "undefined":
		return "undefined"
	}
	return o.Type
}

// SetCacheDisabled makes the tab's requests bypass the browser's HTTP
// cache (disabled) or use it again.
func (p *Page) SetCacheDisabled(ctx context.Context, disabled bool) error {
	return p.sess.Call(ctx, "Network.setCacheDisabled", map[string]any{"cacheDisabled": disabled}, nil)
}
