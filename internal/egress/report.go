package egress

import "strings"

// Kinds of refusal, as Options.OnRefuse reports them: a short, fixed set of
// names fit for a metric label, unlike Decision.Rule, which names the
// address class in words ("private (RFC 1918)", "cloud metadata
// (169.254.169.254)", …).
const (
	// RefusedLoopback: the host is, or resolves to, a loopback address.
	RefusedLoopback = "loopback"
	// RefusedMetadata: the host is, or resolves to, a cloud metadata
	// address (169.254.169.254).
	RefusedMetadata = "cloud_metadata"
	// RefusedInternal: any other internal address — private (RFC 1918),
	// carrier-grade NAT, link-local, unique local, multicast, reserved,
	// documentation and the like.
	RefusedInternal = "internal_address"
	// RefusedBlocked: the host matches --block-host (or a session's
	// blockHosts).
	RefusedBlocked = "blocked_host"
	// RefusedNotOnly: allow-list mode is on and the host is not in it.
	RefusedNotOnly = "not_in_only_hosts"
	// RefusedBadHost: the host does not parse.
	RefusedBadHost = "invalid_host"
	// RefusedBadPort: the port does not parse.
	RefusedBadPort = "invalid_port"
	// RefusedProxyItself: the request is for one of the proxy's own
	// listeners.
	RefusedProxyItself = "proxy_itself"
	// RefusedUpstream: the request is for the upstream proxy (--proxy, or
	// a session's launch proxy), which only browserd itself may use.
	RefusedUpstream = "upstream_proxy"
	// RefusedScheme: a request of a scheme the proxy does not forward
	// (anything but http, ws, and CONNECT tunnels).
	RefusedScheme = "scheme"
	// RefusedOtherUser: a connection to a listener from another user's
	// process, closed before a byte is read.
	RefusedOtherUser = "other_user"
)

// RefusalKinds lists every kind OnRefuse may report, for callers that
// must bound or pre-declare their labels.
var RefusalKinds = []string{
	RefusedLoopback, RefusedMetadata, RefusedInternal, RefusedBlocked, RefusedNotOnly,
	RefusedBadHost, RefusedBadPort, RefusedProxyItself, RefusedUpstream, RefusedScheme, RefusedOtherUser,
}

// RefusalKind is the kind of rule that refused d, one of RefusalKinds; ""
// when d is allowed or its host did not resolve (a gateway error, not the
// guard's doing). Callers that check a Policy themselves (Policy.Check)
// use it to report their refusals as the proxy does.
func RefusalKind(d Decision) string {
	if d.Allowed {
		return ""
	}
	switch d.Rule {
	case RuleNoResolve:
		return ""
	case RuleBlocked:
		return RefusedBlocked
	case RuleNotOnly:
		return RefusedNotOnly
	case RuleBadHost:
		return RefusedBadHost
	case RuleBadPort:
		return RefusedBadPort
	case RuleProxyItself:
		return RefusedProxyItself
	case RuleUpstream:
		return RefusedUpstream
	}
	// Otherwise an address class (classify): urlpolicy.Internal's rules,
	// "(embedded in IPv6)" appended for IPv4 carried in IPv6.
	switch {
	case strings.HasPrefix(d.Rule, "loopback"):
		return RefusedLoopback
	case strings.HasPrefix(d.Rule, "cloud metadata"):
		return RefusedMetadata
	}
	return RefusedInternal
}

// refused reports a refusal of kind to Options.OnRefuse.
func (p *Proxy) refused(kind string) {
	if p.opts.OnRefuse != nil && kind != "" {
		p.opts.OnRefuse(kind)
	}
}

// forwarded reports to Options.OnForward whether an allowed request
// reached its upstream.
func (p *Proxy) forwarded(ok bool) {
	if p.opts.OnForward != nil {
		p.opts.OnForward(ok)
	}
}
