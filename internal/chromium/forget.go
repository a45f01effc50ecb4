package chromium

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// A browser on a folder of browserd's own (a profile's, a throwaway one:
// LaunchOptions.Forget) leaves no record on disk of where its pages went or
// what was typed into them once it stops. browserd brings sessions back
// from its own captures, sealed in its store, so it needs none of
// Chromium's: Chromium is told not to keep them (forgetPrefs, blockedDirs)
// and what it still writes is removed when it stops (discarded). A caller's
// folder (userDataDir) keeps them, as Chrome keeps them: it is the
// caller's profile.

// forgetPrefs are the Preferences that keep Chromium from recording: its
// history (and what it derives from it — visited links, top sites,
// omnibox shortcuts) and autofill's entries, the values typed into a form
// that was sent.
var forgetPrefs = map[string]map[string]any{
	"history":  {"saving_disabled": true},
	"autofill": {"profile_enabled": false, "credit_card_enabled": false},
}

// blockedDirs are the folders of Chromium's session-restore files, which
// keep every tab's URL and what was typed into its text fields: Sessions,
// and Sessions_Encrypted, which Chromium 156 writes as well, under a key
// that --password-store=basic makes public. No switch or preference turns
// them off: a file in each one's place does, since Chromium cannot create
// the folder and writes none of them.
var blockedDirs = []string{"Default/Sessions", "Default/Sessions_Encrypted"}

// blockNote is what the files in blockedDirs' places say, to a person who
// opens one.
const blockNote = "browserd: Chromium's session-restore files are off for this profile; browserd restores its sessions itself, from its sealed captures.\n"

// discarded are the parts of a user-data-dir that record pages and that
// are removed when the browser stops (and before it starts, after a crash
// or an earlier version of browserd): the HTTP and code caches, which hold
// the pages and the URLs they came from; the segmentation platform's
// record of page loads (ukm_db: no switch turns it off that does not
// crash Chromium 156 on a big page — --disable-features=
// SegmentationPlatformUkmEngine does); and the records that forgetPrefs
// now keep Chromium from writing but that an earlier run may have left.
var discarded = []string{
	"Default/Cache",
	"Default/Code Cache",
	"Default/History",
	"Default/History-journal",
	"Default/Visited Links",
	"Default/Top Sites",
	"Default/Top Sites-journal",
	"Default/Shortcuts",
	"Default/Shortcuts-journal",
	"Default/Network Action Predictor",
	"Default/Network Action Predictor-journal",
	"Default/Favicons",
	"Default/Favicons-journal",
	"Default/Web Data",
	"Default/Web Data-journal",
	"segmentation_platform",
}

// prepareForget readies dir for a browser that must leave no record: it
// removes what an earlier run left (discardRecords), sets forgetPrefs and
// puts a file in each of blockedDirs' places. It fails only when a
// session-restore folder cannot be blocked: the browser would then write
// what was typed into its pages to disk.
func prepareForget(dir string) error {
	if err := discardRecords(dir); err != nil {
		return err
	}
	setForgetPrefs(dir)
	for _, name := range blockedDirs {
		if err := blockDir(filepath.Join(dir, filepath.FromSlash(name))); err != nil {
			return fmt.Errorf("keeping Chromium's session-restore files off in %s: %w; check that browserd may write there", dir, err)
		}
	}
	return nil
}

// blockDir puts a plain file where Chromium would make the folder p,
// removing the folder and what it holds when it exists.
func blockDir(p string) error {
	st, err := os.Lstat(p)
	switch {
	case err == nil && st.Mode().IsRegular():
		return nil
	case err == nil:
		if err := os.RemoveAll(p); err != nil {
			return err
		}
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	return os.WriteFile(p, []byte(blockNote), 0o400)
}

// discardRecords removes the discarded parts of dir.
func discardRecords(dir string) error {
	var errs []error
	for _, name := range discarded {
		if err := os.RemoveAll(filepath.Join(dir, filepath.FromSlash(name))); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("removing what Chromium recorded of the pages in %s: %w; check that browserd may write there", dir, err)
	}
	return nil
}

// setForgetPrefs sets forgetPrefs in dir's Preferences, keeping the rest.
// A Preferences file Chromium could not read is left for Chromium to
// replace (it then starts from its defaults, which record: the next
// launch sets them again).
func setForgetPrefs(dir string) {
	p := filepath.Join(dir, "Default", "Preferences")
	prefs := map[string]any{}
	if b, err := os.ReadFile(p); err == nil {
		if json.Unmarshal(b, &prefs) != nil {
			return
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return
	}
	changed := false
	for group, values := range forgetPrefs {
		m, _ := prefs[group].(map[string]any)
		if m == nil {
			m = map[string]any{}
		}
		for k, v := range values {
			if m[k] != v {
				m[k], changed = v, true
			}
		}
		prefs[group] = m
	}
	if !changed {
		return
	}
	b, err := json.Marshal(prefs)
	if err != nil {
		return
	}
	_ = os.MkdirAll(filepath.Dir(p), 0o700)
	_ = os.WriteFile(p, b, 0o600)
}
