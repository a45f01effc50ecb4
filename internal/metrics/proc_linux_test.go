//go:build linux

package metrics

import (
	"syscall"
	"testing"
)

func TestGroupUsage(t *testing.T) {
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
