package httpapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/browserd/browserd/internal/httpapi"
	"github.com/browserd/browserd/internal/tool"
)

type fakeHandler struct {
	got []tool.Input
	err error
}

func (f *fakeHandler) Do(_ context.Context, in tool.Input) (tool.Result, error) {
	f.got = append(f.got, in)
	if f.err != nil {
		return tool.Result{}, f.err
	}
	return tool.Result{Action: in.Action, Success: true, Title: "T", Content: "page"}, nil
}

func do(t *testing.T, h http.Handler, method, path, body string) (*httptest.ResponseRecorder, map[string]any) {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	var m map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil {
		t.Fatalf("%s %s: body %q is not a JSON object: %v", method, path, rec.Body, err)
	}
	return rec, m
}

func TestActionRoundTrip(t *testing.T) {
	f := &fakeHandler{}
	rec, m := do(t, httpapi.New(f, httpapi.Options{}), "POST", "/api/actions",
		`{"action":"navigate","url":"https://example.com/","task":"a"}`)
	if rec.Code != 200 {
		t.Fatalf("status %d, body %v", rec.Code, m)
	}
	if m["success"] != true || m["action"] != "navigate" || m["content"] != "page" {
		t.Errorf("result = %v", m)
	}
	if len(f.got) != 1 || f.got[0].URL != "https://example.com/" || f.got[0].Task != "a" {
		t.Errorf("handler got %+v", f.got)
	}
}

func TestActionErrors(t *testing.T) {
	tests := []struct {
		name, body string
		status     int
		want       string // in the error message
	}{
		{"bad json", `{"action":`, 400, "cut short"},
		{"syntax", `{"action" "x"}`, 400, "not valid JSON at byte"},
		{"empty", ``, 400, "empty request body"},
		{"unknown field", `{"action":"click","reff":"e1"}`, 400, `unknown field "reff"`},
		{"wrong type", `{"action":"scroll","amount":"lots"}`, 400, `field "amount" must be a number`},
		{"out of range", `{"action":"wait","time":1e300}`, 400, `field "time" is out of range: give a whole number of at most 9223372036854775807, not 1e300`},
		{"below range", `{"action":"wait","time":-1e300}`, 400, `field "time" is out of range: give a whole number of at least -9223372036854775808`},
		{"fraction", `{"action":"wait","time":1.5}`, 400, `field "time" must be a whole number, not 1.5`},
		{"not an object", `["snapshot"]`, 400, "must be a JSON object"},
		{"two values", `{"action":"status"}{"action":"status"}`, 400, "more than one JSON value"},
		{"too big", `{"action":"type","text":"` + strings.Repeat("a", httpapi.MaxBodyBytes) + `"}`, 413, "over"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeHandler{}
			rec, m := do(t, httpapi.New(f, httpapi.Options{}), "POST", "/api/actions", tt.body)
			if rec.Code != tt.status {
				t.Errorf("status = %d, want %d (body %v)", rec.Code, tt.status, m)
			}
			if msg, _ := m["error"].(string); !strings.Contains(msg, tt.want) {
				t.Errorf("error = %q, want it to contain %q", msg, tt.want)
			}
			if len(f.got) != 0 {
				t.Errorf("handler called with %+v", f.got)
			}
		})
	}
}

// A request that decodes but fails validation is an action failure: 200 with
// success false and an error that says what to send, like any failed action.
func TestValidationError(t *testing.T) {
	f := &fakeHandler{}
	rec, m := do(t, httpapi.New(f, httpapi.Options{}), "POST", "/api/actions", `{"action":"click"}`)
	if rec.Code != 200 {
		t.Fatalf("status %d, want 200", rec.Code)
	}
	if m["success"] != false || !strings.Contains(m["error"].(string), "needs a target") {
		t.Errorf("result = %v, want success false and the validation error", m)
	}
	if len(f.got) != 0 {
		t.Errorf("handler called with %+v", f.got)
	}
}

func TestHandlerError(t *testing.T) {
	f := &fakeHandler{err: errors.New("engine closed")}
	rec, m := do(t, httpapi.New(f, httpapi.Options{}), "POST", "/api/actions", `{"action":"status"}`)
	if rec.Code != 500 || !strings.Contains(m["error"].(string), "engine closed") {
		t.Errorf("status %d, body %v; want 500 naming the cause", rec.Code, m)
	}
}

func TestHealth(t *testing.T) {
	rec, m := do(t, httpapi.New(&fakeHandler{}, httpapi.Options{Version: "v9"}), "GET", "/api/health", "")
	if rec.Code != 200 || m["ok"] != true || m["version"] != "v9" || m["pid"] != float64(os.Getpid()) {
		t.Errorf("status %d, body %v", rec.Code, m)
	}
}

func TestRoutes(t *testing.T) {
	h := httpapi.New(&fakeHandler{}, httpapi.Options{})
	for _, tt := range []struct {
		method, path string
		status       int
	}{
		{"GET", "/api/actions", 405},
		{"POST", "/api/health", 405},
		{"GET", "/api/nope", 404},
	} {
		rec, m := do(t, h, tt.method, tt.path, "")
		if rec.Code != tt.status || m["error"] == nil {
			t.Errorf("%s %s: status %d body %v, want %d with an error", tt.method, tt.path, rec.Code, m, tt.status)
		}
	}
}

func TestCrossOriginRefused(t *testing.T) {
	f := &fakeHandler{}
	req := httptest.NewRequest("POST", "/api/actions", strings.NewReader(`{"action":"status"}`))
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	req.Header.Set("Origin", "https://evil.example")
	rec := httptest.NewRecorder()
	httpapi.New(f, httpapi.Options{}).ServeHTTP(rec, req)
	if rec.Code != 403 || len(f.got) != 0 {
		t.Errorf("status %d, handler calls %d; want 403 and none", rec.Code, len(f.got))
	}
}

func TestRebindingRefused(t *testing.T) {
	f := &fakeHandler{}
	srv := httptest.NewServer(httpapi.New(f, httpapi.Options{}))
	defer srv.Close()
	req, _ := http.NewRequest("POST", srv.URL+"/api/actions", strings.NewReader(`{"action":"status"}`))
	req.Host = "attacker.example"
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 403 || len(f.got) != 0 {
		t.Errorf("status %d, handler calls %d; want 403 and none", resp.StatusCode, len(f.got))
	}
	resp, err = srv.Client().Post(srv.URL+"/api/actions", "application/json", strings.NewReader(`{"action":"status"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("loopback host: status %d, want 200", resp.StatusCode)
	}
}

// TestResumeCapture (issue 17 point 9): POST /api/sessions/{id}/resume
// takes the capture to resume from in its body or its query; one that
// names no capture is refused before the engine.
func TestResumeCapture(t *testing.T) {
	for _, c := range []struct {
		path, body string
		code       int
		capture    tool.CaptureRef
	}{
		{"/api/sessions/work/resume", "", 200, ""},
		{"/api/sessions/work/resume", `{"capture": 17}`, 200, "17"},
		{"/api/sessions/work/resume", `{"capture": "2026-03-01T12:00:00Z"}`, 200, "2026-03-01T12:00:00Z"},
		{"/api/sessions/work/resume?capture=10m", "", 200, "10m"},
		{"/api/sessions/work/resume?capture=17", `{"capture":"17"}`, 200, "17"},
		{"/api/sessions/work/resume?capture=17", `{"capture":"18"}`, 400, ""},
		{"/api/sessions/work/resume", `{"capture": "soon"}`, 400, ""},
		{"/api/sessions/work/resume", `{"captur": "17"}`, 400, ""},
	} {
		f := &fakeHandler{}
		rec, m := do(t, httpapi.New(f, httpapi.Options{}), "POST", c.path, c.body)
		if rec.Code != c.code {
			t.Errorf("%s %s: status %d (%v), want %d", c.path, c.body, rec.Code, m, c.code)
			continue
		}
		if c.code != 200 {
			if len(f.got) != 0 {
				t.Errorf("%s %s: refused, yet the engine got %+v", c.path, c.body, f.got)
			}
			continue
		}
		if len(f.got) != 1 || f.got[0].Action != "session_resume" || f.got[0].Session != "work" || f.got[0].Capture != c.capture {
			t.Errorf("%s %s: the engine got %+v, want capture %q", c.path, c.body, f.got, c.capture)
		}
	}
}

// capturesHandler answers list_sessions with a session as the engine does.
type capturesHandler struct{}

func (capturesHandler) Do(_ context.Context, in tool.Input) (tool.Result, error) {
	if in.Session != "work" {
		return tool.Result{Action: in.Action, Error: `no session "` + in.Session + `" in the store`}, nil
	}
	return tool.Result{Action: in.Action, Success: true, Captures: []tool.CaptureInfo{{ID: 9, Tabs: 2, URL: "https://example.com/"}, {ID: 7, Error: "damaged"}}}, nil
}

// TestListCaptures: GET /api/sessions/{id}/captures lists the session's
// kept captures; 404 for a session the store does not have.
func TestListCaptures(t *testing.T) {
	h := httpapi.New(capturesHandler{}, httpapi.Options{})
	rec, m := do(t, h, "GET", "/api/sessions/work/captures", "")
	list, _ := m["captures"].([]any)
	if rec.Code != 200 || len(list) != 2 || list[0].(map[string]any)["id"] != float64(9) || list[1].(map[string]any)["error"] != "damaged" {
		t.Fatalf("captures: %d %v", rec.Code, m)
	}
	if rec, m := do(t, h, "GET", "/api/sessions/nope/captures", ""); rec.Code != 404 {
		t.Errorf("captures of an unknown session: %d %v", rec.Code, m)
	}
}
