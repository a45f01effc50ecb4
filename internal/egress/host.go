package egress

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"

	"github.com/browserd/browserd/internal/urlpolicy"
)

// host is a parsed request host.
type host struct {
	key  string     // lower-case name without trailing dot, or canonical IP (unmapped, no zone)
	ip   netip.Addr // the literal address (unmapped, zone kept) when isIP
	isIP bool
}

var (
	errEmptyHost = errors.New("empty host")
	errBadName   = errors.New("not a valid host name")
	errBadIPv4   = errors.New("ends in a number but is not a valid IPv4 address")
	errBadIPv6   = errors.New("not a valid IPv6 address")
)

// parseHost parses a host as a proxy may receive it: a name (trailing dot
// ignored), dotted-decimal IPv4, IPv6 with or without brackets and with an
// optional zone ("%eth0" or URL-escaped "%25eth0"), or one of the legacy
// IPv4 spellings browsers accept (2130706433, 0x7f.1, 0177.0.0.1, 127.1).
// A host that looks numeric but is not a valid address is an error, as it
// is for the WHATWG URL parser.
func parseHost(s string) (host, error) {
	if s == "" {
		return host{}, errEmptyHost
	}
	if len(s) > 300 {
		return host{}, errBadName
	}
	s = strings.ToLower(s)
	if strings.HasPrefix(s, "[") || strings.Contains(s, ":") {
		inner := s
		if strings.HasPrefix(s, "[") {
			if !strings.HasSuffix(s, "]") || len(s) < 3 {
				return host{}, errBadIPv6
			}
			inner = s[1 : len(s)-1]
		}
		inner = strings.Replace(inner, "%25", "%", 1)
		a, err := netip.ParseAddr(inner)
		if err != nil || !a.Is6() {
			return host{}, errBadIPv6
		}
		return ipHost(a), nil
	}
	s = strings.TrimSuffix(s, ".")
	if s == "" {
		return host{}, errEmptyHost
	}
	if a, err := netip.ParseAddr(s); err == nil {
		return ipHost(a), nil
	}
	labels := strings.Split(s, ".")
	if urlpolicy.EndsInNumber(labels[len(labels)-1]) {
		a, ok := urlpolicy.LegacyIPv4(labels)
		if !ok {
			return host{}, errBadIPv4
		}
		return ipHost(a), nil
	}
	if len(s) > 253 {
		return host{}, errBadName
	}
	for _, l := range labels {
		if l == "" || len(l) > 63 {
			return host{}, errBadName
		}
		for i := 0; i < len(l); i++ {
			c := l[i]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return host{}, errBadName
			}
		}
	}
	return host{key: s}, nil
}

func ipHost(a netip.Addr) host {
	a = unmap(a)
	return host{key: a.WithZone("").String(), ip: a, isIP: true}
}

// unmap turns an IPv4-mapped IPv6 address into IPv4 and keeps any other
// address (and its zone) as it is.
func unmap(a netip.Addr) netip.Addr {
	if a.Is4In6() {
		return a.Unmap()
	}
	return a
}

// parsePort validates a decimal port 1-65535 and returns it without leading
// zeros.
func parsePort(s string) (string, bool) {
	if s == "" || len(s) > 5 {
		return "", false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return "", false
		}
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > 65535 {
		return "", false
	}
	return strconv.Itoa(n), true
}

// pattern is one parsed list entry: "host", "host:port", "*.suffix" or
// "*.suffix:port".
type pattern struct {
	host     string // key form (see host.key)
	wildcard bool   // host is a domain suffix: matches it and every sub-domain
	port     string // "" = any port
	raw      string
}

// parsePattern parses a list entry. wild says whether "*.suffix" is allowed.
func parsePattern(s string, wild bool) (pattern, error) {
	raw := strings.TrimSpace(s)
	s = strings.ToLower(raw)
	if strings.Contains(s, "/") {
		return pattern{}, errors.New("give HOST or HOST:PORT, not a URL")
	}
	p := pattern{raw: raw}
	if rest, ok := strings.CutPrefix(s, "*."); ok {
		if !wild {
			return pattern{}, errors.New("wildcards are not supported here")
		}
		p.wildcard, s = true, rest
	}
	h := s
	if strings.HasPrefix(s, "[") && !strings.HasSuffix(s, "]") || strings.Count(s, ":") == 1 {
		hh, port, err := net.SplitHostPort(s)
		if err != nil {
			return pattern{}, fmt.Errorf("bad HOST:PORT: %w", err)
		}
		np, ok := parsePort(port)
		if !ok {
			return pattern{}, fmt.Errorf("bad port %q", port)
		}
		h, p.port = hh, np
		if strings.Contains(h, ":") {
			h = "[" + h + "]"
		}
	}
	ph, err := parseHost(h)
	if err != nil {
		return pattern{}, err
	}
	if p.wildcard && ph.isIP {
		return pattern{}, errors.New("a wildcard needs a domain name, not an address")
	}
	p.host = ph.key
	return p, nil
}

// matches reports whether the pattern covers host key h on port.
func (p pattern) matches(h, port string) bool {
	if p.port != "" && p.port != port {
		return false
	}
	if p.host == h {
		return true
	}
	return p.wildcard && strings.HasSuffix(h, "."+p.host)
}

func (p pattern) String() string {
	s := p.host
	if p.wildcard {
		s = "*." + s
	}
	if p.port != "" {
		return net.JoinHostPort(s, p.port)
	}
	if strings.Contains(s, ":") {
		return "[" + s + "]"
	}
	return s
}

// coversHost reports whether p's host part covers every host q's does.
func (p pattern) coversHost(q pattern) bool {
	if p.wildcard {
		return q.host == p.host || strings.HasSuffix(q.host, "."+p.host)
	}
	return !q.wildcard && p.host == q.host
}

// intersect returns the pattern matching exactly what both a and b match,
// if that is expressible as one pattern (it always is for this syntax).
func intersect(a, b pattern) (pattern, bool) {
	var r pattern
	switch {
	case a.coversHost(b):
		r = b
	case b.coversHost(a):
		r = a
	default:
		return pattern{}, false
	}
	switch {
	case a.port == "":
		r.port = b.port
	case b.port == "" || a.port == b.port:
		r.port = a.port
	default:
		return pattern{}, false
	}
	r.raw = r.String()
	return r, true
}

// classify names the rule that makes a resolved or literal address
// internal, "" for a public one.
func classify(a netip.Addr) string {
	if !a.IsValid() {
		return "invalid address"
	}
	if r := urlpolicy.Internal(a.WithZone("")); r != "" {
		return r
	}
	if a.Zone() != "" {
		return "scoped IPv6 (with zone)"
	}
	return ""
}
