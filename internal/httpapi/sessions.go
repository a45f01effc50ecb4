package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/browserd/browserd/internal/auth"
	"github.com/browserd/browserd/internal/browser"
	"github.com/browserd/browserd/internal/inject"
	"github.com/browserd/browserd/internal/policy"
	"github.com/browserd/browserd/internal/sessions"
	"github.com/browserd/browserd/internal/sessionservice"
	"github.com/browserd/browserd/internal/storagestate"
	"github.com/browserd/browserd/internal/store"
	"github.com/browserd/browserd/internal/tool"
)

// Sessions is what the session, stored-session and token endpoints need
// besides the browser tool; the engine implements it. Every method acts
// for the owner in ctx (auth.Owner).
type Sessions interface {
	Inject(ctx context.Context, req inject.Request) (inject.Session, error)
	SessionInfo(ctx context.Context, id string) (tool.SessionInfo, []tool.Tab, error)
	ExportSession(ctx context.Context, id string) (*storagestate.Export, error)
	StoreSession(ctx context.Context, id, name string, expiresAt time.Time) (store.StoredSession, error)
	SaveStored(ctx context.Context, name string, st *storagestate.State, expiresAt time.Time) (store.StoredSession, error)
	StoredSessions() store.StoredSessions
	CloseSession(ctx context.Context, id string) error
	SessionHint(ctx context.Context, session, stored string) (string, error)
	Tokens() auth.Store
}

// Hint is the body of the …/hint endpoints: source 003 FR-5's block.
type Hint struct {
	PromptHint string `json:"promptHint"`
}

// hint serves GET /api/sessions/{id}/hint, or with stored set
// GET /api/stored-sessions/{id}/hint.
func (a *api) hint(stored bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !a.sessions(w) {
			return
		}
		session, storedID := r.PathValue("id"), ""
		if stored {
			session, storedID = "", session
		}
		h, err := a.s.SessionHint(r.Context(), session, storedID)
		if err != nil {
			fail(w, r, err, "")
			return
		}
		writeJSON(w, http.StatusOK, Hint{h})
	}
}

// MaxStateBodyBytes bounds a body that carries a storageState.
const MaxStateBodyBytes = storagestate.MaxBytes + 1<<20

// Problem is the body of every error answer: what went wrong and, for a
// storageState or request field, where.
type Problem struct {
	Error  string       `json:"error"`
	Fields []FieldError `json:"fields,omitempty"`
}

// FieldError is one bad field, by JSON path.
type FieldError struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

func writeProblem(w http.ResponseWriter, status int, msg string, fields storagestate.Errors, prefix string) {
	p := Problem{Error: callerWords(w, msg)}
	for _, f := range fields {
		p.Fields = append(p.Fields, FieldError{Path: prefix + f.Path, Message: callerWords(w, f.Msg)})
	}
	writeJSON(w, status, p)
}

// fail answers err with the status its kind calls for, in the caller's
// names: its own sessions and profiles without the owner qualifier the
// store knows them by (bob's "bob~priv" is "priv" to bob).
func fail(w http.ResponseWriter, r *http.Request, err error, prefix string) {
	if o := auth.Owner(r.Context()); o != auth.Admin {
		err = bareError{err, strings.ReplaceAll(err.Error(), o+sessions.OwnerSep, "")}
	}
	var ie *inject.Error
	switch {
	case errors.As(err, &ie):
		status := map[inject.Kind]int{inject.Malformed: http.StatusBadRequest, inject.Rejected: http.StatusUnprocessableEntity,
			inject.NotFound: http.StatusNotFound, inject.Conflict: http.StatusConflict}[ie.Kind]
		if status == 0 {
			status = http.StatusInternalServerError
		}
		writeProblem(w, status, ie.Msg, ie.Fields, prefix)
	case errors.Is(err, store.ErrNotFound):
		writeError(w, http.StatusNotFound, strings.TrimPrefix(err.Error(), "store: not found: "))
	case errors.Is(err, policy.ErrDenied):
		writeError(w, http.StatusForbidden, err.Error())
	case errors.Is(err, store.ErrConflict):
		writeError(w, http.StatusConflict, err.Error())
	default:
		writeError(w, http.StatusInternalServerError, err.Error())
	}
}

// bareError is an error said in its caller's names (fail).
type bareError struct {
	error
	msg string
}

func (e bareError) Error() string { return e.msg }
func (e bareError) Unwrap() error { return e.error }

// decodeBody reads one JSON object into v (unknown fields allowed: source
// 003's sandbox requests carry fields browserd has no use for).
func decodeBody(w http.ResponseWriter, r *http.Request, limit int64, v any) bool {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	var maxErr *http.MaxBytesError
	if errors.As(err, &maxErr) {
		writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("request body is over %d bytes", maxErr.Limit))
		return false
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, "reading the request body: "+err.Error())
		return false
	}
	if len(bytes.TrimSpace(body)) == 0 {
		body = []byte("{}")
	}
	if err := json.Unmarshal(body, v); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) && typeErr.Field != "" {
			writeProblem(w, http.StatusBadRequest, "request body has a field of the wrong type",
				storagestate.Errors{{Path: typeErr.Field, Msg: fmt.Sprintf("want %s, not %s", jsonKind(typeErr.Type.Kind().String()), typeErr.Value)}}, "")
			return false
		}
		writeError(w, http.StatusBadRequest, "request body is not a valid JSON object: "+err.Error())
		return false
	}
	return true
}

// parseState reads a storageState field; it answers 400 itself.
func parseState(w http.ResponseWriter, raw json.RawMessage, path string) (*storagestate.State, bool) {
	if len(raw) == 0 || string(raw) == "null" {
		writeProblem(w, http.StatusBadRequest, "missing storageState", storagestate.Errors{{Path: "", Msg: "missing"}}, path)
		return nil, false
	}
	st, err := storagestate.Parse(raw)
	if err != nil {
		var fe storagestate.Errors
		if errors.As(err, &fe) {
			writeProblem(w, http.StatusBadRequest, "storageState is not valid", fe, path+".")
		} else {
			writeProblem(w, http.StatusBadRequest, err.Error(), nil, "")
		}
		return nil, false
	}
	return st, true
}

// CreateSession is the body of POST /api/sessions (and /api/sandboxes):
// source 003's request. flavor is accepted and ignored; enableVnc asks
// for a live view, which is the dashboard's (docs/live-view.md): the answer's
// liveViewUrl, refused when the daemon has no dashboard.
type CreateSession struct {
	Name           string          `json:"name,omitempty"`
	Profile        string          `json:"profile,omitempty"`
	BrowserSession *BrowserSession `json:"browserSession,omitempty"`
	Viewport       *Viewport       `json:"viewport,omitempty"`
	AllowedDomains []string        `json:"allowedDomains,omitempty"`
	DomainPolicy   string          `json:"domainPolicy,omitempty"`
	// What the session's pages see of their environment; kept across
	// restarts with the session.
	UserAgent   string               `json:"userAgent,omitempty"`
	Timezone    string               `json:"timezone,omitempty"`
	Geolocation *browser.Geolocation `json:"geolocation,omitempty"`
	// Locale is kept while the daemon runs, not across a restart.
	Locale string `json:"locale,omitempty"`
	// Headless false shows the session's browser in a window, where the
	// daemon has a display (not kept across a restart either).
	Headless *bool `json:"headless,omitempty"`
	// UserDataDir runs the session's browser on this folder (a Chrome
	// user-data-dir inside the caller's allowed roots); an empty or new
	// folder gets the injected state converted into it.
	UserDataDir string `json:"userDataDir,omitempty"`
	// EnableVnc (source 003) asks to watch the session: browserd's live
	// view answers it.
	EnableVnc bool `json:"enableVnc,omitempty"`
}

// BrowserSession is the state to inject: inline, or a stored session —
// of this browserd, or with SessionServiceURL of another one (its
// …/api/stored-sessions), read with SessionServiceToken or else the
// daemon's --session-service-token.
type BrowserSession struct {
	Type                string          `json:"type"`
	StorageState        json.RawMessage `json:"storageState,omitempty"`
	SessionID           string          `json:"sessionId,omitempty"`
	SessionServiceURL   string          `json:"sessionServiceUrl,omitempty"`
	SessionServiceToken string          `json:"sessionServiceToken,omitempty"`
}

// Viewport is a tab size in CSS pixels.
type Viewport struct {
	Width  int `json:"width"`
	Height int `json:"height"`
}

func (a *api) sessions(w http.ResponseWriter) bool {
	if a.s == nil {
		writeError(w, http.StatusNotImplemented, "this server has no session store")
		return false
	}
	return true
}

// createSession is POST /api/sessions.
func (a *api) createSession(w http.ResponseWriter, r *http.Request) {
	if !a.sessions(w) {
		return
	}
	var body CreateSession
	if !decodeBody(w, r, MaxStateBodyBytes, &body) {
		return
	}
	if body.EnableVnc && a.liveBase == "" {
		writeProblem(w, http.StatusBadRequest, "enableVnc needs the dashboard", storagestate.Errors{{Path: "enableVnc",
			Msg: "browserd's live view (not VNC) answers it, on the dashboard of the daemon's HTTP listener: start the daemon with --listen HOST:PORT, or leave enableVnc out"}}, "")
		return
	}
	req := inject.Request{Session: body.Name, Profile: body.Profile, AllowedDomains: body.AllowedDomains, Policy: inject.Policy(body.DomainPolicy),
		Emulation: browser.Emulation{UserAgent: body.UserAgent, Timezone: body.Timezone, Geolocation: body.Geolocation, Locale: body.Locale},
		Headless:  body.Headless, UserDataDir: body.UserDataDir}
	if v := body.Viewport; v != nil {
		req.Width, req.Height = v.Width, v.Height
	}
	remote := "" // the id of a stored session fetched from a session service
	if bs := body.BrowserSession; bs != nil {
		switch bs.Type {
		case "inline":
			st, ok := parseState(w, bs.StorageState, "browserSession.storageState")
			if !ok {
				return
			}
			req.State = st
		case "reference":
			if bs.SessionID == "" {
				writeProblem(w, http.StatusBadRequest, "a reference needs sessionId", storagestate.Errors{{Path: "browserSession.sessionId", Msg: "missing: the id of a stored session (GET /api/stored-sessions)"}}, "")
				return
			}
			if bs.SessionServiceURL != "" {
				st, ok := a.remoteState(w, r, bs)
				if !ok {
					return
				}
				req.State, remote = st, bs.SessionID
				break
			}
			req.StoredID = bs.SessionID
		default:
			writeProblem(w, http.StatusBadRequest, "unknown browserSession type", storagestate.Errors{{Path: "browserSession.type", Msg: fmt.Sprintf("%q: want inline or reference", bs.Type)}}, "")
			return
		}
	}
	start := time.Now()
	out, err := a.s.Inject(r.Context(), req)
	if err != nil {
		prefix := "browserSession.storageState."
		if req.StoredID != "" {
			prefix = "storedSession(" + req.StoredID + ")."
		}
		if remote != "" {
			prefix = remotePrefix(remote)
		}
		fail(w, r, err, prefix)
		return
	}
	a.log.Info("session created", "session", out.ID, "owner", auth.Owner(r.Context()), "domains", len(out.AuthenticatedDomains), "ms", time.Since(start).Milliseconds())
	out.LiveViewURL = a.liveURL(out.ID)
	writeJSON(w, http.StatusCreated, out)
}

// remotePrefix is the path prefix of the fields of a stored session
// fetched from a session service.
func remotePrefix(id string) string { return "sessionService(" + id + ")." }

// remoteState fetches the stored session a reference with sessionServiceUrl
// names and checks its expiry as a local stored session's (the engine
// checks the rest, as for any state); it answers the request itself when
// it cannot. The token and the state are never logged.
func (a *api) remoteState(w http.ResponseWriter, r *http.Request, bs *BrowserSession) (*storagestate.State, bool) {
	field := storagestate.Errors{{Path: "browserSession.sessionServiceUrl", Msg: "leave out for a stored session of this browserd (GET /api/stored-sessions)"}}
	if a.remote == nil {
		writeProblem(w, http.StatusBadRequest, "this server fetches no stored sessions from session services", field, "")
		return nil, false
	}
	start := time.Now()
	got, err := a.remote.Fetch(r.Context(), bs.SessionServiceURL, bs.SessionID, bs.SessionServiceToken)
	var se *sessionservice.Error
	if errors.As(err, &se) {
		status, path, msg := http.StatusBadGateway, "browserSession.sessionServiceUrl", "the session service failed"
		switch se.Kind {
		case sessionservice.BadURL:
			status, path, msg = http.StatusBadRequest, "browserSession."+se.Field, "cannot be used"
		case sessionservice.Refused:
			status, msg = http.StatusBadRequest, "refused by the guard"
		case sessionservice.NotFound:
			status, path, msg = http.StatusNotFound, "browserSession.sessionId", "no such stored session at the session service"
		case sessionservice.Unauthorized:
			path, msg = "browserSession.sessionServiceToken", "refused by the session service"
		case sessionservice.Timeout:
			status, msg = http.StatusGatewayTimeout, "the session service did not answer in time"
		}
		fields := se.Fields
		prefix := remotePrefix(bs.SessionID)
		if len(fields) == 0 {
			fields, prefix = storagestate.Errors{{Path: path, Msg: msg}}, ""
		}
		a.log.Info("fetching a stored session from a session service failed", "service", serviceHost(bs.SessionServiceURL), "status", se.Status, "answer", status)
		writeProblem(w, status, se.Msg, fields, prefix)
		return nil, false
	}
	if err != nil {
		writeError(w, http.StatusBadGateway, err.Error())
		return nil, false
	}
	// A stored session past its expiresAt is refused, as here (inject.Check
	// with no domains checks the expiry alone).
	if _, err := inject.Check(got.State, got.ExpiresAt, nil, "", time.Now()); err != nil {
		fail(w, r, err, remotePrefix(bs.SessionID))
		return nil, false
	}
	a.log.Info("stored session fetched from a session service", "service", serviceHost(bs.SessionServiceURL), "owner", auth.Owner(r.Context()), "ms", time.Since(start).Milliseconds())
	return got.State, true
}

// serviceHost is the host of a session service, for the log.
func serviceHost(raw string) string {
	if u, err := sessionservice.ParseBase(raw); err == nil {
		return u.Host
	}
	return "(invalid URL)"
}

// SessionDetail is the body of GET /api/sessions/{id}.
type SessionDetail struct {
	tool.SessionInfo
	Tabs []tool.Tab `json:"openTabs,omitempty"`
	// LiveViewURL shows the session's front tab live on the dashboard.
	LiveViewURL string `json:"liveViewUrl,omitempty"`
}

func (a *api) getSession(w http.ResponseWriter, r *http.Request) {
	if !a.sessions(w) {
		return
	}
	info, tabs, err := a.s.SessionInfo(r.Context(), r.PathValue("id"))
	if err != nil {
		fail(w, r, err, "")
		return
	}
	writeJSON(w, http.StatusOK, SessionDetail{SessionInfo: info, Tabs: tabs, LiveViewURL: a.liveURL(info.ID)})
}

func (a *api) deleteSession(w http.ResponseWriter, r *http.Request) {
	if !a.sessions(w) {
		return
	}
	if err := a.s.CloseSession(r.Context(), r.PathValue("id")); err != nil {
		fail(w, r, err, "")
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (a *api) sessionState(w http.ResponseWriter, r *http.Request) {
	if !a.sessions(w) || !a.allowed(w, r, "state_save", "exporting a session's state") {
		return
	}
	x, err := a.s.ExportSession(r.Context(), r.PathValue("id"))
	if err != nil {
		fail(w, r, err, "")
		return
	}
	writeCredentials(w, x.Marshal)
}

func writeState(w http.ResponseWriter, st *storagestate.State) { writeCredentials(w, st.Marshal) }

// writeCredentials answers with JSON that holds credentials (a state):
// never cached.
func writeCredentials(w http.ResponseWriter, marshal func() ([]byte, error)) {
	data, err := marshal()
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.Write(data)
}

// sessionActions is POST /api/sessions/{id}/actions: the browser tool on
// that session. The body's session, if any, must match the path's.
func (a *api) sessionActions(w http.ResponseWriter, r *http.Request) {
	in, status, err := decodeInput(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	if err != nil {
		writeError(w, status, err.Error())
		return
	}
	id := r.PathValue("id")
	if in.Session != "" && in.Session != id {
		writeProblem(w, http.StatusBadRequest, "the body names another session", storagestate.Errors{{Path: "session", Msg: fmt.Sprintf("%q: leave out, or set to %q", in.Session, id)}}, "")
		return
	}
	if a.s != nil && in.Action != "launch" {
		if _, _, err := a.s.SessionInfo(r.Context(), id); err != nil {
			fail(w, r, err, "")
			return
		}
	}
	in.Session = id
	a.run(w, r, in)
}

// StoreRequest is the body of POST /api/stored-sessions.
type StoreRequest struct {
	Name         string          `json:"name"`
	StorageState json.RawMessage `json:"storageState"`
	ExpiresAt    *time.Time      `json:"expiresAt,omitempty"`
}

// CaptureRequest is the (optional) body of POST /api/sessions/{id}/capture.
type CaptureRequest struct {
	Name      string     `json:"name,omitempty"`
	ExpiresAt *time.Time `json:"expiresAt,omitempty"`
}

// StoredInfo is a stored session's metadata: never its cookies.
type StoredInfo struct {
	ID         string     `json:"id"`
	Name       string     `json:"name"`
	Owner      string     `json:"owner"`
	Domains    []string   `json:"domains"`
	Cookies    int        `json:"cookieCount"`
	AuthExpiry *time.Time `json:"authExpiry,omitempty"`
	ExpiresAt  *time.Time `json:"expiresAt,omitempty"`
	Created    time.Time  `json:"created"`
}

func storedInfo(ss store.StoredSession) StoredInfo {
	ptr := func(t time.Time) *time.Time {
		if t.IsZero() {
			return nil
		}
		return &t
	}
	d := ss.Domains
	if d == nil {
		d = []string{}
	}
	return StoredInfo{ID: ss.ID, Name: ss.Name, Owner: ss.Owner, Domains: d, Cookies: ss.Cookies,
		AuthExpiry: ptr(ss.AuthExpiry), ExpiresAt: ptr(ss.ExpiresAt), Created: ss.Created}
}

// storedMeta checks a stored session's name and expiry (zero: none); it
// answers the request itself when they are bad.
func storedMeta(w http.ResponseWriter, name string, expiresAt *time.Time) (time.Time, bool) {
	if len(name) > 200 {
		writeProblem(w, http.StatusBadRequest, "name is too long", storagestate.Errors{{Path: "name", Msg: "at most 200 characters"}}, "")
		return time.Time{}, false
	}
	if expiresAt == nil {
		return time.Time{}, true
	}
	if !expiresAt.After(time.Now()) {
		writeProblem(w, http.StatusUnprocessableEntity, "expiresAt is in the past", storagestate.Errors{{Path: "expiresAt", Msg: "must be in the future"}}, "")
		return time.Time{}, false
	}
	return *expiresAt, true
}

func (a *api) createStored(w http.ResponseWriter, r *http.Request) {
	if !a.sessions(w) {
		return
	}
	var body StoreRequest
	if !decodeBody(w, r, MaxStateBodyBytes, &body) {
		return
	}
	exp, ok := storedMeta(w, body.Name, body.ExpiresAt)
	if !ok {
		return
	}
	st, ok := parseState(w, body.StorageState, "storageState")
	if !ok {
		return
	}
	if errs := st.Expired(time.Now()); len(errs) > 0 {
		writeProblem(w, http.StatusUnprocessableEntity, "every cookie of the state has expired; log in again and store a fresh state", errs, "storageState.")
		return
	}
	ss, err := a.s.SaveStored(r.Context(), body.Name, st, exp)
	if err != nil {
		fail(w, r, err, "")
		return
	}
	writeJSON(w, http.StatusCreated, storedInfo(ss))
}

func (a *api) captureSession(w http.ResponseWriter, r *http.Request) {
	if !a.sessions(w) {
		return
	}
	var body CaptureRequest
	if !decodeBody(w, r, MaxBodyBytes, &body) {
		return
	}
	exp, ok := storedMeta(w, body.Name, body.ExpiresAt)
	if !ok {
		return
	}
	ss, err := a.s.StoreSession(r.Context(), r.PathValue("id"), body.Name, exp)
	if err != nil {
		fail(w, r, err, "")
		return
	}
	writeJSON(w, http.StatusCreated, storedInfo(ss))
}

// StoredList is the body of GET /api/stored-sessions.
type StoredList struct {
	StoredSessions []StoredInfo `json:"storedSessions"`
}

func (a *api) listStored(w http.ResponseWriter, r *http.Request) {
	if !a.sessions(w) {
		return
	}
	list, err := a.s.StoredSessions().ListStored(r.Context(), auth.Owner(r.Context()))
	if err != nil {
		fail(w, r, err, "")
		return
	}
	out := StoredList{StoredSessions: []StoredInfo{}}
	for _, ss := range list {
		out.StoredSessions = append(out.StoredSessions, storedInfo(ss))
	}
	writeJSON(w, http.StatusOK, out)
}

func (a *api) getStored(w http.ResponseWriter, r *http.Request) (store.StoredSession, bool) {
	if !a.sessions(w) {
		return store.StoredSession{}, false
	}
	ss, err := a.s.StoredSessions().GetStored(r.Context(), auth.Owner(r.Context()), r.PathValue("id"))
	if err != nil {
		fail(w, r, err, "")
		return ss, false
	}
	return ss, true
}

func (a *api) storedMeta(w http.ResponseWriter, r *http.Request) {
	if ss, ok := a.getStored(w, r); ok {
		writeJSON(w, http.StatusOK, storedInfo(ss))
	}
}

func (a *api) storedState(w http.ResponseWriter, r *http.Request) {
	if !a.allowed(w, r, "state_save", "exporting a stored session's state") {
		return
	}
	if ss, ok := a.getStored(w, r); ok {
		writeState(w, ss.State)
	}
}

func (a *api) deleteStored(w http.ResponseWriter, r *http.Request) {
	if !a.sessions(w) {
		return
	}
	if err := a.s.StoredSessions().DeleteStored(r.Context(), auth.Owner(r.Context()), r.PathValue("id")); err != nil {
		fail(w, r, err, "")
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// TokenRequest is the body of POST /api/tokens.
type TokenRequest struct {
	Owner string `json:"owner"`
	Label string `json:"label,omitempty"`
	// Policy is what the token's agents may do (package policy); none:
	// the daemon's default policy applies.
	Policy json.RawMessage `json:"policy,omitempty"`
}

// NewToken is the answer to POST /api/tokens: the token, shown once.
type NewToken struct {
	auth.Token
	Secret string `json:"token"`
}

func (a *api) admin(w http.ResponseWriter, r *http.Request) bool {
	if !a.sessions(w) {
		return false
	}
	if auth.Owner(r.Context()) != auth.Admin {
		writeError(w, http.StatusForbidden, "only admin manages tokens")
		return false
	}
	if a.s.Tokens() == nil {
		writeError(w, http.StatusNotImplemented, "this server keeps no tokens")
		return false
	}
	return true
}

func (a *api) createToken(w http.ResponseWriter, r *http.Request) {
	if !a.admin(w, r) {
		return
	}
	var body TokenRequest
	if !decodeBody(w, r, MaxBodyBytes, &body) {
		return
	}
	pol, err := policy.Parse(body.Policy)
	if err != nil {
		writeProblem(w, http.StatusBadRequest, err.Error(), storagestate.Errors{{Path: "policy", Msg: err.Error()}}, "")
		return
	}
	tok, t, err := auth.NewWithPolicy(r.Context(), a.s.Tokens(), body.Owner, body.Label, pol)
	if err != nil {
		writeProblem(w, http.StatusBadRequest, err.Error(), storagestate.Errors{{Path: "owner", Msg: err.Error()}}, "")
		return
	}
	a.log.Info("token created", "id", t.ID, "owner", t.Owner, "policy", t.Policy.JSON())
	writeJSON(w, http.StatusCreated, NewToken{Token: t, Secret: tok})
}

// TokenList is the body of GET /api/tokens.
type TokenList struct {
	Tokens []auth.Token `json:"tokens"`
}

func (a *api) listTokens(w http.ResponseWriter, r *http.Request) {
	if !a.admin(w, r) {
		return
	}
	list, err := a.s.Tokens().ListTokens(r.Context(), r.URL.Query().Get("owner"))
	if err != nil {
		fail(w, r, err, "")
		return
	}
	writeJSON(w, http.StatusOK, TokenList{Tokens: append([]auth.Token{}, list...)})
}

func (a *api) revokeToken(w http.ResponseWriter, r *http.Request) {
	if !a.admin(w, r) {
		return
	}
	err := a.s.Tokens().RevokeToken(r.Context(), r.PathValue("id"))
	if errors.Is(err, auth.ErrUnknown) {
		writeError(w, http.StatusNotFound, fmt.Sprintf("no token %q (GET /api/tokens lists them)", r.PathValue("id")))
		return
	}
	if err != nil {
		fail(w, r, err, "")
		return
	}
	a.log.Info("token revoked", "id", r.PathValue("id"))
	w.WriteHeader(http.StatusNoContent)
}
