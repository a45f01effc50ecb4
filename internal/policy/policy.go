// Package policy is what an owner lets its agents do: which actions and
// kinds of action are allowed, denied or need a person's approval, and
// which hosts the agent may navigate to.
//
// A policy is a small JSON object:
//
//	{"deny":["evaluate","network.bodies"],"confirm":["upload","secret"],
//	 "hosts":["example.com","*.example.org"],"confirmTimeout":"2m"}
//
// deny, allow and confirm take rule names: an action of the browser tool
// (tool.Actions) or a kind of action (Kinds): network.bodies, secret,
// secret:NAME. A call is denied when a deny rule names what it does; when
// allow is given, a call is denied unless allow names everything it does
// (its action and each kind); it waits for a person's approval when a
// confirm rule names what it does. hosts, when given, are the only hosts
// the agent's navigations may go to ("*.example.org" covers example.org
// and its sub-domains; "host:port" one port). "manage": true grants the
// right to manage what is not the agent's work — secrets, tokens, share
// links, the dashboard (MayManage); a token's policy without it cannot.
//
// A token carries its own policy (browserd token create --policy); the
// daemon's --default-policy is the default for tokens without one and for the
// Unix socket and MCP over stdio. The policy travels in the request's
// context (With, From).
package policy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/browserd/browserd/internal/urlpolicy"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/browserd/browserd/internal/tool"
)

// MaxSize bounds a policy's JSON.
const MaxSize = 64 << 10

// DefaultConfirmTimeout is how long a confirm rule waits for a person
// when the policy names no confirmTimeout; the call is denied after it.
const DefaultConfirmTimeout = 2 * time.Minute

// MaxConfirmTimeout bounds confirmTimeout.
const MaxConfirmTimeout = time.Hour

// Kinds are the rule names that are not actions.
var Kinds = map[string]string{
	"network.bodies": "network that reads a request whole (request), writes a HAR file (path), or turns redaction off (redact: false)",
	"secret":         "type or fill with any stored secret",
	"secret:NAME":    "type or fill with the stored secret NAME",
	"navigation":     "take a tab to a URL or through its history: navigate, tab_new with a url, back, forward; a rule on navigate holds for all of them",
	"script":         "run script of the caller's in a page: evaluate, a route that answers with a body or a file (a page of the caller's on the site's origin), an init script (emulate initScript); a rule on evaluate holds for all of them",
}

// Policy is a parsed, valid policy. The zero value (and nil) allows
// everything.
type Policy struct {
	Deny    []string `json:"deny,omitempty"`
	Allow   []string `json:"allow,omitempty"`
	Confirm []string `json:"confirm,omitempty"`
	Hosts   []string `json:"hosts,omitempty"`
	// Manage lets the token manage its owner's secrets, tokens, share
	// links and sign in to the dashboard (MayManage); a policy without it
	// only uses the browser.
	Manage bool `json:"manage,omitempty"`
	// ConfirmTimeout is how long a confirm rule waits for a person, as
	// Go writes a duration ("90s", "2m"); "" is DefaultConfirmTimeout.
	ConfirmTimeout string `json:"confirmTimeout,omitempty"`
	// Source says whose policy it is, for messages: "token tk_…" or
	// "daemon default". Not part of the JSON.
	Source string `json:"-"`

	hosts   []hostPattern
	timeout time.Duration
}

// Parse reads a policy from its JSON and checks it. An empty text, "{}"
// or "null" is the empty policy (nil, nil).
func Parse(b []byte) (*Policy, error) {
	if len(b) > MaxSize {
		return nil, fmt.Errorf("policy: %d bytes, more than the %d a policy may have", len(b), MaxSize)
	}
	b = bytes.TrimSpace(b)
	if len(b) == 0 || string(b) == "null" {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var r rawPolicy
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("policy: not a policy object (%w); write it like {\"deny\":[\"evaluate\"],\"confirm\":[\"upload\"],\"hosts\":[\"example.com\"]}", err)
	}
	if dec.More() {
		return nil, errors.New("policy: text after the policy object; give one JSON object")
	}
	p := Policy{Deny: r.Deny, Allow: r.Allow, Confirm: r.Confirm, Hosts: r.Hosts, Manage: r.Manage, ConfirmTimeout: r.ConfirmTimeout}
	if err := p.check(); err != nil {
		return nil, err
	}
	if p.Empty() {
		return nil, nil
	}
	return &p, nil
}

// rawPolicy is a policy's JSON as it comes, before check.
type rawPolicy struct {
	Deny           []string `json:"deny"`
	Allow          []string `json:"allow"`
	Confirm        []string `json:"confirm"`
	Hosts          []string `json:"hosts"`
	Manage         bool     `json:"manage"`
	ConfirmTimeout string   `json:"confirmTimeout"`
}

// UnmarshalJSON reads a policy through Parse: a policy read from JSON is
// always checked (its hosts and timeout parsed).
func (p *Policy) UnmarshalJSON(b []byte) error {
	q, err := Parse(b)
	if err != nil {
		return err
	}
	if q == nil {
		q = &Policy{}
	}
	*p = *q
	return nil
}

// MustParse is Parse for policies written in code (tests); it panics on
// an invalid one.
func MustParse(s string) *Policy {
	p, err := Parse([]byte(s))
	if err != nil {
		panic(err)
	}
	return p
}

// check validates p and fills its parsed parts.
func (p *Policy) check() error {
	lists := []struct {
		name string
		l    *[]string
	}{{"deny", &p.Deny}, {"allow", &p.Allow}, {"confirm", &p.Confirm}}
	for _, l := range lists {
		for i, r := range *l.l {
			r = strings.TrimSpace(r)
			if err := checkRule(r); err != nil {
				return fmt.Errorf("policy: %s[%d]: %w", l.name, i, err)
			}
			(*l.l)[i] = r
		}
		*l.l = dedupe(*l.l)
	}
	for _, r := range p.Deny {
		if slices.Contains(p.Allow, r) {
			return fmt.Errorf("policy: %q is both denied and allowed; keep it in one list", r)
		}
		if slices.Contains(p.Confirm, r) {
			return fmt.Errorf("policy: %q is both denied and to confirm; keep it in one list", r)
		}
	}
	p.hosts = nil
	for i, h := range p.Hosts {
		hp, err := parseHost(h)
		if err != nil {
			return fmt.Errorf("policy: hosts[%d] %q: %w", i, h, err)
		}
		p.Hosts[i] = hp.String()
		p.hosts = append(p.hosts, hp)
	}
	p.Hosts = dedupe(p.Hosts)
	p.timeout = DefaultConfirmTimeout
	if p.ConfirmTimeout != "" {
		d, err := time.ParseDuration(p.ConfirmTimeout)
		if err != nil || d < time.Second || d > MaxConfirmTimeout {
			return fmt.Errorf("policy: confirmTimeout %q: give a duration from 1s to %s, e.g. \"90s\" or \"5m\"", p.ConfirmTimeout, MaxConfirmTimeout)
		}
		p.timeout = d
	}
	return nil
}

func dedupe(l []string) []string {
	var out []string
	for _, s := range l {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// checkRule says what is wrong with a rule name, if anything.
func checkRule(r string) error {
	if slices.Contains(tool.Actions, r) {
		return nil
	}
	if _, ok := Kinds[r]; ok && r != "secret:NAME" {
		return nil
	}
	if name, ok := strings.CutPrefix(r, "secret:"); ok {
		if name == "" || len(name) > 64 {
			return fmt.Errorf("%q: name the secret, e.g. secret:SHOP_PW", r)
		}
		return nil
	}
	return fmt.Errorf("%q is not an action or a kind of action; give an action (%s) or one of network.bodies, secret, secret:NAME", r, strings.Join(tool.Actions, ", "))
}

// Empty reports whether p allows everything.
func (p *Policy) Empty() bool {
	return p == nil || len(p.Deny) == 0 && len(p.Allow) == 0 && len(p.Confirm) == 0 && len(p.Hosts) == 0
}

// Named returns a copy of p whose Source is source (nil for nil).
func (p *Policy) Named(source string) *Policy {
	if p == nil {
		return nil
	}
	q := *p
	q.Source = source
	return &q
}

// JSON is p's canonical JSON ("" for the empty policy).
func (p *Policy) JSON() string {
	if p.Empty() {
		return ""
	}
	b, _ := json.Marshal(p)
	return string(b)
}

// Timeout is how long a confirm rule waits for a person.
func (p *Policy) Timeout() time.Duration {
	if p == nil || p.timeout == 0 {
		return DefaultConfirmTimeout
	}
	return p.timeout
}

// String is p in one line, for status: "deny evaluate, network.bodies;
// confirm upload; hosts example.com".
func (p *Policy) String() string {
	if p.Empty() {
		return "allows every action"
	}
	var parts []string
	add := func(what string, l []string) {
		if len(l) > 0 {
			parts = append(parts, what+" "+strings.Join(l, ", "))
		}
	}
	add("deny", p.Deny)
	add("allow only", p.Allow)
	add("confirm", p.Confirm)
	add("hosts", p.Hosts)
	if p.Manage {
		parts = append(parts, "manages secrets, tokens and the dashboard")
	}
	if len(p.Confirm) > 0 {
		parts = append(parts, "a person has "+p.Timeout().String()+" to confirm")
	}
	return strings.Join(parts, "; ")
}

// Verdict is what a policy says of a call.
type Verdict int

const (
	// Allowed: the call goes ahead.
	Allowed Verdict = iota
	// Denied: the call fails, naming the rule.
	Denied
	// Confirm: the call waits for a person's approval.
	Confirm
)

// Decision is a policy's verdict on a call and the rule that made it.
type Decision struct {
	Verdict Verdict
	// Rule names the rule: `deny "evaluate"`, `not in allow`,
	// `confirm "upload"`, `hosts`.
	Rule string
	// Source is the policy's (Policy.Source).
	Source string
}

// Message is what a denied call answers: the policy and its rule.
func (d Decision) Message(action string) string {
	return fmt.Sprintf("%s refused by policy (%s; rule: %s): the owner decides what its agents may do — ask a person to change the policy, or do without it", action, source(d.Source), d.Rule)
}

func source(s string) string {
	if s == "" {
		return "daemon default"
	}
	return s
}

// Uses lists what a call does, as rule names: its action, then each kind
// (Kinds) it falls under.
func Uses(in tool.Input) []string {
	out := []string{in.Action}
	switch in.Action {
	case "navigate", "back", "forward":
		out = append(out, "navigation")
	case "tab_new":
		if in.URL != "" {
			out = append(out, "navigation")
		}
	case "evaluate":
		out = append(out, "script")
	case "route":
		if in.Body != "" || in.Path != "" {
			out = append(out, "script")
		}
	case "emulate":
		if in.InitScript != "" {
			out = append(out, "script")
		}
	case "network":
		if in.Request != "" || in.Path != "" || in.Redact != nil && !*in.Redact {
			out = append(out, "network.bodies")
		}
	case "type", "fill":
		var names []string
		if in.Secret != "" {
			names = append(names, in.Secret)
		}
		for _, f := range in.Fields {
			if f.Secret != "" {
				names = append(names, f.Secret)
			}
		}
		if len(names) > 0 {
			out = append(out, "secret")
			for _, n := range dedupe(names) {
				out = append(out, "secret:"+n)
			}
		}
	}
	return out
}

// Decide says whether p lets a call go ahead. Deny rules come first, then
// allow, then confirm; a nil policy allows everything.
func (p *Policy) Decide(in tool.Input) Decision {
	if p.Empty() {
		return Decision{Verdict: Allowed}
	}
	uses := Uses(in)
	for _, u := range uses {
		if slices.Contains(p.Deny, u) {
			return Decision{Verdict: Denied, Rule: fmt.Sprintf("deny %q", u), Source: p.Source}
		}
		if u == "script" && slices.Contains(p.Deny, "evaluate") {
			// Script is a kind: a page of the caller's served by a
			// route, or an init script, runs what evaluate would.
			return Decision{Verdict: Denied, Rule: `deny "evaluate" (script is evaluate's kind: a route's body or file, an init script)`, Source: p.Source}
		}
		if u == "navigation" && slices.Contains(p.Deny, "navigate") {
			return Decision{Verdict: Denied, Rule: `deny "navigate" (navigation is navigate's kind: tab_new with a url, back, forward)`, Source: p.Source}
		}
		if strings.HasPrefix(u, "secret:") && slices.Contains(p.Deny, "secret") {
			return Decision{Verdict: Denied, Rule: `deny "secret"`, Source: p.Source}
		}
	}
	if len(p.Allow) > 0 && in.Action != "status" {
		for _, u := range uses {
			ok := slices.Contains(p.Allow, u)
			switch {
			case u == "secret":
				// Allowed by name below, or as a whole.
				ok = ok || allowsEachSecret(p.Allow, uses)
			case strings.HasPrefix(u, "secret:"):
				ok = ok || slices.Contains(p.Allow, "secret")
			case u == "script":
				ok = ok || slices.Contains(p.Allow, "evaluate")
			case u == "navigation":
				ok = ok || slices.Contains(p.Allow, "navigate")
			}
			if !ok {
				return Decision{Verdict: Denied, Rule: fmt.Sprintf("%q is not in allow", u), Source: p.Source}
			}
		}
	}
	for _, u := range uses {
		if slices.Contains(p.Confirm, u) || strings.HasPrefix(u, "secret:") && slices.Contains(p.Confirm, "secret") ||
			u == "script" && slices.Contains(p.Confirm, "evaluate") || u == "navigation" && slices.Contains(p.Confirm, "navigate") {
			return Decision{Verdict: Confirm, Rule: fmt.Sprintf("confirm %q", u), Source: p.Source}
		}
	}
	return Decision{Verdict: Allowed, Source: p.Source}
}

// allowsEachSecret reports whether allow names every secret the call uses.
func allowsEachSecret(allow, uses []string) bool {
	n := 0
	for _, u := range uses {
		if strings.HasPrefix(u, "secret:") {
			if !slices.Contains(allow, u) {
				return false
			}
			n++
		}
	}
	return n > 0
}

// CheckURL says whether p lets the agent navigate to raw: with hosts, an
// http or https URL must be on one of them (about: pages are always
// allowed; any other scheme is not). raw is a URL the guard already
// parsed.
func (p *Policy) CheckURL(raw string) Decision {
	if p == nil || len(p.hosts) == 0 {
		return Decision{Verdict: Allowed}
	}
	scheme, rest, ok := strings.Cut(raw, "://")
	scheme = strings.ToLower(scheme)
	if strings.HasPrefix(strings.ToLower(raw), "about:") {
		return Decision{Verdict: Allowed, Source: p.Source}
	}
	if !ok || scheme != "http" && scheme != "https" {
		return Decision{Verdict: Denied, Rule: "hosts (only http and https pages on the listed hosts)", Source: p.Source}
	}
	hostport, _, _ := strings.Cut(rest, "/")
	hostport, _, _ = strings.Cut(hostport, "?")
	hostport, _, _ = strings.Cut(hostport, "#")
	if i := strings.LastIndex(hostport, "@"); i >= 0 {
		hostport = hostport[i+1:]
	}
	host, port := hostport, ""
	if h, pt, err := net.SplitHostPort(hostport); err == nil {
		host, port = h, pt
	}
	host = strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[scheme]
	}
	for _, h := range p.hosts {
		if h.matches(host, port) {
			return Decision{Verdict: Allowed, Source: p.Source}
		}
	}
	return Decision{Verdict: Denied, Rule: "hosts (the page is not on " + strings.Join(p.Hosts, ", ") + ")", Source: p.Source}
}

// hostPattern is one entry of hosts: "host", "*.domain", either with
// ":port".
type hostPattern struct {
	host     string
	wildcard bool
	port     string
}

func parseHost(s string) (hostPattern, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	var hp hostPattern
	if strings.ContainsAny(s, "/?#@ ") || strings.Contains(s, "://") {
		return hp, errors.New("give a host name, *.domain or host:port, not a URL")
	}
	if rest, ok := strings.CutPrefix(s, "*."); ok {
		hp.wildcard, s = true, rest
	}
	if h, port, err := net.SplitHostPort(s); err == nil {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			return hp, fmt.Errorf("port %q: give 1 to 65535", port)
		}
		s, hp.port = h, strconv.Itoa(n)
	}
	s = strings.TrimSuffix(strings.Trim(s, "[]"), ".")
	if s == "" || len(s) > 253 {
		return hp, errors.New("empty or too long host name")
	}
	if ip, isIP, err := urlpolicy.IPv4Host(s); isIP {
		// 0x7f.1 and 2130706433 are 127.0.0.1 to the browser.
		if err != nil {
			return hp, err
		}
		s = ip
	}
	if ip := net.ParseIP(s); ip != nil {
		if hp.wildcard {
			return hp, errors.New("a wildcard needs a domain name, not an address")
		}
		hp.host = ip.String()
		return hp, nil
	}
	for _, label := range strings.Split(s, ".") {
		if label == "" || len(label) > 63 {
			return hp, errors.New("not a host name: empty or too long label")
		}
		for _, r := range label {
			if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
				return hp, fmt.Errorf("not a host name: %q is not allowed in one (write an international name in its xn-- form)", r)
			}
		}
	}
	hp.host = s
	return hp, nil
}

func (h hostPattern) matches(host, port string) bool {
	if h.port != "" && h.port != port {
		return false
	}
	if ip, isIP, err := urlpolicy.IPv4Host(host); isIP && err == nil {
		host = ip
	}
	if ip := net.ParseIP(host); ip != nil {
		host = ip.String()
	}
	return host == h.host || h.wildcard && strings.HasSuffix(host, "."+h.host)
}

func (h hostPattern) String() string {
	s := h.host
	if strings.Contains(s, ":") {
		s = "[" + s + "]"
	}
	if h.wildcard {
		s = "*." + s
	}
	if h.port != "" {
		s += ":" + h.port
	}
	return s
}

type ctxKey struct{}

// With returns ctx carrying p (a token's policy); nil leaves ctx as it is.
func With(ctx context.Context, p *Policy) context.Context {
	if p == nil {
		return ctx
	}
	return context.WithValue(ctx, ctxKey{}, p)
}

// ErrDenied wraps a refusal of something other than a tool call (a
// recording's pictures) by the caller's policy: HTTP 403.
var ErrDenied = errors.New("denied by the policy")

// MaySee says whether the caller under p may see pictures of pages — a
// screenshot's, and the same pixels elsewhere: the recording's frames,
// the trace's HTML. Nil, or an error wrapping ErrDenied that says which
// rule refuses it.
func (p *Policy) MaySee() error {
	if d := p.Decide(tool.Input{Action: "screenshot"}); d.Verdict == Denied {
		return fmt.Errorf("%w (%s, %s): pictures of the page are screenshot's kind — the recording's frames too", ErrDenied, d.Source, d.Rule)
	}
	return nil
}

// MayManage says whether the caller in ctx may manage its owner's
// secrets, tokens and share links, and sign in to the dashboard — where a
// person approves what a confirm rule holds: a caller without a policy of
// its own (the Unix socket, a token without one) may; a token's policy
// must grant it ("manage": true). An agent's token that may not use
// evaluate must not be able to replace the secret it types, nor approve
// its own calls. The refusal is a *tool.Error that says so.
func MayManage(ctx context.Context, what string) error {
	p := From(ctx)
	if p == nil || p.Manage {
		return nil
	}
	src := p.Source
	if src == "" {
		src = "the caller's"
	}
	return tool.Fail("%s needs a policy that grants manage; this policy (%s) does not: a person does it with a token without a policy, or one whose policy has \"manage\": true", what, src)
}

// From is the policy ctx carries, nil if none (the daemon's default
// applies then).
func From(ctx context.Context) *Policy {
	p, _ := ctx.Value(ctxKey{}).(*Policy)
	return p
}

// View is a policy as the dashboard and the API show it.
type View struct {
	// Source is whose it is: "token tk_…" or "daemon default".
	Source string  `json:"source"`
	Label  string  `json:"label,omitempty"` // the token's label
	Policy *Policy `json:"policy"`
	// Summary is the policy in one line (String).
	Summary string `json:"summary"`
}

// ViewOf is p's View, named source when p names none.
func ViewOf(p *Policy, source string) View {
	v := View{Source: source, Policy: p, Summary: p.String()}
	if p != nil && p.Source != "" {
		v.Source = p.Source
	}
	if v.Policy == nil {
		v.Policy = &Policy{}
	}
	return v
}

// Pending is a call that waits for a person's approval (a confirm rule),
// as the dashboard shows it.
type Pending struct {
	ID      string `json:"id"`
	Action  string `json:"action"`
	Session string `json:"session,omitempty"`
	Task    string `json:"task,omitempty"`
	Tab     string `json:"tab,omitempty"`
	// Args are the call's arguments as JSON, secrets' values redacted
	// and credentials left out.
	Args   string    `json:"args"`
	Rule   string    `json:"rule"`
	Policy string    `json:"policy"`
	Asked  time.Time `json:"asked"`
	Until  time.Time `json:"until"`
}
