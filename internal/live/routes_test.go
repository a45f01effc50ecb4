package live

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestDashboardAtBothPaths: the dashboard is served at / and at
// /dashboard (with or without the slash), to a signed-in person only.
func TestDashboardAtBothPaths(t *testing.T) {
	s := New(nil, "http://127.0.0.1:1", nil)
	id, _, ok := s.signins.exchange(s.signins.code("alice"))
	if !ok {
		t.Fatal("no sign-in")
	}
	h := s.Handler()
	get := func(path string, signedIn bool) (int, string) {
		r := httptest.NewRequest("GET", path, nil)
		if signedIn {
			r.AddCookie(&http.Cookie{Name: CookieName, Value: id})
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		b, _ := io.ReadAll(w.Result().Body)
		return w.Code, string(b)
	}
	_, root := get("/", true)
	for _, p := range []string{"/", "/dashboard", "/dashboard/"} {
		if code, body := get(p, true); code != http.StatusOK || body != root {
			t.Errorf("GET %s = %d, %d bytes; want 200 and the dashboard (%d bytes)", p, code, len(body), len(root))
		}
		if code, _ := get(p, false); code != http.StatusUnauthorized {
			t.Errorf("GET %s not signed in = %d, want 401", p, code)
		}
	}
	if code, _ := get("/dashboard/nothing", true); code != http.StatusNotFound {
		t.Errorf("GET /dashboard/nothing = %d, want 404", code)
	}
}
