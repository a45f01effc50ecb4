// Package sessionservice fetches a stored session from another browserd's
// stored-session API: source 003's sessionServiceUrl, for
// POST /api/sessions with {"type":"reference","sessionId":…,
// "sessionServiceUrl":"http://node2:8765/api/stored-sessions"}.
//
// A Fetcher reads GET {base}/{id} (the stored session's metadata, for its
// expiresAt) and GET {base}/{id}/state (its storageState), and parses the
// state with storagestate.Parse, the parser of inline states; the caller
// then checks it for injection as it checks a local stored session
// (inject.Check). Both reads share one time limit (15 s by default) and
// each is bounded in size (the state by storagestate.MaxBytes).
//
// The fetch goes through the egress guard's rules (egress.Policy.Check):
// the host is resolved once, every address is checked, and the checked
// address is dialled, never the name, so DNS rebinding cannot slip
// through; an internal address is refused unless --allow-host or
// --allow-private allows it, as for pages. Redirects are followed only
// within the same origin, so a token never leaves for another host.
//
// A token goes with the requests as Authorization: Bearer: the one given
// with the request, else the daemon's (--session-service-token), which is
// sent only to the session services it is configured for
// (--session-service-url). Tokens and states are never logged.
package sessionservice

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/browserd/browserd/internal/egress"
	"github.com/browserd/browserd/internal/storagestate"
)

// DefaultTimeout bounds a whole fetch (both reads) when Fetcher.Timeout
// is 0.
const DefaultTimeout = 15 * time.Second

// maxMetaBytes bounds the metadata answer and an error answer's body.
const maxMetaBytes = 1 << 20

// Kind says what went wrong with a fetch; the HTTP API maps it to a status.
type Kind int

// The kinds of Error.
const (
	// BadURL: sessionServiceUrl or sessionId cannot be used (400).
	BadURL Kind = iota + 1
	// Refused: the guard refuses the service's address (400).
	Refused
	// NotFound: the service has no such stored session for the token's
	// owner (it answered 404).
	NotFound
	// Unauthorized: the service refused the token (it answered 401 or 403).
	Unauthorized
	// Failed: the service cannot be reached, answered another error, or
	// its answer is too large or not a valid stored session (502).
	Failed
	// Timeout: the service did not answer in time (504).
	Timeout
)

// Error is a failed fetch. Msg says what happened and what to do; Status
// is the service's HTTP status when it answered one; Field names the
// request field at fault for a BadURL ("sessionServiceUrl", "sessionId"
// or "sessionServiceToken"); Fields are the faults of an invalid remote
// state, by JSON path.
type Error struct {
	Kind   Kind
	Status int
	Msg    string
	Field  string
	Fields storagestate.Errors
}

func (e *Error) Error() string {
	if len(e.Fields) == 0 {
		return e.Msg
	}
	return e.Msg + ": " + strings.TrimPrefix(e.Fields.Error(), "invalid storageState: ")
}

// Fetcher reads stored sessions from other browserds. The zero Fetcher
// reaches public addresses only, with no token of its own.
type Fetcher struct {
	// Policy is the daemon's egress policy (its --allow-host,
	// --allow-private, --block-host and --only-hosts).
	Policy egress.Policy
	// Resolver looks names up; nil means net.DefaultResolver.
	Resolver egress.Resolver
	// Token is the daemon's token for the session services of TokenFor
	// (--session-service-token); a request's own token goes first.
	Token string
	// TokenFor are the base URLs (--session-service-url) whose origin
	// (scheme, host and port) Token is sent to; nowhere else.
	TokenFor []string
	// Timeout bounds a whole fetch; 0 means DefaultTimeout.
	Timeout time.Duration
	// MaxBytes bounds the state's answer; 0 means storagestate.MaxBytes.
	MaxBytes int64
}

// Stored is a fetched stored session.
type Stored struct {
	State *storagestate.State
	// ExpiresAt is the stored session's expiry; zero for none.
	ExpiresAt time.Time
}

// ParseBase checks a session service's base URL — an http or https URL of
// another browserd's stored-session API, such as
// http://node2:8765/api/stored-sessions, with or without a trailing slash,
// without credentials, query or fragment — and returns it without the
// trailing slash.
func ParseBase(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	switch {
	case err != nil:
		return nil, fmt.Errorf("%q is not a URL: want http(s)://HOST[:PORT]/api/stored-sessions", raw)
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, fmt.Errorf("%q: want an http:// or https:// URL such as http://node2:8765/api/stored-sessions", raw)
	case u.Hostname() == "" || u.Opaque != "":
		return nil, fmt.Errorf("%q has no host: want http(s)://HOST[:PORT]/api/stored-sessions", raw)
	case u.User != nil:
		return nil, fmt.Errorf("%q carries credentials: leave them out and give the token in browserSession.sessionServiceToken (or start browserd with --session-service-token)", redact(u))
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "":
		return nil, fmt.Errorf("%q has a query or fragment: want the base of the stored-session API, such as http://node2:8765/api/stored-sessions", raw)
	}
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = strings.TrimRight(u.RawPath, "/")
	return u, nil
}

// redact is u without its credentials.
func redact(u *url.URL) string {
	c := *u
	c.User = nil
	return c.String()
}

// origin is scheme://host:port of u, the port spelled out.
func origin(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	return u.Scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// CheckID checks a stored session's id for use in a URL path.
func CheckID(id string) error {
	switch {
	case id == "":
		return errors.New("missing: the id of a stored session on the session service")
	case len(id) > 200:
		return errors.New("at most 200 characters")
	case id == "." || id == "..":
		return fmt.Errorf("%q is not a stored session's id", id)
	case strings.ContainsFunc(id, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return errors.New("has control characters")
	}
	return nil
}

// tokenFor is the token to send to base: the request's, else the daemon's
// when base is one of its services.
func (f *Fetcher) tokenFor(base *url.URL, token string) string {
	if token != "" || f.Token == "" {
		return token
	}
	want := origin(base)
	if slices.ContainsFunc(f.TokenFor, func(s string) bool {
		u, err := ParseBase(s)
		return err == nil && origin(u) == want
	}) {
		return f.Token
	}
	return ""
}

// Fetch reads stored session id from the session service at base, with
// token (the request's; "" for the daemon's, if it is one of base's).
// Refusals and failures are *Error.
func (f *Fetcher) Fetch(ctx context.Context, base, id, token string) (Stored, error) {
	u, err := ParseBase(base)
	if err != nil {
		return Stored{}, &Error{Kind: BadURL, Field: "sessionServiceUrl", Msg: err.Error()}
	}
	if err := CheckID(id); err != nil {
		return Stored{}, &Error{Kind: BadURL, Field: "sessionId", Msg: "sessionId: " + err.Error()}
	}
	if strings.ContainsFunc(token, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
		return Stored{}, &Error{Kind: BadURL, Field: "sessionServiceToken", Msg: "sessionServiceToken has spaces or control characters: give the token alone"}
	}
	timeout := f.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tr := &http.Transport{
		Proxy:                  nil, // the guard decides, not HTTP_PROXY
		DialContext:            f.dial,
		DisableKeepAlives:      true,
		TLSHandshakeTimeout:    timeout,
		MaxResponseHeaderBytes: 64 << 10,
	}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr, CheckRedirect: sameOrigin}
	r := &reader{c: c, base: u, token: f.tokenFor(u, token), daemonToken: token == "" && f.Token != "", timeout: timeout}
	item := u.String() + "/" + url.PathEscape(id)

	meta, err := r.get(ctx, item, maxMetaBytes, "stored session "+quote(id))
	if err != nil {
		return Stored{}, err
	}
	var m struct {
		ExpiresAt *time.Time `json:"expiresAt"`
	}
	if err := json.Unmarshal(meta, &m); err != nil {
		return Stored{}, &Error{Kind: Failed, Status: http.StatusOK, Msg: fmt.Sprintf("the session service at %s answered GET %s with something that is not a stored session's metadata (%s); is sessionServiceUrl the …/api/stored-sessions of a browserd?", u, item, shortJSONErr(err))}
	}
	limit := f.MaxBytes
	if limit <= 0 {
		limit = storagestate.MaxBytes
	}
	data, err := r.get(ctx, item+"/state", limit, "stored session "+quote(id))
	if err != nil {
		return Stored{}, err
	}
	st, err := storagestate.Parse(data)
	if err != nil {
		e := &Error{Kind: Failed, Status: http.StatusOK, Msg: fmt.Sprintf("the state of stored session %s from %s is not a valid storageState", quote(id), u)}
		if !errors.As(err, &e.Fields) {
			e.Msg += ": " + err.Error()
		}
		return Stored{}, e
	}
	out := Stored{State: st}
	if m.ExpiresAt != nil {
		out.ExpiresAt = *m.ExpiresAt
	}
	return out, nil
}

// dial connects to addr only when the guard allows it, to the address the
// guard checked (never the name again).
func (f *Fetcher) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	d := f.Policy.Check(ctx, f.Resolver, host, port)
	if !d.Allowed {
		return nil, d
	}
	var nd net.Dialer
	return nd.DialContext(ctx, network, net.JoinHostPort(d.Addr.String(), d.Port))
}

// errRedirect is a redirect the fetch does not follow.
type errRedirect struct{ to *url.URL }

func (e errRedirect) Error() string {
	return "redirected to " + redact(&url.URL{Scheme: e.to.Scheme, Host: e.to.Host, Path: e.to.Path})
}

// sameOrigin follows up to 3 redirects within the origin of the first
// request: a token never goes to another host.
func sameOrigin(req *http.Request, via []*http.Request) error {
	if len(via) >= 3 {
		return errors.New("stopped after 3 redirects")
	}
	if origin(req.URL) != origin(via[0].URL) {
		return errRedirect{req.URL}
	}
	return nil
}

// reader makes one fetch's requests.
type reader struct {
	c           *http.Client
	base        *url.URL
	token       string
	daemonToken bool // the daemon has a token, not sent to this service
	timeout     time.Duration
}

// get reads u, at most limit bytes; what names the thing read, for errors.
func (r *reader) get(ctx context.Context, u string, limit int64, what string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, &Error{Kind: BadURL, Field: "sessionServiceUrl", Msg: err.Error()}
	}
	req.Header.Set("Accept", "application/json")
	if r.token != "" {
		req.Header.Set("Authorization", "Bearer "+r.token)
	}
	resp, err := r.c.Do(req)
	if err != nil {
		return nil, r.failure(ctx, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, r.status(resp, what)
	}
	if resp.ContentLength > limit {
		return nil, r.tooLarge(resp.ContentLength, limit)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, r.failure(ctx, err)
	}
	if int64(len(body)) > limit {
		return nil, r.tooLarge(-1, limit)
	}
	return body, nil
}

func (r *reader) tooLarge(n, limit int64) error {
	size := fmt.Sprintf("more than %d bytes", limit)
	if n > 0 {
		size = fmt.Sprintf("%d bytes", n)
	}
	return &Error{Kind: Failed, Status: http.StatusOK, Msg: fmt.Sprintf("the session service at %s answered %s, over the limit of %d bytes", r.base, size, limit)}
}

// failure describes a request that got no answer.
func (r *reader) failure(ctx context.Context, err error) error {
	var d egress.Decision
	if errors.As(err, &d) {
		return &Error{Kind: Refused, Msg: fmt.Sprintf("the guard refuses sessionServiceUrl %s: %s; %s",
			r.base, d.Reason, orDefault(d.Hint, "browserd fetches nothing from it"))}
	}
	var re errRedirect
	if errors.As(err, &re) {
		return &Error{Kind: Failed, Msg: fmt.Sprintf("the session service at %s %v; give its final address as sessionServiceUrl (redirects are followed within one origin only)", r.base, re)}
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return &Error{Kind: Timeout, Msg: fmt.Sprintf("the session service at %s did not answer within %s", r.base, r.timeout)}
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return &Error{Kind: Failed, Msg: fmt.Sprintf("cannot reach the session service at %s: %v", r.base, err)}
}

// status describes an answer other than 200, with the service's own error
// message when it gives one (browserd's {"error": …}).
func (r *reader) status(resp *http.Response, what string) error {
	said := ""
	var p struct {
		Error string `json:"error"`
	}
	if b, _ := io.ReadAll(io.LimitReader(resp.Body, maxMetaBytes)); json.Unmarshal(b, &p) == nil && p.Error != "" {
		said = p.Error
		if len(said) > 200 {
			said = said[:200] + "…"
		}
		said = fmt.Sprintf(" (%q)", said)
	}
	e := &Error{Status: resp.StatusCode}
	answered := fmt.Sprintf("the session service at %s answered %s%s", r.base, resp.Status, said)
	switch resp.StatusCode {
	case http.StatusNotFound:
		e.Kind, e.Msg = NotFound, fmt.Sprintf("%s for %s: no such stored session for the token's owner there (GET %s lists them), or sessionServiceUrl is not the …/api/stored-sessions of a browserd", answered, what, r.base)
	case http.StatusUnauthorized, http.StatusForbidden:
		hint := "give a token of the session service in browserSession.sessionServiceToken, or start browserd with --session-service-token TOKEN --session-service-url " + r.base.String()
		switch {
		case r.token == "" && r.daemonToken:
			hint = "browserd's --session-service-token is sent only to the services of --session-service-url, and this is not one: give its token in browserSession.sessionServiceToken, or add " + r.base.String() + " to --session-service-url"
		case r.token != "":
			hint = "the token was refused: give a valid token of the session service (browserd token create --owner NAME on that node)"
		}
		e.Kind, e.Msg = Unauthorized, answered+"; "+hint
	default:
		e.Kind, e.Msg = Failed, answered
	}
	return e
}

func quote(s string) string { return fmt.Sprintf("%q", s) }

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// shortJSONErr is a JSON error without the Go type names.
func shortJSONErr(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("not JSON at byte %d", se.Offset)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("%s is %s, not the expected type", orDefault(te.Field, "the answer"), te.Value)
	}
	return err.Error()
}
