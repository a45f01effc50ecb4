package egress

import (
	"errors"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"syscall"
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

// TestListenerRefusesOtherUsersForReal connects as user nobody, from a
// real process, through the kernel's own record of who owns the socket.
func TestListenerRefusesOtherUsersForReal(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to run a process as another user")
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("needs bash for /dev/tcp")
	}
	up := startUpstream(t, "127.0.0.1", false)
	p := newProxy(t, Options{})
	s := newSession(t, p, Policy{AllowHosts: []string{up.addr}})
	host, port, _ := net.SplitHostPort(s.Addr())
	script := `exec 3<>/dev/tcp/` + host + `/` + port + ` || exit 9
printf 'GET http://` + up.addr + `/ HTTP/1.1\r\nHost: ` + up.addr + `\r\nConnection: close\r\n\r\n' >&3
cat <&3`
	run := func(uid uint32) string {
		cmd := exec.Command(bash, "-c", script)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: uid}}
		out, _ := cmd.CombinedOutput()
		return string(out)
	}
	if out := run(0); !strings.Contains(out, "200 OK") {
		t.Fatalf("root, browserd's user: %q", out)
	}
	if out := run(65534); strings.Contains(out, "HTTP/1.1") {
		t.Fatalf("user nobody got an answer through the listener: %q", out)
	}
	if n := up.hits.Load(); n != 1 {
		t.Errorf("upstream hits = %d, want 1", n)
	}
}
