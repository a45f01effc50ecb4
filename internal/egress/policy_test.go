package egress

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fakeResolver answers from a map and counts lookups. A name with several
// answer sets answers them in turn (the last one repeats): a rebinding DNS.
type fakeResolver struct {
	mu    sync.Mutex
	m     map[string][][]string
	calls map[string]int
}

func newResolver(m map[string][]string) *fakeResolver {
	f := &fakeResolver{m: map[string][][]string{}, calls: map[string]int{}}
	for k, v := range m {
		f.m[k] = [][]string{v}
	}
	return f
}

func (f *fakeResolver) LookupNetIP(_ context.Context, network, host string) ([]netip.Addr, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if network != "ip" {
		return nil, fmt.Errorf("unexpected network %q", network)
	}
	n := f.calls[host]
	f.calls[host]++
	answers, ok := f.m[host]
	if !ok {
		return nil, errors.New("no such host")
	}
	ans := answers[min(n, len(answers)-1)]
	var out []netip.Addr
	for _, s := range ans {
		out = append(out, netip.MustParseAddr(s))
	}
	return out, nil
}

func (f *fakeResolver) count(host string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[host]
}

func (f *fakeResolver) total() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, c := range f.calls {
		n += c
	}
	return n
}

func testResolver() *fakeResolver {
	return newResolver(map[string][]string{
		"localhost":         {"127.0.0.1", "::1"},
		"public.test":       {"93.184.216.34"},
		"public6.test":      {"2606:2800:220:1:248:1893:25c8:1946"},
		"intranet.test":     {"10.1.2.3"},
		"metadata.test":     {"169.254.169.254"},
		"mapped.test":       {"::ffff:192.168.1.1"},
		"mixed.test":        {"93.184.216.34", "192.168.0.10"},
		"mixed6.test":       {"93.184.216.34", "fd00::5"},
		"empty.test":        {},
		"www.example.com":   {"93.184.216.35"},
		"a.b.example.com":   {"93.184.216.36"},
		"example.com":       {"93.184.216.37"},
		"notexample.com":    {"93.184.216.38"},
		"cgnat.test":        {"100.100.1.1"},
		"linklocal6.test":   {"fe80::1234"},
		"multicast.test":    {"239.1.1.1"},
		"internal.corp.com": {"172.20.0.4"},
	})
}

func TestCheck(t *testing.T) {
	const ap = "--allow-private"
	cases := []struct {
		name  string
		pol   Policy
		host  string
		port  string
		allow bool
		rule  string // substring of Rule when refused
		addr  string // expected Addr, "" = don't care
		hint  string // substring of Hint, "" = don't care
		nohnt string // must not be in Hint
	}{
		// Literal addresses.
		{name: "public v4", host: "93.184.216.34", port: "80", allow: true, addr: "93.184.216.34"},
		{name: "public v6", host: "[2606:4700::1111]", port: "443", allow: true, addr: "2606:4700::1111"},
		{name: "loopback v4", host: "127.0.0.1", port: "80", rule: "loopback", addr: "127.0.0.1", hint: "--allow-host 127.0.0.1 to allow it"},
		{name: "loopback v4 high", host: "127.255.255.254", port: "8080", rule: "loopback", hint: "--allow-host 127.255.255.254:8080"},
		{name: "loopback v6", host: "[::1]", port: "80", rule: "loopback", addr: "::1"},
		{name: "loopback v6 bare", host: "::1", port: "80", rule: "loopback"},
		{name: "this network", host: "0.0.0.0", port: "80", rule: "this network"},
		{name: "unspecified v6", host: "[::]", port: "80", rule: "unspecified"},
		{name: "rfc1918 10/8", host: "10.0.0.1", port: "80", rule: "private (RFC 1918)", hint: ap},
		{name: "rfc1918 172.16/12", host: "172.16.5.4", port: "80", rule: "private (RFC 1918)"},
		{name: "rfc1918 172.31", host: "172.31.255.255", port: "80", rule: "private (RFC 1918)"},
		{name: "172.32 is public", host: "172.32.0.1", port: "80", allow: true},
		{name: "rfc1918 192.168/16", host: "192.168.1.1", port: "80", rule: "private (RFC 1918)"},
		{name: "cgnat", host: "100.64.0.1", port: "80", rule: "carrier-grade NAT"},
		{name: "link-local v4", host: "169.254.1.1", port: "80", rule: "link-local"},
		{name: "metadata", host: "169.254.169.254", port: "80", rule: "cloud metadata (169.254.169.254)", hint: "--allow-host 169.254.169.254", nohnt: ap},
		{name: "multicast v4", host: "224.0.0.1", port: "80", rule: "multicast"},
		{name: "broadcast", host: "255.255.255.255", port: "80", rule: "broadcast"},
		{name: "reserved 240/4", host: "240.0.0.1", port: "80", rule: "reserved (240.0.0.0/4)"},
		{name: "ula fc00", host: "[fc00::1]", port: "80", rule: "unique local"},
		{name: "ula fd", host: "[fd12:3456::1]", port: "80", rule: "unique local"},
		{name: "multicast v6", host: "[ff02::1]", port: "80", rule: "multicast"},
		{name: "link-local v6 zone escaped", host: "[fe80::1%25eth0]", port: "80", rule: "link-local"},
		{name: "link-local v6 zone", host: "fe80::1%eth0", port: "80", rule: "link-local"},
		{name: "link-local v6", host: "[fe80::abcd]", port: "80", rule: "link-local"},
		{name: "public v6 with zone", host: "[2606:4700::1111%25eth0]", port: "80", rule: "scoped IPv6"},
		{name: "v4-mapped private", host: "[::ffff:10.0.0.1]", port: "80", rule: "private (RFC 1918)", addr: "10.0.0.1"},
		{name: "v4-mapped loopback", host: "[::ffff:127.0.0.1]", port: "80", rule: "loopback"},
		{name: "v4-mapped hex form", host: "[::ffff:a00:1]", port: "80", rule: "private (RFC 1918)"},
		{name: "v4-compatible", host: "[::10.0.0.1]", port: "80", rule: "private (RFC 1918) (embedded in IPv6)"},
		{name: "nat64 private", host: "[64:ff9b::a00:1]", port: "80", rule: "private (RFC 1918) (embedded in IPv6)"},
		{name: "nat64 metadata", host: "[64:ff9b::a9fe:a9fe]", port: "80", rule: "cloud metadata"},
		{name: "nat64 public", host: "[64:ff9b::5db8:d822]", port: "80", allow: true},
		{name: "decimal integer", host: "2130706433", port: "80", rule: "loopback", addr: "127.0.0.1"},
		{name: "hex dotted", host: "0x7f.1", port: "80", rule: "loopback", addr: "127.0.0.1"},
		{name: "octal dotted", host: "0177.0.0.1", port: "80", rule: "loopback"},
		{name: "short form", host: "127.1", port: "80", rule: "loopback"},
		{name: "hex metadata", host: "0xa9fea9fe", port: "80", rule: "cloud metadata"},
		{name: "octal leading zero private", host: "012.0.0.1", port: "80", rule: "private", addr: "10.0.0.1"},
		{name: "trailing dot ip", host: "10.0.0.1.", port: "80", rule: "private"},
		{name: "numeric but invalid", host: "1.2.3.999", port: "80", rule: RuleBadHost},
		{name: "five parts", host: "0x7f.0.0.0.1", port: "80", rule: RuleBadHost},
		{name: "bracketed v4", host: "[10.0.0.1]", port: "80", rule: RuleBadHost},
		{name: "empty host", host: "", port: "80", rule: RuleBadHost},
		{name: "space in host", host: "exa mple.com", port: "80", rule: RuleBadHost},
		{name: "percent in host", host: "%31%32%37.0.0.1", port: "80", rule: RuleBadHost},
		{name: "port zero", host: "public.test", port: "0", rule: RuleBadPort},
		{name: "port too big", host: "public.test", port: "70000", rule: RuleBadPort},
		{name: "port not a number", host: "public.test", port: "http", rule: RuleBadPort},
		{name: "empty port means 80", host: "public.test", port: "", allow: true},

		// Names.
		{name: "public name", host: "public.test", port: "443", allow: true, addr: "93.184.216.34"},
		{name: "public name v6", host: "public6.test", port: "443", allow: true},
		{name: "public name upper case", host: "PUBLIC.Test", port: "80", allow: true},
		{name: "public name trailing dot", host: "public.test.", port: "80", allow: true},
		{name: "localhost", host: "localhost", port: "80", rule: "loopback", addr: "127.0.0.1", hint: "--allow-host localhost to"},
		{name: "localhost trailing dot", host: "localhost.", port: "3000", rule: "loopback", hint: "--allow-host localhost:3000"},
		{name: "name to rfc1918", host: "intranet.test", port: "80", rule: "private (RFC 1918)", addr: "10.1.2.3"},
		{name: "name to metadata", host: "metadata.test", port: "80", rule: "cloud metadata", nohnt: ap},
		{name: "name to mapped", host: "mapped.test", port: "80", rule: "private", addr: "192.168.1.1"},
		{name: "name to cgnat", host: "cgnat.test", port: "80", rule: "carrier-grade"},
		{name: "name to link-local v6", host: "linklocal6.test", port: "80", rule: "link-local"},
		{name: "name to multicast", host: "multicast.test", port: "80", rule: "multicast"},
		{name: "mixed answers", host: "mixed.test", port: "80", rule: "private", addr: "192.168.0.10"},
		{name: "mixed answers v6", host: "mixed6.test", port: "80", rule: "unique local", addr: "fd00::5"},
		{name: "does not resolve", host: "nxdomain.test", port: "80", rule: RuleNoResolve},
		{name: "no answers", host: "empty.test", port: "80", rule: RuleNoResolve},

		// AllowHosts.
		{name: "allow host any port", pol: Policy{AllowHosts: []string{"127.0.0.1"}}, host: "127.0.0.1", port: "8080", allow: true, addr: "127.0.0.1"},
		{name: "allow host:port", pol: Policy{AllowHosts: []string{"127.0.0.1:8080"}}, host: "127.0.0.1", port: "8080", allow: true},
		{name: "allow host:port other port", pol: Policy{AllowHosts: []string{"127.0.0.1:8080"}}, host: "127.0.0.1", port: "8081", rule: "loopback", hint: "--allow-host 127.0.0.1:8081"},
		{name: "allow name", pol: Policy{AllowHosts: []string{"intranet.test"}}, host: "intranet.test", port: "80", allow: true, addr: "10.1.2.3"},
		{name: "allow name trailing dot", pol: Policy{AllowHosts: []string{"intranet.test."}}, host: "intranet.test", port: "80", allow: true},
		{name: "allow name upper", pol: Policy{AllowHosts: []string{" Intranet.TEST "}}, host: "intranet.test.", port: "80", allow: true},
		{name: "allow name wrong port", pol: Policy{AllowHosts: []string{"intranet.test:8443"}}, host: "intranet.test", port: "443", rule: "private"},
		{name: "allow ip does not allow name", pol: Policy{AllowHosts: []string{"10.1.2.3"}}, host: "intranet.test", port: "80", rule: "private"},
		{name: "allow ip matches legacy form", pol: Policy{AllowHosts: []string{"127.0.0.1"}}, host: "2130706433", port: "80", allow: true},
		{name: "allow ip matches mapped form", pol: Policy{AllowHosts: []string{"127.0.0.1"}}, host: "[::ffff:127.0.0.1]", port: "80", allow: true, addr: "127.0.0.1"},
		{name: "allow v6 with port", pol: Policy{AllowHosts: []string{"[::1]:8080"}}, host: "[::1]", port: "8080", allow: true},
		{name: "allow v6 bare", pol: Policy{AllowHosts: []string{"::1"}}, host: "::1", port: "9", allow: true},
		{name: "allow other host", pol: Policy{AllowHosts: []string{"127.0.0.2"}}, host: "127.0.0.1", port: "80", rule: "loopback"},
		{name: "allow wildcard ignored", pol: Policy{AllowHosts: []string{"*.test"}}, host: "intranet.test", port: "80", rule: "private"},

		// AllowPrivate.
		{name: "allow private rfc1918", pol: Policy{AllowPrivate: true}, host: "10.0.0.1", port: "80", allow: true},
		{name: "allow private name", pol: Policy{AllowPrivate: true}, host: "mixed.test", port: "80", allow: true, addr: "93.184.216.34"},
		{name: "allow private metadata", pol: Policy{AllowPrivate: true}, host: "169.254.169.254", port: "80", allow: true},

		// BlockHosts.
		{name: "block exact", pol: Policy{BlockHosts: []string{"public.test"}}, host: "public.test", port: "80", rule: RuleBlocked},
		{name: "block exact trailing dot", pol: Policy{BlockHosts: []string{"public.test"}}, host: "Public.Test.", port: "80", rule: RuleBlocked},
		{name: "block port other port", pol: Policy{BlockHosts: []string{"public.test:443"}}, host: "public.test", port: "80", allow: true},
		{name: "block port same port", pol: Policy{BlockHosts: []string{"public.test:443"}}, host: "public.test", port: "443", rule: RuleBlocked},
		{name: "block suffix sub", pol: Policy{BlockHosts: []string{"*.example.com"}}, host: "a.b.example.com", port: "80", rule: RuleBlocked},
		{name: "block suffix apex", pol: Policy{BlockHosts: []string{"*.example.com"}}, host: "example.com", port: "80", rule: RuleBlocked},
		{name: "block suffix not lookalike", pol: Policy{BlockHosts: []string{"*.example.com"}}, host: "notexample.com", port: "80", allow: true},
		{name: "block beats allow", pol: Policy{BlockHosts: []string{"intranet.test"}, AllowHosts: []string{"intranet.test"}, AllowPrivate: true}, host: "intranet.test", port: "80", rule: RuleBlocked},
		{name: "block ip blocks literal", pol: Policy{BlockHosts: []string{"93.184.216.34"}}, host: "93.184.216.34", port: "80", rule: RuleBlocked},
		{name: "block ip blocks resolved", pol: Policy{BlockHosts: []string{"93.184.216.34"}}, host: "public.test", port: "80", rule: RuleBlocked, addr: "93.184.216.34"},
		{name: "block ip blocks legacy form", pol: Policy{BlockHosts: []string{"127.0.0.1"}, AllowPrivate: true}, host: "0x7f000001", port: "80", rule: RuleBlocked},

		// OnlyHosts.
		{name: "only suffix match", pol: Policy{OnlyHosts: []string{"*.example.com"}}, host: "www.example.com", port: "443", allow: true},
		{name: "only suffix miss", pol: Policy{OnlyHosts: []string{"*.example.com"}}, host: "public.test", port: "443", rule: RuleNotOnly, hint: "--only-hosts"},
		{name: "only port miss", pol: Policy{OnlyHosts: []string{"public.test:443"}}, host: "public.test", port: "80", rule: RuleNotOnly},
		{name: "only does not allow internal", pol: Policy{OnlyHosts: []string{"intranet.test"}}, host: "intranet.test", port: "80", rule: "private"},
		{name: "only plus allow internal", pol: Policy{OnlyHosts: []string{"intranet.test"}, AllowHosts: []string{"intranet.test"}}, host: "intranet.test", port: "80", allow: true},
		{name: "only nothing", pol: Policy{OnlyHosts: []string{NoHosts}}, host: "public.test", port: "80", rule: RuleNotOnly},
		{name: "only invalid entries match nothing", pol: Policy{OnlyHosts: []string{"http://x/"}}, host: "public.test", port: "80", rule: RuleNotOnly},
		{name: "only blank is off", pol: Policy{OnlyHosts: []string{" "}}, host: "public.test", port: "80", allow: true},
	}
	if len(cases) < 40 {
		t.Fatalf("only %d cases", len(cases))
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := c.pol.Check(context.Background(), testResolver(), c.host, c.port)
			if d.Allowed != c.allow {
				t.Fatalf("Check(%q, %q) allowed=%v, want %v: %s", c.host, c.port, d.Allowed, c.allow, d.Error())
			}
			if !c.allow && !strings.Contains(d.Rule, c.rule) {
				t.Errorf("rule %q, want it to contain %q (%s)", d.Rule, c.rule, d.Error())
			}
			if c.addr != "" && d.Addr != netip.MustParseAddr(c.addr) {
				t.Errorf("addr %v, want %s", d.Addr, c.addr)
			}
			if c.hint != "" && !strings.Contains(d.Hint, c.hint) {
				t.Errorf("hint %q, want it to contain %q", d.Hint, c.hint)
			}
			if c.nohnt != "" && strings.Contains(d.Hint, c.nohnt) {
				t.Errorf("hint %q must not contain %q", d.Hint, c.nohnt)
			}
			if d.Allowed && (!d.Addr.IsValid() || d.Rule != "") {
				t.Errorf("allowed decision without address or with rule: %+v", d)
			}
			if !d.Allowed && (d.Reason == "" || !strings.Contains(d.Error(), "refused: ")) {
				t.Errorf("refusal without reason: %+v", d)
			}
		})
	}
}

func TestCheckLiteralsAreNotResolved(t *testing.T) {
	r := testResolver()
	for _, h := range []string{"127.0.0.1", "[::1]", "2130706433", "0x7f.1", "[fe80::1%25eth0]", "93.184.216.34", "10.0.0.1."} {
		Policy{}.Check(context.Background(), r, h, "80")
	}
	if n := r.total(); n != 0 {
		t.Fatalf("resolver called %d times for IP literals", n)
	}
	Policy{}.Check(context.Background(), r, "public.test", "80")
	if n := r.count("public.test"); n != 1 {
		t.Fatalf("resolver called %d times for one name, want 1", n)
	}
	// Refused before resolving: block, only.
	Policy{BlockHosts: []string{"public.test"}}.Check(context.Background(), r, "public.test", "80")
	Policy{OnlyHosts: []string{"x.test"}}.Check(context.Background(), r, "public.test", "80")
	if n := r.count("public.test"); n != 1 {
		t.Fatalf("blocked names were resolved (%d lookups)", n)
	}
}

func TestDecisionError(t *testing.T) {
	d := Policy{}.Check(context.Background(), testResolver(), "intranet.test", "80")
	d.URL = "http://intranet.test/"
	want := "request to http://intranet.test/ refused: intranet.test resolves to 10.1.2.3, a private (RFC 1918) address; " +
		"start browserd with --allow-host intranet.test to allow it, or --allow-private to allow every internal address"
	if got := d.Error(); got != want {
		t.Fatalf("Error()\n got %q\nwant %q", got, want)
	}
	d = Policy{}.Check(context.Background(), nil, "127.0.0.2", "8080")
	want = "request to 127.0.0.2:8080 refused: 127.0.0.2 is a loopback address; start browserd with --allow-host 127.0.0.2:8080 to allow it, or --allow-private to allow every internal address"
	if got := d.Error(); got != want {
		t.Fatalf("Error()\n got %q\nwant %q", got, want)
	}
	d = Policy{}.Check(context.Background(), nil, "0x7f.1", "80")
	if !strings.Contains(d.Error(), "0x7f.1 (127.0.0.1) is a loopback address") {
		t.Fatalf("legacy form not explained: %s", d.Error())
	}
	d = Policy{}.Check(context.Background(), nil, "[fc00::1]", "80")
	if !strings.Contains(d.Error(), "is a unique local (fc00::/7) address") {
		t.Fatalf("article: %s", d.Error())
	}
	d = Policy{}.Check(context.Background(), nil, "192.0.0.1", "80")
	if !strings.Contains(d.Error(), "is an IETF") {
		t.Fatalf("article: %s", d.Error())
	}
}

func TestParseHost(t *testing.T) {
	cases := []struct {
		in, key string
		ip      bool
		bad     bool
	}{
		{in: "Example.COM", key: "example.com"},
		{in: "example.com.", key: "example.com"},
		{in: "under_score.test", key: "under_score.test"},
		{in: "xn--bcher-kva.example", key: "xn--bcher-kva.example"},
		{in: "127.0.0.1", key: "127.0.0.1", ip: true},
		{in: "2130706433", key: "127.0.0.1", ip: true},
		{in: "0x7f.1", key: "127.0.0.1", ip: true},
		{in: "0X7F.0.0.1", key: "127.0.0.1", ip: true},
		{in: "0177.0.0.1", key: "127.0.0.1", ip: true},
		{in: "127.1", key: "127.0.0.1", ip: true},
		{in: "127.0.1", key: "127.0.0.1", ip: true},
		{in: "0x", key: "0.0.0.0", ip: true},
		{in: "0", key: "0.0.0.0", ip: true},
		{in: "4294967295", key: "255.255.255.255", ip: true},
		{in: "[::1]", key: "::1", ip: true},
		{in: "[::FFFF:7F00:1]", key: "127.0.0.1", ip: true},
		{in: "[fe80::1%25eth0]", key: "fe80::1", ip: true},
		{in: "fe80::1%eth0", key: "fe80::1", ip: true},
		{in: "4294967296", bad: true},
		{in: "256.0.0.1", bad: true},
		{in: "1.2.3.4.5", bad: true},
		{in: "foo.09", bad: true},
		{in: "foo.123", bad: true},
		{in: "[::1", bad: true},
		{in: "[]", bad: true},
		{in: "[1.2.3.4]", bad: true},
		{in: "a..b", bad: true},
		{in: ".", bad: true},
		{in: "", bad: true},
		{in: "a b", bad: true},
		{in: "a/b", bad: true},
		{in: "-1.0.0.1", bad: true},
		{in: strings.Repeat("a", 64) + ".test", bad: true},
		{in: "foo.0x1g", key: "foo.0x1g"},
	}
	for _, c := range cases {
		h, err := parseHost(c.in)
		if c.bad {
			if err == nil {
				t.Errorf("parseHost(%q) = %+v, want error", c.in, h)
			}
			continue
		}
		if err != nil || h.key != c.key || h.isIP != c.ip {
			t.Errorf("parseHost(%q) = %+v, %v; want key %q ip %v", c.in, h, err, c.key, c.ip)
		}
	}
}

func TestValidate(t *testing.T) {
	good := Policy{
		AllowHosts: []string{"a.test", "a.test:8080", "127.0.0.1:3000", "[::1]:80", "::1", ""},
		BlockHosts: []string{"*.evil.test", "*.evil.test:443", "10.0.0.1"},
		OnlyHosts:  []string{"*.example.com", NoHosts},
	}
	if err := good.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []Policy{
		{AllowHosts: []string{"http://a.test/"}},
		{AllowHosts: []string{"*.a.test"}},
		{AllowHosts: []string{"a.test:0"}},
		{AllowHosts: []string{"a.test:http"}},
		{BlockHosts: []string{"*.10.0.0.1"}},
		{BlockHosts: []string{"a b"}},
		{OnlyHosts: []string{"1.2.3.999"}},
	} {
		err := p.Validate()
		if err == nil {
			t.Errorf("Validate(%+v) = nil, want error", p)
			continue
		}
		if !strings.HasPrefix(err.Error(), "egress: --") {
			t.Errorf("error %q does not name the flag", err)
		}
	}
}

func TestNarrow(t *testing.T) {
	p := Policy{
		AllowHosts:   []string{"a.test", "b.test:80", "c.test", "[::1]:8080"},
		AllowPrivate: true,
		BlockHosts:   []string{"x.test", "*.y.test"},
	}
	q := Policy{
		AllowHosts:   []string{"a.test:8080", "b.test", "d.test", "C.test", "::1"},
		AllowPrivate: false,
		BlockHosts:   []string{"*.y.test", "z.test"},
		OnlyHosts:    []string{"*.example.com"},
	}
	r := p.Narrow(q)
	if want := []string{"a.test:8080", "b.test:80", "c.test", "[::1]:8080"}; !slices.Equal(r.AllowHosts, want) {
		t.Errorf("AllowHosts = %q, want %q", r.AllowHosts, want)
	}
	if r.AllowPrivate {
		t.Error("AllowPrivate = true, want p && q = false")
	}
	if want := []string{"x.test", "*.y.test", "z.test"}; !slices.Equal(r.BlockHosts, want) {
		t.Errorf("BlockHosts = %q, want %q", r.BlockHosts, want)
	}
	if want := []string{"*.example.com"}; !slices.Equal(r.OnlyHosts, want) {
		t.Errorf("OnlyHosts = %q, want q's %q", r.OnlyHosts, want)
	}
	if got := p.Narrow(Policy{}); len(got.AllowHosts) != 0 || got.AllowPrivate {
		t.Errorf("Narrow(zero) kept allowances: %+v", got)
	}
	if got := (Policy{AllowPrivate: true}).Narrow(Policy{AllowPrivate: true}); !got.AllowPrivate {
		t.Error("AllowPrivate true && true = false")
	}

	only := func(a, b []string) []string {
		return Policy{OnlyHosts: a}.Narrow(Policy{OnlyHosts: b}).OnlyHosts
	}
	for _, c := range []struct{ p, q, want []string }{
		{nil, []string{"x.test"}, []string{"x.test"}},
		{[]string{"x.test"}, nil, []string{"x.test"}},
		{[]string{"*.example.com"}, []string{"a.example.com", "other.test"}, []string{"a.example.com"}},
		{[]string{"a.example.com:443"}, []string{"*.example.com"}, []string{"a.example.com:443"}},
		{[]string{"*.example.com"}, []string{"*.a.example.com:443"}, []string{"*.a.example.com:443"}},
		{[]string{"x.test:80"}, []string{"x.test:443"}, []string{NoHosts}},
		{[]string{"x.test"}, []string{"y.test"}, []string{NoHosts}},
	} {
		if got := only(c.p, c.q); !slices.Equal(got, c.want) {
			t.Errorf("OnlyHosts %q narrowed by %q = %q, want %q", c.p, c.q, got, c.want)
		}
	}
}

// TestNarrowNeverAllowsMore checks the defining property on a grid: what
// p.Narrow(q) allows, both p and q allow.
func TestNarrowNeverAllowsMore(t *testing.T) {
	allows := [][]string{nil, {"intranet.test"}, {"intranet.test:80"}, {"127.0.0.1"}}
	onlys := [][]string{nil, {"*.example.com"}, {"www.example.com:443"}, {"public.test", "intranet.test"}}
	var pols []Policy
	for i, a := range allows {
		for _, o := range onlys {
			for _, priv := range []bool{false, true} {
				pols = append(pols, Policy{AllowHosts: a, OnlyHosts: o, AllowPrivate: priv, BlockHosts: onlys[(i+1)%len(onlys)]})
			}
		}
	}
	targets := [][2]string{{"intranet.test", "80"}, {"intranet.test", "443"}, {"public.test", "80"}, {"www.example.com", "443"}, {"www.example.com", "80"}, {"127.0.0.1", "80"}, {"10.0.0.1", "80"}, {"a.b.example.com", "80"}}
	r := testResolver()
	ctx := context.Background()
	n := 0
	for _, p := range pols {
		for _, q := range pols {
			nw := p.Narrow(q)
			for _, tg := range targets {
				if nw.Check(ctx, r, tg[0], tg[1]).Allowed {
					n++
					if !p.Check(ctx, r, tg[0], tg[1]).Allowed || !q.Check(ctx, r, tg[0], tg[1]).Allowed {
						t.Fatalf("%+v narrowed by %+v = %+v allows %s:%s", p, q, nw, tg[0], tg[1])
					}
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("grid allowed nothing: test is vacuous")
	}
}

// TestWider: the entries of a session's allowHosts the server's list does
// not cover whole.
func TestWider(t *testing.T) {
	server := Policy{AllowHosts: []string{"127.0.0.1", "intranet.local:8080"}}
	got := server.Wider(Policy{AllowHosts: []string{"127.0.0.1:3000", "127.0.0.1", "intranet.local:8080", "intranet.local", "10.0.0.5", "not a host!"}})
	want := []string{"intranet.local", "10.0.0.5"}
	if !slices.Equal(got, want) {
		t.Errorf("Wider = %q, want %q", got, want)
	}
	if got := (Policy{}).Wider(Policy{}); len(got) != 0 {
		t.Errorf("Wider of nothing = %q", got)
	}
}
