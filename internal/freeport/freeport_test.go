package freeport

import (
	"net"
	"strconv"
	"testing"
)

func TestAddr(t *testing.T) {
	low := ephemeralLow()
	seen := map[string]bool{}
	for range 50 {
		a := Addr(t)
		if seen[a] {
			t.Fatalf("Addr gave %s twice", a)
		}
		seen[a] = true
		_, p, err := net.SplitHostPort(a)
		if err != nil {
			t.Fatal(err)
		}
		if n, _ := strconv.Atoi(p); n < 10000 || n >= low {
			t.Errorf("Addr gave port %d, want one in [10000, %d): below the ephemeral range", n, low)
		}
		ln, err := net.Listen("tcp", a)
		if err != nil {
			t.Fatalf("listen on %s that Addr gave: %v", a, err)
		}
		ln.Close()
	}
}
