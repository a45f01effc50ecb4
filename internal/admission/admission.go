// Package admission decides whether a browser tool call may run, before
// it runs: the operator's --deny-actions first, then the call's policy
// (package policy: its token's, else the daemon's default); a confirm
// rule holds the call until a person approves it on the dashboard (a
// timeout denies). It also says which policies an owner's agents run
// under, for status, the dashboard and the API.
//
// The engine wires a Gate (its room) and calls Admit at the start of each
// call; the hosts a tab may be on are checked by the engine as the call
// goes (policy.CheckURL).
package admission

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/browserd/browserd/internal/auth"
	"github.com/browserd/browserd/internal/cluster"
	"github.com/browserd/browserd/internal/config"
	"github.com/browserd/browserd/internal/notify"
	"github.com/browserd/browserd/internal/policy"
	"github.com/browserd/browserd/internal/redact"
	"github.com/browserd/browserd/internal/sessions"
	"github.com/browserd/browserd/internal/store"
	"github.com/browserd/browserd/internal/tool"
	"github.com/browserd/browserd/internal/urlpolicy"
)

// Owners is what the gate needs to know of owners: their redactor (what
// the dashboard shows of a waiting call hides their secrets' values) and
// the tokens that carry their policies.
type Owners interface {
	// Redactor is owner's redactor, nil when it has no secrets.
	Redactor(ctx context.Context, owner string) *redact.Redactor
	// Tokens is the store's tokens, nil when it keeps none.
	Tokens() auth.Store
}

// Gate admits calls, and holds those that wait for a person's approval.
type Gate struct {
	*sessions.Registry
	Owners Owners

	mu      sync.Mutex
	pending map[string]*waiting // by id
}

// waiting is one call that waits for a person.
type waiting struct {
	owner  string
	view   policy.Pending
	answer chan approval // buffered: the person's answer, at most one
}

type approval struct {
	ok  bool
	who string
}

// PolicyOf is the policy a call of ctx runs under: its token's, else the
// daemon's default (nil allows all).
func (g *Gate) PolicyOf(ctx context.Context) *policy.Policy {
	if p := policy.From(ctx); p != nil {
		return p
	}
	return g.Cfg.DefaultPolicy()
}

// Admit decides whether a call may run: --deny-actions first (the
// operator's, whatever the token's policy), then the call's policy; a
// confirm rule waits for a person. A call another node forwarded was
// admitted there. orig is the call as its caller sent it, for the
// dashboard. A refusal is a *tool.Error, the agent's to read.
func (g *Gate) Admit(ctx context.Context, owner string, orig tool.Input, pol *policy.Policy) error {
	if g.Cfg.Denied(orig.Action) {
		return tool.Fail("action %q is turned off on this server (--deny-actions)", orig.Action)
	}
	if (orig.Action == "navigate" || orig.Action == "tab_new") && orig.URL != "" {
		// Before a tab is opened for it (the engine checks again).
		if u, err := urlpolicy.Parse(orig.URL); err == nil {
			if d := pol.CheckURL(u.String()); d.Verdict == policy.Denied {
				return tool.Fail("%s", d.Message("navigation to "+u.String()))
			}
		}
	}
	if cluster.Forwarded(ctx) {
		return nil
	}
	d := pol.Decide(orig)
	switch d.Verdict {
	case policy.Denied:
		return tool.Fail("%s", d.Message("action "+orig.Action))
	case policy.Confirm:
		return g.askPerson(ctx, owner, orig, pol, d)
	}
	return nil
}

// askPerson holds a call a confirm rule names until a person approves it
// (nil) or denies it, or the policy's confirm timeout passes (denied).
func (g *Gate) askPerson(ctx context.Context, owner string, orig tool.Input, pol *policy.Policy, d policy.Decision) error {
	id := make([]byte, 6)
	rand.Read(id)
	timeout := pol.Timeout()
	now := time.Now()
	w := &waiting{owner: owner, answer: make(chan approval, 1), view: policy.Pending{
		ID: "c" + hex.EncodeToString(id), Action: orig.Action, Session: orig.Session, Task: orig.Task, Tab: orig.Tab,
		Args: confirmArgs(orig, g.Owners.Redactor(ctx, owner)), Rule: d.Rule, Policy: Source(d.Source),
		Asked: now.UTC(), Until: now.Add(timeout).UTC(),
	}}
	g.mu.Lock()
	if g.pending == nil {
		g.pending = map[string]*waiting{}
	}
	g.pending[w.view.ID] = w
	g.mu.Unlock()
	defer func() {
		g.mu.Lock()
		delete(g.pending, w.view.ID)
		g.mu.Unlock()
	}()
	g.Log.Info("a call waits for a person's approval", "owner", owner, "action", orig.Action, "rule", d.Rule, "id", w.view.ID)
	if hook := g.Cfg.NotifyURL; hook != "" {
		// Off the call's path: the dashboard lists the call anyway.
		note := map[string]string{"event": "confirm", "owner": owner, "session": orig.Session, "task": orig.Task, "tab": orig.Tab,
			"action": orig.Action, "rule": d.Rule, "policy": w.view.Policy, "id": w.view.ID}
		if g.Dashboard != "" {
			note["dashboardUrl"] = g.Dashboard + "/"
		}
		go func() {
			if err := notify.Post(context.WithoutCancel(ctx), hook, note); err != nil {
				g.Log.Warn("the approval notification failed", "err", err)
			}
		}()
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case a := <-w.answer:
		if a.ok {
			g.Log.Info("a person approved a call", "owner", owner, "action", orig.Action, "id", w.view.ID, "by", a.who)
			return nil
		}
		return tool.Fail("action %s refused by a person (%s; rule: %s, which asks a person first): do without it, or ask them why", orig.Action, Source(d.Source), d.Rule)
	case <-t.C:
		return tool.Fail("action %s refused: nobody approved it within %s (%s; rule: %s, which asks a person first on the dashboard) — try again when someone watches, or do without it", orig.Action, timeout, Source(d.Source), d.Rule)
	case <-ctx.Done():
		return tool.Fail("action %s not run: the call ended while it waited for a person's approval (%s; rule: %s)", orig.Action, Source(d.Source), d.Rule)
	}
}

// Source names where a policy comes from, for the agent and the
// dashboard: its token, or the daemon's default.
func Source(s string) string {
	if s == "" {
		return config.DefaultPolicySource
	}
	return s
}

// confirmArgs is what the dashboard shows of a call: its arguments as
// JSON, without the ones that hold credentials and with every stored
// secret's value redacted.
func confirmArgs(in tool.Input, red *redact.Redactor) string {
	in.State, in.HTTPCredentials, in.ClientCertificates, in.Proxy = nil, nil, nil, nil
	for _, s := range []*string{&in.URL, &in.Text, &in.Expression, &in.Value, &in.Selector, &in.Name, &in.Key, &in.Reason, &in.Filter, &in.TextGone, &in.To} {
		*s = red.String(*s)
	}
	in.Values = slices.Clone(in.Values)
	red.Strings(in.Values)
	in.Fields = slices.Clone(in.Fields)
	for i := range in.Fields {
		in.Fields[i].Value = red.String(in.Fields[i].Value)
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(in); err != nil {
		return "{}"
	}
	return red.String(strings.TrimSpace(b.String()))
}

// PendingConfirms lists the calls of the caller's owner that wait for a
// person's approval, oldest first.
func (g *Gate) PendingConfirms(ctx context.Context) []policy.Pending {
	owner := auth.Owner(ctx)
	g.mu.Lock()
	defer g.mu.Unlock()
	out := []policy.Pending{}
	for _, w := range g.pending {
		if w.owner == owner {
			out = append(out, w.view)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Asked.Before(out[j].Asked) })
	return out
}

// AnswerConfirm gives a person's answer to a waiting call of the caller's
// owner: approve runs it, otherwise it is refused.
func (g *Gate) AnswerConfirm(ctx context.Context, id string, approve bool, who string) error {
	owner := auth.Owner(ctx)
	g.mu.Lock()
	w := g.pending[id]
	if w == nil || w.owner != owner {
		g.mu.Unlock()
		return fmt.Errorf("%w: no call %q waits for approval (answered already, timed out, or not yours)", store.ErrNotFound, id)
	}
	delete(g.pending, id)
	g.mu.Unlock()
	w.answer <- approval{ok: approve, who: who}
	return nil
}

// OwnerPolicies are the policies the caller's owner's agents run under:
// the daemon's default (for tokens without one and the Unix socket), then
// each of the owner's tokens that has its own.
func (g *Gate) OwnerPolicies(ctx context.Context) []policy.View {
	out := []policy.View{policy.ViewOf(g.Cfg.DefaultPolicy(), config.DefaultPolicySource)}
	ts := g.Owners.Tokens()
	if ts == nil {
		return out
	}
	list, err := ts.ListTokens(ctx, auth.Owner(ctx))
	if err != nil {
		g.Log.Warn("listing the owner's tokens for their policies failed", "err", err)
		return out
	}
	for _, t := range list {
		if t.Policy != nil {
			v := policy.ViewOf(t.Policy.Named(t.PolicySource()), "")
			v.Label = t.Label
			out = append(out, v)
		}
	}
	return out
}

// PolicyStatus is status's line on the caller's policy.
func (g *Gate) PolicyStatus(ctx context.Context) string {
	p := g.PolicyOf(ctx)
	if p.Empty() {
		return "policy: none (every action allowed; browserd token create --policy, or serve --default-policy, sets one)"
	}
	return fmt.Sprintf("policy (%s): %s", Source(p.Source), p.String())
}
