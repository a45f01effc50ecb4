package metrics

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
)

// GroupUsage counts the processes of the process groups pgids and their
// resident memory together, from /proc: browserd starts each Chromium in a
// group of its own (its pgid is the browser's PID), so this gives a
// Source's ChromiumProcesses and ChromiumRSSBytes, renderers and other
// helpers included. Processes that exit meanwhile are skipped; without
// /proc (not Linux) it returns zeros.
func GroupUsage(pgids ...int) (procs int, rssBytes int64) {
	pgids = slices.DeleteFunc(slices.Clone(pgids), func(g int) bool { return g <= 0 })
	if len(pgids) == 0 {
		return 0, 0
	}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return 0, 0
	}
	page := int64(os.Getpagesize())
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		dir := filepath.Join("/proc", e.Name())
		stat, err := os.ReadFile(filepath.Join(dir, "stat"))
		if err != nil {
			continue
		}
		if g, ok := pgrpOf(stat); !ok || !slices.Contains(pgids, g) {
			continue
		}
		procs++
		statm, err := os.ReadFile(filepath.Join(dir, "statm"))
		if err != nil {
			continue
		}
		if f := bytes.Fields(statm); len(f) >= 2 {
			if pages, err := strconv.ParseInt(string(f[1]), 10, 64); err == nil {
				rssBytes += pages * page
			}
		}
	}
	return procs, rssBytes
}

// pgrpOf reads the process group from /proc/PID/stat: "pid (comm) state
// ppid pgrp …", where comm may hold spaces and parentheses.
func pgrpOf(stat []byte) (int, bool) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, false
	}
	f := bytes.Fields(stat[i+1:])
	if len(f) < 3 {
		return 0, false
	}
	g, err := strconv.Atoi(string(f[2]))
	return g, err == nil
}
