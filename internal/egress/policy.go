package egress

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strings"
)

// Policy decides which hosts the browser may reach. The zero Policy allows
// every public address and nothing internal. A Policy is a value: the
// proxy copies it when it is registered, and it is safe for concurrent use
// as long as nobody modifies its slices while it is in use.
//
// Entries are lower-cased and trimmed; IPv6 addresses take brackets when
// they have a port ("[::1]:8080"); legacy IPv4 spellings are canonicalised
// ("127.1" is 127.0.0.1). Blank entries are ignored, and an entry that does
// not parse (see Validate) matches nothing.
type Policy struct {
	// AllowHosts lists "host" (any port) or "host:port" entries that may be
	// reached even if internal. Matching is on the requested host name, or
	// on the address if the request names a literal IP: allowing 10.0.0.5
	// does not allow a name that resolves to 10.0.0.5. No wildcards.
	AllowHosts []string
	// AllowPrivate allows every internal address (loopback, RFC 1918,
	// link-local, cloud metadata, ...). BlockHosts and OnlyHosts still apply.
	AllowPrivate bool
	// BlockHosts are always refused: "host", "host:port", "*.suffix" or
	// "*.suffix:port". "*.example.com" matches example.com and every
	// sub-domain. An entry that is an IP address also refuses names that
	// resolve to it.
	BlockHosts []string
	// OnlyHosts, if it has any non-blank entry, turns on allow-list mode:
	// only hosts matching one of its entries (same syntax as BlockHosts) are
	// reachable at all. Internal addresses still need AllowHosts or
	// AllowPrivate.
	OnlyHosts []string
}

// NoHosts is an OnlyHosts entry that matches no host. Narrow uses it when
// two allow-lists share no host, so the result refuses everything rather
// than turning allow-list mode off.
const NoHosts = "!none"

// Validate reports the first list entry that does not parse.
func (p Policy) Validate() error {
	check := func(flag string, list []string, wild bool) error {
		for _, s := range list {
			if strings.TrimSpace(s) == "" || (flag == "only-hosts" && s == NoHosts) {
				continue
			}
			if _, err := parsePattern(s, wild); err != nil {
				return fmt.Errorf("egress: --%s %q: %w", flag, s, err)
			}
		}
		return nil
	}
	return errors.Join(
		check("allow-host", p.AllowHosts, false),
		check("block-host", p.BlockHosts, true),
		check("only-hosts", p.OnlyHosts, true),
	)
}

// Narrow returns p restricted by q (typically the server's policy narrowed
// by one session's lists): the result never allows a request that p
// refuses. Precisely:
//
//   - AllowHosts: the intersection, entry by entry ("h" and "h:8080" give
//     "h:8080"; "h" and "h" give "h"). A q without AllowHosts therefore
//     drops p's, so pass them in q to keep them.
//   - AllowPrivate: p.AllowPrivate && q.AllowPrivate.
//   - BlockHosts: the union.
//   - OnlyHosts: q's if p has none, p's if q has none, otherwise the
//     intersection of the two pattern sets ("*.example.com" and
//     "a.example.com" give "a.example.com"); if that is empty, [NoHosts].
//
// Entries of the result are in canonical form; entries that do not parse
// are dropped from intersections (they matched nothing anyway) and kept in
// the BlockHosts union.
func (p Policy) Narrow(q Policy) Policy {
	r := Policy{AllowPrivate: p.AllowPrivate && q.AllowPrivate}
	r.AllowHosts = intersectLists(parseList(p.AllowHosts, false), parseList(q.AllowHosts, false))
	for _, s := range slices.Concat(p.BlockHosts, q.BlockHosts) {
		s = strings.ToLower(strings.TrimSpace(s))
		if s != "" && !slices.Contains(r.BlockHosts, s) {
			r.BlockHosts = append(r.BlockHosts, s)
		}
	}
	switch {
	case !onlyMode(q.OnlyHosts):
		r.OnlyHosts = slices.Clone(p.OnlyHosts)
	case !onlyMode(p.OnlyHosts):
		r.OnlyHosts = slices.Clone(q.OnlyHosts)
	default:
		r.OnlyHosts = intersectLists(parseList(p.OnlyHosts, true), parseList(q.OnlyHosts, true))
		if len(r.OnlyHosts) == 0 {
			r.OnlyHosts = []string{NoHosts}
		}
	}
	return r
}

// Wider returns the entries of q.AllowHosts that p.AllowHosts does not
// cover whole ("h:8080" is covered by "h"; "h" is not by "h:8080"): what a
// session asked to reach that the server does not allow, and Narrow would
// drop without a word. Entries that do not parse are left to Validate.
func (p Policy) Wider(q Policy) []string {
	own := parseList(p.AllowHosts, false)
	var out []string
	for _, s := range q.AllowHosts {
		y, err := parsePattern(s, false)
		if err != nil {
			continue
		}
		if !slices.ContainsFunc(own, func(x pattern) bool { z, ok := intersect(x, y); return ok && z.String() == y.String() }) {
			out = append(out, strings.TrimSpace(s))
		}
	}
	return out
}

func intersectLists(a, b []pattern) []string {
	var out []string
	for _, x := range a {
		for _, y := range b {
			if z, ok := intersect(x, y); ok && !slices.Contains(out, z.String()) {
				out = append(out, z.String())
			}
		}
	}
	return out
}

func parseList(list []string, wild bool) []pattern {
	var out []pattern
	for _, s := range list {
		if strings.TrimSpace(s) == "" {
			continue
		}
		if p, err := parsePattern(s, wild); err == nil {
			out = append(out, p)
		}
	}
	return out
}

func onlyMode(list []string) bool {
	return slices.ContainsFunc(list, func(s string) bool { return strings.TrimSpace(s) != "" })
}

// Decision is the verdict on one request.
type Decision struct {
	Allowed bool   `json:"allowed"`
	Host    string `json:"host"` // as requested
	Port    string `json:"port"`
	// Addr is the address to dial when allowed; when refused, the address
	// that caused the refusal (zero if refused before resolving).
	Addr netip.Addr `json:"addr,omitzero"`
	// URL is what was requested, scheme://host[:port]/path without query,
	// or host:port for a CONNECT tunnel; set by the proxy, empty from Check.
	URL string `json:"url,omitempty"`
	// Rule names why it was refused: an urlpolicy.Internal rule such as
	// "loopback" or "cloud metadata (169.254.169.254)", or "blocked host",
	// "not in --only-hosts", "invalid host", "invalid port",
	// "does not resolve", "the egress proxy itself", "the upstream proxy".
	Rule string `json:"rule,omitempty"`
	// Reason is the refusal as a clause, e.g. "x resolves to 10.0.0.1, a
	// private (RFC 1918) address".
	Reason string `json:"reason,omitempty"`
	// Hint names the flag that would allow it, if any.
	Hint string `json:"hint,omitempty"`
}

// Rules of refusals that are not about an address class.
const (
	RuleBlocked     = "blocked host"
	RuleNotOnly     = "not in --only-hosts"
	RuleBadHost     = "invalid host"
	RuleBadPort     = "invalid port"
	RuleNoResolve   = "does not resolve"
	RuleProxyItself = "the egress proxy itself"
	RuleUpstream    = "the upstream proxy"
)

// Error is the verdict as one sentence, e.g. "request to http://x/ refused:
// x resolves to 10.0.0.1, a private (RFC 1918) address; start browserd with
// --allow-host x to allow it".
func (d Decision) Error() string {
	target := d.URL
	if target == "" {
		target = hostPort(d.Host, d.Port)
	}
	if d.Allowed {
		return "request to " + target + " allowed"
	}
	s := "request to " + target + " refused: " + d.Reason
	if d.Hint != "" {
		s += "; " + d.Hint
	}
	return s
}

// Resolver looks host names up; *net.Resolver implements it.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Check decides on a request to host:port (port "" means 80). host may be a
// name, an IP literal in any form a URL parser may produce, or a bracketed
// IPv6 address with a zone. Names are resolved once with r
// (net.DefaultResolver if nil) and every answer is checked; IP literals are
// not resolved. An allowed Decision carries the address to dial.
func (pol Policy) Check(ctx context.Context, r Resolver, host, port string) Decision {
	return compile(pol).check(ctx, r, host, port)
}

// compiled is a Policy with its lists parsed.
type compiled struct {
	pol                 Policy
	allow, block, only  []pattern
	onlyMode, allowPriv bool
}

func compile(p Policy) *compiled {
	p = Policy{
		AllowHosts:   slices.Clone(p.AllowHosts),
		AllowPrivate: p.AllowPrivate,
		BlockHosts:   slices.Clone(p.BlockHosts),
		OnlyHosts:    slices.Clone(p.OnlyHosts),
	}
	return &compiled{
		pol:       p,
		allow:     parseList(p.AllowHosts, false),
		block:     parseList(p.BlockHosts, true),
		only:      parseList(p.OnlyHosts, true),
		onlyMode:  onlyMode(p.OnlyHosts),
		allowPriv: p.AllowPrivate,
	}
}

func firstMatch(list []pattern, h, port string) (pattern, bool) {
	for _, p := range list {
		if p.matches(h, port) {
			return p, true
		}
	}
	return pattern{}, false
}

func (c *compiled) check(ctx context.Context, r Resolver, hostIn, portIn string) Decision {
	d := Decision{Host: hostIn, Port: portIn}
	refuse := func(rule, reason, hint string) Decision {
		d.Allowed, d.Rule, d.Reason, d.Hint = false, rule, reason, hint
		return d
	}
	if portIn == "" {
		portIn = "80"
	}
	port, ok := parsePort(portIn)
	if !ok {
		return refuse(RuleBadPort, fmt.Sprintf("%q is not a valid port", portIn), "")
	}
	d.Port = port
	h, err := parseHost(hostIn)
	if err != nil {
		return refuse(RuleBadHost, fmt.Sprintf("%q is %v", hostIn, err), "")
	}
	name := h.key
	if h.isIP && h.key != strings.Trim(strings.ToLower(hostIn), "[]") {
		name = fmt.Sprintf("%s (%s)", hostIn, h.key)
	}
	if p, ok := firstMatch(c.block, h.key, port); ok {
		return refuse(RuleBlocked, fmt.Sprintf("%s matches --block-host %s", name, p.raw), "")
	}
	if c.onlyMode {
		if _, ok := firstMatch(c.only, h.key, port); !ok {
			return refuse(RuleNotOnly, fmt.Sprintf("%s is not in --only-hosts", hostPort(h.key, port)),
				fmt.Sprintf("add %s to --only-hosts to allow it", hostForFlag(h.key, port)))
		}
	}
	allowed := c.allowPriv
	if !allowed {
		_, allowed = firstMatch(c.allow, h.key, port)
	}

	var addrs []netip.Addr
	if h.isIP {
		addrs = []netip.Addr{h.ip}
	} else {
		if r == nil {
			r = net.DefaultResolver
		}
		addrs, err = r.LookupNetIP(ctx, "ip", h.key)
		if err != nil {
			return refuse(RuleNoResolve, fmt.Sprintf("%s does not resolve: %v", h.key, err), "")
		}
		if len(addrs) == 0 {
			return refuse(RuleNoResolve, fmt.Sprintf("%s does not resolve: no addresses", h.key), "")
		}
		addrs = slices.Clone(addrs)
		for i := range addrs {
			addrs[i] = unmap(addrs[i])
		}
	}
	for _, a := range addrs {
		if a.IsValid() && !h.isIP {
			if p, ok := firstMatch(c.block, a.WithZone("").String(), port); ok {
				d.Addr = a
				return refuse(RuleBlocked, fmt.Sprintf("%s resolves to %s, which matches --block-host %s", name, a, p.raw), "")
			}
		}
	}
	if !allowed {
		for _, a := range addrs {
			rule := classify(a)
			if rule == "" {
				continue
			}
			d.Addr = a
			reason := fmt.Sprintf("%s resolves to %s, %s %s address", name, a, article(rule), rule)
			if h.isIP {
				reason = fmt.Sprintf("%s is %s %s address", name, article(rule), rule)
			}
			hint := fmt.Sprintf("start browserd with --allow-host %s to allow it", hostForFlag(h.key, port))
			if !strings.Contains(rule, "metadata") {
				hint += ", or --allow-private to allow every internal address"
			}
			return refuse(rule, reason, hint)
		}
	}
	d.Allowed = true
	d.Addr = addrs[0]
	return d
}

func article(rule string) string {
	s := strings.TrimLeft(strings.ToLower(rule), "\"")
	switch {
	case strings.HasPrefix(s, "uni"):
		return "a"
	case s != "" && strings.ContainsRune("aeiou", rune(s[0])):
		return "an"
	}
	return "a"
}

// hostForFlag spells host (and port unless 80 or 443) for --allow-host.
func hostForFlag(host, port string) string {
	if port == "" || port == "80" || port == "443" {
		return host
	}
	return net.JoinHostPort(host, port)
}

func hostPort(host, port string) string {
	if port == "" {
		return host
	}
	return net.JoinHostPort(strings.Trim(host, "[]"), port)
}
