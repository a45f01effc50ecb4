package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/browserd/browserd/internal/auth"
	"github.com/browserd/browserd/internal/browsers"
	"github.com/browserd/browserd/internal/config"
	"github.com/browserd/browserd/internal/owners"
	"github.com/browserd/browserd/internal/sessions"
	"github.com/browserd/browserd/internal/tool"
)

// TestResolveFolder: a call's userDataDir is taken inside its owner's
// roots only — admin's --user-data-root, another owner's own folder —
// and names the folder's own session when the call names none.
func TestResolveFolder(t *testing.T) {
	data := t.TempDir()
	cfg := config.Config{Data: data, UserDataRoots: []string{filepath.Join(data, "folders")}}
	e := assemble(&sessions.Registry{Cfg: cfg})
	bob := auth.WithOwner(context.Background(), "bob")

	in := tool.Input{Action: "navigate", UserDataDir: "work"}
	if _, err := owners.For(context.Background(), e, &in); err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(filepath.Join(data, "folders"))
	if want := filepath.Join(real, "work"); in.UserDataDir != want || in.Session != sessions.FolderSession(want) || in.Profile != "" {
		t.Fatalf("admin's folder: %+v; want %s and its session", in, want)
	}
	if fi, err := os.Stat(in.UserDataDir); err != nil || !fi.IsDir() {
		t.Errorf("the new folder was not made: %v", err)
	}
	again := tool.Input{Action: "snapshot", UserDataDir: filepath.Join(data, "folders", "work")}
	if _, err := owners.For(context.Background(), e, &again); err != nil || again.Session != in.Session {
		t.Errorf("the same folder by its absolute path names another session: %+v, %v", again, err)
	}
	named := tool.Input{Action: "navigate", Session: "mine", UserDataDir: "work"}
	if _, err := owners.For(context.Background(), e, &named); err != nil || named.Session != "mine" {
		t.Errorf("a named session on a folder: %+v, %v", named, err)
	}

	// Bob cannot reach admin's folders; his own are under owners/bob.
	theirs := tool.Input{Action: "navigate", UserDataDir: filepath.Join(data, "folders", "work")}
	if _, err := owners.For(bob, e, &theirs); err == nil || !strings.Contains(err.Error(), "outside the folders allowed") {
		t.Errorf("bob named admin's folder: %+v, %v", theirs, err)
	}
	own := tool.Input{Action: "navigate", UserDataDir: "work"}
	if _, err := owners.For(bob, e, &own); err != nil || !strings.Contains(own.UserDataDir, filepath.Join("owners", "bob", "folders", "work")) || !strings.HasPrefix(own.Session, "bob~folder-") {
		t.Errorf("bob's own folder: %+v, %v", own, err)
	}

	// An attached browser runs on its own folder.
	ea := assemble(&sessions.Registry{Cfg: cfg})
	ea.Cfg.CDP = "ws://127.0.0.1:1/devtools/browser/x"
	att := tool.Input{Action: "navigate", UserDataDir: "work"}
	if _, err := owners.For(context.Background(), ea, &att); err == nil || !strings.Contains(err.Error(), "--cdp") {
		t.Errorf("a folder on an attached browser: %v", err)
	}
}

func TestPIDFile(t *testing.T) {
	for key, want := range map[string]string{
		"shared":          "chromium-shared.pid",
		"profile:bob~w":   "chromium-profile-bob~w.pid",
		"dir:/srv/a/b c":  "chromium-dir-" + strings.TrimPrefix(sessions.FolderSession("/srv/a/b c"), "folder-") + ".pid",
		"shared-headless": "chromium-shared-headless.pid",
	} {
		if got := browsers.PIDFile(key); got != want || strings.Contains(got, "/") {
			t.Errorf("pidFile(%q) = %q, want %q", key, got, want)
		}
	}
}
