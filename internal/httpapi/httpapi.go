// Package httpapi serves the daemon's JSON API: POST /api/actions runs one
// browser tool call, GET /api/health says the daemon is up. Errors are JSON
// objects {"error": "..."} with a status code that says whose fault they are;
// an action that runs and fails is a 200 whose result has success false.
package httpapi

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/browserd/browserd/internal/auth"
	"github.com/browserd/browserd/internal/computer"
	"github.com/browserd/browserd/internal/config"
	"github.com/browserd/browserd/internal/files"
	"github.com/browserd/browserd/internal/policy"
	"github.com/browserd/browserd/internal/sessions"
	"github.com/browserd/browserd/internal/sessionservice"
	"github.com/browserd/browserd/internal/tool"
)

// MaxBodyBytes bounds the body of an action request.
const MaxBodyBytes = 4 << 20 // a route's 1 MB body, escaped

// Options are the optional parts of the API. The zero value is usable.
type Options struct {
	// Version is reported by /api/health.
	Version string
	// Log receives one line per action; nil discards. Request bodies,
	// typed text and cookies are never logged.
	Log *slog.Logger
	// TempDir is where profile archives are built (they hold plaintext
	// cookies for a moment): the daemon's private run folder. "" means
	// the system's.
	TempDir string
	// Settings are the daemon's effective settings (config.Settings),
	// reported by /api/health to callers over the Unix socket only, so
	// that a client can tell when the daemon runs with other settings than
	// it was given.
	Settings []config.Setting
	// LiveBase is the dashboard's URL (internal/live), for the liveViewUrl
	// of sessions; "" when there is none.
	LiveBase string
	// Files lends screenshots and PDFs at GET /api/files/{id} (package
	// files); nil: New makes a registry of its own, with the default TTL.
	// The daemon gives one to every listener, so that a link works on all.
	Files *files.Registry
	// SessionService fetches the stored sessions of other browserds for
	// POST /api/sessions with sessionServiceUrl, through the daemon's
	// egress guard; nil refuses sessionServiceUrl.
	SessionService *sessionservice.Fetcher
	// Display is the screen POST /api/computer shows computer-use
	// models (zero: computer.DefaultDisplay).
	Display computer.Display
}

// Health is the body of GET /api/health.
type Health struct {
	OK      bool   `json:"ok"`
	PID     int    `json:"pid"`
	Version string `json:"version"`
	// Settings: over the Unix socket only, what Options.Settings says.
	Settings []config.Setting `json:"settings,omitempty"`
}

// New returns the API handler for h, to be mounted at /api/.
func New(h tool.Handler, opts Options) http.Handler {
	a := &api{h: h, version: opts.Version, log: opts.Log, tmp: opts.TempDir, settings: opts.Settings, liveBase: opts.LiveBase, remote: opts.SessionService}
	a.s, _ = h.(Sessions)
	a.computer = computer.New(h, cmp.Or(opts.Display, computer.DefaultDisplay))
	if a.files = opts.Files; a.files == nil {
		a.files = files.New(files.Options{})
	}
	if a.log == nil {
		a.log = slog.New(slog.DiscardHandler)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/actions", a.actions)
	mux.HandleFunc("POST /api/computer", a.computerAction)
	mux.HandleFunc("GET /api/health", a.health)
	mux.HandleFunc("GET /api/openapi.json", a.openapi)
	mux.HandleFunc("GET /api/sessions", a.held("list_sessions", "listing sessions", a.listSessions))
	mux.HandleFunc("POST /api/sessions", a.held("launch", "creating a session", a.createSession))
	mux.HandleFunc("POST /api/sandboxes", a.held("launch", "creating a session", a.createSession))
	mux.HandleFunc("GET /api/sessions/{id}", a.getSession)
	mux.HandleFunc("DELETE /api/sessions/{id}", a.held("close", "closing a session", a.deleteSession))
	mux.HandleFunc("POST /api/sessions/{id}/resume", a.held("session_resume", "resuming a session", a.resume))
	mux.HandleFunc("GET /api/sessions/{id}/captures", a.held("list_sessions", "listing a session's captures", a.listCaptures))
	mux.HandleFunc("POST /api/sessions/{id}/actions", a.sessionActions)
	mux.HandleFunc("GET /api/sessions/{id}/state", a.sessionState)
	mux.HandleFunc("GET /api/sessions/{id}/har", a.sessionHAR)
	mux.HandleFunc("GET /api/sessions/{id}/trace", a.held("snapshot", "reading a recording (the pages' text, as snapshot reads it)", a.sessionTrace))
	mux.HandleFunc("GET /api/sessions/{id}/trace/frames/{seq}", a.traceFrame)
	mux.HandleFunc("POST /api/replay", a.replayTask)
	mux.HandleFunc("GET /api/sessions/{id}/hint", a.hint(false))
	mux.HandleFunc("GET /api/stored-sessions/{id}/hint", a.hint(true))
	mux.HandleFunc("POST /api/sessions/{id}/capture", a.held("state_save", "storing a session's login", a.captureSession))
	mux.HandleFunc("POST /api/stored-sessions", manages("storing a login", a.createStored))
	mux.HandleFunc("GET /api/stored-sessions", a.listStored)
	mux.HandleFunc("GET /api/stored-sessions/{id}", a.storedMeta)
	mux.HandleFunc("DELETE /api/stored-sessions/{id}", manages("deleting a stored login", a.deleteStored))
	mux.HandleFunc("GET /api/stored-sessions/{id}/state", a.storedState)
	mux.HandleFunc("GET /api/stored-sessions/{id}/profile", a.storedProfile)
	mux.HandleFunc("GET /api/profiles/{name}/exclude-cookie-domains", a.profileExcludes)
	mux.HandleFunc("PUT /api/profiles/{name}/exclude-cookie-domains", manages("changing a profile's excluded cookie domains", a.profileExcludes))
	mux.HandleFunc("POST /api/tokens", manages("creating a token", a.createToken))
	mux.HandleFunc("GET /api/tokens", manages("listing tokens", a.listTokens))
	mux.HandleFunc("DELETE /api/tokens/{id}", manages("revoking a token", a.revokeToken))
	mux.HandleFunc("GET /api/policy", a.getPolicy)
	mux.HandleFunc("GET /api/secrets", a.listSecrets)
	mux.HandleFunc("PUT /api/secrets/{name}", manages("setting a secret", a.putSecret))
	mux.HandleFunc("DELETE /api/secrets/{name}", manages("deleting a secret", a.deleteSecret))
	mux.HandleFunc("GET /api/files/{id}", a.file)
	mux.HandleFunc("/api/", a.notFound)
	return Guard(ownNames(mux))
}

// callerWriter is the response to an owner other than admin: error bodies
// written through it (writeError, writeProblem) name the owner's sessions
// and profiles as the owner does — "s9", not the engine's "bob~s9" (a
// store's not-found error quotes the name it was given). No caller can
// spell another owner's name, so only the caller's own prefix is ever there.
type callerWriter struct {
	http.ResponseWriter
	prefix string // "bob~"
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *callerWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// ownNames gives every request of an owner other than admin a
// callerWriter.
func ownNames(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if o := auth.Owner(r.Context()); o != auth.Admin {
			w = &callerWriter{ResponseWriter: w, prefix: o + sessions.OwnerSep}
		}
		next.ServeHTTP(w, r)
	})
}

// callerWords is msg as the caller of w names things (see callerWriter).
func callerWords(w http.ResponseWriter, msg string) string {
	if cw, ok := w.(*callerWriter); ok {
		return strings.ReplaceAll(msg, cw.prefix, "")
	}
	return msg
}

type api struct {
	h       tool.Handler
	s       Sessions // nil: only the tool endpoints
	tmp     string
	version string
	log     *slog.Logger
	// settings are the daemon's, for /api/health over the socket.
	settings []config.Setting
	liveBase string
	files    *files.Registry
	remote   *sessionservice.Fetcher // nil: no remote stored sessions
	computer *computer.Computer      // POST /api/computer (computer.go)
}

// liveURL is the live view of a session's front tab on the dashboard, ""
// without a dashboard. A person opens it after signing in there.
func (a *api) liveURL(session string) string {
	if a.liveBase == "" {
		return ""
	}
	return a.liveBase + "/dashboard/live?session=" + url.QueryEscape(session)
}

func (a *api) health(w http.ResponseWriter, r *http.Request) {
	h := Health{OK: true, PID: os.Getpid(), Version: a.version}
	if auth.Local(r) { // no token over TCP: say no more than "up"
		h.Settings = a.settings
	}
	writeJSON(w, http.StatusOK, h)
}

func (a *api) notFound(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/api/actions":
		w.Header().Set("Allow", "POST")
		writeError(w, http.StatusMethodNotAllowed, fmt.Sprintf("%s /api/actions: use POST with a JSON tool input", r.Method))
	case "/api/health":
		w.Header().Set("Allow", "GET, HEAD")
		writeError(w, http.StatusMethodNotAllowed, fmt.Sprintf("%s /api/health: use GET", r.Method))
	default:
		writeError(w, http.StatusNotFound, fmt.Sprintf("no endpoint %s %s: GET /api/openapi.json lists the API", r.Method, r.URL.Path))
	}
}

// actions decodes one tool.Input, runs it and answers with its tool.Result.
// A malformed request is a 400; a request that names an unknown action or
// lacks a field the action needs is a 200 whose result says what to send,
// the same as any other failed action.
func (a *api) actions(w http.ResponseWriter, r *http.Request) {
	in, status, err := decodeInput(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	if err != nil {
		writeError(w, status, err.Error())
		return
	}
	a.run(w, r, in)
}

// run runs one tool call and answers with its result.
func (a *api) run(w http.ResponseWriter, r *http.Request, in tool.Input) {
	start := time.Now()
	var res tool.Result
	if err := in.Validate(); err != nil {
		res = tool.Result{Action: in.Action, Error: err.Error()}
	} else {
		res, err = a.h.Do(r.Context(), in)
		if err != nil {
			a.log.Warn("action could not run", "action", in.Action, "task", in.Task, "error", err)
			writeError(w, http.StatusInternalServerError, fmt.Sprintf("%s could not run: %v", in.Action, err))
			return
		}
	}
	if res.Action == "" {
		res.Action = in.Action
	}
	a.link(r, in, &res)
	a.log.Info("action", "action", in.Action, "task", in.Task, "success", res.Success,
		"ms", time.Since(start).Milliseconds())
	writeJSON(w, http.StatusOK, res)
}

// SessionList is the body of GET /api/sessions.
type SessionList struct {
	Sessions []tool.SessionInfo `json:"sessions"`
}

// listSessions is list_sessions: GET /api/sessions[?state=S].
func (a *api) listSessions(w http.ResponseWriter, r *http.Request) {
	in := tool.Input{Action: "list_sessions", Filter: r.URL.Query().Get("state")}
	if err := in.Validate(); err != nil {
		writeError(w, http.StatusBadRequest, "state: "+err.Error())
		return
	}
	res, err := a.h.Do(r.Context(), in)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	if !res.Success {
		writeError(w, http.StatusInternalServerError, res.Error)
		return
	}
	writeJSON(w, http.StatusOK, SessionList{Sessions: append([]tool.SessionInfo{}, res.Sessions...)})
}

// CaptureList is the body of GET /api/sessions/{id}/captures.
type CaptureList struct {
	Captures []tool.CaptureInfo `json:"captures"`
}

// listCaptures is list_sessions with a session: GET
// /api/sessions/{id}/captures, the session's kept captures, newest first;
// 404 when the store has no such session.
func (a *api) listCaptures(w http.ResponseWriter, r *http.Request) {
	res, err := a.h.Do(r.Context(), tool.Input{Action: "list_sessions", Session: r.PathValue("id")})
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	if !res.Success {
		status := http.StatusInternalServerError
		if strings.HasPrefix(res.Error, "no session") || strings.HasPrefix(res.Error, "session name") {
			status = http.StatusNotFound
		}
		writeError(w, status, res.Error)
		return
	}
	writeJSON(w, http.StatusOK, CaptureList{Captures: append([]tool.CaptureInfo{}, res.Captures...)})
}

// ResumeRequest is the optional body of POST /api/sessions/{id}/resume.
type ResumeRequest struct {
	// Capture picks the capture to resume from: its id, or a time (see
	// tool.ParseCapture); the newest when empty. ?capture= in the query
	// does the same.
	Capture tool.CaptureRef `json:"capture,omitempty"`
}

// resume is session_resume: POST /api/sessions/{id}/resume answers with the
// tool result; 404 when the store has no such session, 409 when it cannot
// be resumed (its state, or another daemon holds it), 400 for a capture
// that names no capture.
func (a *api) resume(w http.ResponseWriter, r *http.Request) {
	var req ResumeRequest
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 4096))
	if err != nil {
		writeError(w, http.StatusBadRequest, "reading the body: "+err.Error())
		return
	}
	if len(bytes.TrimSpace(body)) > 0 {
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&req); err != nil {
			writeError(w, http.StatusBadRequest, `the body is {"capture": "ID or time"}, or empty: `+err.Error())
			return
		}
	}
	if q := r.URL.Query().Get("capture"); q != "" {
		if req.Capture != "" && string(req.Capture) != q {
			writeError(w, http.StatusBadRequest, "capture given twice, in the query and the body")
			return
		}
		req.Capture = tool.CaptureRef(q)
	}
	in := tool.Input{Action: "session_resume", Session: r.PathValue("id"), Capture: req.Capture}
	if in.Capture != "" {
		if _, _, err := tool.ParseCapture(in.Capture, time.Now()); err != nil {
			writeError(w, http.StatusBadRequest, err.Error())
			return
		}
	}
	res, err := a.h.Do(r.Context(), in)
	if err == nil && strings.HasPrefix(res.Error, "session name") {
		res.Error = "no session " + res.Error // a name that cannot exist
	}
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	status := http.StatusOK
	switch {
	case res.Success:
	case strings.HasPrefix(res.Error, "no session"):
		status = http.StatusNotFound
	default:
		status = http.StatusConflict
	}
	a.log.Info("action", "action", "session_resume", "success", res.Success)
	writeJSON(w, status, res)
}

// decodeInput reads exactly one JSON object with only tool.Input's fields.
// The error is written for the sender: it names the bad field or position.
func decodeInput(body io.Reader) (tool.Input, int, error) {
	var in tool.Input
	dec := json.NewDecoder(body)
	dec.DisallowUnknownFields()
	err := dec.Decode(&in)
	if err == nil {
		if dec.More() {
			return in, http.StatusBadRequest, errors.New("request body has more than one JSON value: send one tool input object")
		}
		return in, 0, nil
	}
	var (
		maxErr    *http.MaxBytesError
		syntaxErr *json.SyntaxError
		typeErr   *json.UnmarshalTypeError
	)
	switch {
	case errors.As(err, &maxErr):
		return in, http.StatusRequestEntityTooLarge, fmt.Errorf("request body is over %d bytes", maxErr.Limit)
	case errors.Is(err, io.EOF):
		return in, http.StatusBadRequest, errors.New(`empty request body: send a tool input such as {"action":"snapshot"}`)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return in, http.StatusBadRequest, errors.New("request body is cut short: the JSON object is not closed")
	case errors.As(err, &syntaxErr):
		return in, http.StatusBadRequest, fmt.Errorf("request body is not valid JSON at byte %d: %w", syntaxErr.Offset, err)
	case errors.As(err, &typeErr):
		field := typeErr.Field
		if field == "" {
			return in, http.StatusBadRequest, fmt.Errorf("request body must be a JSON object (the tool input), not a JSON %s", typeErr.Value)
		}
		if msg, ok := intRange(field, typeErr); ok {
			return in, http.StatusBadRequest, errors.New(msg)
		}
		return in, http.StatusBadRequest, fmt.Errorf("field %q must be %s, not %s", field, jsonKind(typeErr.Type.Kind().String()), typeErr.Value)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		// encoding/json has no typed error for this one.
		name := strings.TrimPrefix(err.Error(), "json: unknown field ")
		return in, http.StatusBadRequest, fmt.Errorf("unknown field %s: the browser tool has no such input field", name)
	default:
		return in, http.StatusBadRequest, fmt.Errorf("request body: %w", err)
	}
}

// intRange words a number that an integer field cannot take: one out of
// its range ("time": 1e300), or one with a fraction ("time": 1.5).
// encoding/json calls both "number 1e300", which is a number.
func intRange(field string, e *json.UnmarshalTypeError) (string, bool) {
	num, ok := strings.CutPrefix(e.Value, "number ")
	if !ok {
		return "", false
	}
	var max uint64
	switch e.Type.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		max = 1<<(e.Type.Bits()-1) - 1
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		max = 1<<e.Type.Bits() - 1
	default:
		return "", false
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return "", false
	}
	switch {
	case f < 0 && (f == math.Trunc(f) || math.IsInf(f, 0)):
		if max == 0 || e.Type.Kind() >= reflect.Uint && e.Type.Kind() <= reflect.Uint64 {
			return fmt.Sprintf("field %q is out of range: give a whole number from 0 to %d, not %s", field, max, truncNum(num)), true
		}
		return fmt.Sprintf("field %q is out of range: give a whole number of at least -%d, not %s", field, max+1, truncNum(num)), true
	case f == math.Trunc(f) || math.IsInf(f, 0):
		return fmt.Sprintf("field %q is out of range: give a whole number of at most %d, not %s", field, max, truncNum(num)), true
	}
	return fmt.Sprintf("field %q must be a whole number, not %s", field, truncNum(num)), true
}

// truncNum keeps a number quoted in an error short.
func truncNum(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// jsonKind names a Go kind the way a JSON sender thinks of it.
func jsonKind(kind string) string {
	switch kind {
	case "string":
		return "a string"
	case "int", "int64", "int32", "float64":
		return "a number"
	case "bool", "ptr":
		return "true or false"
	case "slice":
		return "an array"
	default:
		return kind
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": callerWords(w, msg)})
}

// Guard refuses requests a web page could forge: cross-origin browser
// requests, and requests over a loopback TCP connection whose Host is not a
// loopback name (DNS rebinding). Requests over the Unix socket pass. New
// applies it; the daemon wraps its other routes with it too.
func Guard(next http.Handler) http.Handler {
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusForbidden, "cross-origin request refused: browser pages may not call the browserd API")
	}))
	return cop.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !hostAllowed(r) {
			writeError(w, http.StatusForbidden, fmt.Sprintf("host %q refused: call the API as localhost or 127.0.0.1", r.Host))
			return
		}
		next.ServeHTTP(w, r)
	}))
}

// hostAllowed reports whether a request that arrived on a loopback address
// names a loopback host.
func hostAllowed(r *http.Request) bool {
	local, ok := r.Context().Value(http.LocalAddrContextKey).(*net.TCPAddr)
	if !ok || !local.IP.IsLoopback() {
		return true
	}
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// manages lets a request through to h only if its caller's policy grants
// manage (policy.MayManage): secrets, tokens and profile settings are the
// owner's, not an agent's to change. Refused with 403 and what to do.
func manages(what string, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := policy.MayManage(r.Context(), what); err != nil {
			writeError(w, http.StatusForbidden, err.Error())
			return
		}
		h(w, r)
	}
}

// Manages is manages for the daemon's other management routes (the
// dashboard's sign-in, share links).
func Manages(what string, h http.Handler) http.Handler { return manages(what, h.ServeHTTP) }
