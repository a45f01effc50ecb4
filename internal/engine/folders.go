package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/browserd/browserd/internal/auth"
	"github.com/browserd/browserd/internal/chromeprofile"
	"github.com/browserd/browserd/internal/sessions"
	"github.com/browserd/browserd/internal/tool"
	"github.com/browserd/browserd/internal/userdata"
)

// Folder sessions. A call may name a Chromium user-data-dir of its own
// (userDataDir; the CLI's --user-data-dir and source 003's
// AGENT_BROWSER_PROFILE): the session then runs in a browser of its own on
// that folder, in its default context — the one whose files Chromium reads,
// so a folder that `browserd profile build` wrote, or a copy of a Chrome
// profile, opens logged in. Unlike a profile's folder, it is the caller's:
// browserd neither seals it when the browser stops, nor moves it aside when
// Chromium cannot start on it, nor saves a state beside it; it is taken
// only inside the owner's allowed roots (package userdata). One session
// runs on a folder at a time; with no session named, it is the folder's
// own, folderSession.

// userDataRoots are the folders inside which owner may name a
// user-data-dir: --user-data-root for admin, owners/NAME/folders for the
// others.
func (e *Engine) UserDataRoots(owner string) []string {
	if owner == "" || owner == auth.Admin {
		return e.Cfg.UserDataRoots
	}
	return []string{e.ownerFolder(owner, "folders")}
}

// resolveFolder checks the folder a call names for owner, and puts its
// real path in the call; a call that names no session gets the folder's.
func (e *Engine) resolveFolder(owner string, in *tool.Input) error {
	if in.UserDataDir == "" {
		return nil
	}
	if e.Cfg.CDP != "" {
		return fail("userDataDir: this browserd is attached to a browser (--cdp), which runs on the folder it was started with")
	}
	hint := "copy the folder there, or start browserd with --user-data-root set to a folder that holds it"
	if owner != "" && owner != auth.Admin {
		hint = "name a folder inside " + e.ownerFolder(owner, "folders")
	}
	real, err := userdata.Resolve(e.UserDataRoots(owner), in.UserDataDir, hint)
	if err != nil {
		return err
	}
	in.UserDataDir = real
	if in.Session == "" {
		in.Session = sessions.FolderSession(real)
	}
	return nil
}

// checkFolder refuses a session on folder dir when another live session
// runs on it (Chromium locks a user-data-dir). Call with mu held.
func (e *Engine) CheckFolder(id, dir string) error {
	for _, o := range e.Sessions {
		if o.ID != id && o.Dir == dir && o.Stored && !o.Parked {
			return fail("folder %s is in use by session %q (Chromium runs one browser on a folder): use that session, or name another folder", dir, sessions.BareName(o.ID))
		}
	}
	return nil
}

// convertInto writes the state a launch injects into the new folder
// session's folder, as a Chrome profile (source 003's conversion), when
// the folder is empty: Chromium then starts on it logged in, and the
// folder stays a profile stock Chromium opens. It notes the source in the
// folder, so that a later launch of the same source on it is not
// converted again. A folder that holds anything already is left as it is;
// the state then goes in over CDP like any injected state.
func (c *call) convertInto(ctx context.Context, s *sessions.Session) error {
	inj := c.inj
	if inj == nil || inj.state == nil || s.Dir == "" || !c.opened {
		return nil
	}
	src := inj.source()
	if old, ok, err := userdata.ReadSource(s.Dir); err == nil && ok && old.Same(src) {
		c.res.Notes = append(c.res.Notes, fmt.Sprintf("folder %s was converted from this %s already (%s): not converted again; the state goes in over CDP on top of what the folder holds now", s.Dir, src.Kind, old.Converted.Local().Format(time.DateTime)))
		return nil
	}
	empty, err := userdata.Empty(s.Dir)
	if err != nil || !empty {
		return err
	}
	st := *inj.state
	st.Cookies = slices.Clone(st.Cookies)
	st.Exclude(append(c.e.ExcludedFor(ctx, s), c.e.Cfg.ExcludeCookieDomains...))
	start := time.Now()
	res, err := chromeprofile.Build(ctx, &st, s.Dir, start)
	if err != nil {
		return fmt.Errorf("converting the state into folder %s: %w", s.Dir, err)
	}
	src.Converted = start.UTC()
	if err := userdata.WriteSource(s.Dir, src); err != nil {
		c.e.Log.Warn("noting a converted folder's source failed", "err", err)
	}
	inj.converted = true
	c.res.Notes = append(c.res.Notes, fmt.Sprintf("converted the state into folder %s as a Chrome profile (%d cookies, %d localStorage items of %d origins, %s); stock Chromium opens it logged in too",
		s.Dir, res.Cookies, res.Items, res.Origins, time.Since(start).Round(time.Millisecond)))
	for _, sk := range res.Skipped {
		c.res.Notes = append(c.res.Notes, "not converted: "+sk)
	}
	return nil
}

// source names what the injected state came from, for a converted
// folder's note: the stored session (stored sessions never change), or
// the inline state's hash.
func (inj *injection) source() userdata.Source {
	b, _ := json.Marshal(inj.state)
	sum := sha256.Sum256(b)
	src := userdata.Source{Kind: "inline", Hash: hex.EncodeToString(sum[:])}
	if inj.stored != "" {
		src.Kind, src.Name, src.Modified = "stored", inj.stored, inj.storedAt.UTC()
	}
	return src
}
