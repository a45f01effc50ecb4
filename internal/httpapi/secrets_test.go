package httpapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/browserd/browserd/internal/auth"
	"github.com/browserd/browserd/internal/httpapi"
	"github.com/browserd/browserd/internal/secrets"
	"github.com/browserd/browserd/internal/store"
	"github.com/browserd/browserd/internal/tool"
)

// fakeSecrets is the engine's secret side, in memory: it checks what it
// is given as the engine does (package secrets) — and, careless, hands
// the value back from every method, so that the tests show the API never
// passes one on. err, when set, is every method's answer.
type fakeSecrets struct {
	fakeHandler
	mu  sync.Mutex
	m   map[string]store.Secret // by owner/name
	err error
}

func (f *fakeSecrets) SetSecret(ctx context.Context, name, value string, origins []string) (store.Secret, error) {
	if f.err != nil {
		return store.Secret{}, f.err
	}
	if err := secrets.CheckName(name); err != nil {
		return store.Secret{}, &tool.Error{Msg: err.Error()}
	}
	if err := secrets.CheckValue(value); err != nil {
		return store.Secret{}, &tool.Error{Msg: err.Error()}
	}
	norm, err := secrets.Origins(origins)
	if err != nil {
		return store.Secret{}, &tool.Error{Msg: err.Error()}
	}
	s := store.Secret{Owner: auth.Owner(ctx), Name: name, Value: value, Origins: norm, Updated: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.m == nil {
		f.m = map[string]store.Secret{}
	}
	f.m[s.Owner+"/"+name] = s
	return s, nil
}

func (f *fakeSecrets) ListSecrets(ctx context.Context) ([]store.Secret, error) {
	if f.err != nil {
		return nil, f.err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []store.Secret
	for _, s := range f.m {
		if s.Owner == auth.Owner(ctx) {
			out = append(out, s) // value and all
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func (f *fakeSecrets) DeleteSecret(ctx context.Context, name string) error {
	if f.err != nil {
		return f.err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	k := auth.Owner(ctx) + "/" + name
	if _, ok := f.m[k]; !ok {
		return fmt.Errorf("%w: no secret %q", store.ErrNotFound, name)
	}
	delete(f.m, k)
	return nil
}

func TestSecrets(t *testing.T) {
	f := &fakeSecrets{}
	h := httpapi.New(f, httpapi.Options{})
	values := []string{"hunter2-admin", "bobs-value-77", "never-typed-5e1"}
	var bodies []string
	send := func(owner, method, path, body string, want int) *httptest.ResponseRecorder {
		t.Helper()
		rec := as(h, owner, method, path, body)
		bodies = append(bodies, method+" "+path+": "+rec.Body.String())
		if rec.Code != want {
			t.Errorf("%s %s %s as %q: %d, want %d: %s", method, path, body, owner, rec.Code, want, rec.Body)
		}
		if rec.Code != http.StatusNoContent && !json.Valid(rec.Body.Bytes()) {
			t.Errorf("%s %s: the body is not JSON: %s", method, path, rec.Body)
		}
		return rec
	}

	// Set, with its origins normalized; the answer is the listing entry.
	rec := send("", "PUT", "/api/secrets/GITHUB_PW", `{"value":"hunter2-admin","origins":["https://GitHub.com:443/"]}`, 200)
	var info httpapi.SecretInfo
	if err := json.Unmarshal(rec.Body.Bytes(), &info); err != nil || info.Name != "GITHUB_PW" || len(info.Origins) != 1 || info.Origins[0] != "https://github.com" || info.Updated.IsZero() {
		t.Errorf("PUT answered %s (%v)", rec.Body, err)
	}
	send("", "PUT", "/api/secrets/ANY", `{"value":"never-typed-5e1"}`, 200)
	send("bob", "PUT", "/api/secrets/GITHUB_PW", `{"value":"bobs-value-77"}`, 200)

	// Refusals.
	for _, tc := range []struct {
		path, body string
		status     int
		says       string
	}{
		{"/api/secrets/1BAD", `{"value":"long-enough"}`, 400, "start it with a letter"},
		{"/api/secrets/" + strings.Repeat("a", 65), `{"value":"long-enough"}`, 400, "1 to 64"},
		{"/api/secrets/SHORT", `{"value":"abc"}`, 400, "give at least 4"},
		{"/api/secrets/SHORT", `{"value":"abc"}`, 400, "blank out"},
		{"/api/secrets/EMPTY", `{"value":""}`, 400, "empty"},
		{"/api/secrets/NOVALUE", `{"origins":["https://a.example"]}`, 400, "no value"},
		{"/api/secrets/NOVALUE", ``, 400, "not a JSON object"},
		{"/api/secrets/ORIGIN", `{"value":"long-enough","origins":["https://a.example/login"]}`, 400, "scheme://host"},
		{"/api/secrets/ORIGIN", `{"value":"long-enough","origins":["a.example"]}`, 400, "scheme://host"},
		{"/api/secrets/TYPO", `{"value":"long-enough","orgins":["https://a.example"]}`, 400, `unknown field \"orgins\"`},
		{"/api/secrets/TYPE", `{"value":12345}`, 400, `\"value\" must be a string`},
		{"/api/secrets/TYPE", `{"value":"long-enough","origins":"https://a.example"}`, 400, `\"origins\" must be an array`},
		{"/api/secrets/SYNTAX", `{"value":"never-typed-5e1`, 400, "not a JSON object"},
		{"/api/secrets/SYNTAX", `{"value":never-typed-5e1}`, 400, "not valid JSON"},
		{"/api/secrets/TWO", `{"value":"long-enough"} {}`, 400, "more than one"},
		{"/api/secrets/BIG", `{"value":"` + strings.Repeat("x", 9000) + `"}`, 413, "over 8192 bytes"},
		{"/api/secrets/BIG", `{"value":"` + strings.Repeat("x", 5000) + `"}`, 400, "over the 4096"},
	} {
		rec := send("", "PUT", tc.path, tc.body, tc.status)
		if !strings.Contains(rec.Body.String(), tc.says) {
			t.Errorf("PUT %s %.60s: %s; want it to say %q", tc.path, tc.body, rec.Body, tc.says)
		}
	}

	// Listings: by name, the owner's only, never a value.
	rec = send("", "GET", "/api/secrets", "", 200)
	var list httpapi.SecretList
	if err := json.Unmarshal(rec.Body.Bytes(), &list); err != nil || len(list.Secrets) != 2 || list.Secrets[0].Name != "ANY" || list.Secrets[1].Name != "GITHUB_PW" {
		t.Errorf("admin's listing: %s (%v)", rec.Body, err)
	}
	if !strings.Contains(rec.Body.String(), `"origins":[]`) {
		t.Errorf("a secret for any origin is not listed with origins []: %s", rec.Body)
	}
	rec = send("bob", "GET", "/api/secrets", "", 200)
	if err := json.Unmarshal(rec.Body.Bytes(), &list); err != nil || len(list.Secrets) != 1 || list.Secrets[0].Name != "GITHUB_PW" {
		t.Errorf("bob's listing: %s (%v)", rec.Body, err)
	}
	rec = send("carol", "GET", "/api/secrets", "", 200)
	if strings.TrimSpace(rec.Body.String()) != `{"secrets":[]}` {
		t.Errorf("carol's listing: %s", rec.Body)
	}

	// Admin manages another owner's with ?owner=; nobody else does.
	send("", "PUT", "/api/secrets/CAROL_PW?owner=carol", `{"value":"long-enough"}`, 200)
	rec = send("", "GET", "/api/secrets?owner=carol", "", 200)
	if !strings.Contains(rec.Body.String(), "CAROL_PW") {
		t.Errorf("admin's ?owner=carol listing: %s", rec.Body)
	}
	rec = send("carol", "GET", "/api/secrets", "", 200)
	if !strings.Contains(rec.Body.String(), "CAROL_PW") {
		t.Errorf("carol's listing after admin set hers: %s", rec.Body)
	}
	send("bob", "GET", "/api/secrets?owner=carol", "", 403)
	send("bob", "DELETE", "/api/secrets/CAROL_PW?owner=carol", "", 403)
	send("", "GET", "/api/secrets?owner=Not+An+Owner", "", 400)

	// Delete: another owner's is not found.
	send("bob", "DELETE", "/api/secrets/ANY", "", 404)
	send("", "DELETE", "/api/secrets/ANY", "", 204)
	rec = send("", "DELETE", "/api/secrets/ANY", "", 404)
	if !strings.Contains(rec.Body.String(), `no secret \"ANY\"`) {
		t.Errorf("404 says %s", rec.Body)
	}
	send("", "POST", "/api/secrets/X", `{"value":"long-enough"}`, 404)

	for _, b := range bodies {
		for _, v := range values {
			if strings.Contains(b, v) {
				t.Errorf("a response holds the value %q: %s", v, b)
			}
		}
	}
}

// TestSecretsUnavailable: a server whose engine keeps no secrets, or
// whose store keeps none, answers 501; a store failure is a 500.
func TestSecretsUnavailable(t *testing.T) {
	h := httpapi.New(&fakeHandler{}, httpapi.Options{})
	for _, req := range [][2]string{{"GET", "/api/secrets"}, {"PUT", "/api/secrets/X"}, {"DELETE", "/api/secrets/X"}} {
		if rec := as(h, "", req[0], req[1], `{"value":"long-enough"}`); rec.Code != http.StatusNotImplemented {
			t.Errorf("%s %s without a secret store: %d %s", req[0], req[1], rec.Code, rec.Body)
		}
	}
	h = httpapi.New(&fakeSecrets{err: fmt.Errorf("%w: this daemon's store keeps no secrets", errors.ErrUnsupported)}, httpapi.Options{})
	if rec := as(h, "", "GET", "/api/secrets", ""); rec.Code != http.StatusNotImplemented || !strings.Contains(rec.Body.String(), "keeps no secrets") {
		t.Errorf("a store without secrets: %d %s", rec.Code, rec.Body)
	}
	h = httpapi.New(&fakeSecrets{err: errors.New("disk I/O error")}, httpapi.Options{})
	if rec := as(h, "", "PUT", "/api/secrets/X", `{"value":"long-enough"}`); rec.Code != http.StatusInternalServerError {
		t.Errorf("a failing store: %d %s", rec.Code, rec.Body)
	}
}
