package engine

import (
	"context"
	"strings"

	"github.com/browserd/browserd/internal/auth"
	"github.com/browserd/browserd/internal/sessions"
	"github.com/browserd/browserd/internal/tool"
)

// Owners: each call acts for one owner (see package auth), and names are
// qualified by it (sessions.Qualify).

// forOwner rewrites a call's names into owner's namespace. It fails for
// names that are not valid bare names, and for other owners than admin
// when the daemon is attached to a browser (--cdp): there every session
// shares the browser's one cookie jar.
func (e *Engine) forOwner(ctx context.Context, in *tool.Input) (owner string, err error) {
	owner = auth.Owner(ctx)
	if err := e.OwnerAllowed(owner); err != nil {
		return owner, err
	}
	if err := e.ResolveFolder(owner, in); err != nil {
		return owner, err
	}
	if in.Session != "" {
		if err := sessions.CheckName("session", in.Session); err != nil {
			return owner, err
		}
	}
	if in.Profile != "" {
		if err := sessions.CheckName("profile", in.Profile); err != nil {
			return owner, err
		}
	}
	if owner == auth.Admin {
		return owner, nil
	}
	if in.Session == "" && in.Profile == "" {
		switch in.Action {
		case "status", "list_sessions", "session_resume":
		default:
			in.Profile = "default"
		}
	}
	in.Session = sessions.Qualify(owner, in.Session)
	in.Profile = sessions.Qualify(owner, in.Profile)
	return owner, nil
}

// unqualifyResult takes owner's prefix off every name in a result.
func unqualifyResult(owner string, r *tool.Result) {
	if owner == auth.Admin {
		return
	}
	p := owner + sessions.OwnerSep
	strip := func(s string) string { return strings.ReplaceAll(s, p, "") }
	r.Session = strip(r.Session)
	r.Path = strip(r.Path)
	r.Error = strip(r.Error)
	switch r.Action {
	case "status", "launch", "close", "task_end", "state_save", "state_load", "list_sessions", "session_resume":
		r.Content = strip(r.Content) // browserd's words; page text is left alone
	}
	for i := range r.Notes {
		r.Notes[i] = strip(r.Notes[i])
	}
	for i := range r.Details {
		r.Details[i] = strip(r.Details[i])
	}
	for i := range r.Sessions {
		r.Sessions[i].ID = strip(r.Sessions[i].ID)
		r.Sessions[i].Profile = strip(r.Sessions[i].Profile)
		r.Sessions[i].Reason = strip(r.Sessions[i].Reason)
	}
}

// target is the session a call acts on (names qualified), "" for calls
// that are not about one session.
func target(in tool.Input) string {
	switch in.Action {
	case "status", "list_sessions":
		return ""
	}
	switch {
	case in.Session != "":
		return in.Session
	case in.Profile != "":
		return in.Profile
	}
	return "default"
}
