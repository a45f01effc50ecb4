// Package freeport gives tests a 127.0.0.1 address a server they start
// can listen on, one that no outgoing connection takes in the meantime.
package freeport

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// handedOut holds the ports Addr gave this test binary: it never gives
// one twice, though the server it was for may not have bound it yet.
var (
	portsMu   sync.Mutex
	handedOut = map[int]bool{}
)

// Addr returns a 127.0.0.1 address a daemon can listen on.
//
// A port from the kernel's port 0 is in the ephemeral range, the range
// every outgoing connection's local port comes from: between this check and
// the daemon's bind, Chromium's or a client's connection may take it (CI
// failed so: "bind: address already in use"). So the port comes from below
// that range, where no outgoing connection goes, is checked free, and is
// never handed out twice.
func Addr(t testing.TB) string {
	t.Helper()
	low := ephemeralLow()
	portsMu.Lock()
	defer portsMu.Unlock()
	for range 1000 {
		port := 10000 + rand.IntN(low-10000)
		if handedOut[port] {
			continue
		}
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			continue
		}
		ln.Close()
		handedOut[port] = true
		return ln.Addr().String()
	}
	t.Fatal("no free port below the ephemeral range after 1000 tries")
	return ""
}

// ephemeralLow is the low end of the kernel's ephemeral port range
// (32768 when it cannot be read).
func ephemeralLow() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 32768
	}
	f := strings.Fields(string(b))
	if len(f) < 1 {
		return 32768
	}
	n, err := strconv.Atoi(f[0])
	if err != nil || n <= 11000 {
		return 32768
	}
	return n
}
