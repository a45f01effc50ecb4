package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/browserd/browserd/internal/auth"
	"github.com/browserd/browserd/internal/tool"
)

// Owners. Every session and profile belongs to one owner (see package
// auth). Inside the engine, and in the store, a name is qualified by its
// owner — "bob~work" is owner bob's "work" — except admin's, which stay
// bare so that a daemon used only over its socket looks as it always did.
// Names the tool accepts cannot contain '~', so no caller can spell
// another owner's name: other owners' sessions are simply not there.

// ownerSep separates owner and name in a qualified name.
const ownerSep = "~"

// qualify is owner's name as the engine keys it.
func qualify(owner, name string) string {
	if owner == auth.Admin || owner == "" || name == "" {
		return name
	}
	return owner + ownerSep + name
}

// splitName is the owner and the bare name of a qualified name.
func splitName(q string) (owner, name string) {
	if o, n, ok := strings.Cut(q, ownerSep); ok {
		return o, n
	}
	return auth.Admin, q
}

// bareName is a qualified name without its owner.
func bareName(q string) string {
	_, n := splitName(q)
	return n
}

// checkQualified checks both parts of a qualified name.
func checkQualified(what, q string) error {
	owner, name := splitName(q)
	if err := auth.CheckOwner(owner); err != nil {
		return err
	}
	if name == "" {
		return fmt.Errorf("empty %s name", what)
	}
	return checkName(what, name)
}

// forOwner rewrites a call's names into owner's namespace. It fails for
// names that are not valid bare names, and for other owners than admin
// when the daemon is attached to a browser (--cdp): there every session
// shares the browser's one cookie jar.
func (e *Engine) forOwner(ctx context.Context, in *tool.Input) (owner string, err error) {
	owner = auth.Owner(ctx)
	if err := e.ownerAllowed(owner); err != nil {
		return owner, err
	}
	if err := e.resolveFolder(owner, in); err != nil {
		return owner, err
	}
	if in.Session != "" {
		if err := checkName("session", in.Session); err != nil {
			return owner, err
		}
	}
	if in.Profile != "" {
		if err := checkName("profile", in.Profile); err != nil {
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
	in.Session = qualify(owner, in.Session)
	in.Profile = qualify(owner, in.Profile)
	return owner, nil
}

// ownerAllowed refuses other owners than admin on an attached browser.
func (e *Engine) ownerAllowed(owner string) error {
	if e.Cfg.CDP != "" && owner != auth.Admin {
		return fmt.Errorf("this browserd is attached to a browser (--cdp) whose sessions share one login, so only admin may use it")
	}
	return nil
}

// unqualifyResult takes owner's prefix off every name in a result.
func unqualifyResult(owner string, r *tool.Result) {
	if owner == auth.Admin {
		return
	}
	p := owner + ownerSep
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
