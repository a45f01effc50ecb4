package engine

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
	"github.com/browserd/browserd/internal/policy"
	"github.com/browserd/browserd/internal/redact"
	"github.com/browserd/browserd/internal/store"
	"github.com/browserd/browserd/internal/tool"
	"github.com/browserd/browserd/internal/urlpolicy"
)

// An owner's say over what its agents do (package policy): the call's
// policy (its token's, else the daemon's default), the decision before a
// call runs, a person's approval for a confirm rule (the dashboard shows
// the waiting call; a timeout denies), and the hosts a tab may be on.

// policyOf is the policy a call of ctx runs under: its token's, else the
// daemon's default.
func (e *Engine) policyOf(ctx context.Context) *policy.Policy {
	if p := policy.From(ctx); p != nil {
		return p
	}
	return e.Cfg.DefaultPolicy()
}

// PolicyOf is the policy the caller of ctx runs under (nil allows all),
// for the dashboard and the API.
func (e *Engine) PolicyOf(ctx context.Context) *policy.Policy { return e.policyOf(ctx) }

// admit decides whether a call may run: --deny-actions first (the
// operator's, whatever the token's policy), then the call's policy; a
// confirm rule waits for a person. A call another node forwarded was
// admitted there. orig is the call as its caller sent it, for the
// dashboard.
func (e *Engine) admit(ctx context.Context, owner string, orig tool.Input, pol *policy.Policy) error {
	if e.Cfg.Denied(orig.Action) {
		return fail("action %q is turned off on this server (--deny-actions)", orig.Action)
	}
	if (orig.Action == "navigate" || orig.Action == "tab_new") && orig.URL != "" {
		// Before a tab is opened for it (checkNav checks again).
		if u, err := urlpolicy.Parse(orig.URL); err == nil {
			if d := pol.CheckURL(u.String()); d.Verdict == policy.Denied {
				return fail("%s", d.Message("navigation to "+u.String()))
			}
		}
	}
	if cluster.Forwarded(ctx) {
		return nil
	}
	d := pol.Decide(orig)
	switch d.Verdict {
	case policy.Denied:
		return fail("%s", d.Message("action "+orig.Action))
	case policy.Confirm:
		return e.askPerson(ctx, owner, orig, pol, d)
	}
	return nil
}

// confirms are the calls that wait for a person's approval, by id.
type confirms struct {
	mu      sync.Mutex
	pending map[string]*waiting
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

// askPerson holds a call a confirm rule names until a person approves it
// (nil) or denies it, or the policy's confirm timeout passes (denied).
func (e *Engine) askPerson(ctx context.Context, owner string, orig tool.Input, pol *policy.Policy, d policy.Decision) error {
	id := make([]byte, 6)
	rand.Read(id)
	timeout := pol.Timeout()
	now := time.Now()
	w := &waiting{owner: owner, answer: make(chan approval, 1), view: policy.Pending{
		ID: "c" + hex.EncodeToString(id), Action: orig.Action, Session: orig.Session, Task: orig.Task, Tab: orig.Tab,
		Args: confirmArgs(orig, e.redactor(ctx, owner)), Rule: d.Rule, Policy: policySource(d.Source),
		Asked: now.UTC(), Until: now.Add(timeout).UTC(),
	}}
	e.confirms.mu.Lock()
	if e.confirms.pending == nil {
		e.confirms.pending = map[string]*waiting{}
	}
	e.confirms.pending[w.view.ID] = w
	e.confirms.mu.Unlock()
	defer func() {
		e.confirms.mu.Lock()
		delete(e.confirms.pending, w.view.ID)
		e.confirms.mu.Unlock()
	}()
	e.Log.Info("a call waits for a person's approval", "owner", owner, "action", orig.Action, "rule", d.Rule, "id", w.view.ID)
	if hook := e.Cfg.NotifyURL; hook != "" {
		// Off the call's path: the dashboard lists the call anyway.
		note := map[string]string{"event": "confirm", "owner": owner, "session": orig.Session, "task": orig.Task, "tab": orig.Tab,
			"action": orig.Action, "rule": d.Rule, "policy": w.view.Policy, "id": w.view.ID}
		if e.Dashboard != "" {
			note["dashboardUrl"] = e.Dashboard + "/"
		}
		go func() {
			if err := e.postNote(context.WithoutCancel(ctx), hook, note); err != nil {
				e.Log.Warn("the approval notification failed", "err", err)
			}
		}()
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case a := <-w.answer:
		if a.ok {
			e.Log.Info("a person approved a call", "owner", owner, "action", orig.Action, "id", w.view.ID, "by", a.who)
			return nil
		}
		return fail("action %s refused by a person (%s; rule: %s, which asks a person first): do without it, or ask them why", orig.Action, policySource(d.Source), d.Rule)
	case <-t.C:
		return fail("action %s refused: nobody approved it within %s (%s; rule: %s, which asks a person first on the dashboard) — try again when someone watches, or do without it", orig.Action, timeout, policySource(d.Source), d.Rule)
	case <-ctx.Done():
		return fail("action %s not run: the call ended while it waited for a person's approval (%s; rule: %s)", orig.Action, policySource(d.Source), d.Rule)
	}
}

func policySource(s string) string {
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
func (e *Engine) PendingConfirms(ctx context.Context) []policy.Pending {
	owner := auth.Owner(ctx)
	e.confirms.mu.Lock()
	defer e.confirms.mu.Unlock()
	out := []policy.Pending{}
	for _, w := range e.confirms.pending {
		if w.owner == owner {
			out = append(out, w.view)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Asked.Before(out[j].Asked) })
	return out
}

// AnswerConfirm gives a person's answer to a waiting call of the caller's
// owner: approve runs it, otherwise it is refused.
func (e *Engine) AnswerConfirm(ctx context.Context, id string, approve bool, who string) error {
	owner := auth.Owner(ctx)
	e.confirms.mu.Lock()
	w := e.confirms.pending[id]
	if w == nil || w.owner != owner {
		e.confirms.mu.Unlock()
		return fmt.Errorf("%w: no call %q waits for approval (answered already, timed out, or not yours)", store.ErrNotFound, id)
	}
	delete(e.confirms.pending, id)
	e.confirms.mu.Unlock()
	w.answer <- approval{ok: approve, who: who}
	return nil
}

// OwnerPolicies are the policies the caller's owner's agents run under:
// the daemon's default (for tokens without one and the Unix socket), then
// each of the owner's tokens that has its own.
func (e *Engine) OwnerPolicies(ctx context.Context) []policy.View {
	out := []policy.View{policy.ViewOf(e.Cfg.DefaultPolicy(), config.DefaultPolicySource)}
	ts := e.Tokens()
	if ts == nil {
		return out
	}
	list, err := ts.ListTokens(ctx, auth.Owner(ctx))
	if err != nil {
		e.Log.Warn("listing the owner's tokens for their policies failed", "err", err)
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

// checkHosts fails a navigation the call's policy refuses (its hosts).
func (c *call) checkHosts(u string) error {
	if d := c.pol.CheckURL(u); d.Verdict == policy.Denied {
		return &userError{Msg: d.Message("navigation to " + u)}
	}
	return nil
}

// outsideHosts refuses an action on a tab that is already outside the
// policy's hosts — a popup the page opened, a tab a resume brought back —
// before it reads anything: the tab is emptied. Opening a listed page
// in it, or closing it, goes ahead.
func (c *call) outsideHosts(ctx context.Context) error {
	if c.pol == nil || len(c.pol.Hosts) == 0 || c.tab == nil || c.tab.Page.Closed() {
		return nil
	}
	switch c.in.Action {
	case "navigate", "tab_new", "tab_close", "tab_switch":
		return nil
	}
	u, _, err := c.tab.Page.Info(ctx)
	if err != nil {
		return nil // the action finds out; leftHosts checks after it
	}
	d := c.pol.CheckURL(u.Unwrap())
	if d.Verdict != policy.Denied {
		return nil
	}
	c.res.URL = u.Unwrap()
	c.emptyTab(ctx)
	return &userError{Msg: fmt.Sprintf("tab %s is on a page outside the listed hosts (one the page opened or led it to), so it was emptied (about:blank) and %s did not run; the address is in the details (refused by policy: %s; rule: %s) — navigate to a listed host", c.tab.ID, c.in.Action, policySource(d.Source), d.Rule)}
}

// emptyTab replaces the page of the call's tab, which is outside the
// policy's hosts, by about:blank, and drops what the answer holds of it.
func (c *call) emptyTab(ctx context.Context) {
	bctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := c.tab.Page.Navigate(bctx, "about:blank"); err != nil {
		c.e.Log.Warn("emptying a tab that left the policy's hosts failed", "tab", c.tab.ID, "err", err)
	}
	c.res.Details = append(c.res.Details, "outside the listed hosts: "+c.res.URL)
	c.res.URL, c.res.Title, c.res.Content = "about:blank", "", ""
	c.res.Image, c.res.ScreenshotPath, c.res.ScreenshotURL, c.res.Path, c.res.PDFURL = nil, "", "", "", ""
	c.e.Mu.Lock()
	c.tab.LastSnap, c.tab.LastFrames, c.tab.Journal = "", nil, 0
	c.e.Mu.Unlock()
}

// leftHosts empties the call's tab when the page took it outside the
// policy's hosts (a link, a redirect, a script): the page is replaced by
// about:blank and the call fails, naming the rule. The request that left
// was made; what the page would have shown is not read.
func (c *call) leftHosts(ctx context.Context) error {
	if c.pol == nil || len(c.pol.Hosts) == 0 || c.tab == nil || c.tab.Page.Closed() || c.res.URL == "" {
		return nil
	}
	d := c.pol.CheckURL(c.res.URL)
	if d.Verdict != policy.Denied {
		return nil
	}
	c.emptyTab(ctx)
	return &userError{Msg: fmt.Sprintf("the page led the tab outside the listed hosts, so it was emptied (about:blank); the address is in the details (refused by policy: %s; rule: %s) — navigate to a listed host", policySource(d.Source), d.Rule)}
}

// policyStatus is status's line on the caller's policy.
func (e *Engine) policyStatus(ctx context.Context) string {
	p := e.policyOf(ctx)
	if p.Empty() {
		return "policy: none (every action allowed; browserd token create --policy, or serve --default-policy, sets one)"
	}
	return fmt.Sprintf("policy (%s): %s", policySource(p.Source), p.String())
}
