package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/browserd/browserd/internal/chromeprofile"
	"github.com/browserd/browserd/internal/storagestate"
	"github.com/browserd/browserd/internal/userdata"
)

// profileCmd works on Chrome profiles without the daemon.
type profileCmd struct {
	Build profileBuildCmd `cmd:"" help:"Write a Chrome user-data-dir from a storageState: stock Chromium opens it logged in."`
}

type profileBuildCmd struct {
	State string `name:"state" required:"" type:"existingfile" help:"A Playwright storageState JSON file."`
	Out   string `name:"out" required:"" help:"Folder to create (must not exist, or be empty, or hold an earlier build); pass it to Chromium as --user-data-dir, or to browserd as --user-data-dir / AGENT_BROWSER_PROFILE."`
	Force bool   `name:"force" help:"Convert again over an earlier build of another version of the state (what the browser did in the folder since is lost)."`
}

// run converts the state into the folder, once per version of the state:
// the folder notes its source (path, size, modification time, SHA-256),
// and a run with the same source on it finds it up to date instead of
// converting again — so a start-up script can run it every time (source
// 003's FR-3). A folder built from another version is refused unless
// --force; a non-empty folder browserd did not build, always.
func (c *profileBuildCmd) run(ctx context.Context, e *env) error {
	data, err := os.ReadFile(c.State)
	if err != nil {
		return err
	}
	src, err := fileSource(c.State, data)
	if err != nil {
		return err
	}
	dir, err := filepath.Abs(c.Out)
	if err != nil {
		return err
	}
	old, built, err := userdata.ReadSource(dir)
	if err != nil {
		return err
	}
	if built && old.Same(src) {
		if e.g.JSON {
			return writeJSON(e.stdout, map[string]any{"dir": dir, "upToDate": true, "converted": old.Converted})
		}
		fmt.Fprintln(e.stdout, dir)
		fmt.Fprintf(e.stderr, "%s is up to date: converted from this version of %s at %s; not converted again\n", dir, c.State, old.Converted.Local().Format(time.DateTime))
		return nil
	}
	if built {
		if !c.Force {
			return fmt.Errorf("%s was converted from another version of %s (at %s) and may have been used since: give --force to convert again (what a browser did in it is lost), or choose another --out", dir, old.Name, old.Converted.Local().Format(time.DateTime))
		}
		if err := os.RemoveAll(dir); err != nil {
			return fmt.Errorf("removing the earlier build %s: %w", dir, err)
		}
	}
	st, err := storagestate.Parse(data)
	if err != nil {
		return fmt.Errorf("%s: %w", c.State, err)
	}
	start := time.Now()
	res, err := chromeprofile.Build(ctx, st, dir, start)
	if err != nil {
		return err
	}
	src.Converted = start.UTC()
	if err := userdata.WriteSource(dir, src); err != nil {
		return fmt.Errorf("noting the source in %s: %w", dir, err)
	}
	if e.g.JSON {
		return writeJSON(e.stdout, map[string]any{"dir": dir, "cookies": res.Cookies, "origins": res.Origins, "items": res.Items, "skipped": res.Skipped})
	}
	// The dir alone on stdout, for tools that take one:
	// AGENT_BROWSER_PROFILE=$(browserd profile build --state s.json --out p)
	fmt.Fprintln(e.stdout, dir)
	fmt.Fprintf(e.stderr, "wrote %d cookies and %d localStorage items of %d origins in %s; open with: chromium --user-data-dir=%s\n",
		res.Cookies, res.Items, res.Origins, time.Since(start).Round(time.Millisecond), dir)
	for _, s := range res.Skipped {
		fmt.Fprintln(e.stderr, "skipped:", s)
	}
	if res.Cookies == 0 && len(st.Cookies) > 0 {
		return errors.New("no cookie could be written (see skipped)")
	}
	return nil
}

// fileSource names a state file as a converted folder notes it.
func fileSource(path string, data []byte) (userdata.Source, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return userdata.Source{}, err
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return userdata.Source{}, err
	}
	sum := sha256.Sum256(data)
	return userdata.Source{Kind: "file", Name: abs, Size: fi.Size(), Modified: fi.ModTime().UTC(), Hash: hex.EncodeToString(sum[:])}, nil
}
