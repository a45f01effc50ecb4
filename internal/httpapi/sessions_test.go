package httpapi_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/browserd/browserd/internal/auth"
	"github.com/browserd/browserd/internal/httpapi"
	"github.com/browserd/browserd/internal/inject"
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
func (f *fakeSessions) ExportState(context.Context, string) (*storagestate.State, error) {
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
	h := httpapi.New(f, httpapi.Options{})
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
		{"remote service", `{"browserSession":{"type":"reference","sessionId":"x","sessionServiceUrl":"https://s"}}`, 400, "browserSession.sessionServiceUrl"},
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
		`{"browserSession":{"type":"reference","sessionId":"x"}}`, `{"allowedDomains":["a"],"domainPolicy":"filter"}`, `[]`, `null`, `{"viewport":{"width":-1}}`} {
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
		"GET /api/sessions/{id}", "DELETE /api/sessions/{id}", "POST /api/sessions/{id}/resume", "POST /api/sessions/{id}/actions",
		"GET /api/sessions/{id}/state", "GET /api/sessions/{id}/hint", "POST /api/sessions/{id}/capture",
		"POST /api/stored-sessions", "GET /api/stored-sessions", "GET /api/stored-sessions/{id}", "DELETE /api/stored-sessions/{id}",
		"GET /api/stored-sessions/{id}/state", "GET /api/stored-sessions/{id}/hint", "GET /api/stored-sessions/{id}/profile",
		"POST /api/tokens", "GET /api/tokens", "DELETE /api/tokens/{id}",
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
