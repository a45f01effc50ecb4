package browsers

import (
	"github.com/browserd/browserd/internal/auth"
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

// UserDataRoots are the folders inside which owner may name a
// user-data-dir: --user-data-root for admin, owners/NAME/folders for the
// others.
func (e *Pool) UserDataRoots(owner string) []string {
	if owner == "" || owner == auth.Admin {
		return e.Cfg.UserDataRoots
	}
	return []string{e.OwnerFolder(owner, "folders")}
}

// ResolveFolder checks the folder a call names for owner, and puts its
// real path in the call; a call that names no session gets the folder's.
func (e *Pool) ResolveFolder(owner string, in *tool.Input) error {
	if in.UserDataDir == "" {
		return nil
	}
	if e.Cfg.CDP != "" {
		return tool.Fail("userDataDir: this browserd is attached to a browser (--cdp), which runs on the folder it was started with")
	}
	hint := "copy the folder there, or start browserd with --user-data-root set to a folder that holds it"
	if owner != "" && owner != auth.Admin {
		hint = "name a folder inside " + e.OwnerFolder(owner, "folders")
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

// CheckFolder refuses a session on folder dir when another live session
// runs on it (Chromium locks a user-data-dir). Call with mu held.
func (e *Pool) CheckFolder(id, dir string) error {
	for _, o := range e.Sessions {
		if o.ID != id && o.Dir == dir && o.Stored && !o.Parked {
			return tool.Fail("folder %s is in use by session %q (Chromium runs one browser on a folder): use that session, or name another folder", dir, sessions.BareName(o.ID))
		}
	}
	return nil
}
