// Package tool defines the one composite `browser` tool that every front end
// (MCP stdio, MCP streamable HTTP, the HTTP API and the CLI) speaks: its
// input, its result and its actions, and the JSON Schema of its input
// (InputSchema). It holds no behaviour beyond validation; the engine that
// carries actions out lives in internal/engine.
package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // ValidZone answers the same on every machine
)

// Actions is every action of the browser tool, in the order the schema lists
// them. The first nineteen are source 001's. A new one also needs a CLI
// command, a row in docs/reference.md's action table and `go generate
// ./internal/httpapi` (docs/design.md has a worked example; tests fail
// until each is there).
var Actions = []string{
	"launch", "close", "navigate", "screenshot", "snapshot", "click", "type",
	"select", "scroll", "evaluate", "extract", "wait", "tabs", "tab_new",
	"tab_close", "tab_switch", "pdf", "console", "status",
	"dialog", "upload", "back", "forward", "reload", "hover", "press",
	"state_save", "state_load", "task_end", "list_sessions", "session_resume",
	"handoff", "drag", "fill", "network", "mouse_move", "mouse_down", "mouse_up",
	"emulate", "route", "unroute",
}

// SessionStates are the filters of list_sessions: a session state, or all.
var SessionStates = []string{"active", "recoverable", "stale", "closed", "failed", "all"}

// ScrollDirections are the directions scroll takes ("" is down).
var ScrollDirections = []string{"down", "up", "left", "right", "top", "bottom"}

// Input is one call of the browser tool. Field names follow source 001.
// Only Action is required; each action documents the fields it reads. A
// new field needs an example in tooltest, a mention in docs/reference.md and `go
// generate ./internal/httpapi` (tests fail until each is there); one that
// holds a credential is tagged `sensitive:"true"` (sensitive.go).
type Input struct {
	Action string `json:"action" jsonschema:"what to do"`

	Session string `json:"session,omitempty" jsonschema:"browser session id"`
	Task    string `json:"task,omitempty" jsonschema:"your task name: its own tabs"`
	Profile string `json:"profile,omitempty" jsonschema:"persistent login identity"`
	// UserDataDir runs the session's browser on this Chromium user-data-dir
	// (source 003's AGENT_BROWSER_PROFILE), a folder inside the caller's
	// allowed roots; with no session named, the session is the folder's
	// own. No schema description, for the tools/list budget.
	UserDataDir string `json:"userDataDir,omitempty"`

	URL      string `json:"url,omitempty" jsonschema:"URL to open; wait: a URL part"`
	Ref      string `json:"ref,omitempty" jsonschema:"ref from a snapshot, e.g. e12"`
	Selector string `json:"selector,omitempty"`
	Role     string `json:"role,omitempty" jsonschema:"ARIA role (with name)"`
	Name     string `json:"name,omitempty" jsonschema:"accessible name (with role)"`
	Text     string `json:"text,omitempty" jsonschema:"text to type, wait for or answer"`
	// Secret is a stored secret's name that type types in place of text:
	// its value reaches the page, never an answer.
	Secret     string          `json:"secret,omitempty" jsonschema:"type: stored secret's name" sensitive:"false"`
	Value      string          `json:"value,omitempty" jsonschema:"select: option value or label"`
	Values     []string        `json:"values,omitempty" jsonschema:"select: several options"`
	Key        string          `json:"key,omitempty" jsonschema:"press: e.g. Enter, Control+a" sensitive:"false"`
	Expression string          `json:"expression,omitempty" jsonschema:"evaluate: JavaScript expression"`
	Tab        string          `json:"tab,omitempty" jsonschema:"tab id, e.g. t2"`
	Path       string          `json:"path,omitempty" jsonschema:"file name"`
	Files      []string        `json:"files,omitempty" jsonschema:"upload: file names"`
	State      json.RawMessage `json:"state,omitempty" jsonschema:"storageState JSON" sensitive:"true"`
	Filter     string          `json:"filter,omitempty" jsonschema:"list_sessions: state; network: URL or type"`
	// Request is the network log's request (r3) that network shows whole,
	// with its body; Redact false keeps cookies and logins in what network
	// shows and writes.
	Request string `json:"request,omitempty" jsonschema:"network: request id, e.g. r3"`
	Redact  *bool  `json:"redact,omitempty"`
	// Capture is session_resume's capture to resume from (ParseCapture);
	// no schema description, for the tools/list budget.
	Capture CaptureRef `json:"capture,omitempty"`

	Timeout  int    `json:"timeout,omitempty" jsonschema:"ms to give up"`
	Time     int    `json:"time,omitempty" jsonschema:"wait: milliseconds to sleep"`
	TextGone string `json:"textGone,omitempty"`
	Load     bool   `json:"load,omitempty" jsonschema:"wait: next page load"`
	Human    bool   `json:"human,omitempty" jsonschema:"wait: a person's hand-back"`
	Reason   string `json:"reason,omitempty" jsonschema:"handoff: what a person should do"`
	FullPage *bool  `json:"fullPage,omitempty" jsonschema:"screenshot: false: viewport"`
	Clear    bool   `json:"clear,omitempty" jsonschema:"type: clear the field first"`
	Submit   bool   `json:"submit,omitempty" jsonschema:"type: press Enter after typing"`
	Accept   *bool  `json:"accept,omitempty" jsonschema:"dialog: false to dismiss"`
	To       string `json:"to,omitempty" jsonschema:"drag: ref, text, x,y or +dx,dy"`
	// Fields are fill's fields: each a ref and its value.
	Fields    []Field  `json:"fields,omitempty" jsonschema:"fill: fields to set"`
	Double    bool     `json:"double,omitempty"`
	Button    string   `json:"button,omitempty" jsonschema:"click: left, right, middle"`
	Modifiers []string `json:"modifiers,omitempty" jsonschema:"click: held keys, e.g. Shift"`
	Direction string   `json:"direction,omitempty"`
	// X and Y are a point of the viewport in CSS pixels (a fullPage false
	// screenshot's), in place of a target (point.go).
	X        *int `json:"x,omitempty" jsonschema:"viewport px (with y)"`
	Y        *int `json:"y,omitempty"`
	Annotate bool `json:"annotate,omitempty" jsonschema:"screenshot: label refs"`
	Amount   int  `json:"amount,omitempty" jsonschema:"scroll: pixels"`
	// Clicks are wheel clicks, in place of Amount: 100 px each, or 0.8 of
	// the scroll box under the wheel when that box is smaller (a 90 px
	// list is stepped through, not skipped) — the computer tool's
	// scroll_amount.
	Clicks int `json:"clicks,omitempty"`

	StoredSession string `json:"storedSession,omitempty"`
	Width         int    `json:"width,omitempty"`
	Height        int    `json:"height,omitempty"`

	HTTPCredentials []HTTPCredential `json:"httpCredentials,omitempty" jsonschema:"launch: HTTP auth logins"`
	// ExcludeCookieDomains: saved cookies of these domains (and their
	// subdomains) are never put back — the profile's list when launch
	// names a profile (kept in the store), else the session's.
	ExcludeCookieDomains []string `json:"excludeCookieDomains,omitempty" sensitive:"false"`

	// What a new session's pages see, and whether its browser shows a
	// window (nil: the daemon's --headed); set when launch creates the
	// session.
	Headless    *bool        `json:"headless,omitempty"`
	UserAgent   string       `json:"userAgent,omitempty"`
	Timezone    string       `json:"timezone,omitempty"`
	Locale      string       `json:"locale,omitempty"`
	Geolocation *Geolocation `json:"geolocation,omitempty"`

	// Emulation (internal/emulation): launch's device (a Playwright device
	// name); the media features (launch or emulate); what emulate
	// changes mid-session. No schema descriptions, for the tools/list
	// budget: README.md and docs/api.md say them.
	Device        string            `json:"device,omitempty"`
	ColorScheme   string            `json:"colorScheme,omitempty"`
	ReducedMotion string            `json:"reducedMotion,omitempty"`
	ForcedColors  string            `json:"forcedColors,omitempty"`
	Offline       *bool             `json:"offline,omitempty"`
	Throttle      string            `json:"throttle,omitempty"`
	CPU           float64           `json:"cpu,omitempty"`
	Headers       map[string]string `json:"headers,omitempty"`
	Permissions   []string          `json:"permissions,omitempty"`
	InitScript    string            `json:"initScript,omitempty"`
	// A route's answer (internal/routes): status, contentType and body
	// (or path, a file in the uploads folder); or abort with a reason;
	// after delay ms; for the task or, with scope "session", the session.
	// With fetch, the server's own answer changed: its status, headers
	// and contentType replaced by those given, every text in its body by
	// value (Playwright's route.fetch() then route.fulfill()).
	Fetch       bool   `json:"fetch,omitempty"`
	Status      int    `json:"status,omitempty"`
	ContentType string `json:"contentType,omitempty"`
	Body        string `json:"body,omitempty"`
	Abort       string `json:"abort,omitempty"`
	Delay       int    `json:"delay,omitempty"`
	Scope       string `json:"scope,omitempty"`

	// Proxy is launch's upstream proxy for the session (Playwright's
	// shape), set when launch creates the session. No schema
	// description, for the tools/list budget: its fields say it.
	Proxy *Proxy `json:"proxy,omitempty"`
	// ClientCertificates are launch's client certificates, each for one
	// https origin, presented by browserd's guard when the site asks (the
	// key never enters Chromium); with a profile, kept with it (sealed).
	ClientCertificates []ClientCertificate `json:"clientCertificates,omitempty"`

	// LoginCheck is how browserd tells whether the session (a profile's:
	// every session of the profile) is still logged in: a page and what
	// it shows only then. An empty one ({}) removes it. No schema
	// description, for the tools/list budget: its fields say it.
	LoginCheck *LoginCheck `json:"loginCheck,omitempty"`

	AllowHosts []string `json:"allowHosts,omitempty"`
	BlockHosts []string `json:"blockHosts,omitempty"`
	OnlyHosts  []string `json:"onlyHosts,omitempty"`

	Snapshot    *bool `json:"snapshot,omitempty" jsonschema:"false: no snapshot in result"`
	Full        bool  `json:"full,omitempty" jsonschema:"whole page, not changes"`
	Interactive bool  `json:"interactive,omitempty" jsonschema:"snapshot: actionable elements only"`
	Depth       int   `json:"depth,omitempty"`
	MaxChars    int   `json:"maxChars,omitempty" jsonschema:"snapshot: character budget"`
	Diff        bool  `json:"diff,omitempty" jsonschema:"snapshot: changes only"`
	// Codegen puts the Playwright line of the action in its answer (as
	// the daemon's --codegen does for every call). No schema
	// description, for the tools/list budget.
	Codegen bool `json:"codegen,omitempty"`
	// NoCache makes the call's task load every page from its site, never
	// from the browser's HTTP cache, from this call on (its tabs, and the
	// popups they open). Set by a replay, which tests what the site
	// serves now; not part of the tool's input.
	NoCache bool `json:"-"`
}

// HTTPCredential is a login for HTTP basic or digest authentication, given
// only to the origin it names. The password is never echoed.
type HTTPCredential struct {
	Origin   string `json:"origin"`
	Username string `json:"username" sensitive:"false"`
	Password string `json:"password" sensitive:"true"`
}

// Proxy is a session's upstream proxy, in Playwright's shape: its
// requests go through it once the guard allowed them. Server is
// scheme://HOST:PORT (http, https or socks5; HOST:PORT alone is http);
// Bypass lists the hosts that go direct, separated by commas. The
// password is a credential: never echoed, never logged, sealed at rest.
type Proxy struct {
	Server   string `json:"server"`
	Username string `json:"username,omitempty" sensitive:"false"`
	Password string `json:"password,omitempty" sensitive:"true"`
	Bypass   string `json:"bypass,omitempty" sensitive:"false"`
}

// ClientCertificate is a client certificate for one https origin: cert and
// key as PEM, or pfx (a PKCS#12 file in base64) with its passphrase; ca
// (PEM) when the site's own certificate chains to a private CA. The key
// and passphrase are never echoed.
type ClientCertificate struct {
	Origin     string `json:"origin"`
	Cert       string `json:"cert,omitempty" sensitive:"false"`
	Key        string `json:"key,omitempty" sensitive:"true"`
	PFX        string `json:"pfx,omitempty" sensitive:"true"`
	Passphrase string `json:"passphrase,omitempty" sensitive:"true"`
	CA         string `json:"ca,omitempty"`
}

// LoginCheck is launch's loginCheck: URL is opened in a tab of its own
// (through the guard, as navigate is), and the session is logged in when
// the page shows Text (case and spacing aside) or has an element that
// matches Selector. Name labels the site in what browserd says (default:
// the URL's host). A check without URL removes the one kept.
type LoginCheck struct {
	URL      string `json:"url,omitempty"`
	Text     string `json:"text,omitempty"`
	Selector string `json:"selector,omitempty"`
	Name     string `json:"name,omitempty"`
}

// Removes reports whether the check removes the one kept: it names no
// page.
func (c *LoginCheck) Removes() bool { return c != nil && strings.TrimSpace(c.URL) == "" }

// Site is what browserd calls the site the check logs in to: its name,
// else the host of its URL.
func (c *LoginCheck) Site() string {
	if c.Name != "" {
		return c.Name
	}
	if u, err := url.Parse(c.URL); err == nil && u.Host != "" {
		return u.Host
	}
	return c.URL
}

// The states of a login check.
const (
	LoginOK     = "ok"     // the page showed what it shows when logged in
	LoginLapsed = "lapsed" // it did not: the login has lapsed
	LoginError  = "error"  // the check could not be made
)

// Login is the last login check of a session, as status, list_sessions
// and the dashboard show it: the site, its state (LoginOK, LoginLapsed,
// LoginError), when it ran, and browserd's sentence for it (no page text
// in it).
type Login struct {
	Site    string    `json:"site"`
	State   string    `json:"state"`
	Checked time.Time `json:"checked"`
	Message string    `json:"message,omitempty"`
}

// Field is one field fill sets: a ref from a snapshot and the value —
// text for a textbox (which is cleared first), an option's value or label
// for a select, true or false for a checkbox, switch or radio button.
type Field struct {
	Ref   string `json:"ref"`
	Value string `json:"value,omitempty"`
	// Secret is a stored secret's name, typed in place of a value.
	Secret string `json:"secret,omitempty" sensitive:"false"`
}

// MaxFields bounds the fields of one fill.
const MaxFields = 100

// Geolocation is the position a session's pages read: degrees, and the
// accuracy in metres (default 10).
type Geolocation struct {
	Latitude  float64 `json:"latitude"`
	Longitude float64 `json:"longitude"`
	Accuracy  float64 `json:"accuracy,omitempty"`
}

// HasEnvironment reports whether a launch sets what the session's pages
// see (user agent, time zone, locale, position) or its window.
func (in *Input) HasEnvironment() bool {
	return in.Headless != nil || in.UserAgent != "" || in.Timezone != "" || in.Locale != "" || in.Geolocation != nil || in.Device != ""
}

// Result is what every action returns: source 001's BrowserToolResult plus
// the fields the extra actions need. Content carries page-derived text.
type Result struct {
	Action         string `json:"action"`
	Success        bool   `json:"success"`
	Title          string `json:"title,omitempty"`
	URL            string `json:"url,omitempty"`
	Content        string `json:"content,omitempty"`
	ScreenshotPath string `json:"screenshotPath,omitempty"`
	Error          string `json:"error,omitempty"`

	Session string `json:"session,omitempty"`
	Task    string `json:"task,omitempty"`
	Tab     string `json:"tab,omitempty"`
	// OnlyTab is set when Tab is its task's only tab: an answer for a
	// model need not name it.
	OnlyTab   bool       `json:"onlyTab,omitempty"`
	Path      string     `json:"path,omitempty"`
	Tabs      []Tab      `json:"tabs,omitempty"`
	Dialog    *Dialog    `json:"dialog,omitempty"`
	Downloads []Download `json:"downloads,omitempty"`
	Popups    []Tab      `json:"popups,omitempty"`
	Notes     []string   `json:"notes,omitempty"`
	// Details are page-derived facts about the result or its failure (a
	// covering element's name, a select's options); inside the envelope.
	Details []string `json:"details,omitempty"`
	// Blocked lists the requests the guard refused since the last result
	// of this session (sub-resources, redirects, popups).
	Blocked []string `json:"blocked,omitempty"`
	// State is the storageState state_save captured (Playwright's format);
	// it is credentials, so front ends that feed a model leave it out.
	State json.RawMessage `json:"state,omitempty"`
	// Sessions is what list_sessions found.
	Sessions []SessionInfo `json:"sessions,omitempty"`
	// Captures are the kept captures of the session list_sessions named,
	// newest first.
	Captures []CaptureInfo `json:"captures,omitempty"`
	// Wrapped is set when Content is inside the untrusted-content envelope
	// and carries the page's title, URL and dialog text as well.
	Wrapped bool `json:"wrapped,omitempty"`

	// ScreenshotURL and PDFURL lend the file at ScreenshotPath (screenshot)
	// or Path (pdf) to a client on another machine: /api/files/{id}, a path
	// on the daemon's base URL, for an hour, to the caller's owner. Only
	// the HTTP API sets them; MCP sends the image inline instead.
	ScreenshotURL string `json:"screenshotUrl,omitempty"`
	PDFURL        string `json:"pdfUrl,omitempty"`

	// Image is the PNG of a screenshot, sent as MCP image content. It is not
	// part of the JSON result; the HTTP API and CLI use ScreenshotPath.
	Image []byte `json:"-"`
}

// Tab describes one tab of a task.
type Tab struct {
	ID     string `json:"id"`
	Task   string `json:"task,omitempty"`
	URL    string `json:"url"`
	Title  string `json:"title"`
	Active bool   `json:"active,omitempty"`
	// Waiting is the agent's reason when it handed the tab to a person
	// (handoff) and waits for them.
	Waiting string `json:"waiting,omitempty"`
	// Review: the tab's task ended (task_end) and the tab stays for a
	// person to look at.
	Review bool `json:"review,omitempty"`
	// State is what is going on in the tab, for a person: agent working,
	// waiting for a person, person in control, left for review, or idle.
	State string `json:"state,omitempty"`
	// LiveViewURL shows the tab live on the dashboard, for a person
	// signed in there; "" when the daemon has no HTTP listener.
	LiveViewURL string `json:"liveViewUrl,omitempty"`
}

// SessionInfo is one session as list_sessions shows it. URL is the first
// tab's in the last capture (page-derived).
type SessionInfo struct {
	ID          string    `json:"id"`
	State       string    `json:"state"`
	Profile     string    `json:"profile,omitempty"`
	Reason      string    `json:"reason,omitempty"`
	Tabs        int       `json:"tabs"`
	URL         string    `json:"url,omitempty"`
	Created     time.Time `json:"created"`
	Updated     time.Time `json:"updated"`
	LastCapture time.Time `json:"lastCapture,omitzero"`
	// Login is the session's last login check (launch's loginCheck), for
	// a session this daemon runs or ran since it started; nil when none
	// ran.
	Login *Login `json:"login,omitempty"`
}

// CaptureInfo is one kept capture of a session, as list_sessions lists
// them when given a session: session_resume's capture picks one by ID or
// Taken. URL and Title are the first tab's (page-derived).
type CaptureInfo struct {
	ID    int64     `json:"id"`
	Taken time.Time `json:"taken"`
	Tabs  int       `json:"tabs"`
	URL   string    `json:"url,omitempty"`
	Title string    `json:"title,omitempty"`
	// Error says why the capture cannot be read (it cannot be resumed).
	Error string `json:"error,omitempty"`
}

// CaptureRef names a kept capture for session_resume: its id (a JSON
// number or string), or a time — the newest capture taken at or before
// it. ParseCapture reads it.
type CaptureRef string

// UnmarshalJSON takes a string or a number.
func (c *CaptureRef) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*c = CaptureRef(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("capture: want a capture id or a time, not %s", b)
	}
	*c = CaptureRef(n.String())
	return nil
}

// captureLayouts are the times ParseCapture reads besides RFC 3339, in
// the daemon's local time zone (as list_sessions writes them).
var captureLayouts = []string{"2006-01-02 15:04:05", "2006-01-02T15:04:05", "2006-01-02 15:04", "2006-01-02T15:04"}

// ParseCapture reads a CaptureRef: a capture id (a positive integer), or
// a time — RFC 3339, a local "2006-01-02 15:04:05", or an age such as
// "10m" (now minus it) — at or before which the newest capture is meant.
// Exactly one of id and at is set when err is nil.
func ParseCapture(ref CaptureRef, now time.Time) (id int64, at time.Time, err error) {
	s := strings.TrimSpace(string(ref))
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n <= 0 {
			return 0, time.Time{}, fmt.Errorf("capture %s: a capture id is a positive number (list_sessions with session lists them)", s)
		}
		return n, time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return 0, t, nil
	}
	for _, layout := range captureLayouts {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return 0, t, nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return 0, now.Add(-d), nil
	}
	return 0, time.Time{}, fmt.Errorf("capture %q: give a capture id (list_sessions with session lists them), a time (2026-03-01T12:00:00Z, or 2026-03-01 12:00:00 in the daemon's time zone) or an age (10m: the newest capture at least that old)", s)
}

// Dialog is a JavaScript dialog (alert, confirm, prompt, beforeunload) that is
// open on the tab and waits for the dialog action.
type Dialog struct {
	Type          string `json:"type"`
	Message       string `json:"message"`
	DefaultPrompt string `json:"defaultPrompt,omitempty"`
}

// Download is a file the page downloaded into the downloads folder.
type Download struct {
	URL  string `json:"url"`
	Path string `json:"path"`
	Size int64  `json:"size"`
	Done bool   `json:"done"`
}

// Handler carries out one tool call. Every front end calls one; the engine
// implements it. An action that fails returns a Result with Success false
// and Error set, and a nil error; a non-nil error means the call could not
// be made at all (the daemon is gone, the context ended).
type Handler interface {
	Do(ctx context.Context, in Input) (Result, error)
}

// Validate checks what can be checked without a browser: the action is known
// and the fields it needs are present. The error says what to send instead.
func (in *Input) Validate() error {
	if in.Action == "" {
		return fmt.Errorf("missing action: set action to one of %s", strings.Join(Actions, ", "))
	}
	if !slices.Contains(Actions, in.Action) {
		return fmt.Errorf("unknown action %q: use one of %s", in.Action, strings.Join(Actions, ", "))
	}
	if in.Action == "emulate" && in.Geolocation != nil {
		// The position changes at any time (Playwright's setGeolocation);
		// the rest of the environment is launch's.
		g := in.Geolocation
		in.Geolocation = nil
		env := in.HasEnvironment()
		in.Geolocation = g
		if env {
			return fmt.Errorf("headless, userAgent, timezone, locale and device are set with launch, when it creates the session")
		}
	} else if in.Action != "launch" && in.HasEnvironment() {
		return fmt.Errorf("headless, userAgent, timezone, locale, geolocation and device are set with launch, when it creates the session")
	}
	if in.UserDataDir != "" && in.Profile != "" {
		return fmt.Errorf("userDataDir and profile both name the folder the browser runs on: give one (a profile's folder is browserd's own, userDataDir is yours)")
	}
	if in.UserDataDir != "" && !in.MayCreateSession() {
		return fmt.Errorf("userDataDir names the folder a new session runs on; %s creates no session", in.Action)
	}
	if in.Proxy != nil && in.Action != "launch" {
		return fmt.Errorf("proxy is set with launch, when it creates the session: {\"action\":\"launch\",\"proxy\":{\"server\":\"http://proxy.example.com:3128\"}}")
	}
	if in.LoginCheck != nil && in.Action != "launch" {
		return fmt.Errorf("loginCheck is set with launch: {\"action\":\"launch\",\"loginCheck\":{\"url\":\"https://example.com/account\",\"text\":\"Ada Lovelace\"}}")
	}
	if in.Capture != "" && in.Action != "session_resume" {
		return fmt.Errorf("capture is for session_resume: the capture of a session to resume from")
	}
	if err := in.checkPoint(); err != nil {
		return err
	}
	if check := actionChecks[in.Action]; check != nil {
		if err := check(in); err != nil {
			return err
		}
	}
	if in.Timeout < 0 || in.Time < 0 || in.Depth < 0 || in.MaxChars < 0 || in.Amount < 0 || in.Clicks < 0 {
		return fmt.Errorf("timeout, time, depth, maxChars, amount and clicks must not be negative")
	}
	if in.Clicks > 0 && in.Amount > 0 {
		return fmt.Errorf("give amount (pixels) or clicks (wheel clicks), not both")
	}
	if in.Clicks > 100 {
		return fmt.Errorf("clicks is at most 100 wheel clicks; to reach an end, scroll with direction top or bottom")
	}
	// Bounds for every number from outside: a time near 2^63 ms would
	// overflow a duration and end a wait at once.
	if in.Timeout > MaxMillis || in.Time > MaxMillis {
		return fmt.Errorf("timeout and time are milliseconds, at most %d (an hour)", MaxMillis)
	}
	if in.Depth > 10_000 || in.MaxChars > 100_000_000 || in.Amount > 1_000_000 {
		return fmt.Errorf("depth is at most 10000, maxChars 100000000 and amount 1000000 pixels")
	}
	return nil
}

// ValidZone reports whether tz names an IANA time zone in Go's embedded
// copy of the database (the same everywhere): Chromium would refuse an
// unknown one at every tab.
func ValidZone(tz string) bool {
	if len(tz) > 64 || strings.HasPrefix(tz, "/") || strings.Contains(tz, "..") || strings.ContainsFunc(tz, func(r rune) bool {
		return !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || strings.ContainsRune("/_+-", r))
	}) {
		return false
	}
	_, err := time.LoadLocation(tz)
	return err == nil && tz != "Local"
}

// ValidLocale reports whether l looks like a BCP 47 language tag: a
// language of 2 to 8 letters, then subtags of 1 to 8 letters or digits
// (fr, fr-FR, zh-Hant-TW, es-419), 35 characters at most.
func ValidLocale(l string) bool {
	if len(l) > 35 {
		return false
	}
	for i, sub := range strings.Split(l, "-") {
		if len(sub) < 1 || len(sub) > 8 || i == 0 && len(sub) < 2 {
			return false
		}
		for _, r := range sub {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
				return false
			}
		}
	}
	return true
}

// dragOffset is drag's to written as an offset: "+120,0", "-40, 15".
var dragOffset = regexp.MustCompile(`^\s*([+-]\d{1,5})\s*,\s*([+-]?\d{1,5})\s*$`)

// DragOffset parses drag's to as an offset in CSS pixels (dx signed:
// "+120,0"); ok is false when to is a ref or text.
func DragOffset(to string) (dx, dy int, ok bool) {
	m := dragOffset.FindStringSubmatch(to)
	if m == nil {
		return 0, 0, false
	}
	dx, _ = strconv.Atoi(m[1])
	dy, _ = strconv.Atoi(m[2])
	return dx, dy, true
}

// LooksLikeRef reports whether s is written like a ref: e and a number.
func LooksLikeRef(s string) bool {
	if len(s) < 2 || len(s) > 12 || s[0] != 'e' {
		return false
	}
	for _, r := range s[1:] {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// MayCreateSession reports whether the call's action can create the
// session it names (every action but status, list_sessions and
// session_resume).
func (in *Input) MayCreateSession() bool {
	switch in.Action {
	case "status", "list_sessions", "session_resume":
		return false
	}
	return true
}

// MaxMillis bounds the timeout and time of a call: an hour.
const MaxMillis = 3_600_000

// WantsSnapshot reports whether a page-changing action should append the new
// page snapshot to its result.
func (in *Input) WantsSnapshot() bool { return in.Snapshot == nil || *in.Snapshot }

// MaxExcludedDomains bounds a list of excluded cookie domains.
const MaxExcludedDomains = 100

// CheckDomains checks a list of cookie domains to exclude: host names
// (a leading dot is allowed and ignored), at most MaxExcludedDomains.
func CheckDomains(ds []string) error {
	if len(ds) > MaxExcludedDomains {
		return fmt.Errorf("at most %d domains, not %d", MaxExcludedDomains, len(ds))
	}
	for _, d := range ds {
		h := strings.TrimPrefix(d, ".")
		ok := h != "" && len(h) <= 253 && !strings.HasPrefix(h, ".") && !strings.HasSuffix(h, ".") && !strings.Contains(h, "..")
		for _, r := range h {
			if !(r == '-' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
				ok = false
			}
		}
		if !ok {
			return fmt.Errorf("%q is not a domain: give host names such as example.com (subdomains are included)", d)
		}
	}
	return nil
}

// Error is an action's failure whose message is for the agent as is: what
// went wrong and what to do next.
type Error struct{ Msg string }

func (u *Error) Error() string { return u.Msg }

// UserError marks the error as the caller's to fix (front ends answer
// it with a 4xx, not a 500).
func (u *Error) UserError() bool { return true }

// Fail is an Error with a formatted message.
func Fail(format string, args ...any) error { return &Error{fmt.Sprintf(format, args...)} }
