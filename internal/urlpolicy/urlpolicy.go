// Package urlpolicy holds the rules every URL check shares: which URLs an
// agent may navigate to (http, https and about:blank; no credentials) and
// which addresses are internal (loopback, private, link-local, metadata and
// the rest, in every IPv6 disguise). The egress guard applies them to every
// request at dial time.
package urlpolicy

import (
	"fmt"
	"net/netip"
	"net/url"
	"strings"
)

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
		// The login goes to launch, answered to its own origin only and
		// sealed at rest; the URL never carries it.
		origin := strings.ToLower(u.Scheme) + "://" + u.Host
		bare := *u
		bare.User = nil
		return nil, &Error{URL: u.Redacted(), Reason: "URLs with credentials are not allowed",
			Hint: fmt.Sprintf(`give the login to launch instead — {"action":"launch","httpCredentials":[{"origin":%q,"username":"…","password":"…"}]} — then navigate to %s`, origin, bare.String())}
	}
	return u, nil
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
