package httpapi_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/browserd/browserd/internal/auth"
	"github.com/browserd/browserd/internal/egress"
	"github.com/browserd/browserd/internal/httpapi"
	"github.com/browserd/browserd/internal/inject"
	"github.com/browserd/browserd/internal/sessionservice"
	"github.com/browserd/browserd/internal/storagestate"
	"github.com/browserd/browserd/internal/store"
	"github.com/browserd/browserd/internal/tool"
)

// fakeSessions is the engine's session side: Inject runs inject.Check, as
// the engine does, and records what it was asked.
type fakeSessions struct {
	fakeHandler
	req *inject.Request
}

func (f *fakeSessions) Inject(_ context.Context, req inject.Request) (inject.Session, error) {
	f.req = &req
	if req.StoredID != "" {
		return inject.Session{}, &inject.Error{Kind: inject.NotFound, Msg: "no stored session"}
	}
	if req.State != nil {
		if _, err := inject.Check(req.State, time.Time{}, req.AllowedDomains, req.Policy, time.Now()); err != nil {
			return inject.Session{}, err
		}
	}
	return inject.Session{ID: "s", State: "active", AuthenticatedDomains: []string{}}, nil
}

func (f *fakeSessions) SessionInfo(context.Context, string) (tool.SessionInfo, []tool.Tab, error) {
	return tool.SessionInfo{}, nil, store.ErrNotFound
}
func (f *fakeSessions) ExportSession(context.Context, string) (*storagestate.Export, error) {
	return nil, store.ErrNotFound
}
func (f *fakeSessions) StoreSession(context.Context, string, string, time.Time) (store.StoredSession, error) {
	return store.StoredSession{}, store.ErrNotFound
}
func (f *fakeSessions) SaveStored(_ context.Context, name string, st *storagestate.State, exp time.Time) (store.StoredSession, error) {
	ss := store.StoredSession{ID: "ss_1", Name: name, State: st, ExpiresAt: exp}
	ss.Describe()
	return ss, nil
}
func (f *fakeSessions) StoredSessions() store.StoredSessions       { return nil }
func (f *fakeSessions) CloseSession(context.Context, string) error { return errors.New("not here") }
func (f *fakeSessions) Tokens() auth.Store                         { return nil }
func (f *fakeSessions) SessionHint(context.Context, string, string) (string, error) {
	return "", store.ErrNotFound
}

const okState = `{"cookies":[{"name":"sid","value":"v","domain":".example.com","expires":-1,"httpOnly":true}],"origins":[{"origin":"https://example.com","localStorage":[{"name":"k","value":"v"}]}]}`

func TestCreateSession(t *testing.T) {
	f := &fakeSessions{}
	h := httpapi.New(f, httpapi.Options{SessionService: &sessionservice.Fetcher{}})
	for _, tc := range []struct {
		name, body string
		status     int
		fields     string
	}{
		{"empty body", ``, 201, ""},
		{"inline", `{"name":"w","browserSession":{"type":"inline","storageState":` + okState + `}}`, 201, ""},
		{"flavor ignored", `{"flavor":"agent-ready"}`, 201, ""},
		{"enableVnc without a dashboard", `{"enableVnc":true}`, 400, "enableVnc"},
		{"missing state", `{"browserSession":{"type":"inline"}}`, 400, "browserSession.storageState"},
		{"bad cookie", `{"browserSession":{"type":"inline","storageState":{"cookies":[{"name":"a","value":"b","domain":"x","sameSite":"Sometimes"}]}}}`, 400, "browserSession.storageState.cookies[0].sameSite"},
		{"bad type", `{"browserSession":{"type":"magic"}}`, 400, "browserSession.type"},
		{"reference without id", `{"browserSession":{"type":"reference"}}`, 400, "browserSession.sessionId"},
		{"remote service on loopback", `{"browserSession":{"type":"reference","sessionId":"x","sessionServiceUrl":"http://127.0.0.1:1/api/stored-sessions"}}`, 400, "browserSession.sessionServiceUrl"},
		{"remote service not http", `{"browserSession":{"type":"reference","sessionId":"x","sessionServiceUrl":"ftp://s"}}`, 400, "browserSession.sessionServiceUrl"},
		{"remote service, bad token", `{"browserSession":{"type":"reference","sessionId":"x","sessionServiceUrl":"http://127.0.0.1:1/","sessionServiceToken":"a\nb"}}`, 400, "browserSession.sessionServiceToken"},
		{"remote service, bad id", `{"browserSession":{"type":"reference","sessionId":"..","sessionServiceUrl":"http://127.0.0.1:1/"}}`, 400, "browserSession.sessionId"},
		{"reference unknown", `{"browserSession":{"type":"reference","sessionId":"x"}}`, 404, ""},
		{"wrong field type", `{"name":5}`, 400, "name"},
		{"not json", `{"name":`, 400, ""},
		{"outside", `{"allowedDomains":["other.test"],"browserSession":{"type":"inline","storageState":` + okState + `}}`, 422, "browserSession.storageState.cookies[0],browserSession.storageState.origins[0]"},
		{"filtered", `{"allowedDomains":["other.test"],"domainPolicy":"filter","browserSession":{"type":"inline","storageState":` + okState + `}}`, 201, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec, m := do(t, h, "POST", "/api/sessions", tc.body)
			if rec.Code != tc.status {
				t.Fatalf("status %d, want %d: %s", rec.Code, tc.status, rec.Body)
			}
			var paths []string
			if fs, ok := m["fields"].([]any); ok {
				for _, f := range fs {
					paths = append(paths, f.(map[string]any)["path"].(string))
				}
			}
			if got := strings.Join(paths, ","); tc.fields != "" && got != tc.fields {
				t.Fatalf("fields %q, want %q: %s", got, tc.fields, rec.Body)
			}
		})
	}
	if f.req == nil || f.req.Policy != inject.Filter || len(f.req.State.Cookies) != 0 {
		t.Fatalf("the filter request reached the engine as %+v", f.req)
	}
	// Issue 17 point 4: locale and headless reach the engine with the rest
	// of the environment.
	if rec, _ := do(t, h, "POST", "/api/sessions", `{"name":"env","userAgent":"ua/1","timezone":"Asia/Tokyo","locale":"ja-JP","headless":false}`); rec.Code != 201 {
		t.Fatalf("environment: %d %s", rec.Code, rec.Body)
	}
	if e := f.req.Emulation; e.UserAgent != "ua/1" || e.Timezone != "Asia/Tokyo" || e.Locale != "ja-JP" || f.req.Headless == nil || *f.req.Headless {
		t.Fatalf("the environment reached the engine as %+v, headless %v", e, f.req.Headless)
	}
	// Too big.
	req := httptest.NewRequest("POST", "/api/sessions", strings.NewReader(strings.Repeat(" ", httpapi.MaxStateBodyBytes+1)))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusRequestEntityTooLarge {
		t.Fatalf("oversized body: %d", rec.Code)
	}
}

func TestStoredSessionsRefusals(t *testing.T) {
	h := httpapi.New(&fakeSessions{}, httpapi.Options{})
	for _, tc := range []struct {
		body   string
		status int
	}{
		{`{"name":"a","storageState":` + okState + `}`, 201},
		{`{"name":"a"}`, 400},
		{`{"name":"a","storageState":` + okState + `,"expiresAt":"2001-01-01T00:00:00Z"}`, 422},
		{`{"name":"a","storageState":{"cookies":[{"name":"a","value":"b","domain":"x","expires":1000}]}}`, 422},
		{`{"name":"a","storageState":` + okState + `,"expiresAt":"soon"}`, 400},
	} {
		rec, _ := do(t, h, "POST", "/api/stored-sessions", tc.body)
		if rec.Code != tc.status {
			t.Errorf("%s: %d, want %d: %s", tc.body, rec.Code, tc.status, rec.Body)
		}
	}
	// Only admin manages tokens.
	req := httptest.NewRequest("GET", "/api/tokens", nil).WithContext(auth.WithOwner(context.Background(), "bob"))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusForbidden {
		t.Errorf("bob lists tokens: %d", rec.Code)
	}
}

// FuzzCreateSession: no body makes the session endpoint panic or answer
// anything but a 201 or a 4xx with a JSON error.
func FuzzCreateSession(f *testing.F) {
	for _, s := range []string{``, `{}`, `{"browserSession":{"type":"inline","storageState":` + okState + `}}`,
		`{"browserSession":{"type":"reference","sessionId":"x"}}`, `{"allowedDomains":["a"],"domainPolicy":"filter"}`,
		`{"browserSession":{"type":"reference","sessionId":"x","sessionServiceUrl":"http://127.0.0.1:1/"}}`, `[]`, `null`, `{"viewport":{"width":-1}}`} {
		f.Add(s)
	}
	h := httpapi.New(&fakeSessions{}, httpapi.Options{})
	f.Fuzz(func(t *testing.T, body string) {
		req := httptest.NewRequest("POST", "/api/sessions", strings.NewReader(body))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != 201 && (rec.Code < 400 || rec.Code > 499) {
			t.Fatalf("%q: status %d: %s", body, rec.Code, rec.Body)
		}
		if !strings.HasPrefix(strings.TrimSpace(rec.Body.String()), "{") {
			t.Fatalf("%q: body is not a JSON object: %s", body, rec.Body)
		}
	})
}

// TestOpenAPI: the document is served, is OpenAPI 3.1, and describes every
// route the API has.
func TestOpenAPI(t *testing.T) {
	h := httpapi.New(&fakeSessions{}, httpapi.Options{})
	rec, m := do(t, h, "GET", "/api/openapi.json", "")
	if rec.Code != 200 || m["openapi"] != "3.1.0" {
		t.Fatalf("openapi.json: %d %v", rec.Code, m["openapi"])
	}
	paths, _ := m["paths"].(map[string]any)
	for _, route := range []string{
		"POST /api/actions", "GET /api/health", "GET /api/openapi.json", "GET /api/sessions", "POST /api/sessions", "POST /api/sandboxes",
		"GET /api/sessions/{id}", "DELETE /api/sessions/{id}", "POST /api/sessions/{id}/resume", "GET /api/sessions/{id}/captures", "POST /api/sessions/{id}/actions",
		"GET /api/sessions/{id}/state", "GET /api/sessions/{id}/hint", "POST /api/sessions/{id}/capture",
		"POST /api/stored-sessions", "GET /api/stored-sessions", "GET /api/stored-sessions/{id}", "DELETE /api/stored-sessions/{id}",
		"GET /api/stored-sessions/{id}/state", "GET /api/stored-sessions/{id}/hint", "GET /api/stored-sessions/{id}/profile", "GET /api/nodes",
		"POST /api/tokens", "GET /api/tokens", "DELETE /api/tokens/{id}",
		"GET /api/secrets", "PUT /api/secrets/{name}", "DELETE /api/secrets/{name}",
	} {
		method, path, _ := strings.Cut(route, " ")
		ops, _ := paths[path].(map[string]any)
		if ops[strings.ToLower(method)] == nil {
			t.Errorf("openapi.json does not describe %s", route)
		}
	}
}

// TestEnableVnc: source 003's enableVnc is answered with the live view
// when the daemon has a dashboard.
func TestEnableVnc(t *testing.T) {
	h := httpapi.New(&fakeSessions{}, httpapi.Options{LiveBase: "http://127.0.0.1:8765"})
	rec, m := do(t, h, "POST", "/api/sessions", `{"name":"w","enableVnc":true}`)
	if rec.Code != http.StatusCreated || !strings.HasPrefix(fmt.Sprint(m["liveViewUrl"]), "http://127.0.0.1:8765/dashboard/live?session=") {
		t.Fatalf("enableVnc with a dashboard: %d %s", rec.Code, rec.Body)
	}
}

// TestCreateSessionRemote: a reference with sessionServiceUrl is fetched
// from the session service (another browserd's stored-session API, faked
// here) and injected as its state, checked as a local stored session;
// the service's refusals become clear answers.
func TestCreateSessionRemote(t *testing.T) {
	var mu sync.Mutex
	expires := "2099-01-01T00:00:00Z"
	var auths []string
	mux := http.NewServeMux()
	serve := func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auths = append(auths, r.Header.Get("Authorization"))
		exp := expires
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.Header.Get("Authorization") != "Bearer tok":
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprint(w, `{"error":"missing or invalid token"}`)
		case r.PathValue("id") != "ss_1":
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"error":"no stored session"}`)
		case strings.HasSuffix(r.URL.Path, "/state"):
			fmt.Fprint(w, okState)
		default:
			fmt.Fprintf(w, `{"id":"ss_1","expiresAt":%q}`, exp)
		}
	}
	mux.HandleFunc("GET /api/stored-sessions/{id}", serve)
	mux.HandleFunc("GET /api/stored-sessions/{id}/state", serve)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	base := srv.URL + "/api/stored-sessions"
	ref := func(id, token string) string {
		return fmt.Sprintf(`{"name":"w","browserSession":{"type":"reference","sessionId":%q,"sessionServiceUrl":%q,"sessionServiceToken":%q}}`, id, base, token)
	}
	f := &fakeSessions{}
	allowed := &sessionservice.Fetcher{Policy: egress.Policy{AllowHosts: []string{"127.0.0.1"}}}
	h := httpapi.New(f, httpapi.Options{SessionService: allowed})

	rec, _ := do(t, h, "POST", "/api/sessions", ref("ss_1", "tok"))
	if rec.Code != http.StatusCreated || f.req == nil || f.req.StoredID != "" || f.req.State == nil || len(f.req.State.Cookies) != 1 {
		t.Fatalf("remote reference: %d %s; the engine got %+v", rec.Code, rec.Body, f.req)
	}
	for _, tc := range []struct {
		name, body string
		status     int
		field, msg string
	}{
		{"unknown id", ref("ss_2", "tok"), 404, "browserSession.sessionId", "answered 404"},
		{"bad token", ref("ss_1", "nope"), 502, "browserSession.sessionServiceToken", "answered 401"},
		{"outside allowedDomains", strings.Replace(ref("ss_1", "tok"), `{"name":"w",`, `{"name":"w","allowedDomains":["other.test"],`, 1), 422, "sessionService(ss_1).cookies[0]", "outside allowedDomains"},
	} {
		rec, m := do(t, h, "POST", "/api/sessions", tc.body)
		if rec.Code != tc.status || !strings.Contains(fmt.Sprint(m["error"]), tc.msg) || !strings.Contains(rec.Body.String(), `"path":"`+tc.field) {
			t.Errorf("%s: %d %s", tc.name, rec.Code, rec.Body)
		}
		if strings.Contains(rec.Body.String(), "nope") {
			t.Errorf("%s: the answer shows the token: %s", tc.name, rec.Body)
		}
	}

	// Expired there: refused here, as a local stored session.
	mu.Lock()
	expires = "2001-01-01T00:00:00Z"
	mu.Unlock()
	if rec, m := do(t, h, "POST", "/api/sessions", ref("ss_1", "tok")); rec.Code != http.StatusUnprocessableEntity || !strings.Contains(fmt.Sprint(m["error"]), "expired") {
		t.Errorf("expired stored session: %d %s", rec.Code, rec.Body)
	}

	// The daemon's token, for its service only.
	withToken := &sessionservice.Fetcher{Policy: allowed.Policy, Token: "tok", TokenFor: []string{base + "/"}}
	mu.Lock()
	expires, auths = "2099-01-01T00:00:00Z", nil
	mu.Unlock()
	h = httpapi.New(f, httpapi.Options{SessionService: withToken})
	if rec, _ := do(t, h, "POST", "/api/sessions", ref("ss_1", "")); rec.Code != http.StatusCreated {
		t.Errorf("the daemon's token: %d %s", rec.Code, rec.Body)
	}
	mu.Lock()
	if len(auths) != 2 || auths[0] != "Bearer tok" {
		t.Errorf("the service got %q", auths)
	}
	mu.Unlock()

	// The guard: loopback not allowed.
	h = httpapi.New(f, httpapi.Options{SessionService: &sessionservice.Fetcher{}})
	rec, m := do(t, h, "POST", "/api/sessions", ref("ss_1", "tok"))
	if msg := fmt.Sprint(m["error"]); rec.Code != http.StatusBadRequest || !strings.Contains(msg, "the guard refuses") ||
		!strings.Contains(msg, "--allow-host 127.0.0.1:") || !strings.Contains(msg, "--allow-private") {
		t.Errorf("loopback refused: %d %s", rec.Code, rec.Body)
	}

	// Without a fetcher (a server with no session services): refused.
	h = httpapi.New(f, httpapi.Options{})
	if rec, _ := do(t, h, "POST", "/api/sessions", ref("ss_1", "tok")); rec.Code != http.StatusBadRequest {
		t.Errorf("no fetcher: %d %s", rec.Code, rec.Body)
	}
}
