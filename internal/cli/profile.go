package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/browserd/browserd/internal/chromeprofile"
	"github.com/browserd/browserd/internal/storagestate"
)

// profileCmd works on Chrome profiles without the daemon.
type profileCmd struct {
	Build profileBuildCmd `cmd:"" help:"Write a Chrome user-data-dir from a storageState: stock Chromium opens it logged in."`
}

type profileBuildCmd struct {
	State string `name:"state" required:"" type:"existingfile" help:"A Playwright storageState JSON file."`
	Out   string `name:"out" required:"" help:"Folder to create (must not exist, or be empty); pass it to Chromium as --user-data-dir."`
}

func (c *profileBuildCmd) run(ctx context.Context, e *env) error {
	data, err := os.ReadFile(c.State)
	if err != nil {
		return err
	}
	st, err := storagestate.Parse(data)
	if err != nil {
		return fmt.Errorf("%s: %w", c.State, err)
	}
	start := time.Now()
	res, err := chromeprofile.Build(ctx, st, c.Out, time.Now())
	if err != nil {
		return err
	}
	dir, err := filepath.Abs(res.Dir)
	if err != nil {
		return err
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
