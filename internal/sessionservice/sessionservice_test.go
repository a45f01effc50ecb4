package sessionservice

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/browserd/browserd/internal/egress"
)

const okState = `{"cookies":[{"name":"sid","value":"v","domain":".example.com","path":"/","expires":-1,"httpOnly":true}],"origins":[{"origin":"https://example.com","localStorage":[{"name":"k","value":"v"}]}]}`

// service is a fake browserd stored-session API under /api/stored-sessions:
// ss_1 is there for token "tok"; what it got is recorded.
type service struct {
	*httptest.Server
	mu    sync.Mutex
	auths []string
	paths []string
	// state, meta and status replace the answers when set.
	state, meta string
	status      int
	hang        chan struct{}
}

func newService(t *testing.T) *service {
	s := &service{hang: make(chan struct{})}
	mux := http.NewServeMux()
	handle := func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.auths = append(s.auths, r.Header.Get("Authorization"))
		s.paths = append(s.paths, r.URL.EscapedPath())
		state, meta, status := s.state, s.meta, s.status
		s.mu.Unlock()
		if status == -1 {
			select {
			case <-r.Context().Done():
			case <-s.hang:
			}
			return
		}
		if status != 0 {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			fmt.Fprintf(w, `{"error":"status %d here"}`, status)
			return
		}
		if r.Header.Get("Authorization") != "Bearer tok" {
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprint(w, `{"error":"missing or invalid token"}`)
			return
		}
		if r.PathValue("id") != "ss_1" {
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"error":"no stored session"}`)
			return
		}
		switch r.PathValue("rest") {
		case "":
			fmt.Fprint(w, orDefault(meta, `{"id":"ss_1","name":"n","expiresAt":"2099-01-01T00:00:00Z"}`))
		case "state":
			if strings.HasPrefix(state, "\n") { // no Content-Length
				w.(http.Flusher).Flush()
			}
			fmt.Fprint(w, orDefault(state, okState))
		default:
			http.NotFound(w, r)
		}
	}
	mux.HandleFunc("GET /api/stored-sessions/{id}", handle)
	mux.HandleFunc("GET /api/stored-sessions/{id}/{rest}", handle)
	mux.HandleFunc("GET /moved/", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/api/stored-sessions/"+strings.TrimPrefix(r.URL.Path, "/moved/"), http.StatusFound)
	})
	s.Server = httptest.NewServer(mux)
	t.Cleanup(func() { close(s.hang); s.Close() })
	return s
}

// set changes the answers: the metadata, the state, the status (-1: hang).
func (s *service) set(meta, state string, status int) {
	s.mu.Lock()
	s.meta, s.state, s.status = meta, state, status
	s.mu.Unlock()
}

func (s *service) base() string { return s.URL + "/api/stored-sessions" }

// loopback allows the test server's address, as --allow-host 127.0.0.1.
var loopback = egress.Policy{AllowHosts: []string{"127.0.0.1"}}

func kindOf(t *testing.T, err error) *Error {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not an *Error", err, err)
	}
	return e
}

func TestFetch(t *testing.T) {
	s := newService(t)
	f := &Fetcher{Policy: loopback}
	for _, base := range []string{s.base(), s.base() + "/", s.base() + "//"} {
		got, err := f.Fetch(context.Background(), base, "ss_1", "tok")
		if err != nil {
			t.Fatalf("%s: %v", base, err)
		}
		if len(got.State.Cookies) != 1 || got.State.Cookies[0].Name != "sid" || len(got.State.Origins) != 1 {
			t.Fatalf("%s: state %+v", base, got.State)
		}
		if want := time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC); !got.ExpiresAt.Equal(want) {
			t.Fatalf("expiresAt %v, want %v", got.ExpiresAt, want)
		}
	}
	s.mu.Lock()
	if s.paths[0] != "/api/stored-sessions/ss_1" || s.paths[1] != "/api/stored-sessions/ss_1/state" || s.auths[0] != "Bearer tok" {
		t.Errorf("requests %q with %q", s.paths, s.auths)
	}
	s.mu.Unlock()

	// An id is one path segment, escaped.
	_, err := f.Fetch(context.Background(), s.base(), "a/b c", "tok")
	if e := kindOf(t, err); e.Kind != NotFound || e.Status != 404 || !strings.Contains(e.Msg, "404") || !strings.Contains(e.Msg, `"a/b c"`) {
		t.Fatalf("unknown id: %+v", e)
	}
	s.mu.Lock()
	if last := s.paths[len(s.paths)-1]; last != "/api/stored-sessions/a%2Fb%20c" {
		t.Errorf("path %q", last)
	}
	s.mu.Unlock()

	// No expiry.
	s.set(`{"id":"ss_1"}`, "", 0)
	if got, err := f.Fetch(context.Background(), s.base(), "ss_1", "tok"); err != nil || !got.ExpiresAt.IsZero() {
		t.Fatalf("no expiresAt: %+v, %v", got, err)
	}
}

// The daemon's token goes only to the services it is for; a request's
// token goes first.
func TestFetchToken(t *testing.T) {
	s := newService(t)
	f := &Fetcher{Policy: loopback, Token: "tok", TokenFor: []string{s.base()}}
	if _, err := f.Fetch(context.Background(), s.base()+"/", "ss_1", ""); err != nil {
		t.Fatalf("the daemon's token: %v", err)
	}
	_, err := f.Fetch(context.Background(), s.base(), "ss_1", "wrong")
	if e := kindOf(t, err); e.Kind != Unauthorized || e.Status != 401 || !strings.Contains(e.Msg, "401 Unauthorized") || !strings.Contains(e.Msg, "token was refused") {
		t.Fatalf("a wrong token of the request: %+v", e)
	}
	// Another origin (localhost instead of 127.0.0.1) does not get it.
	u, _ := url.Parse(s.URL)
	other := "http://localhost:" + u.Port() + "/api/stored-sessions"
	f.Policy = egress.Policy{AllowHosts: []string{"127.0.0.1", "localhost"}}
	_, err = f.Fetch(context.Background(), other, "ss_1", "")
	if e := kindOf(t, err); e.Kind != Unauthorized || !strings.Contains(e.Msg, "--session-service-url") {
		t.Fatalf("the daemon's token to another service: %+v", e)
	}
	s.mu.Lock()
	if last := s.auths[len(s.auths)-1]; last != "" {
		t.Errorf("the daemon's token went to another origin: %q", last)
	}
	s.mu.Unlock()
	f.Token = ""
	_, err = f.Fetch(context.Background(), s.base(), "ss_1", "")
	if e := kindOf(t, err); e.Kind != Unauthorized || !strings.Contains(e.Msg, "browserSession.sessionServiceToken") {
		t.Fatalf("no token: %+v", e)
	}
}

func TestFetchBounds(t *testing.T) {
	s := newService(t)

	// Size.
	f := &Fetcher{Policy: loopback, MaxBytes: 100}
	_, err := f.Fetch(context.Background(), s.base(), "ss_1", "tok")
	if e := kindOf(t, err); e.Kind != Failed || !strings.Contains(e.Msg, "over the limit of 100 bytes") {
		t.Fatalf("too large: %+v", e)
	}

	s.set("", "\n"+okState, 0)
	_, err = f.Fetch(context.Background(), s.base(), "ss_1", "tok")
	if e := kindOf(t, err); e.Kind != Failed || !strings.Contains(e.Msg, "more than 100 bytes") {
		t.Fatalf("too large, without Content-Length: %+v", e)
	}
	f.MaxBytes = int64(len(okState) + 1)
	if _, err := f.Fetch(context.Background(), s.base(), "ss_1", "tok"); err != nil {
		t.Fatalf("at the limit: %v", err)
	}

	// Time.
	s.set("", "", -1)
	f = &Fetcher{Policy: loopback, Timeout: 200 * time.Millisecond}
	start := time.Now()
	_, err = f.Fetch(context.Background(), s.base(), "ss_1", "tok")
	if e := kindOf(t, err); e.Kind != Timeout || !strings.Contains(e.Msg, "did not answer within 200ms") {
		t.Fatalf("hanging service: %+v", e)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("the fetch took %s", d)
	}

	// Other statuses, with the service's message.
	for _, st := range []int{500, 403, 418} {
		s.set("", "", st)
		_, err = f.Fetch(context.Background(), s.base(), "ss_1", "tok")
		want := map[int]Kind{500: Failed, 403: Unauthorized, 418: Failed}[st]
		if e := kindOf(t, err); e.Kind != want || e.Status != st || !strings.Contains(e.Msg, fmt.Sprintf("answered %d", st)) ||
			!strings.Contains(e.Msg, fmt.Sprintf("status %d here", st)) {
			t.Fatalf("status %d: %+v", st, e)
		}
	}
	s.set("", "", 0)

	// Nobody listening.
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	dead := "http://" + ln.Addr().String() + "/api/stored-sessions"
	ln.Close()
	_, err = f.Fetch(context.Background(), dead, "ss_1", "tok")
	if e := kindOf(t, err); e.Kind != Failed || !strings.Contains(e.Msg, "cannot reach") {
		t.Fatalf("nobody listening: %+v", e)
	}
}

func TestFetchBadAnswers(t *testing.T) {
	s := newService(t)
	f := &Fetcher{Policy: loopback}
	for _, tc := range []struct {
		meta, state string
		want        string
		fields      string
	}{
		{meta: `<html>`, want: "not a stored session's metadata"},
		{meta: `{"expiresAt":"soon"}`, want: "not a stored session's metadata"},
		{state: `{"cookies":`, want: "not a valid storageState"},
		{state: `{"cookies":[{"name":"a","value":"b","domain":"x","sameSite":"Sometimes"}]}`, want: "not a valid storageState", fields: "cookies[0].sameSite"},
	} {
		s.set(tc.meta, tc.state, 0)
		_, err := f.Fetch(context.Background(), s.base(), "ss_1", "tok")
		e := kindOf(t, err)
		if e.Kind != Failed || !strings.Contains(e.Msg, tc.want) {
			t.Errorf("%+v: %+v", tc, e)
		}
		if tc.fields != "" && (len(e.Fields) != 1 || e.Fields[0].Path != tc.fields) {
			t.Errorf("%+v: fields %+v", tc, e.Fields)
		}
	}
}

// The guard: an internal address is refused unless allowed, a name is
// checked by every address it resolves to and the checked address is
// dialled, and a redirect leaves no origin.
func TestFetchGuard(t *testing.T) {
	s := newService(t)
	u, _ := url.Parse(s.URL)
	_, err := (&Fetcher{}).Fetch(context.Background(), s.base(), "ss_1", "tok")
	e := kindOf(t, err)
	if e.Kind != Refused || !strings.Contains(e.Msg, "loopback") || !strings.Contains(e.Msg, "--allow-host 127.0.0.1:"+u.Port()) || !strings.Contains(e.Msg, "--allow-private") {
		t.Fatalf("loopback, not allowed: %+v", e)
	}
	s.mu.Lock()
	if len(s.paths) != 0 {
		t.Fatalf("the refused service got requests: %q", s.paths)
	}
	s.mu.Unlock()
	if _, err := (&Fetcher{Policy: egress.Policy{AllowPrivate: true}}).Fetch(context.Background(), s.base(), "ss_1", "tok"); err != nil {
		t.Fatalf("--allow-private: %v", err)
	}
	for _, base := range []string{"http://169.254.169.254/latest", "http://10.1.2.3:8765/api/stored-sessions", "http://[::1]:1/x"} {
		_, err := (&Fetcher{}).Fetch(context.Background(), base, "ss_1", "tok")
		if e := kindOf(t, err); e.Kind != Refused {
			t.Errorf("%s: %+v", base, e)
		}
	}
	blocked := &Fetcher{Policy: egress.Policy{AllowPrivate: true, BlockHosts: []string{"127.0.0.1"}}}
	if _, err := blocked.Fetch(context.Background(), s.base(), "ss_1", "tok"); kindOf(t, err).Kind != Refused {
		t.Fatalf("--block-host: %v", err)
	}

	// A public-looking name that resolves to loopback is refused; allowed
	// by name, it is dialled at the address checked.
	res := fakeResolver{"svc.example": netip.MustParseAddr("127.0.0.1")}
	named := "http://svc.example:" + u.Port() + "/api/stored-sessions"
	_, err = (&Fetcher{Resolver: res}).Fetch(context.Background(), named, "ss_1", "tok")
	if e := kindOf(t, err); e.Kind != Refused || !strings.Contains(e.Msg, "resolves to 127.0.0.1") {
		t.Fatalf("a name resolving to loopback: %+v", e)
	}
	if _, err := (&Fetcher{Resolver: res, Policy: egress.Policy{AllowHosts: []string{"svc.example"}}}).Fetch(context.Background(), named, "ss_1", "tok"); err != nil {
		t.Fatalf("an allowed name: %v", err)
	}

	// Redirects: within the origin, followed; to another, refused.
	f := &Fetcher{Policy: egress.Policy{AllowHosts: []string{"127.0.0.1", "localhost"}}}
	if _, err := f.Fetch(context.Background(), s.URL+"/moved", "ss_1", "tok"); err != nil {
		t.Fatalf("same-origin redirect: %v", err)
	}
	hop := httptest.NewServer(http.RedirectHandler("http://localhost:"+u.Port()+"/api/stored-sessions/ss_1", http.StatusFound))
	defer hop.Close()
	_, err = f.Fetch(context.Background(), hop.URL+"/x", "ss_1", "tok")
	if e := kindOf(t, err); e.Kind != Failed || !strings.Contains(e.Msg, "redirected to http://localhost:"+u.Port()) {
		t.Fatalf("redirect to another origin: %+v", e)
	}
}

type fakeResolver map[string]netip.Addr

func (r fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if a, ok := r[host]; ok {
		return []netip.Addr{a}, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

func TestParseBaseAndID(t *testing.T) {
	for _, bad := range []string{"", "ftp://h/x", "/api/stored-sessions", "http://", "http://u:p@h/x", "http://h/x?a=1", "http://h/x#f", "mailto:a@b", "http://h/x?"} {
		if _, err := ParseBase(bad); err == nil {
			t.Errorf("ParseBase(%q) = nil error", bad)
		} else if strings.Contains(err.Error(), ":p@") {
			t.Errorf("ParseBase(%q) shows the password: %v", bad, err)
		}
	}
	for in, want := range map[string]string{
		"http://h:8765/api/stored-sessions/": "http://h:8765/api/stored-sessions",
		" https://h/api/stored-sessions ":    "https://h/api/stored-sessions",
		"http://h":                           "http://h",
	} {
		if u, err := ParseBase(in); err != nil || u.String() != want {
			t.Errorf("ParseBase(%q) = %v, %v; want %s", in, u, err, want)
		}
	}
	for _, bad := range []string{"a b", "a\r\nX-Evil: 1"} {
		if _, err := (&Fetcher{}).Fetch(context.Background(), "http://h/x", "ss_1", bad); kindOf(t, err).Field != "sessionServiceToken" {
			t.Errorf("Fetch with token %q: %v", bad, err)
		}
	}
	for _, bad := range []string{"", ".", "..", "a\nb", strings.Repeat("x", 201)} {
		if CheckID(bad) == nil {
			t.Errorf("CheckID(%q) = nil", bad)
		}
		if _, err := (&Fetcher{}).Fetch(context.Background(), "http://h/x", bad, ""); kindOf(t, err).Kind != BadURL {
			t.Errorf("Fetch with id %q: %v", bad, err)
		}
	}
}

// FuzzParseBase: no input makes ParseBase panic, and what it accepts is an
// http(s) URL with a host and without credentials, query or fragment.
func FuzzParseBase(f *testing.F) {
	for _, s := range []string{"http://h:8765/api/stored-sessions/", "https://[::1]:1/x", "http://u:p@h", "http://h/%zz", "//h/x", "http://h/x?#"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := ParseBase(s)
		if err != nil {
			return
		}
		if (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" || strings.HasSuffix(u.Path, "/") {
			t.Fatalf("ParseBase(%q) accepted %#v", s, u)
		}
	})
}
