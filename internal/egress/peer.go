package egress

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"strconv"
	"strings"
)

// A session's listener is on 127.0.0.1, where any local process can
// connect; only browserd's own Chromium may use it, to reach the internet
// under that session's policy. Chromium's --proxy-server (and a browser
// context's proxyServer) cannot carry credentials, so the listener asks
// the kernel instead: a connection whose other end belongs to another user
// is closed at once. Processes of browserd's own user are not kept out —
// they can read its data folder anyway.

// ownUID is the user whose processes may use the listeners.
var ownUID = os.Getuid()

// peerListener is a listener that accepts only connections from
// processes of browserd's user.
type peerListener struct {
	net.Listener
	log *slog.Logger
	// uidOf finds the user of a connection's other end; tests replace it.
	uidOf func(local, remote netip.AddrPort) (int, error)
	// refused, when set, reports a refused connection.
	refused func()
}

func (l *peerListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		local, lok := addrPort(c.LocalAddr())
		remote, rok := addrPort(c.RemoteAddr())
		if !lok || !rok {
			return c, nil
		}
		uid, err := l.uidOf(local, remote)
		switch {
		case err != nil:
			// The kernel's table cannot be read here (not Linux): the
			// listener stays as open as the loopback address makes it.
			l.log.Debug("egress: the user of a connection is unknown", "err", err)
			return c, nil
		case uid != ownUID:
			l.log.Warn("egress: refused a connection from another user's process", "uid", uid, "from", remote.String())
			c.Close()
			if l.refused != nil {
				l.refused()
			}
			continue
		}
		return c, nil
	}
}

func addrPort(a net.Addr) (netip.AddrPort, bool) {
	t, ok := a.(*net.TCPAddr)
	if !ok {
		return netip.AddrPort{}, false
	}
	ap := t.AddrPort()
	return netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port()), true
}

// errNoSocket: the kernel's table has no socket for the connection.
var errNoSocket = errors.New("no such socket in /proc/net/tcp")

// procPeerUID finds, in /proc/net/tcp, the socket whose local address is
// remote and whose peer is local — the other end of an accepted
// connection — and returns the user that owns it.
func procPeerUID(local, remote netip.AddrPort) (int, error) {
	b, err := os.ReadFile("/proc/net/tcp")
	if err != nil {
		return 0, err
	}
	return peerUIDIn(b, local, remote)
}

// peerUIDIn is procPeerUID on the text of /proc/net/tcp.
func peerUIDIn(table []byte, local, remote netip.AddrPort) (int, error) {
	want := [2]string{procAddr(remote), procAddr(local)}
	sc := bufio.NewScanner(bytes.NewReader(table))
	sc.Scan() // the header
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		// sl local_address rem_address st tx:rx tr:when retrnsmt uid ...
		if len(f) < 8 || f[1] != want[0] || f[2] != want[1] {
			continue
		}
		uid, err := strconv.Atoi(f[7])
		if err != nil {
			return 0, fmt.Errorf("reading /proc/net/tcp: uid %q: %w", f[7], err)
		}
		return uid, nil
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, errNoSocket
}

// procAddr writes an IPv4 address and port as /proc/net/tcp does: the
// address as a host-order (little-endian here) hex word, the port in hex.
func procAddr(ap netip.AddrPort) string {
	a := ap.Addr().As4()
	var w [4]byte
	binary.LittleEndian.PutUint32(w[:], binary.BigEndian.Uint32(a[:]))
	return strings.ToUpper(hex.EncodeToString(w[:])) + ":" + fmt.Sprintf("%04X", ap.Port())
}
