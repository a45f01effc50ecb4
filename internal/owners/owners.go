// Package owners puts each call in its owner's namespace: every call acts
// for one owner (package auth), and the names it gives are qualified by
// it (sessions.Qualify) on the way in — refused when they are not valid
// bare names, or when the owner may not be served here — and unqualified
// in the result on the way out, so that an owner never sees another's
// prefix, nor its own.
package owners

import (
	"context"
	"strings"

	"github.com/browserd/browserd/internal/auth"
	"github.com/browserd/browserd/internal/sessions"
	"github.com/browserd/browserd/internal/tool"
)

// Checks is what For asks of the daemon: whether it serves owner (an
// attached browser serves admin only), and the folder a call names,
// resolved within owner's roots.
type Checks interface {
	OwnerAllowed(owner string) error
	ResolveFolder(owner string, in *tool.Input) error
}

// For rewrites a call's names into its owner's namespace (the owner in
// ctx, which it returns). It fails for
// names that are not valid bare names, and for other owners than admin
// when the daemon is attached to a browser (--cdp): there every session
// shares the browser's one cookie jar.
func For(ctx context.Context, e Checks, in *tool.Input) (owner string, err error) {
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

// Unqualify takes owner's prefix off every name in a result.
func Unqualify(owner string, r *tool.Result) {
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

// Target is the session a call acts on (names qualified), "" for calls
// that are not about one session.
func Target(in tool.Input) string {
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
