//go:build linux

package e2e

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
)

// TestFilesOverNetwork (issue 17 point 6): a screenshot and a pdf taken
// over the HTTP API on TCP come with a link that their owner fetches over
// TCP with the same token — the PNG's and the PDF's bytes; another owner's
// token gets 404, none gets 401, and admin reads it over the Unix socket
// (one registry for both listeners).
func TestFilesOverNetwork(t *testing.T) {
	data := t.TempDir()
	addr := freeAddr(t)
	startDaemon(t, data, "--listen", addr)
	admin := socketAPI(t, data)
	var tokA, tokB struct {
		Token string `json:"token"`
	}
	admin.expect(201, "POST", "/api/tokens", map[string]string{"owner": "alice"}, &tokA)
	admin.expect(201, "POST", "/api/tokens", map[string]string{"owner": "bob"}, &tokB)
	alice, bob := tcpAPI(t, addr, tokA.Token), tcpAPI(t, addr, tokB.Token)

	var res struct {
		Success        bool   `json:"success"`
		Error          string `json:"error"`
		ScreenshotPath string `json:"screenshotPath"`
		ScreenshotURL  string `json:"screenshotUrl"`
		Path           string `json:"path"`
		PDFURL         string `json:"pdfUrl"`
	}
	alice.expect(200, "POST", "/api/actions", map[string]any{"action": "navigate", "session": "shots", "url": site.URL("/form"), "snapshot": false}, &res)
	if !res.Success {
		t.Fatal(res.Error)
	}
	alice.expect(200, "POST", "/api/actions", map[string]any{"action": "screenshot", "session": "shots", "fullPage": false}, &res)
	if !res.Success || !strings.HasPrefix(res.ScreenshotURL, "/api/files/") || res.ScreenshotPath == "" {
		t.Fatalf("screenshot: %+v", res)
	}
	shot := res.ScreenshotURL

	get := func(a *apiClient, path string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest("GET", a.base+path, nil)
		if a.token != "" {
			req.Header.Set("Authorization", "Bearer "+a.token)
		}
		resp, err := a.hc.Do(req)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		return resp
	}
	read := func(resp *http.Response) []byte {
		t.Helper()
		defer resp.Body.Close()
		var b bytes.Buffer
		if _, err := b.ReadFrom(resp.Body); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}

	resp := get(alice, shot)
	b := read(resp)
	if resp.StatusCode != 200 || !bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")) {
		t.Fatalf("GET %s as its owner: %d, %d bytes starting %q", shot, resp.StatusCode, len(b), b[:min(len(b), 16)])
	}
	if ct, cc := resp.Header.Get("Content-Type"), resp.Header.Get("Cache-Control"); ct != "image/png" || cc != "private, no-store" {
		t.Errorf("Content-Type %q, Cache-Control %q", ct, cc)
	}
	if resp.ContentLength != int64(len(b)) || !strings.HasPrefix(resp.Header.Get("Content-Disposition"), "inline; filename=") {
		t.Errorf("Content-Length %d for %d bytes, Content-Disposition %q", resp.ContentLength, len(b), resp.Header.Get("Content-Disposition"))
	}

	resp = get(bob, shot)
	if body := read(resp); resp.StatusCode != 404 || !strings.Contains(string(body), "take a new screenshot") {
		t.Errorf("GET %s as another owner: %d %s, want 404 saying what to do", shot, resp.StatusCode, body)
	}
	resp = get(tcpAPI(t, addr, ""), shot)
	if read(resp); resp.StatusCode != 401 {
		t.Errorf("GET %s without a token: %d, want 401", shot, resp.StatusCode)
	}
	resp = get(admin, shot)
	if body := read(resp); resp.StatusCode != 200 || !bytes.Equal(body, b) {
		t.Errorf("GET %s as admin over the socket: %d, %d bytes", shot, resp.StatusCode, len(body))
	}

	// A pdf, through the session's own route: pdfUrl.
	alice.expect(200, "POST", "/api/sessions/shots/actions", map[string]any{"action": "pdf"}, &res)
	if !res.Success || !strings.HasPrefix(res.PDFURL, "/api/files/") {
		t.Fatalf("pdf: %+v", res)
	}
	resp = get(alice, res.PDFURL)
	if b := read(resp); resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/pdf" || !bytes.HasPrefix(b, []byte("%PDF-")) {
		t.Errorf("GET %s: %d %q, %d bytes", res.PDFURL, resp.StatusCode, resp.Header.Get("Content-Type"), len(b))
	}
}
