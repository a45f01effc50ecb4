// Package sessions is the engine's data model: sessions (browser
// contexts, each with its guard and its refs), their tasks and the tasks'
// tabs, the browsers they run in (slots), and the registry that finds
// them. One lock, Registry.Mu, guards what the comments say it guards; a
// task's own lock (Task.Run) lets one action of the task run at a time.
//
// The rooms that act on them — browsers (start, stop, crash), recovery
// (capture, resume, lazy tabs), state (profiles' cookies and storage,
// injection), takeover (a person's hold) — each embed the registry; the
// engine (internal/engine) wires them to the tool's actions.
package sessions

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/browserd/browserd/internal/browser"
	"github.com/browserd/browserd/internal/cluster"
	"github.com/browserd/browserd/internal/config"
	"github.com/browserd/browserd/internal/egress"
	"github.com/browserd/browserd/internal/metrics"
	"github.com/browserd/browserd/internal/recording"
	"github.com/browserd/browserd/internal/routes"
	"github.com/browserd/browserd/internal/sealkey"
	"github.com/browserd/browserd/internal/snapshot"
	"github.com/browserd/browserd/internal/storagestate"
	"github.com/browserd/browserd/internal/store"
	"github.com/browserd/browserd/internal/tool"
	"github.com/browserd/browserd/internal/untrusted"
)

type Session struct {
	ID      string
	CtxID   string
	Refs    *snapshot.Refs
	Tasks   map[string]*Task
	Created time.Time
	// egress is the guard's listener for this session's browser context;
	// the default session uses the proxy's default listener.
	Egress *egress.Session
	Policy egress.Policy
	// profile names the persistent identity whose browser the session
	// uses; "" for an ephemeral session (a context of the shared browser).
	Profile string
	// initScript puts saved storage back in new tabs (see state.go).
	InitScript string
	// width and height are the viewport of new tabs; 0: the daemon's.
	Width, Height int
	// Routes are the session's routes (the route action with scope
	// session); not captured.
	Routes routes.Table
	// emu is what the session's pages see of their environment (user
	// agent, timezone, position, locale), set at creation; captured and
	// restored.
	Emu browser.Emulation
	// dir is the real path of the caller's user-data-dir the session's
	// browser runs on (folders.go), "" for a profile's or ephemeral
	// session; set at creation, captured and restored.
	Dir string
	// headed is whether the session's browser shows a window, set at
	// creation by launch's headless; nil: the daemon's --headed. Not
	// captured: a resumed session gets the daemon's (see slotKey).
	Headed *bool
	// tabsEnded is set when the session's last tab closed, until one
	// opens: Chromium has ended its session cookies (see saveProfile).
	TabsEnded bool
	// SaveMu is held by a save of the session's profile state and by
	// the closing of its last tabs (TabsEnded set before, under it): a
	// save under way when they close finishes first, with the session
	// cookies; none starts after without them.
	SaveMu sync.Mutex
	// exclude are the session's own excluded cookie domains (launch's
	// excludeCookieDomains; see excludedFor); captured and restored.
	Exclude []string
	// creds answer HTTP authentication challenges, each of its origin
	// only; set by launch, captured (sealed) and restored.
	Creds []browser.Credential
	// Proxy is the session's own upstream proxy (launch's proxy), login
	// included; nil: the daemon's --proxy, or none. Set when launch
	// creates the session, given to its guard listener (Egress), captured
	// (sealed) and restored.
	Proxy *egress.Upstream
	// ClientCerts are the session's client certificates (launch's
	// clientCertificates, or its profile's), presented by its guard
	// listener to their origins (egress's clientcert.go).
	ClientCerts []store.ClientCert
	// Check is the session's own login check (launch's loginCheck on a
	// session without a profile; a profile's is kept in the store),
	// captured and restored; nil for none.
	Check *store.LoginCheck
	// Login is the session's last login check (see the engine's
	// logincheck.go); nil before one ran. LoginDue is set when one is due:
	// the session's browser started, or the session was resumed.
	Login    *tool.Login
	LoginDue bool
	// injected are the domains of the states put into the session (see
	// store.Capture.InjectedDomains); captured and restored.
	Injected []string
	// resuming is closed when a resume of the session under way ends;
	// nil when none is.
	Resuming chan struct{}
	// closing is set while DELETE /api/sessions/{id} closes the session:
	// new calls wait for it to end, queued ones give up.
	Closing bool

	// Recovery (see recovery.go), guarded by Engine.mu.
	Stored      bool      // has an active row in the store and our lease
	Parked      bool      // closed by the idle policy: recoverable
	Rehydrate   bool      // its browser died: bring it back on next use
	CapDirty    bool      // changed since the last capture
	LastCapture time.Time // when the last capture was taken
	LastTabs    map[string]CapturedTab
	// capHash sums the last capture (captureHash): a probe of a session
	// no action changed writes a capture only when what it reads differs.
	CapHash [32]byte
	// lastProbe is when such a probe last read the session.
	LastProbe time.Time
	// capMu keeps captures and rehydration of the session apart.
	CapMu sync.Mutex
	// saveErr is why the last background save of each kind (capture,
	// profile state) failed; absent when it worked (guarded by Engine.mu).
	SaveErr map[SaveKind]string
	// nextTab is the number of the session's last new tab (guarded by
	// Engine.mu): tab ids count per session, so that no owner learns how
	// many tabs others open.
	NextTab int
}

// tabKey finds a tab among all sessions': its id is its session's.
type TabKey struct{ Sess, Tab string }

// key is tb's key in Engine.tabs.
func (tb *Tab) Key() TabKey { return TabKey{tb.Task.Sess.ID, tb.ID} }

type Task struct {
	Name string
	Sess *Session
	Run  sync.Mutex // one action at a time
	// Routes are the task's routes (the route action).
	Routes routes.Table

	// guarded by Engine.mu
	Tabs     []*Tab
	Active   *Tab
	LastUsed time.Time
	Popups   []*Tab // opened by the page since the last result
	Ended    bool   // task_end was called; tabs stay for review
	EndedAt  time.Time
	Working  bool // an agent's action runs in the task
	// NoCache: the task's tabs bypass the browser's HTTP cache (a
	// replay's task: tool.Input.NoCache).
	NoCache bool
	// stop ends the running action (while working): closing the session
	// calls it with ErrSessionClosed.
	Stop context.CancelCauseFunc
}

// Tab is one tab of a task.
type Tab struct {
	ID   string
	Task *Task
	// Page is the tab's page; nil while the tab is lazy and has no target
	// yet (see Lazy). Set under Registry.Mu; read without it once the
	// caller's wake returned.
	Page *browser.Page

	// guarded by task.run
	LastSnap string
	// ShownURL and ShownTitle are the URL and title the agent's last
	// answer on the tab showed, or the last one before it (an answer
	// repeats them only when they changed); guarded by Registry.Mu.
	ShownURL, ShownTitle string
	NavSeq               int
	// lastFrames is the tree of the tab's last read and journal the number
	// of the page's journal of changes since it (see answer.go).
	LastFrames []snapshot.Frame
	Journal    int64
	// Built is the snapshot last built from a read of the tab, built
	// again only when the read or what is asked of it changed.
	Built snapshot.Memo
	// windows are the items the tab's long lists show from: where the
	// agent paged to (snapshot with a ref or selector; see answer.go).
	Windows []snapshot.Key

	// lazy is a tab a resume opened without loading it (a task's tab
	// behind its active one): where it was, until something uses it
	// (wake). Guarded by Engine.mu.
	Lazy *Lazy

	// A person's hold on the tab, and the hand-back the agent is yet to
	// be told of (see takeover.go); guarded by Engine.mu.
	Held       *Hold
	HandedBack *Handback
	Waiting    string // the agent's reason while it waits in handoff
}

// slot is one browser and what the engine knows about it. A profile has a
// browser of its own (its user-data-dir; the profile's session uses the
// default context, so Chromium keeps its cookies and storage on disk).
// Ephemeral sessions share one browser, each in an in-memory context. With
// --cdp, every session uses the attached browser.
type Slot struct {
	Key     string
	Profile string
	// owner is the owner whose browser this is (a profile's or a folder's:
	// the owner of the session that last started or used it); "" for a
	// browser every owner's sessions share. Listings show a browser only
	// to its owner (see visibleTo).
	Owner  string
	Br     *browser.Browser
	Headed bool     // the browser shows windows (see shows)
	Spares []string // blank tabs nobody uses yet: the browser's first, and one opened ahead (Pool.RefillSpare)
	// Refilling: a blank tab is being opened ahead for the next new tab.
	Refilling bool
	Used      time.Time // last handed out by ensureBrowser, or a tab opened
	Opening   int       // tabs being opened: the janitor leaves the browser be
	// Warmed is the stand-in session a browser started ahead of the first
	// call was started for (browsers.Pool.Warm), until a session takes
	// the browser as its own; nil for every other browser.
	Warmed *Session
}

// visibleTo reports whether owner's listings may show the slot: a shared
// browser is everyone's, a profile's or a folder's only its owner's —
// its key names the profile or the folder's path.
func (sl *Slot) VisibleTo(owner string) bool {
	return sl.Owner == "" || sl.Owner == owner
}

// capture takes a session's state and writes it to the store. A session
// whose browser is gone, or that waits to be rehydrated, is not captured:
// its last good capture must stay the newest.
// saveKind is a kind of background save of a session.
type SaveKind int

// saveFailures is why s's background saves fail, "" when they work. Call
// with Engine.mu held.
func (s *Session) SaveFailures() string {
	var out []string
	for _, k := range []SaveKind{SaveCapture, SaveProfile} {
		if msg := s.SaveErr[k]; msg != "" {
			out = append(out, msg)
		}
	}
	return strings.Join(out, "; ")
}

// capturedTab is a tab as captured, with the localStorage of its origin
// (which the capture keeps per origin, not per tab).
type CapturedTab struct {
	store.Tab
	Origin string
	Local  []storagestate.NameValue
}

// working reports whether an action runs in one of s's tasks: its end
// marks the session changed (a capture follows), so a probe meanwhile
// would only read a page the action is still changing. Call with
// Engine.mu held.
func (s *Session) Working() bool {
	for _, t := range s.Tasks {
		if t.Working {
			return true
		}
	}
	return false
}

// lastActed is when an action last ended in one of s's tasks. While an
// agent acts, the captures its actions cause see what its pages did on
// their own too; a probe would only compete with its next action (on a
// big page, for the renderer's main thread). Call with Engine.mu held.
func (s *Session) LastActed() time.Time {
	var last time.Time
	for _, t := range s.Tasks {
		if t.LastUsed.After(last) {
			last = t.LastUsed
		}
	}
	return last
}

// Lazy is where a tab a resume left unloaded was, and how to open it: it
// has no target in the browser, and so no renderer, until used.
type Lazy struct {
	URL, Title untrusted.Text // the page chose both (history.pushState)
	// Opts are the options its page opens with (the storage it gets back,
	// the session's environment).
	Opts browser.PageOptions
	// Woken is closed once a wake under way ended (the tab has its page,
	// or the load failed); nil while no wake runs.
	Woken chan struct{}
	// Since is when the resume left it unloaded: nobody used it since
	// (see internal/idle).
	Since time.Time
}

// hold is a person's hold on a tab (guarded by Engine.mu).
type Hold struct {
	Who   string
	Since time.Time
}

// handback is what the agent is told after a person held its tab.
type Handback struct {
	From, To time.Time
}

// pages are the session's tabs. Call with Engine.mu held.
func (s *Session) Pages() []*browser.Page {
	// (A lazy tab has no page yet: it gets the session's settings when it
	// opens.)
	var pages []*browser.Page
	for _, t := range s.Tasks {
		for _, tb := range t.Tabs {
			if tb.Page != nil {
				pages = append(pages, tb.Page)
			}
		}
	}
	return pages
}

const (
	SaveCapture SaveKind = iota // the session's capture, in the store
	SaveProfile                 // the profile's saved state, a file
)

// EndTabs marks the session's tabs as ending before its last ones close:
// a profile save under way finishes first, and none reads the jar after
// (see profiles.Keeper.SaveProfileState). A tab opened afterwards clears
// the mark.
func (e *Registry) EndTabs(s *Session) {
	s.SaveMu.Lock()
	defer s.SaveMu.Unlock()
	e.Mu.Lock()
	s.TabsEnded = true
	e.Mu.Unlock()
}

// Registry is the state every room of the engine shares: its settings and
// services, and the sessions, tasks, tabs and browsers of the daemon.
type Registry struct {
	Cfg      config.Config
	Log      *slog.Logger
	Guard    egress.Policy // the server's egress policy
	Resolver egress.Resolver
	Proxy    *egress.Proxy
	NoProxy  bool
	Box      *sealkey.Box
	Store    store.Store
	Node     string // this daemon's name on leases (see nodeID)
	// Members is this node among the others on the store: heartbeats,
	// where a session runs, forwarding (engine's cluster.go).
	Members *cluster.Cluster
	// VerifyPatch checks every patched snapshot against a whole read
	// (BROWSERD_VERIFY_PATCH=1, for tests; see answer.go).
	VerifyPatch bool
	// Counters counts actions, captures, resumes and guard refusals
	// (internal/metrics); never nil after New.
	Counters *metrics.Set
	// Recorder keeps each task's trace (internal/recording); nil with
	// --record=off.
	Recorder *recording.Recorder

	// ResumeMu serializes bringing sessions back (resume, rehydration
	// after a crash) and creating them in the store.
	ResumeMu sync.Mutex
	CapWake  chan struct{} // wakes the capturer for a due capture

	LaunchMu sync.Mutex // serializes browser start and restart

	Mu       sync.Mutex        // protects the fields below
	Slots    map[string]*Slot  // browsers by key: "profile:NAME", "shared", "shared-headed", "attached"
	Dirty    map[*Session]bool // profile sessions to save soon
	Repairs  map[string]string // profile -> the last repair, for status
	Sessions map[string]*Session
	Tabs     map[TabKey]*Tab
	Closed   bool
	// Dashboard is the dashboard's URL (internal/live), "" without an
	// HTTP listener; see SetDashboard.
	Dashboard string

	Stop chan struct{}
	WG   sync.WaitGroup
}

// ParseClientCerts reads a session's kept client certificates for its
// guard listener; one that no longer loads (expired) is left out, and the
// error says so.
func ParseClientCerts(certs []store.ClientCert) ([]egress.ClientCert, error) {
	out := make([]egress.ClientCert, 0, len(certs))
	var errs []error
	for _, c := range certs {
		p, err := egress.ParseClientCert(c.Origin, c.Cert, c.Key, c.CA)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, p)
	}
	return out, errors.Join(errs...)
}

// Resize sets the viewport of the session's tabs to w×h (launch's width
// and height for a session that runs: the computer tool's display); the
// session's new tabs get it from Session.Width and Height. It says which
// tabs it could not resize.
func (r *Registry) Resize(ctx context.Context, s *Session, w, h int) error {
	var pages []*browser.Page
	r.Mu.Lock()
	s.Width, s.Height = w, h
	for k, tb := range r.Tabs {
		if k.Sess == s.ID && tb.Page != nil {
			pages = append(pages, tb.Page)
		}
	}
	r.Mu.Unlock()
	var errs []error
	for _, pg := range pages {
		if err := pg.SetViewport(ctx, w, h); err != nil && !pg.Closed() {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("resizing the session's tabs to %d×%d: %w", w, h, err)
	}
	return nil
}
