package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/browserd/browserd/internal/auth"
	"github.com/browserd/browserd/internal/files"
	"github.com/browserd/browserd/internal/httpapi"
	"github.com/browserd/browserd/internal/tool"
)

// pngBytes and pdfBytes start as real files of their types do.
var (
	pngBytes = append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), bytes.Repeat([]byte{7}, 2000)...)
	pdfBytes = []byte("%PDF-1.4\n% fake\n%%EOF\n")
)

// fileHandler answers screenshot, pdf and state_save as the engine does:
// with the path of a file it wrote.
type fileHandler struct {
	dir  string
	fail bool
}

func (f *fileHandler) Do(_ context.Context, in tool.Input) (tool.Result, error) {
	res := tool.Result{Action: in.Action, Success: !f.fail, Session: in.Session}
	write := func(name string, b []byte) string {
		p := filepath.Join(f.dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			panic(err)
		}
		return p
	}
	switch in.Action {
	case "screenshot":
		res.ScreenshotPath = write(cmpOr(in.Path, "shot.png"), pngBytes)
	case "pdf":
		res.Path = write("page.pdf", pdfBytes)
	case "state_save":
		res.Path = write("state.json", []byte(`{"cookies":[]}`))
	}
	if f.fail {
		res.Error = "it failed"
	}
	return res, nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// as sends one request as owner.
func as(h http.Handler, owner, method, path, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req = req.WithContext(auth.WithOwner(req.Context(), owner))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// act runs an action as owner and returns its result.
func act(t *testing.T, h http.Handler, owner, path, body string) tool.Result {
	t.Helper()
	rec := as(h, owner, "POST", path, body)
	var res tool.Result
	if rec.Code != 200 || json.Unmarshal(rec.Body.Bytes(), &res) != nil {
		t.Fatalf("POST %s: %d %s", path, rec.Code, rec.Body)
	}
	return res
}

// notFound checks a 404 with a JSON error that contains want.
func notFound(t *testing.T, rec *httptest.ResponseRecorder, want string) {
	t.Helper()
	var m map[string]string
	if rec.Code != 404 || json.Unmarshal(rec.Body.Bytes(), &m) != nil || !strings.Contains(m["error"], want) {
		t.Errorf("got %d %q, want 404 with a JSON error containing %q", rec.Code, rec.Body, want)
	}
	if cc := rec.Header().Get("Content-Type"); cc != "application/json" {
		t.Errorf("404 Content-Type = %q", cc)
	}
}

var linkRe = regexp.MustCompile(`^/api/files/[0-9a-f]{32}$`)

// TestFileLinks: a screenshot over the HTTP API comes with screenshotUrl;
// its owner (and admin) read the very bytes with the right headers,
// another owner gets a 404 that says what to do.
func TestFileLinks(t *testing.T) {
	f := &fileHandler{dir: t.TempDir()}
	h := httpapi.New(f, httpapi.Options{})

	res := act(t, h, "alice", "/api/actions", `{"action":"screenshot","task":"a"}`)
	if !linkRe.MatchString(res.ScreenshotURL) || res.ScreenshotPath == "" {
		t.Fatalf("screenshot result: url %q, path %q", res.ScreenshotURL, res.ScreenshotPath)
	}
	rec := as(h, "alice", "GET", res.ScreenshotURL, "")
	if rec.Code != 200 || !bytes.Equal(rec.Body.Bytes(), pngBytes) {
		t.Fatalf("GET %s: %d, %d bytes; want 200 and the PNG's %d", res.ScreenshotURL, rec.Code, rec.Body.Len(), len(pngBytes))
	}
	for k, want := range map[string]string{
		"Content-Type":        "image/png",
		"Content-Length":      strconv.Itoa(len(pngBytes)),
		"Cache-Control":       "private, no-store",
		"Content-Disposition": "inline; filename=shot.png",
	} {
		if got := rec.Header().Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	// HEAD: the headers, no body.
	if rec := as(h, "alice", "HEAD", res.ScreenshotURL, ""); rec.Code != 200 || rec.Body.Len() != 0 || rec.Header().Get("Content-Length") != strconv.Itoa(len(pngBytes)) {
		t.Errorf("HEAD: %d, body %d bytes, Content-Length %q", rec.Code, rec.Body.Len(), rec.Header().Get("Content-Length"))
	}
	// Admin reads any owner's; another owner reads nothing, told the same
	// as for an unknown id.
	if rec := as(h, auth.Admin, "GET", res.ScreenshotURL, ""); rec.Code != 200 || !bytes.Equal(rec.Body.Bytes(), pngBytes) {
		t.Errorf("admin GET: %d", rec.Code)
	}
	bob := as(h, "bob", "GET", res.ScreenshotURL, "")
	notFound(t, bob, "take a new screenshot")
	unknown := as(h, "alice", "GET", "/api/files/0123456789abcdef0123456789abcdef", "")
	notFound(t, unknown, "take a new screenshot")
	if a, b := strings.ReplaceAll(bob.Body.String(), res.ScreenshotURL[len("/api/files/"):], "ID"), strings.ReplaceAll(unknown.Body.String(), "0123456789abcdef0123456789abcdef", "ID"); a != b {
		t.Errorf("another owner's link and an unknown one are told apart:\n%s\n%s", a, b)
	}

	// A screenshot saved under another extension is served as what it is.
	res = act(t, h, "alice", "/api/actions", `{"action":"screenshot","path":"odd.jpg"}`)
	if rec := as(h, "alice", "GET", res.ScreenshotURL, ""); rec.Code != 200 || rec.Header().Get("Content-Type") != "image/png" {
		t.Errorf("odd.jpg: %d %q, want 200 image/png", rec.Code, rec.Header().Get("Content-Type"))
	}
	// A non-ASCII name is encoded in Content-Disposition.
	res = act(t, h, "alice", "/api/actions", `{"action":"screenshot","path":"café \"x\".png"}`)
	if rec := as(h, "alice", "GET", res.ScreenshotURL, ""); rec.Code != 200 || rec.Header().Get("Content-Disposition") != "inline; filename*=utf-8''caf%C3%A9%20%22x%22.png" {
		t.Errorf("café: %d %q", rec.Code, rec.Header().Get("Content-Disposition"))
	}

	// The session route links too.
	res = act(t, h, "alice", "/api/sessions/w/actions", `{"action":"screenshot"}`)
	if !linkRe.MatchString(res.ScreenshotURL) {
		t.Errorf("POST /api/sessions/w/actions: screenshotUrl %q", res.ScreenshotURL)
	}

	// pdf: pdfUrl, served as a PDF.
	res = act(t, h, "alice", "/api/actions", `{"action":"pdf"}`)
	if !linkRe.MatchString(res.PDFURL) || res.ScreenshotURL != "" {
		t.Fatalf("pdf result: pdfUrl %q, screenshotUrl %q", res.PDFURL, res.ScreenshotURL)
	}
	if rec := as(h, "alice", "GET", res.PDFURL, ""); rec.Code != 200 || rec.Header().Get("Content-Type") != "application/pdf" || !bytes.Equal(rec.Body.Bytes(), pdfBytes) {
		t.Errorf("GET pdf: %d %q", rec.Code, rec.Header().Get("Content-Type"))
	}
	// state_save's path is credentials: never lent.
	if res := act(t, h, "alice", "/api/actions", `{"action":"state_save","path":"s.json"}`); res.ScreenshotURL != "" || res.PDFURL != "" {
		t.Errorf("state_save got a link: %+v", res)
	}
	// A failed action lends nothing.
	f.fail = true
	if res := act(t, h, "alice", "/api/actions", `{"action":"screenshot"}`); res.ScreenshotURL != "" {
		t.Errorf("failed screenshot got a link: %q", res.ScreenshotURL)
	}
}

// TestFileLinkExpires: after the TTL the link is a 404, with the way to a
// new one.
func TestFileLinkExpires(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	reg := files.New(files.Options{TTL: time.Minute, Now: clock})
	h := httpapi.New(&fileHandler{dir: t.TempDir()}, httpapi.Options{Files: reg})
	res := act(t, h, "alice", "/api/actions", `{"action":"screenshot"}`)
	mu.Lock()
	now = now.Add(59 * time.Second)
	mu.Unlock()
	if rec := as(h, "alice", "GET", res.ScreenshotURL, ""); rec.Code != 200 {
		t.Fatalf("before the TTL: %d %s", rec.Code, rec.Body)
	}
	mu.Lock()
	now = now.Add(time.Second)
	mu.Unlock()
	notFound(t, as(h, "alice", "GET", res.ScreenshotURL, ""), "links last 1m0s")
	if rec := as(h, auth.Admin, "GET", res.ScreenshotURL, ""); rec.Code != 404 {
		t.Errorf("admin after the TTL: %d", rec.Code)
	}
	if _, err := os.Stat(res.ScreenshotPath); err != nil {
		t.Errorf("the expired link's file is gone: %v (links expire, the owner's files stay)", err)
	}
}

// TestFileLinkNoTraversal: an id is looked up, never joined to a path, and
// a link lends only the file it was made for.
func TestFileLinkNoTraversal(t *testing.T) {
	dir := t.TempDir()
	h := httpapi.New(&fileHandler{dir: dir}, httpapi.Options{})
	res := act(t, h, "alice", "/api/actions", `{"action":"screenshot"}`)
	secret := filepath.Join(dir, "secret.txt")
	if err := os.WriteFile(secret, []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{
		"/api/files/..%2fsecret.txt",
		"/api/files/%2e%2e%2f%2e%2e%2fetc%2fpasswd",
		"/api/files/" + strings.ReplaceAll(secret, "/", "%2f"),
		"/api/files/shot.png",
		"/api/files/" + strings.ToUpper(strings.TrimPrefix(res.ScreenshotURL, "/api/files/")),
	} {
		if rec := as(h, "alice", "GET", p, ""); rec.Code != 404 {
			t.Errorf("GET %s: %d %q, want 404", p, rec.Code, rec.Body)
		}
	}
	// "/api/files/../x" is cleaned by the mux into another path, never here.
	if rec := as(h, "alice", "GET", "/api/files/../../etc/passwd", ""); rec.Code == 200 {
		t.Errorf("dot-dot path: %d %q", rec.Code, rec.Body)
	}
	// The file behind a link replaced by a symbolic link to another file,
	// or overwritten: not served.
	if err := os.Remove(res.ScreenshotPath); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, res.ScreenshotPath); err != nil {
		t.Fatal(err)
	}
	notFound(t, as(h, "alice", "GET", res.ScreenshotURL, ""), "removed or overwritten")
	res = act(t, h, "alice", "/api/actions", `{"action":"screenshot","path":"again.png"}`)
	if err := os.WriteFile(res.ScreenshotPath, []byte("other bytes"), 0o600); err != nil {
		t.Fatal(err)
	}
	notFound(t, as(h, "alice", "GET", res.ScreenshotURL, ""), "removed or overwritten")
}

// TestOpenAPIFiles: the document describes the file endpoint and the
// result's links.
func TestOpenAPIFiles(t *testing.T) {
	_, m := do(t, httpapi.New(&fakeHandler{}, httpapi.Options{}), "GET", "/api/openapi.json", "")
	paths, _ := m["paths"].(map[string]any)
	ops, _ := paths["/api/files/{id}"].(map[string]any)
	if ops["get"] == nil {
		t.Error("openapi.json does not describe GET /api/files/{id}")
	}
	schemas := m["components"].(map[string]any)["schemas"].(map[string]any)
	props := schemas["ToolResult"].(map[string]any)["properties"].(map[string]any)
	for _, p := range []string{"screenshotPath", "screenshotUrl", "path", "pdfUrl"} {
		if props[p] == nil {
			t.Errorf("ToolResult has no %s", p)
		}
	}
}
