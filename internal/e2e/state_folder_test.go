//go:build linux

package e2e

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStateOnFolderCLI (issue 26 point 7): `browserd state save` and
// `state load` act on the folder AGENT_BROWSER_PROFILE names, not on the
// default profile: a cookie set in the folder's session is in the saved
// file, and a cookie loaded from a file is in the folder's session.
func TestStateOnFolderCLI(t *testing.T) {
	data := t.TempDir()
	t.Cleanup(func() { stopDaemon(t, data) })
	dir := filepath.Join(data, "folders", "agent")
	if r := folderCLI(t, data, dir, "open", site.URL("/cookies/set?name=infolder&value=1&maxAge=3600")); !r.Success {
		t.Fatalf("open on the folder: %s", r.Error)
	}
	saved := filepath.Join(t.TempDir(), "saved.json")
	if r := folderCLI(t, data, dir, "state", "save", saved); !r.Success {
		t.Fatalf("state save on the folder: %s", r.Error)
	}
	if b, err := os.ReadFile(saved); err != nil || !strings.Contains(string(b), `"infolder"`) {
		t.Fatalf("state save did not save the folder's session (%v):\n%s", err, b)
	}

	u, _ := url.Parse(site.URL("/"))
	state, _ := json.Marshal(map[string]any{"cookies": []map[string]any{{"name": "loaded", "value": "yes", "domain": u.Hostname(),
		"path": "/", "expires": -1, "httpOnly": false, "secure": false, "sameSite": "Lax"}}, "origins": []any{}})
	load := filepath.Join(t.TempDir(), "load.json")
	if err := os.WriteFile(load, state, 0o600); err != nil {
		t.Fatal(err)
	}
	if r := folderCLI(t, data, dir, "state", "load", load); !r.Success {
		t.Fatalf("state load on the folder: %s", r.Error)
	}
	r := folderCLI(t, data, dir, "eval", "document.cookie")
	if !r.Success || !strings.Contains(r.Content, "loaded=yes") || !strings.Contains(r.Content, "infolder=1") {
		t.Fatalf("the folder's session after state load: %v %s\n%s", r.Success, r.Error, r.Content)
	}
}
