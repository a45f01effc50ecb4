package egress

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// reports records what a proxy reports through OnRefuse and OnForward.
type reports struct {
	mu        sync.Mutex
	refused   []string
	forwarded []bool
}

func (r *reports) options(o Options) Options {
	o.OnRefuse = func(kind string) {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.refused = append(r.refused, kind)
	}
	o.OnForward = func(ok bool) {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.forwarded = append(r.forwarded, ok)
	}
	return o
}

// take returns what was reported since the last call and forgets it.
func (r *reports) take() (refused []string, forwarded []bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	refused, forwarded = r.refused, r.forwarded
	r.refused, r.forwarded = nil, nil
	return refused, forwarded
}

func TestRefusalKind(t *testing.T) {
	res := newResolver(map[string][]string{"meta.test": {"169.254.169.254"}, "public.test": {"93.184.216.34"}})
	for _, tc := range []struct {
		pol        Policy
		host, port string
		want       string
	}{
		{Policy{}, "public.test", "80", ""},
		{Policy{}, "nxdomain.test", "80", ""},
		{Policy{}, "127.0.0.1", "80", RefusedLoopback},
		{Policy{}, "::1", "80", RefusedLoopback},
		{Policy{}, "::ffff:127.0.0.1", "80", RefusedLoopback},
		{Policy{}, "64:ff9b::7f00:1", "80", RefusedLoopback}, // NAT64 of 127.0.0.1
		{Policy{}, "meta.test", "80", RefusedMetadata},
		{Policy{}, "10.1.2.3", "80", RefusedInternal},
		{Policy{}, "169.254.1.1", "80", RefusedInternal},
		{Policy{}, "fd00::1", "80", RefusedInternal},
		{Policy{}, "224.0.0.1", "80", RefusedInternal},
		{Policy{BlockHosts: []string{"*.public.test"}}, "public.test", "80", RefusedBlocked},
		{Policy{OnlyHosts: []string{"other.test"}}, "public.test", "80", RefusedNotOnly},
		{Policy{}, "bad_host!", "80", RefusedBadHost},
		{Policy{}, "public.test", "99999", RefusedBadPort},
	} {
		d := tc.pol.Check(context.Background(), res, tc.host, tc.port)
		got := RefusalKind(d)
		if got != tc.want {
			t.Errorf("%s:%s (rule %q): kind %q, want %q", tc.host, tc.port, d.Rule, got, tc.want)
		}
		if got != "" && !slices.Contains(RefusalKinds, got) {
			t.Errorf("%s: kind %q is not in RefusalKinds", tc.host, got)
		}
	}
	if got := RefusalKind(Decision{Rule: RuleProxyItself}); got != RefusedProxyItself {
		t.Errorf("proxy itself: %q", got)
	}
}

// The proxy reports each refusal once, with its kind, and whether each
// allowed request reached its upstream.
func TestProxyReports(t *testing.T) {
	allowed := startUpstream(t, "127.0.0.1", false)
	tlsUp := startUpstream(t, "127.0.0.1", true)
	internal := startUpstream(t, "127.0.0.2", false)
	dead, err := net.Listen("tcp", "127.0.0.1:0") // a port nothing answers on
	if err != nil {
		t.Fatal(err)
	}
	deadAddr := dead.Addr().String()
	dead.Close()

	var stranger atomic.Bool
	var rep reports
	p := newProxy(t, rep.options(Options{
		Resolver: newResolver(map[string][]string{"blocked.test": {"93.184.216.34"}}),
		PeerUID: func(local, remote netip.AddrPort) (int, error) {
			if stranger.Load() {
				return ownUID + 1, nil
			}
			return procPeerUID(local, remote)
		},
	}))
	s := newSession(t, p, Policy{})
	s.SetPolicy(Policy{AllowHosts: []string{allowed.addr, tlsUp.addr, deadAddr, s.Addr()}, BlockHosts: []string{"blocked.test"}})
	c := proxyClient(t, s.URL(), nil)

	check := func(what string, wantRefused []string, wantForwarded []bool) {
		t.Helper()
		refused, forwarded := rep.take()
		if !slices.Equal(refused, wantRefused) || !slices.Equal(forwarded, wantForwarded) {
			t.Errorf("%s: refused %q, forwarded %v; want %q, %v", what, refused, forwarded, wantRefused, wantForwarded)
		}
	}

	get(t, c, "http://"+allowed.addr+"/")
	check("an allowed request", nil, []bool{true})
	get(t, c, "http://"+internal.addr+"/")
	check("a loopback address", []string{RefusedLoopback}, nil)
	get(t, c, "http://blocked.test/")
	check("a blocked host", []string{RefusedBlocked}, nil)
	get(t, c, "http://nxdomain.test/")
	check("a name that does not resolve", nil, []bool{false})
	get(t, c, "http://"+deadAddr+"/")
	check("an upstream that refuses the connection", nil, []bool{false})
	get(t, c, s.URL()+"/")
	check("the proxy itself", []string{RefusedProxyItself}, nil)

	// A tunnel: reported when it opens.
	tc := proxyClient(t, s.URL(), tlsUp.Client().Transport.(*http.Transport).TLSClientConfig.Clone())
	get(t, tc, tlsUp.URL+"/")
	check("a CONNECT tunnel", nil, []bool{true})

	// A scheme the proxy does not forward.
	conn, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	conn.Write([]byte("GET ftp://" + allowed.addr + "/ HTTP/1.1\r\nHost: x\r\n\r\n"))
	buf := make([]byte, 64)
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	n, _ := conn.Read(buf)
	conn.Close()
	if !strings.Contains(string(buf[:n]), "400") {
		t.Errorf("ftp:// request: %q, want a 400", buf[:n])
	}
	check("an ftp:// request", []string{RefusedScheme}, nil)

	// Another user's process: the connection is closed unread.
	stranger.Store(true)
	if resp, err := proxyClient(t, s.URL(), nil).Get("http://" + allowed.addr + "/"); err == nil {
		resp.Body.Close()
		t.Fatal("another user's process used the listener")
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		rep.mu.Lock()
		n := len(rep.refused)
		rep.mu.Unlock()
		if n > 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	refused, forwarded := rep.take()
	if len(refused) == 0 || slices.ContainsFunc(refused, func(k string) bool { return k != RefusedOtherUser }) || len(forwarded) != 0 {
		t.Errorf("another user's connection: refused %q, forwarded %v; want other_user only", refused, forwarded)
	}
}
