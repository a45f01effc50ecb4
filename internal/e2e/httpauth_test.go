//go:build linux

package e2e

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/browserd/browserd/internal/testsite"
	"github.com/browserd/browserd/internal/tool"
)

// TestHTTPCredentials: a session's HTTP login answers basic authentication
// of its origin only; a wrong one fails once (no loop); the password is in
// no answer and sealed in the captures.
func TestHTTPCredentials(t *testing.T) {
	cfg := testConfig(t)
	e, _ := newEngine(t, cfg)
	d := &engineDriver{e: e, data: cfg.Data}
	const task = "auth"
	main := strings.TrimSuffix(site.URL("/"), "/")
	// Without a login: refused, with how to give one.
	r := bad(t, d, tool.Input{Action: "navigate", Task: task, URL: site.URL("/auth/basic")}, "launch httpCredentials")
	r = ok(t, d, tool.Input{Action: "launch", Task: task, HTTPCredentials: []tool.HTTPCredential{
		{Origin: main, Username: testsite.BasicUser, Password: testsite.BasicPassword}}})
	if strings.Contains(r.Content+strings.Join(r.Notes, " "), testsite.BasicPassword) {
		t.Fatalf("launch echoed the password: %+v", r)
	}
	r = nav(t, d, task, site.URL("/auth/basic"))
	contains(t, r.Content, "Welcome, ann")
	// Another origin asks too: it gets nothing.
	bad(t, d, tool.Input{Action: "navigate", Task: task, URL: site.OtherURL("/auth/basic")}, "launch httpCredentials")
	// A wrong password is tried once, then refused (no loop). In a
	// session of its own: Chromium keeps a realm's accepted login for the
	// session's life.
	ok(t, d, tool.Input{Action: "launch", Session: "wrong", HTTPCredentials: []tool.HTTPCredential{
		{Origin: main, Username: testsite.BasicUser, Password: "wrong"}}})
	r = ok(t, d, tool.Input{Action: "navigate", Session: "wrong", URL: site.URL("/auth/basic")})
	contains(t, r.Content, "401: sign in needed")
	bad(t, d, tool.Input{Action: "launch", Task: task, HTTPCredentials: []tool.HTTPCredential{
		{Origin: main + "/path", Username: "x", Password: "y"}}}, "want scheme://host[:port]")

	// Captures hold the login sealed: no file of the data folder has the
	// password in plain text.
	r = ok(t, d, tool.Input{Action: "launch", Task: task, HTTPCredentials: []tool.HTTPCredential{
		{Origin: main, Username: testsite.BasicUser, Password: testsite.BasicPassword}}})
	if err := e.Capture(context.Background(), r.Session); err != nil {
		t.Fatal(err)
	}
	_ = filepath.WalkDir(cfg.Data, func(path string, de fs.DirEntry, err error) error {
		if err != nil || de.IsDir() {
			return nil
		}
		if b, err := os.ReadFile(path); err == nil && bytes.Contains(b, []byte(testsite.BasicPassword)) {
			t.Errorf("%s holds the HTTP password in plain text", path)
		}
		return nil
	})
}
