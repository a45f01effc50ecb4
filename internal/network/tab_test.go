package network

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/browserd/browserd/internal/browser"
)

type bodies map[string]string

func (b bodies) ResponseBody(_ context.Context, id string) ([]byte, bool, error) {
	s, ok := b[id]
	if !ok {
		return nil, false, errors.New("no body")
	}
	return []byte(s), false, nil
}

// TestTabReads: one request shown whole with its body, or said absent;
// the bodies a HAR keeps (documents, XHR and fetch that answered, not
// redirects, scripts or failures); the guard's refusals marked by their
// keys, plain HTTP by path and HTTPS by host and port.
func TestTabReads(t *testing.T) {
	reqs := []browser.Request{
		{ID: "r1", Method: "GET", URL: "https://a.example/", Type: "Document", Status: 200, MimeType: "text/html"},
		{ID: "r2", Method: "POST", URL: "https://a.example/api", Type: "Fetch", Status: 200, MimeType: "application/json"},
		{ID: "r3", Method: "GET", URL: "https://a.example/app.js", Type: "Script", Status: 200},
		{ID: "r4", Method: "GET", URL: "https://a.example/old", Type: "Document", Status: 301},
		{ID: "r5", Method: "GET", URL: "http://10.0.0.5/admin", Type: "Document", Status: 403},
		{ID: "r6", Method: "GET", URL: "https://10.0.0.6/", Type: "XHR", Failed: "net::ERR_TUNNEL_CONNECTION_FAILED"},
		{ID: "r7", Method: "GET", URL: "https://b.example/", Type: "XHR", Status: 403},
	}
	tab := bodies{"r1": "<p>home</p>", "r2": `{"ok":true}`, "r3": "js", "r4": "moved"}
	if shown, ok := Request(t.Context(), tab, reqs, "r2", OneOptions{Redact: true}); !ok || !strings.Contains(shown, `{"ok":true}`) {
		t.Errorf("Request(r2) = %v, %q", ok, shown)
	}
	if _, ok := Request(t.Context(), tab, reqs, "r9", OneOptions{}); ok {
		t.Error("Request(r9) found a request the log does not have")
	}
	got, err := HARBodies(t.Context(), tab, reqs)
	if err != nil || len(got) != 2 || string(got["r1"].Data) != "<p>home</p>" || string(got["r2"].Data) != `{"ok":true}` {
		t.Errorf("HARBodies = %v, %v; want r1 and r2", got, err)
	}
	refused := map[string]string{"http://10.0.0.5/admin": "a private address", "10.0.0.6:443": "a private address"}
	MarkRefused(reqs, func(key string) (string, bool) { r, ok := refused[key]; return r, ok })
	for _, r := range reqs {
		want := ""
		if r.ID == "r5" || r.ID == "r6" {
			want = "a private address"
		}
		if r.Refused != want {
			t.Errorf("%s refused %q, want %q", r.ID, r.Refused, want)
		}
	}
}
