// Package store keeps what browserd must not lose when the daemon or
// Chromium stops: its sessions, their state captures and the leases that
// keep two daemons on one store from rehydrating the same session.
//
// # Model
//
// A session is a browser context bound to a profile (or ephemeral) with its
// tabs. A capture is a snapshot of its state: for every open tab its id,
// task, URL, title, viewport and sessionStorage, plus the session's cookies
// (session-only cookies included) and the localStorage of the tabs' origins.
// The engine captures after navigations and other state-changing actions
// and, when the pages changed something on their own, every snapshot
// interval (the "hybrid" strategy of source 002); the store writes each
// capture and the session's listing columns in one transaction and keeps
// only the newest captures of a session, any of which can be listed
// (ListCaptures) and read back (GetCapture) to resume from. Captures
// are credentials and are encrypted at rest; so is the first tab's URL
// that list_sessions shows (its query and fragment may hold a reset token
// or an OAuth code), sealed apart so that a listing need not open a whole
// capture; the rest of a listing (owner, profile, state, times, tab count)
// stays in the clear.
//
// # Recovery
//
// At start-up [Store.Recover] looks at every
// session still marked active — one the previous run never closed — that
// no other node holds a live lease on:
//
//   - no capture: it cannot be brought back, so it becomes closed;
//   - a last capture older than max_session_age: it becomes stale;
//   - otherwise it becomes recoverable, and session_resume (or
//     auto_rehydrate) brings it back, after which the engine sets it active
//     again, or failed when rehydration fails.
//
// The states and their transitions:
//
//	                 CreateSession
//	                       |
//	                       v
//	  resume ok     +-------------+  close, or Recover: no capture
//	+-------------->|   active    |--------------------------------> closed
//	|               +-------------+
//	|                  |        |
//	|   idle timeout, or        |  Recover: last capture
//	|   Recover: last capture   |  older than max age
//	|   within max age          |
//	|                  v        v
//	|        +-------------+  +-------+
//	+--------| recoverable |  | stale |
//	         +-------------+  +-------+
//	           |         |
//	           |         | resume (or auto_rehydrate) fails, or its
//	           |         | capture is found damaged at start-up
//	           |         v
//	           |     +--------+
//	           |     | failed |
//	           |     +--------+
//	           |
//	           +--> closed (close, without resuming)
//
// A closed, stale or failed session's id may be reused: CreateSession
// replaces it (and drops its captures). An id in state active or
// recoverable is taken ([ErrConflict]).
//
// Backends live in subpackages — sqlite (one file, the default) and
// postgres (a server several daemons share) — and all pass the contract
// suite in package storetest; package backend opens the one the --db
// setting names. Both seal what they keep with the same secret.Box and
// payload encoding, and refuse a key other than the one their data was
// sealed with (ErrWrongKey).
package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/browserd/browserd/internal/storagestate"
)

// SessionState is the life-cycle state of a session.
type SessionState string

// The session states; see the package documentation for the transitions.
const (
	// Active: the session runs in this or another daemon.
	Active SessionState = "active"
	// Recoverable: the daemon stopped while the session was active and a
	// recent capture can bring it back.
	Recoverable SessionState = "recoverable"
	// Stale: the daemon stopped while the session was active and its last
	// capture is older than the maximum session age.
	Stale SessionState = "stale"
	// Closed: the session was closed, or stopped without a capture.
	Closed SessionState = "closed"
	// Failed: bringing the session back failed.
	Failed SessionState = "failed"
)

// Valid reports whether s is one of the five states.
func (s SessionState) Valid() bool {
	switch s {
	case Active, Recoverable, Stale, Closed, Failed:
		return true
	}
	return false
}

// Session is one session's listing: what list_sessions shows, without the
// captured state.
type Session struct {
	ID      string
	Owner   string
	Profile string // "" for an ephemeral session
	State   SessionState
	// Reason says why the session is in its state (mostly failed or
	// closed), for list_sessions.
	Reason    string
	CreatedAt time.Time
	UpdatedAt time.Time
	// LastCaptureAt is when the last capture was taken; zero if never.
	LastCaptureAt time.Time
	// Tabs is the number of tabs in the last capture.
	Tabs int
	// URL is the first tab's URL in the last capture; sealed at rest,
	// opened for the listing ("" when it does not open).
	URL string
}

// Tab is one open tab (page) of a captured session.
type Tab struct {
	ID     string
	Task   string // the task (CLI --session) the tab serves
	URL    string
	Title  string
	Width  int // viewport, CSS pixels
	Height int
	Active bool // the tab in front
	// Review: the tab's task ended (task_end) and left it for a person.
	Review bool
	// SessionStorage is the tab's sessionStorage for the origin of URL
	// (sessionStorage belongs to one tab, unlike localStorage).
	SessionStorage []storagestate.NameValue
}

// Capture is a snapshot of a session's state.
type Capture struct {
	SessionID string
	Taken     time.Time // stored with millisecond precision
	Tabs      []Tab
	Cookies   []storagestate.Cookie // session cookies (Expires -1) included
	Origins   []storagestate.Origin // localStorage and sessionStorage per origin
	UserAgent string                // when overridden, else ""
	Timezone  string                // when overridden, else ""
	Locale    string                // when overridden, else ""
	// Emulation is the rest of what the session's pages see (a device,
	// media features, what emulate set: internal/emulation), as JSON;
	// nil for none.
	Emulation json.RawMessage
	// UserDataDir is the caller's folder the session's browser runs on
	// (userDataDir), else "".
	UserDataDir string
	// Geolocation is the overridden position, or nil.
	Geolocation *Geolocation
	// Credentials answer HTTP authentication of their origins; secrets,
	// sealed with the rest.
	Credentials []Credential
	// Proxy is the session's own upstream proxy (launch's proxy), its
	// password sealed with the rest; nil when it has none.
	Proxy *Proxy
	// ClientCerts are the session's client certificates (launch's
	// clientCertificates), their keys sealed with the rest.
	ClientCerts []ClientCert
	// LoginCheck is the session's own login check (launch's loginCheck,
	// for a session without a profile: a profile keeps its own, see
	// ProfileStates), run when the session is resumed; nil when it has
	// none.
	LoginCheck *LoginCheck
	// InjectedDomains are the domains of the storageStates put into the
	// session (at creation or by state_load): the logins its prompt hint
	// names, unlike the cookies pages set since.
	InjectedDomains []string
	// ExcludeDomains are the session's own excluded cookie domains
	// (launch's excludeCookieDomains): their cookies are never put back.
	ExcludeDomains []string
	// Node, when set, fences the write: SaveCapture refuses it with
	// ErrLeaseLost when another node holds the session's lease, so a node
	// that lost a session (it stalled past its lease and another took
	// over) cannot overwrite the new holder's captures. Not stored.
	Node string
}

// CaptureInfo is one kept capture of a session as a listing shows it:
// what an agent or a person needs to choose one to resume from.
type CaptureInfo struct {
	// ID is the store's id of the capture, unique in the store, growing
	// with every capture written.
	ID    int64
	Taken time.Time // millisecond precision
	Tabs  int
	// URL and Title are the first tab's (page-derived).
	URL   string
	Title string
	// Err is why the capture cannot be read (wraps ErrCorrupt); Tabs, URL
	// and Title are then empty.
	Err error
}

// Proxy is a session's upstream proxy: its address (scheme://HOST:PORT),
// its login and the hosts that go direct.
type Proxy struct {
	Server   string   `json:"server"`
	Username string   `json:"username,omitempty"`
	Password string   `json:"password,omitempty"`
	Bypass   []string `json:"bypass,omitempty"`
}

// ClientCert is a client certificate for one origin (scheme://host[:port]):
// the certificate chain and its key as PEM, and the CAs the site's own
// certificate must chain to (PEM; "": the system's).
type ClientCert struct {
	Origin string `json:"origin"`
	Cert   string `json:"cert"`
	Key    string `json:"key"`
	CA     string `json:"ca,omitempty"`
}

// ClientCertsName is the reserved name under which a profile's client
// certificates are kept in ProfileStates, sealed: a name no profile can
// have (names take no '#').
func ClientCertsName(profile string) string { return profile + "#client-certificates" }

// LoginCheck tells whether a session is still logged in: the page at URL
// shows Text, or has an element that matches Selector, only when it is.
// Name labels the site.
type LoginCheck struct {
	URL      string `json:"url"`
	Text     string `json:"text,omitempty"`
	Selector string `json:"selector,omitempty"`
	Name     string `json:"name,omitempty"`
}

// Credential is a session's login for HTTP basic or digest authentication
// of one origin.
type Credential struct {
	Origin   string `json:"origin"`
	Username string `json:"username"`
	Password string `json:"password"`
}

// Geolocation is a position in degrees, Accuracy in metres.
type Geolocation struct {
	Latitude  float64 `json:"latitude"`
	Longitude float64 `json:"longitude"`
	Accuracy  float64 `json:"accuracy,omitempty"`
}

// Store is what the engine needs to capture and recover sessions.
// Implementations are safe for concurrent use.
type Store interface {
	StoredSessions
	Nodes
	ProfileStates
	// CreateSession inserts s in state active (s.State is ignored; a zero
	// CreatedAt means now). It fails with ErrConflict (wrapped, naming the
	// state) if the id exists in state active or recoverable; a closed,
	// stale or failed session with the same id is replaced, its captures
	// and lease dropped.
	CreateSession(ctx context.Context, s Session) error
	// GetSession returns one session, or ErrNotFound.
	GetSession(ctx context.Context, id string) (Session, error)
	// ListSessions lists the sessions of owner ("" for every owner) in
	// state ("" for every state), newest first.
	ListSessions(ctx context.Context, owner string, state SessionState) ([]Session, error)
	// SetState moves a session to state with a reason (may be ""), or
	// returns ErrNotFound.
	SetState(ctx context.Context, id string, state SessionState, reason string) error
	// SaveCapture writes the capture and updates the session's last
	// capture, in one transaction, keeping only the newest keep captures of
	// the session (at least one). A zero Taken means now. ErrNotFound if
	// the session does not exist.
	SaveCapture(ctx context.Context, c Capture, keep int) error
	// LatestCapture returns the session's newest capture: ErrNotFound if
	// there is none, ErrCorrupt (wrapped) if it cannot be decrypted or
	// decoded.
	LatestCapture(ctx context.Context, sessionID string) (Capture, error)
	// ListCaptures lists the session's kept captures, newest first (as
	// LatestCapture orders them): ErrNotFound when the session does not
	// exist; a session without captures has none. A capture that cannot
	// be opened is listed with its ID, Taken and Err (ErrCorrupt).
	ListCaptures(ctx context.Context, sessionID string) ([]CaptureInfo, error)
	// GetCapture returns the session's capture id (a CaptureInfo.ID):
	// ErrNotFound when the session keeps no capture of that id (another
	// session's is not found either), ErrCorrupt (wrapped) when it cannot
	// be decrypted or decoded.
	GetCapture(ctx context.Context, sessionID string, id int64) (Capture, error)
	// Recover runs the start-up algorithm over every session left active:
	// no capture → closed; last capture older than maxAge → stale; else
	// recoverable. It returns the sessions it changed, in their new state.
	// Sessions under another node's lease unexpired at now are skipped:
	// they belong to a live daemon. Leases of node itself are an earlier
	// run's of the caller (which holds none yet when it recovers): they
	// are dropped and their sessions recovered.
	Recover(ctx context.Context, node string, now time.Time, maxAge time.Duration) ([]Session, error)
	// AcquireLease takes (or renews) the lease of a session for node until
	// now+ttl. It returns false if another node holds a lease unexpired at
	// now, and ErrNotFound if the session does not exist.
	AcquireLease(ctx context.Context, sessionID, node string, now time.Time, ttl time.Duration) (bool, error)
	// ReleaseLease drops node's lease of a session; a lease held by another
	// node, or none, is left alone.
	ReleaseLease(ctx context.Context, sessionID, node string) error
	// Close releases the store's resources.
	Close() error
}

// Errors of a Store, matched with errors.Is.
var (
	// ErrNotFound: no such session, or no capture of it.
	ErrNotFound = errors.New("store: not found")
	// ErrConflict: the session id is taken by an active or recoverable
	// session.
	ErrConflict = errors.New("store: session id in use")
	// ErrCorrupt: a stored capture cannot be decrypted or decoded.
	ErrCorrupt = errors.New("store: corrupt capture")
	// ErrLeaseLost: a fenced capture (Capture.Node) of a session whose
	// lease another node holds.
	ErrLeaseLost = errors.New("store: the session's lease is held by another node")
	// ErrNodeInUse: Heartbeat of a node id that another live instance
	// heartbeats under.
	ErrNodeInUse = errors.New("store: node id in use by another live daemon")
)

// RecoverState is the start-up rule of Recover for a session left active
// whose newest capture was taken at lastCapture (zero: none): closed
// without a capture, stale when it is older than maxAge at now, else
// recoverable; with the reason list_sessions shows. Backends share it.
func RecoverState(lastCapture, now time.Time, maxAge time.Duration) (SessionState, string) {
	if lastCapture.IsZero() {
		return Closed, "stopped without a capture; cannot be recovered"
	}
	age := now.Sub(lastCapture)
	if age > maxAge {
		return Stale, fmt.Sprintf("last capture is %s old, more than the maximum session age %s", age.Round(time.Second), maxAge)
	}
	return Recoverable, "interrupted by a restart; resume it with session_resume"
}

// Node is one daemon on the store, as its last heartbeat told it.
type Node struct {
	ID string
	// URL is where the other nodes reach its API (--advertise-url); ""
	// when it serves no TCP address.
	URL string
	// Instance changes with every start: two daemons heartbeating under
	// one id are told apart by it.
	Instance  string
	Version   string
	StartedAt time.Time // millisecond precision
	Heartbeat time.Time // millisecond precision; zero in a Heartbeat call: now
	Sessions  int       // live sessions
	Tabs      int
	// ChromiumBytes is the resident memory of its Chromium processes.
	ChromiumBytes int64
}

// Nodes is the node registry and what the cluster reads of leases. Every
// daemon heartbeats its row; the others read the rows to find a session's
// holder and its URL, and to tell a live node from a dead one.
type Nodes interface {
	// Heartbeat writes n's row (inserting it on the first beat). It fails
	// with ErrNodeInUse (wrapped) when the row has another Instance whose
	// last heartbeat is newer than fresh before n.Heartbeat: another
	// daemon runs under that id.
	Heartbeat(ctx context.Context, n Node, fresh time.Duration) error
	// ListNodes returns every node's row, by id.
	ListNodes(ctx context.Context) ([]Node, error)
	// RemoveNode drops the row of id if its Instance is instance (a node
	// that stops cleanly); another instance's row is left alone.
	RemoveNode(ctx context.Context, id, instance string) error
	// LeaseHolder returns the node holding a session's lease and when it
	// expires, or ErrNotFound when there is no lease.
	LeaseHolder(ctx context.Context, sessionID string) (node string, expires time.Time, err error)
	// Orphans lists the active sessions that have a capture and no lease
	// unexpired at now: their node died or handed them over. Each is for
	// the first node that takes its lease.
	Orphans(ctx context.Context, now time.Time) ([]Session, error)
}

// ProfileStates keeps each persistent profile's saved state — its cookie
// jar (session cookies included) and storage — sealed in the store, so
// that a profile launches logged in on any node sharing the store; a
// node's user-data-dir is a cache of it.
type ProfileStates interface {
	// SaveProfileState writes owner's profile's state (plain, sealed by
	// the store) as taken at taken; a state older than the stored one is
	// ignored.
	SaveProfileState(ctx context.Context, owner, name string, plain []byte, taken time.Time) error
	// LoadProfileState returns the profile's state and when it was
	// taken: ErrNotFound when none was saved, ErrCorrupt (wrapped) when
	// it cannot be opened.
	LoadProfileState(ctx context.Context, owner, name string) ([]byte, time.Time, error)
	// SetProfileExcludes sets the domains whose saved cookies are never
	// put back into owner's profile (source 000's cookie domain
	// filtering); empty clears them.
	SetProfileExcludes(ctx context.Context, owner, name string, domains []string) error
	// ProfileExcludes returns them; none (nil) for a profile never set.
	ProfileExcludes(ctx context.Context, owner, name string) ([]string, error)
	// SetProfileLoginCheck sets the check that tells whether owner's
	// profile is still logged in (sealed by the store: its text is often
	// the account's name); nil removes it.
	SetProfileLoginCheck(ctx context.Context, owner, name string, c *LoginCheck) error
	// ProfileLoginCheck returns it: nil for a profile that has none,
	// ErrCorrupt (wrapped) when it cannot be opened.
	ProfileLoginCheck(ctx context.Context, owner, name string) (*LoginCheck, error)
}

// ProfileLabel binds a sealed profile state to its profile.
func ProfileLabel(owner, name string) string { return "profile-state:" + owner + "/" + name }

// Secret is a value an agent types by name (a password, a one-time code's
// seed) without ever seeing it: the model never reads Value, and every
// answer shows `<secret NAME>` in its place. Origins, when set, are the
// only origins (scheme://host[:port]) it is typed on.
type Secret struct {
	Owner   string
	Name    string
	Value   string // empty in listings
	Origins []string
	Updated time.Time
}

// Secrets keeps each owner's secrets, the value sealed at rest (under
// SecretLabel). Every method is scoped to one owner: another owner's
// secret is ErrNotFound.
type Secrets interface {
	// SetSecret creates or replaces owner's secret s.Name.
	SetSecret(ctx context.Context, s Secret) error
	// GetSecret returns owner's secret name with its value: ErrNotFound
	// when there is none, ErrCorrupt (wrapped) when it does not open.
	GetSecret(ctx context.Context, owner, name string) (Secret, error)
	// ListSecrets lists owner's secrets by name, without values.
	ListSecrets(ctx context.Context, owner string) ([]Secret, error)
	// DeleteSecret deletes owner's secret name (ErrNotFound when none).
	DeleteSecret(ctx context.Context, owner, name string) error
}

// SecretLabel binds a sealed secret's value to its owner and name.
func SecretLabel(owner, name string) string { return "secret:" + owner + "/" + name }
