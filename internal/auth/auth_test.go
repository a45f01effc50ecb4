package auth

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

type mem struct {
	mu sync.Mutex
	m  map[string]Token
}

func (m *mem) CreateToken(_ context.Context, t Token) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.m == nil {
		m.m = map[string]Token{}
	}
	m.m[t.Hash] = t
	return nil
}

func (m *mem) TokenByHash(_ context.Context, h string) (Token, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if t, ok := m.m[h]; ok {
		return t, nil
	}
	return Token{}, ErrUnknown
}

func (m *mem) ListTokens(context.Context, string) ([]Token, error) { return nil, nil }

func (m *mem) RevokeToken(_ context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for h, t := range m.m {
		if t.ID == id {
			delete(m.m, h)
			return nil
		}
	}
	return ErrUnknown
}

func TestRequire(t *testing.T) {
	st := &mem{}
	tok, rec, err := New(t.Context(), st, "alice", "")
	if err != nil {
		t.Fatal(err)
	}
	if rec.Hash == tok || strings.Contains(rec.Hash, tok) {
		t.Fatal("the token is stored in the clear")
	}
	var got string
	h := Require(st, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got = Owner(r.Context()) }))
	for _, tc := range []struct{ header, owner string }{
		{"", ""}, {"Bearer", ""}, {"Bearer bd_nope", ""}, {"Basic " + tok, ""}, {"Bearer " + tok, "alice"}, {"bearer  " + tok, "alice"},
	} {
		got = ""
		r := httptest.NewRequest("GET", "/api/sessions", nil)
		if tc.header != "" {
			r.Header.Set("Authorization", tc.header)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if got != tc.owner || (tc.owner == "" && w.Code != 401) {
			t.Errorf("%q: owner %q, status %d; want owner %q", tc.header, got, w.Code, tc.owner)
		}
	}
	if err := st.RevokeToken(t.Context(), rec.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := Verify(t.Context(), st, tok); err != ErrUnknown {
		t.Fatalf("revoked token: %v", err)
	}
	if Owner(context.Background()) != Admin {
		t.Fatal("a context without an owner is not admin's")
	}
	if _, _, err := New(t.Context(), st, "bad owner", ""); err == nil {
		t.Fatal("an owner with a space was accepted")
	}
}

func TestBootstrap(t *testing.T) {
	st := &mem{}
	file := filepath.Join(t.TempDir(), "token")
	if err := Bootstrap(t.Context(), st, file); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(file)
	first := strings.TrimSpace(string(b))
	if o, err := Verify(t.Context(), st, first); err != nil || o != Admin {
		t.Fatalf("bootstrap token: %q %v", o, err)
	}
	fi, _ := os.Stat(file)
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file mode %v", fi.Mode())
	}
	// Known: kept.
	if err := Bootstrap(t.Context(), st, file); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(file); strings.TrimSpace(string(b)) != first {
		t.Fatal("a valid admin token was replaced")
	}
	// Unknown to the store (a new database): replaced.
	if err := Bootstrap(t.Context(), &mem{}, file); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(file); strings.TrimSpace(string(b)) == first {
		t.Fatal("a token the store does not know was kept")
	}
}
