package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/browserd/browserd/internal/browser"
	"github.com/browserd/browserd/internal/nofollow"
	"github.com/browserd/browserd/internal/sessions"
	"github.com/browserd/browserd/internal/storagestate"
)

// stateSave captures the session's cookies (session-only ones included) and
// its tabs' storage as a Playwright storageState, writes it under
// <data>/states and returns it in Result.State — never in Content, which a
// model reads: cookies are credentials.
func (c *call) stateSave(ctx context.Context) error {
	e, s := c.e, c.task.Sess
	st, err := e.CaptureState(ctx, c.slot.Br, s)
	if err != nil {
		return err
	}
	if s.Profile != "" {
		// Storage of origins no tab has open now comes from the saved state.
		if old, _, err := e.LoadProfileState(ctx, s.Profile); err == nil && old != nil {
			old.Cookies = st.Cookies
			old.MergeOrigins(st.Origins)
			st = old
		}
	}
	data, err := st.Marshal()
	if err != nil {
		return err
	}
	path, err := e.DataFile(c.owner, "states", c.in.Path, fmt.Sprintf("%s-%s.json", sessions.BareName(s.ID), browser.Stamp(time.Now())), ".json")
	if err != nil {
		return &userError{Msg: err.Error()}
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return fmt.Errorf("saving the state: %w", err)
	}
	c.res.Path = path
	c.res.State = data
	c.res.Content = fmt.Sprintf("saved %d cookies and the storage of %d origins to %s", len(st.Cookies), len(st.Origins), path)
	return nil
}

// stateLoad puts a storageState into the session: cookies at once, storage
// into every page loaded from now on (before the page's own scripts).
func (c *call) stateLoad(ctx context.Context) error {
	e, s := c.e, c.task.Sess
	data := []byte(c.in.State)
	if len(data) == 0 {
		name := c.in.Path
		if name != filepath.Base(name) || name == ".." || name == "." {
			return fail("path %q must be a file name inside %s", name, e.OwnerFolder(c.owner, "states"))
		}
		b, err := nofollow.ReadFile(filepath.Join(e.OwnerFolder(c.owner, "states"), name), storagestate.MaxBytes)
		if errors.Is(err, nofollow.ErrLink) {
			return fail("state file %q is a symbolic link; state_load reads only regular files inside %s (copy the file there)", name, e.OwnerFolder(c.owner, "states"))
		}
		if err != nil {
			return fail("no state file %q in %s", name, e.OwnerFolder(c.owner, "states"))
		}
		data = b
	}
	st, err := storagestate.Parse(data)
	if err != nil {
		return &userError{Msg: err.Error()}
	}
	excluded, err := e.LoadState(ctx, c.slot, s, st)
	if err != nil {
		return err
	}
	c.res.Content = fmt.Sprintf("loaded %d cookies and the storage of %d origins; storage applies to pages loaded from now on", len(st.Cookies), len(st.Origins))
	if excluded > 0 {
		c.res.Notes = append(c.res.Notes, fmt.Sprintf("%d cookies of excluded domains were left out (--exclude-cookie-domains, or the profile's or session's excludeCookieDomains)", excluded))
	}
	return nil
}
