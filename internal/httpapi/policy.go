package httpapi

import (
	"context"
	"net/http"

	"github.com/browserd/browserd/internal/policy"
	"github.com/browserd/browserd/internal/tool"
)

// Policies is what the API needs to hold a caller to its policy (package
// policy); the engine implements it.
type Policies interface {
	// PolicyOf is the caller's policy: its token's, else the daemon's
	// default; nil allows everything.
	PolicyOf(ctx context.Context) *policy.Policy
}

// PolicyView is the body of GET /api/policy: the caller's policy and
// whose it is.
type PolicyView = policy.View

func (a *api) policyOf(r *http.Request) *policy.Policy {
	if p, ok := a.h.(Policies); ok {
		return p.PolicyOf(r.Context())
	}
	return nil
}

func (a *api) getPolicy(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, policy.ViewOf(a.policyOf(r), "daemon default"))
}

// allowed holds an export of the API to the caller's policy for action
// (state_save for a state or profile export): a deny rule, or a confirm
// rule (no person can approve a download), answers 403 naming the rule.
func (a *api) allowed(w http.ResponseWriter, r *http.Request, action, what string) bool {
	return a.allowedCall(w, r, tool.Input{Action: action}, what)
}

// held serves h only when the caller's policy allows action, the action
// the endpoint does by another door (closing a session is close; listing
// them, list_sessions; a recording's text is what snapshot reads): a
// policy holds by what a call does, not by which door it comes through.
func (a *api) held(action, what string, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if a.allowed(w, r, action, what) {
			h(w, r)
		}
	}
}

// allowedCall is allowed for the call in that an endpoint makes.
func (a *api) allowedCall(w http.ResponseWriter, r *http.Request, in tool.Input, what string) bool {
	action := in.Action
	d := a.policyOf(r).Decide(in)
	switch d.Verdict {
	case policy.Denied:
		writeError(w, http.StatusForbidden, d.Message(what))
		return false
	case policy.Confirm:
		writeError(w, http.StatusForbidden, what+" refused: the policy asks a person first (rule: "+d.Rule+"), which an export cannot wait for — use the "+action+" action, which waits for their approval")
		return false
	}
	return true
}
