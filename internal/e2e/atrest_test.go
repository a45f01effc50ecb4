//go:build linux

package e2e

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/browserd/browserd/internal/engine"
	"github.com/browserd/browserd/internal/tool"
)

// TestNothingReadableAtRest: what a page's URL carried (a reset token in
// its query, an OAuth code in its fragment) and what was typed into its
// text fields, sent or not, is in no file of the data folder in plain
// text — neither the store (the database and its WAL, while the daemon
// runs and once it stopped) nor the profile's folder once its browser
// stopped: the store seals the sessions' URLs, and Chromium keeps no
// history, session-restore files, autofill entries or cache of the
// profile (issue 26 point 4). The listing still shows the URL.
func TestNothingReadableAtRest(t *testing.T) {
	m := atRestMarkers()
	srv := httptest.NewServer(atRestPages())
	defer srv.Close()
	cfg := testConfig(t)
	cfg.SnapshotInterval = 0 // a capture after every action
	e, err := engine.New(cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	defer func() {
		if !closed {
			e.Close(context.Background())
		}
	}()
	do := func(in tool.Input) tool.Result {
		t.Helper()
		if in.Action != "list_sessions" { // with a session, it lists that session's captures
			in.Profile, in.Session = "vault", "vault"
		}
		r, err := e.Do(context.Background(), in)
		if err != nil || !r.Success {
			t.Fatalf("%s: %v %s", in.Action, err, r.Error)
		}
		return r
	}
	// Typed into a page the tab then leaves: Chromium's session files
	// would keep it with the page's history entry.
	do(tool.Input{Action: "navigate", URL: srv.URL + "/form"})
	do(tool.Input{Action: "type", Selector: "#note", Text: m["typed"]})
	do(tool.Input{Action: "type", Selector: "textarea", Text: m["area"]})
	secretURL := srv.URL + "/reset?token=" + m["query"] + "#code=" + m["fragment"]
	do(tool.Input{Action: "navigate", URL: secretURL})
	// Typed and sent: autofill would keep it as a form entry.
	do(tool.Input{Action: "tab_new", Task: "send", URL: srv.URL + "/form"})
	do(tool.Input{Action: "type", Task: "send", Selector: "#note", Text: m["sent"], Submit: true})
	// Chromium writes its session files a few seconds after a change.
	time.Sleep(3 * time.Second)

	listed := ""
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline) && !strings.Contains(listed, m["query"]); time.Sleep(100 * time.Millisecond) {
		listed = states(do(tool.Input{Action: "list_sessions", Filter: "all"}))["vault"].URL
	}
	if !strings.Contains(listed, m["query"]) || !strings.Contains(listed, m["fragment"]) {
		t.Fatalf("list_sessions shows vault's URL as %q, want %s: the test needs it captured", listed, secretURL)
	}
	db, _ := filepath.Glob(filepath.Join(cfg.Data, "browserd.db*"))
	if len(db) == 0 {
		t.Fatalf("no database under %s: is the store elsewhere?", cfg.Data)
	}
	for _, f := range findAtRest(t, db, m) {
		t.Errorf("while the daemon runs: %s", f)
	}

	if err := e.Close(context.Background()); err != nil {
		t.Errorf("closing the engine: %v", err)
	}
	closed = true
	waitNoChromium(t, cfg.Data)
	var all []string
	filepath.WalkDir(cfg.Data, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			all = append(all, p)
		}
		return nil
	})
	if !hasFile(all, "credentials.sealed") || !hasFile(all, "browserd.db") {
		t.Fatalf("the data folder holds no profile or no store: is the test reading the right folder? %v", all)
	}
	for _, f := range findAtRest(t, all, m) {
		t.Errorf("once stopped: %s", f)
	}
}

// atRestMarkers are random texts the test puts in a URL and types, each
// found only where it was written.
func atRestMarkers() map[string]string {
	m := map[string]string{}
	for _, k := range []string{"query", "fragment", "typed", "area", "sent"} {
		b := make([]byte, 6)
		rand.Read(b)
		m[k] = k + "mark" + hex.EncodeToString(b)
	}
	return m
}

// atRestPages serves a form (sent by POST to itself) and any other path as
// a plain page.
func atRestPages() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if r.URL.Path == "/form" {
			fmt.Fprint(w, `<!doctype html><title>Form</title><form method=post action=/form>
<input id=note name=note aria-label=Note autocomplete=on><textarea name=body aria-label=Body></textarea><button>Send</button></form>`)
			return
		}
		fmt.Fprint(w, `<!doctype html><title>Page</title><p>Set a new password</p>`)
	})
}

// findAtRest returns "marker in file" for every marker found in one of
// files as UTF-8 or UTF-16 (Chromium keeps page state as UTF-16).
func findAtRest(t *testing.T, files []string, markers map[string]string) []string {
	t.Helper()
	var found []string
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			if !os.IsNotExist(err) {
				t.Errorf("reading %s: %v", p, err)
			}
			continue
		}
		for k, v := range markers {
			if bytes.Contains(b, []byte(v)) || bytes.Contains(b, utf16LE(v)) {
				found = append(found, fmt.Sprintf("the %s marker is in %s in plain text", k, p))
			}
		}
	}
	return found
}

func utf16LE(s string) []byte {
	var b []byte
	for _, u := range utf16.Encode([]rune(s)) {
		b = append(b, byte(u), byte(u>>8))
	}
	return b
}

// hasFile reports whether one of paths names a file called name.
func hasFile(paths []string, name string) bool {
	for _, p := range paths {
		if filepath.Base(p) == name {
			return true
		}
	}
	return false
}
