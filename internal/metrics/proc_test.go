package metrics

import (
	"runtime"
	"syscall"
	"testing"
)

func TestPgrpOf(t *testing.T) {
	for _, tc := range []struct {
		stat string
		want int
		ok   bool
	}{
		{"4242 (chromium) S 1 4242 4242 0 -1", 4242, true},
		{"4243 (a) b) (c) S 4242 4242 4242 0", 4242, true}, // comm with spaces and parentheses
		{"garbage", 0, false},
		{"1 (x) S", 0, false},
	} {
		g, ok := pgrpOf([]byte(tc.stat))
		if g != tc.want || ok != tc.ok {
			t.Errorf("pgrpOf(%q) = %d, %v; want %d, %v", tc.stat, g, ok, tc.want, tc.ok)
		}
	}
}

func TestGroupUsage(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	procs, rss := GroupUsage(syscall.Getpgrp())
	if procs < 1 || rss <= 0 {
		t.Errorf("GroupUsage(own group) = %d processes, %d bytes; want this test among them", procs, rss)
	}
	if procs, rss := GroupUsage(); procs != 0 || rss != 0 {
		t.Errorf("GroupUsage() = %d, %d; want zeros", procs, rss)
	}
	if procs, _ := GroupUsage(0, -1); procs != 0 {
		t.Errorf("GroupUsage(0, -1) = %d processes, want none", procs)
	}
}
