package main

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"sync"
	"time"
)

// cpuMeter counts each running test's CPU time: that of its process and
// of every process below it — the daemons it starts, their Chromium, and
// Chromium's renderers, which no wait4 of ours would count (Chromium's
// zygote forks them, and they are not all reaped up the chain). It reads
// /proc every interval and keeps the last CPU time seen of each process
// below a test's; a process's last interval before it exits is lost,
// which a process that lives for seconds makes small. Linux only: where
// /proc is missing every test counts 0.
type cpuMeter struct {
	interval time.Duration

	mu    sync.Mutex
	roots map[int]string         // a running test's process → the test
	seen  map[procID]procCPU     // every process seen below a root
	clock func() ([]proc, error) // readProcs; tests replace it
}

// procID is a process: its pid and start time (pids are reused).
type procID struct {
	pid   int
	start uint64
}

// procCPU is a process's CPU time when last seen, in clock ticks, and
// the test it ran under.
type procCPU struct {
	ticks uint64
	test  string
}

// proc is a line of /proc/PID/stat, what cpuMeter needs of it.
type proc struct {
	pid, ppid int
	ticks     uint64 // utime + stime
	start     uint64
}

// clkTck is the kernel's USER_HZ, the unit of /proc's CPU times: 100 on
// every Linux that Go runs on.
const clkTck = 100

func newCPUMeter(interval time.Duration) *cpuMeter {
	return &cpuMeter{interval: interval, roots: map[int]string{}, seen: map[procID]procCPU{}}
}

// run samples until ctx ends.
func (m *cpuMeter) run(ctx context.Context) {
	t := time.NewTicker(m.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			m.sample()
		}
	}
}

// start counts test's CPU from its process pid on.
func (m *cpuMeter) start(test string, pid int) {
	m.mu.Lock()
	m.roots[pid] = test
	m.mu.Unlock()
}

// stop ends test's count and returns it: what was seen at the last
// sample, and at one now (its process is gone; whatever it left running
// below it is not).
func (m *cpuMeter) stop(test string, pid int) time.Duration {
	m.sample()
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.roots, pid)
	var ticks uint64
	for id, c := range m.seen {
		if c.test == test {
			ticks += c.ticks
			delete(m.seen, id)
		}
	}
	return time.Duration(ticks) * time.Second / clkTck
}

// sample reads every process once and notes the CPU time of those below
// a running test's.
func (m *cpuMeter) sample() {
	procs, err := readProcs()
	if err != nil {
		return
	}
	children := map[int][]int{}
	byPID := make(map[int]proc, len(procs))
	for _, p := range procs {
		children[p.ppid] = append(children[p.ppid], p.pid)
		byPID[p.pid] = p
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for root, test := range m.roots {
		stack := []int{root}
		for len(stack) > 0 {
			pid := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			p, ok := byPID[pid]
			if !ok {
				continue
			}
			m.seen[procID{p.pid, p.start}] = procCPU{p.ticks, test}
			stack = append(stack, children[pid]...)
		}
	}
}

// readProcs reads /proc/*/stat.
func readProcs() ([]proc, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	procs := make([]proc, 0, len(entries))
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // gone meanwhile
		}
		if p, ok := parseStat(b); ok {
			procs = append(procs, p)
		}
	}
	return procs, nil
}

// parseStat reads a /proc/PID/stat line: "pid (comm) state ppid …",
// utime and stime its 14th and 15th fields, starttime its 22nd. The
// command's name may hold spaces and parentheses: the fields after it
// are counted from its last ")".
func parseStat(b []byte) (proc, bool) {
	open, end := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 1 || end < open {
		return proc{}, false
	}
	pid, err := strconv.Atoi(string(bytes.TrimSpace(b[:open])))
	if err != nil {
		return proc{}, false
	}
	f := bytes.Fields(b[end+1:]) // f[0] is field 3 (state)
	if len(f) < 20 {
		return proc{}, false
	}
	num := func(i int) uint64 { n, _ := strconv.ParseUint(string(f[i]), 10, 64); return n }
	return proc{pid: pid, ppid: int(num(1)), ticks: num(11) + num(12), start: num(19)}, true
}
