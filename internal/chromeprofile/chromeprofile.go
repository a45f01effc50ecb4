// Package chromeprofile turns a Playwright storageState into a Chrome
// user-data-dir that stock Chromium opens logged in: its cookies in
// Default/Cookies and its localStorage in Default/Local Storage/leveldb,
// the files Chromium itself reads at start-up. The formats were checked
// against Chromium 156 (see the tests, which start a real one).
//
// Format choices:
//
//   - Cookies are written to the SQLite database at schema version 24 with
//     the value in the plaintext value column and an empty encrypted_value.
//     Chromium takes such a row as it is, with no decryption and no hash
//     check. The alternative, a "v10" value (AES under the fixed Linux
//     "peanuts" key, the plaintext prefixed with SHA-256 of the host since
//     version 24), would add no secrecy, since the key is public, and would
//     tie every row to Chromium's decryption and hash check.
//     A row Chromium cannot load makes it drop every cookie of that site
//     (eTLD+1), so Build checks each cookie the way Chromium's loader does
//     (canonical lower-case domain, name and value octets, __Secure- and
//     __Host- prefixes, expiry at most 400 days ahead) and leaves out, with
//     a reason in Result.Skipped, what would fail.
//   - Chromium deletes session cookies (Playwright's expires -1) when it
//     starts, unless the profile restores the last session. Default/
//     Preferences therefore sets session.restore_on_startup to 1 (continue
//     where you left off) and records a clean exit.
//   - localStorage goes into a LevelDB written with goleveldb, in Blink's
//     layout: VERSION, per origin META:/METAACCESS: protobufs and one row
//     per item, keys and values as Latin-1 or UTF-16LE. Creating the
//     LevelDB directory also keeps Chromium on the LevelDB backend: the
//     SQLite DOM-storage backend being rolled out is used for new profiles
//     only when no LevelDB directory exists.
//   - The "First Run" sentinel is written, the file whose absence makes
//     Chromium treat a start as its first run.
//
// The layout is Linux's: Chromium on Windows moves the cookie database to
// Default/Network/Cookies. Chromium's own limits still apply when it loads
// the cookies, such as 180 per domain.
//
// Chromium reads these files only for the default browser context of a
// persistent profile (--user-data-dir). Contexts made with
// Target.createBrowserContext live in memory and never see them; fill those
// over CDP instead (Storage.setCookies, DOMStorage).
//
// The files hold credentials: directories are made 0700 and files 0600,
// and Result.Skipped names cookies and items but never shows a value.
package chromeprofile

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/browserd/browserd/internal/storagestate"
)

// Result says what Build wrote.
type Result struct {
	// Dir is the user-data-dir, to pass as --user-data-dir.
	Dir string
	// Cookies is the number of cookie rows written.
	Cookies int
	// Origins is the number of origins with localStorage written, and
	// Items the number of their items.
	Origins, Items int
	// Skipped says what was not written and why, one line each, e.g. a
	// cookie with an empty domain. Values are never shown.
	Skipped []string
}

// Paths inside the user-data-dir.
const (
	profileDir      = "Default"
	cookiesFile     = "Cookies"
	preferencesFile = "Preferences"
	localStateFile  = "Local State"
	firstRunFile    = "First Run"
)

var leveldbDir = filepath.Join("Local Storage", "leveldb")

// Build writes a Chrome user-data-dir for st into dir, which is created if
// missing and must otherwise be empty. now is the creation time of the
// cookie rows and the localStorage metadata.
//
// What Chromium would not load (a cookie with an empty domain, a value with
// a control character, an origin that is not http or https…) is left out
// and listed in Result.Skipped; only a problem with dir itself, a write
// failure or a cancelled ctx is an error. On an error nothing Build wrote is
// left behind.
func Build(ctx context.Context, st *storagestate.State, dir string, now time.Time) (_ *Result, err error) {
	if st == nil {
		return nil, errors.New("chromeprofile: no storage state")
	}
	if dir == "" {
		return nil, errors.New("chromeprofile: no directory")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	created, err := prepareDir(dir)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			cleanup(dir, created)
			// A cancelled write can fail with the driver's own error.
			if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
				err = cerr
			}
		}
	}()
	res := &Result{Dir: dir}
	prof := filepath.Join(dir, profileDir)
	// The LevelDB folder is made up front, so that even a profile without
	// localStorage keeps Chromium on the LevelDB backend.
	if err := os.MkdirAll(filepath.Join(prof, leveldbDir), 0o700); err != nil {
		return nil, fmt.Errorf("chromeprofile: %w", err)
	}
	rows := cookieRows(st.Cookies, now, &res.Skipped)
	if err := writeCookies(ctx, filepath.Join(prof, cookiesFile), rows); err != nil {
		return nil, err
	}
	res.Cookies = len(rows)
	areas := storageAreas(st.Origins, &res.Skipped)
	n, err := writeLocalStorage(ctx, filepath.Join(prof, leveldbDir), areas, now)
	if err != nil {
		return nil, err
	}
	res.Origins, res.Items = len(areas), n
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := writeJSON(filepath.Join(prof, preferencesFile), preferences); err != nil {
		return nil, err
	}
	if err := writeJSON(filepath.Join(dir, localStateFile), localState); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, firstRunFile), nil, 0o600); err != nil {
		return nil, fmt.Errorf("chromeprofile: %w", err)
	}
	if err := restrict(dir); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return res, nil
}

// preferences makes Chromium keep session cookies at start-up ("continue
// where you left off") and says the last run ended cleanly, so nothing
// offers to restore a crashed session.
var preferences = map[string]any{
	"session": map[string]any{"restore_on_startup": 1},
	"profile": map[string]any{"exit_type": "Normal", "exited_cleanly": true},
}

// localState names the one profile.
var localState = map[string]any{
	"profile": map[string]any{"info_cache": map[string]any{profileDir: map[string]any{"name": "browserd"}}},
}

// prepareDir makes dir (0700) if it is missing and refuses it if it holds
// anything. created says whether Build made it.
func prepareDir(dir string) (created bool, err error) {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return false, fmt.Errorf("chromeprofile: %w", err)
		}
		return true, nil
	case err != nil:
		return false, fmt.Errorf("chromeprofile: %w", err)
	case !fi.IsDir():
		return false, fmt.Errorf("chromeprofile: %s is not a directory", dir)
	}
	f, err := os.Open(dir)
	if err != nil {
		return false, fmt.Errorf("chromeprofile: %w", err)
	}
	names, err := f.Readdirnames(1)
	f.Close()
	if len(names) > 0 {
		return false, fmt.Errorf("chromeprofile: %s is not empty (it has %s); a profile is only built into an empty or new directory", dir, names[0])
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return false, fmt.Errorf("chromeprofile: %w", err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return false, fmt.Errorf("chromeprofile: %w", err)
	}
	return false, nil
}

// cleanup removes what Build wrote: dir itself if Build made it, else
// everything in it (it was empty).
func cleanup(dir string, created bool) {
	if created {
		os.RemoveAll(dir)
		return
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		os.RemoveAll(filepath.Join(dir, e.Name()))
	}
}

func writeJSON(path string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("chromeprofile: %w", err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		return fmt.Errorf("chromeprofile: %w", err)
	}
	return nil
}

// restrict makes every folder under dir 0700 and every file 0600: goleveldb
// and SQLite create theirs with wider modes.
func restrict(dir string) error {
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		mode := fs.FileMode(0o600)
		if d.IsDir() {
			mode = 0o700
		}
		return os.Chmod(path, mode)
	})
	if err != nil {
		return fmt.Errorf("chromeprofile: %w", err)
	}
	return nil
}
