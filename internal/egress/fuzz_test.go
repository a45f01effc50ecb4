package egress

import (
	"context"
	"net/netip"
	"strings"
	"testing"

	"github.com/browserd/browserd/internal/urlpolicy"
)

// anyInternal resolves every name to a private address.
type anyInternal struct{}

func (anyInternal) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	return []netip.Addr{netip.MustParseAddr("10.9.8.7")}, nil
}

// FuzzParseHost: parsing never panics, is idempotent, and a host that is an
// internal address in any spelling is never allowed without AllowHosts or
// AllowPrivate.
func FuzzParseHost(f *testing.F) {
	for _, s := range []string{
		"example.com", "example.com.", "127.0.0.1", "2130706433", "0x7f.1", "0177.0.0.1", "127.1",
		"[::1]", "::1", "[fe80::1%25eth0]", "fe80::1%eth0", "[::ffff:10.0.0.1]", "[::10.0.0.1]",
		"[64:ff9b::a00:1]", "169.254.169.254", "0xa9fea9fe", "1.2.3.999", "0x", "[", "]", "%", "..",
		"localhost.", "a..b", "4294967295", "0x100000000", "[::ffff:0x7f.1]", "07777777777",
	} {
		f.Add(s, "80")
	}
	f.Add("example.com", "0")
	f.Add("example.com", "65536")
	f.Add("example.com", "")
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, in, port string) {
		h, err := parseHost(in)
		if err == nil {
			if h.key == "" {
				t.Fatalf("parseHost(%q): empty key", in)
			}
			again, err := parseHost(h.key)
			if h.isIP && !strings.Contains(h.key, ":") || !h.isIP {
				if err != nil || again.key != h.key || again.isIP != h.isIP {
					t.Fatalf("parseHost(%q) = %+v, but its key parses as %+v, %v", in, h, again, err)
				}
			}
			if h.isIP && h.ip.Is4In6() {
				t.Fatalf("parseHost(%q) kept a mapped address %v", in, h.ip)
			}
		}
		if _, err := parsePattern(in, true); err != nil {
			_ = err // only must not panic
		}

		d := Policy{}.Check(ctx, anyInternal{}, in, port)
		if !d.Allowed {
			if d.Rule == "" || d.Reason == "" {
				t.Fatalf("refusal without rule or reason: %+v", d)
			}
			return
		}
		// Allowed: must be a public literal address, dialed as checked.
		if err != nil || !h.isIP {
			t.Fatalf("Check(%q) allowed a host that is not a public literal (parse err %v): %+v", in, err, d)
		}
		if d.Addr != h.ip || classify(d.Addr) != "" || urlpolicy.Internal(d.Addr.WithZone("")) != "" {
			t.Fatalf("Check(%q) allowed internal address %v", in, d.Addr)
		}
		if a, perr := netip.ParseAddr(strings.Trim(in, "[]")); perr == nil && urlpolicy.Internal(a.WithZone("")) != "" {
			t.Fatalf("Check(%q) allowed a literal internal address", in)
		}
		if d.Port == "" || parsePortNum(d.Port) == 0 {
			t.Fatalf("Check(%q, %q) allowed an invalid port %q", in, port, d.Port)
		}
	})
}
