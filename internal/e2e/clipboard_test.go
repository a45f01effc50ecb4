//go:build linux

package e2e

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/browserd/browserd/internal/tool"
)

// TestClipboardStaysWithItsSession (issue 47.3): sessions of one browser
// share its clipboard. What one session copied with Control+C pastes in
// its own fields, never in another session's; and a field a secret was
// typed into gives nothing to a copy, in any session.
func TestClipboardStaysWithItsSession(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><title>Clip</title><label>First <input id=a></label><label>Second <input id=b></label>`)
	}))
	defer srv.Close()
	cfg := testConfig(t)
	e, do := newEngine(t, cfg)
	const secret = "5173-9921-xq"
	if _, err := e.SetSecret(context.Background(), "CLIP_CODE", secret, []string{srv.URL}); err != nil {
		t.Fatal(err)
	}
	call := func(session string, in tool.Input) tool.Result {
		t.Helper()
		in.Session, in.Snapshot = session, new(false)
		r := do(in)
		if !r.Success {
			t.Fatalf("%s %s: %s", session, in.Action, r.Error)
		}
		return r
	}
	// pasted empties field b of session's page, pastes into it, and says
	// how many characters it holds then.
	pasted := func(session string) string {
		t.Helper()
		call(session, tool.Input{Action: "type", Selector: "#b", Text: "", Clear: true})
		call(session, tool.Input{Action: "press", Key: "Control+v"})
		r := call(session, tool.Input{Action: "evaluate", Expression: "String(document.getElementById('b').value.length)"})
		return strings.TrimSpace(r.Content)
	}
	copyA := func(session string) {
		t.Helper()
		call(session, tool.Input{Action: "click", Selector: "#a"})
		call(session, tool.Input{Action: "press", Key: "Control+a"})
		call(session, tool.Input{Action: "press", Key: "Control+c"})
	}
	for _, s := range []string{"clip-alice", "clip-bob"} {
		call(s, tool.Input{Action: "navigate", URL: srv.URL})
	}

	call("clip-alice", tool.Input{Action: "type", Selector: "#a", Text: "alpha-123"})
	copyA("clip-alice")
	if got := pasted("clip-alice"); !strings.Contains(got, "9") {
		t.Fatalf("a paste in the session that copied holds %s characters, want 9 (alpha-123): the clipboard does not work here", got)
	}
	if got := pasted("clip-bob"); !strings.Contains(got, `"0"`) {
		t.Errorf("another session's paste holds %s characters of what alice copied, want none", got)
	}

	// A secret's field: nothing of it reaches the clipboard, even for a
	// paste in the same session.
	call("clip-alice", tool.Input{Action: "type", Selector: "#a", Secret: "CLIP_CODE", Clear: true})
	copyA("clip-alice")
	if got := pasted("clip-alice"); !strings.Contains(got, `"0"`) {
		t.Errorf("a copy out of a secret's field pasted %s characters, want none", got)
	}
}
