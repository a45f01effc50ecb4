// Package urlpolicy decides which URLs a browser may navigate to: only
// http, https and about:blank, and no host that resolves to a loopback,
// private, link-local or otherwise internal address unless the operator
// allowed that host with --allow-host. Errors name the host, the address,
// the rule and the flag that would allow it.
package urlpolicy

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
)

// Policy is immutable and safe for concurrent use.
type Policy struct {
	allow map[string]bool // "host" (any port) or "host:port", lower-case
	// Resolve looks host names up; net.DefaultResolver when nil.
	Resolve func(ctx context.Context, host string) ([]netip.Addr, error)
}

// New builds a policy from --allow-host values (HOST or HOST:PORT).
func New(allowHosts []string) (*Policy, error) {
	p := &Policy{allow: map[string]bool{}}
	for _, h := range allowHosts {
		h = strings.ToLower(strings.TrimSpace(h))
		if h == "" {
			continue
		}
		if strings.Contains(h, "/") {
			return nil, fmt.Errorf("--allow-host %q: give HOST or HOST:PORT, not a URL", h)
		}
		if host, port, err := net.SplitHostPort(h); err == nil {
			h = net.JoinHostPort(strings.Trim(host, "[]"), port)
		} else {
			h = strings.Trim(h, "[]")
		}
		p.allow[h] = true
	}
	return p, nil
}

// Error is a refused URL.
type Error struct {
	URL, Reason, Hint string
}

func (e *Error) Error() string {
	if e.Hint == "" {
		return fmt.Sprintf("navigation to %s refused: %s", e.URL, e.Reason)
	}
	return fmt.Sprintf("navigation to %s refused: %s; %s", e.URL, e.Reason, e.Hint)
}

// CheckURL checks a navigation target and returns the URL to load.
func (p *Policy) CheckURL(ctx context.Context, raw string) (string, error) {
	u, err := Parse(raw)
	if err != nil || u.Scheme == "about" {
		if err != nil {
			return "", err
		}
		return u.String(), nil
	}
	if err := p.CheckHost(ctx, u); err != nil {
		return "", err
	}
	return u.String(), nil
}

// Parse checks what can be checked of a navigation target without looking
// its host up: a valid URL, scheme http or https (or exactly about:blank),
// a host, no credentials. "example.com/x" is taken as https.
func Parse(raw string) (*url.URL, error) {
	raw = strings.TrimSpace(raw)
	if raw == "about:blank" {
		return &url.URL{Scheme: "about", Opaque: "blank"}, nil
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, &Error{URL: raw, Reason: "not a valid URL", Hint: "give a full http:// or https:// URL"}
	}
	if u.Scheme == "" && !strings.Contains(raw, "://") && u.Host == "" {
		// "example.com/path": an agent's shorthand for https.
		if u2, err := url.Parse("https://" + raw); err == nil && u2.Host != "" && strings.Contains(u2.Hostname(), ".") {
			u = u2
		}
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
	case "":
		return nil, &Error{URL: raw, Reason: "no scheme", Hint: "give a full http:// or https:// URL"}
	default:
		return nil, &Error{URL: raw, Reason: fmt.Sprintf("scheme %q is not allowed (only http, https and about:blank)", u.Scheme)}
	}
	if u.Host == "" || u.Hostname() == "" {
		return nil, &Error{URL: raw, Reason: "no host", Hint: "give a full http:// or https:// URL"}
	}
	if u.User != nil {
		return nil, &Error{URL: u.Redacted(), Reason: "URLs with credentials are not allowed"}
	}
	return u, nil
}

// CheckHost refuses a URL whose host is, or resolves to, an internal
// address, unless allowed.
func (p *Policy) CheckHost(ctx context.Context, u *url.URL) error {
	host := strings.ToLower(u.Hostname())
	port := u.Port()
	if port == "" {
		port = "80"
		if strings.EqualFold(u.Scheme, "https") {
			port = "443"
		}
	}
	if p.allow[host] || p.allow[net.JoinHostPort(host, port)] {
		return nil
	}
	addrs, err := p.lookup(ctx, host)
	if err != nil {
		return &Error{URL: u.String(), Reason: fmt.Sprintf("host %s does not resolve: %v", host, err)}
	}
	for _, a := range addrs {
		if rule := Internal(a); rule != "" {
			hint := fmt.Sprintf("start browserd with --allow-host %s to allow it", hostForFlag(host, u.Port()))
			reason := fmt.Sprintf("%s resolves to %s, a %s address", host, a, rule)
			if a.String() == host {
				reason = fmt.Sprintf("%s is a %s address", host, rule)
			}
			return &Error{URL: u.String(), Reason: reason, Hint: hint}
		}
	}
	return nil
}

func hostForFlag(host, port string) string {
	if port == "" {
		if strings.Contains(host, ":") {
			return "[" + host + "]"
		}
		return host
	}
	return net.JoinHostPort(host, port)
}

func (p *Policy) lookup(ctx context.Context, host string) ([]netip.Addr, error) {
	if a, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		return []netip.Addr{a.Unmap()}, nil
	}
	if p.Resolve != nil {
		return p.Resolve(ctx, host)
	}
	ips, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return nil, err
	}
	for i := range ips {
		ips[i] = ips[i].Unmap()
	}
	return ips, nil
}

var internalNets = []struct {
	prefix netip.Prefix
	rule   string
}{
	{netip.MustParsePrefix("0.0.0.0/8"), "\"this network\" (0.0.0.0/8)"},
	{netip.MustParsePrefix("10.0.0.0/8"), "private (RFC 1918)"},
	{netip.MustParsePrefix("100.64.0.0/10"), "carrier-grade NAT (100.64.0.0/10)"},
	{netip.MustParsePrefix("127.0.0.0/8"), "loopback"},
	{netip.MustParsePrefix("169.254.169.254/32"), "cloud metadata (169.254.169.254)"},
	{netip.MustParsePrefix("169.254.0.0/16"), "link-local"},
	{netip.MustParsePrefix("172.16.0.0/12"), "private (RFC 1918)"},
	{netip.MustParsePrefix("192.0.0.0/24"), "IETF protocol assignments (192.0.0.0/24)"},
	{netip.MustParsePrefix("192.0.2.0/24"), "documentation (TEST-NET-1)"},
	{netip.MustParsePrefix("192.168.0.0/16"), "private (RFC 1918)"},
	{netip.MustParsePrefix("198.18.0.0/15"), "benchmarking (198.18.0.0/15)"},
	{netip.MustParsePrefix("198.51.100.0/24"), "documentation (TEST-NET-2)"},
	{netip.MustParsePrefix("203.0.113.0/24"), "documentation (TEST-NET-3)"},
	{netip.MustParsePrefix("224.0.0.0/4"), "multicast"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved (240.0.0.0/4)"},
	{netip.MustParsePrefix("::/128"), "unspecified"},
	{netip.MustParsePrefix("::1/128"), "loopback"},
	{netip.MustParsePrefix("fc00::/7"), "unique local (fc00::/7)"},
	{netip.MustParsePrefix("fe80::/10"), "link-local"},
	{netip.MustParsePrefix("ff00::/8"), "multicast"},
	{netip.MustParsePrefix("2001:db8::/32"), "documentation"},
}

// Internal names the rule that makes an address internal, or "" for a
// public address. IPv4-mapped, IPv4-compatible and NAT64 (64:ff9b::/96)
// forms are judged by the IPv4 address they carry.
func Internal(a netip.Addr) string {
	a = a.Unmap()
	if a.Is6() {
		b := a.As16()
		nat64 := netip.MustParsePrefix("64:ff9b::/96")
		compat := b[0] == 0 && b[1] == 0 && b[2] == 0 && b[3] == 0 && b[4] == 0 && b[5] == 0 && b[6] == 0 && b[7] == 0 && b[8] == 0 && b[9] == 0 && b[10] == 0 && b[11] == 0
		if nat64.Contains(a) || (compat && !a.IsUnspecified() && !a.IsLoopback()) {
			v4 := netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
			if r := Internal(v4); r != "" {
				return r + " (embedded in IPv6)"
			}
			if compat {
				return "IPv4-compatible IPv6 (deprecated)"
			}
		}
	}
	if a == netip.AddrFrom4([4]byte{255, 255, 255, 255}) {
		return "broadcast"
	}
	for _, n := range internalNets {
		if n.prefix.Contains(a) {
			return n.rule
		}
	}
	return ""
}
