package chromium

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestPrepareForget: what a browser on browserd's own folder would record
// of its pages is removed, its preferences keep Chromium from recording
// history and form entries (and keep the rest), and a file takes the
// place of each session-restore folder, whatever was there.
func TestPrepareForget(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, body string) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("Default/Preferences", `{"profile":{"name":"x"},"history":{"other":1}}`)
	write("Default/Sessions/Session_1", "https://example.com/?token=secret")
	write("Default/History", "https://example.com/?token=secret")
	write("Default/Cache/Cache_Data/f_1", "page")
	write("segmentation_platform/ukm_db", "https://example.com/")
	write("Default/Cookies", "kept")
	if err := prepareForget(dir); err != nil {
		t.Fatal(err)
	}
	for _, gone := range []string{"Default/History", "Default/Cache", "segmentation_platform"} {
		if _, err := os.Stat(filepath.Join(dir, gone)); !os.IsNotExist(err) {
			t.Errorf("%s is still there (%v)", gone, err)
		}
	}
	for _, name := range blockedDirs {
		st, err := os.Lstat(filepath.Join(dir, name))
		if err != nil || !st.Mode().IsRegular() {
			t.Errorf("%s: %v, %v; want a plain file in its place", name, st, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "Default/Cookies")); err != nil {
		t.Errorf("the cookie database went: %v", err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "Default/Preferences"))
	if err != nil {
		t.Fatal(err)
	}
	var prefs struct {
		Profile  map[string]any `json:"profile"`
		History  map[string]any `json:"history"`
		Autofill map[string]any `json:"autofill"`
	}
	if err := json.Unmarshal(b, &prefs); err != nil {
		t.Fatal(err)
	}
	if prefs.History["saving_disabled"] != true || prefs.History["other"] != 1.0 || prefs.Autofill["profile_enabled"] != false || prefs.Profile["name"] != "x" {
		t.Errorf("preferences: %s", b)
	}
	// Again: nothing to change, nothing fails.
	if err := prepareForget(dir); err != nil {
		t.Fatal(err)
	}
}
