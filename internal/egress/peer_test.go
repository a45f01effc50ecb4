package egress

import (
	"errors"
	"net/netip"
	"sync/atomic"
	"testing"
)

func TestPeerUIDIn(t *testing.T) {
	table := []byte(`  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:A1B2 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 111 1 0000000000000000 100 0 0 10 0
   1: 0100007F:A1B2 0100007F:D431 01 00000000:00000000 00:00000000 00000000     0        0 222 1 0000000000000000 20 4 30 10 -1
   2: 0100007F:D431 0100007F:A1B2 01 00000000:00000000 00:00000000 00000000 65534        0 333 1 0000000000000000 20 4 30 10 -1
`)
	listener := netip.MustParseAddrPort("127.0.0.1:41394") // A1B2
	peer := netip.MustParseAddrPort("127.0.0.1:54321")     // D431
	if got := procAddr(listener); got != "0100007F:A1B2" {
		t.Fatalf("procAddr = %s", got)
	}
	uid, err := peerUIDIn(table, listener, peer)
	if err != nil || uid != 65534 {
		t.Fatalf("peer uid = %d, %v; want 65534 (the connecting end's, not the listener's)", uid, err)
	}
	if _, err := peerUIDIn(table, listener, netip.MustParseAddrPort("127.0.0.1:1")); !errors.Is(err, errNoSocket) {
		t.Errorf("an unknown peer: %v", err)
	}
}

// TestListenerRefusesOtherUsers: a connection whose other end is another
// user's is closed before the proxy reads a byte of it.
func TestListenerRefusesOtherUsers(t *testing.T) {
	up := startUpstream(t, "127.0.0.1", false)
	var stranger atomic.Bool // set by the test, read by the accepting goroutine
	p := newProxy(t, Options{PeerUID: func(local, remote netip.AddrPort) (int, error) {
		if stranger.Load() {
			return ownUID + 1, nil
		}
		return procPeerUID(local, remote)
	}})
	s := newSession(t, p, Policy{AllowHosts: []string{up.addr}})
	c := proxyClient(t, s.URL(), nil)
	if resp, _ := get(t, c, "http://"+up.addr+"/"); resp.StatusCode != 200 {
		t.Fatalf("browserd's own user: status %d", resp.StatusCode)
	}
	stranger.Store(true)
	c = proxyClient(t, s.URL(), nil)
	if resp, err := c.Get("http://" + up.addr + "/"); err == nil {
		resp.Body.Close()
		t.Fatalf("another user's process used the listener: status %d", resp.StatusCode)
	}
	if n := up.hits.Load(); n != 1 {
		t.Errorf("upstream hits = %d, want 1", n)
	}
}
