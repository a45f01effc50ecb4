// Command testrun runs a compiled test binary's top-level tests N at a
// time, each in a process of its own, the longest first, and writes their
// `go test -json` events on its standard output, as one package's (pipe
// them to testreport). make test runs the end-to-end suite with it: tests
// that must not share a process with another (an in-process leak check, a
// drill that kills what it started) still run beside one, so the suite's
// wall time is its test time over N instead of its serial part plus the
// rest over N.
//
//	go test -c -o bin/e2e.test ./internal/e2e
//	testrun -n 2 -dir internal/e2e -pkg github.com/browserd/browserd/internal/e2e \
//	    -order internal/e2e/testdata/durations.txt bin/e2e.test -test.timeout 30m | testreport
//
// -order names a file of earlier times (testreport -times writes one):
// tests it lists start longest first, tests it does not list before them
// (a new test's time is unknown). A test's package-level lines (its
// binary's "ok" or "FAIL", a panic outside any test) are passed on only
// when its process failed; one "ok" or "FAIL" line for the package ends
// the output. It exits 1 when a test failed or a process could not run.
//
// -cpu FILE writes each test's CPU time — that of its process and of every
// process below it: the daemons it starts, their Chromium and Chromium's
// renderers (cpuMeter) — with its wall time, the most CPU first: on two
// cores the suite's time is its CPU, and most of it is Chromium's.
package main

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

func main() {
	n := flag.Int("n", 2, "how many tests run at once")
	dir := flag.String("dir", ".", "the folder the test binary runs in (its package's)")
	pkg := flag.String("pkg", "", "the package's import path, for the events (required)")
	order := flag.String("order", "", "a file of earlier times (testreport -times) to start the longest first")
	only := flag.String("run", "", "run only the top-level tests this regular expression matches")
	cpuFile := flag.String("cpu", "", "write each test's CPU and wall time to this file, the most CPU first")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: testrun [-n N] [-dir DIR] -pkg PKG [-order FILE] [-run REGEXP] BINARY [test flags...]")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() < 1 || *pkg == "" || *n < 1 {
		flag.Usage()
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	r := &runner{bin: flag.Arg(0), args: flag.Args()[1:], dir: *dir, pkg: *pkg, out: os.Stdout}
	if *cpuFile != "" {
		r.meter = newCPUMeter(500 * time.Millisecond)
	}
	tests, err := r.list(ctx)
	if err != nil {
		fmt.Fprintf(os.Stderr, "testrun: %v\n", err)
		os.Exit(1)
	}
	if *only != "" {
		re, err := regexp.Compile(*only)
		if err != nil {
			fmt.Fprintf(os.Stderr, "testrun: -run: %v\n", err)
			os.Exit(2)
		}
		tests = slices.DeleteFunc(tests, func(t string) bool { return !re.MatchString(t) })
	}
	if *order != "" {
		times, err := readTimes(*order)
		if err != nil {
			fmt.Fprintf(os.Stderr, "testrun: %v (the tests run in the binary's order)\n", err)
		}
		tests = longestFirst(tests, times)
	}
	ok := r.run(ctx, tests, *n)
	if *cpuFile != "" {
		if err := r.writeCPU(*cpuFile); err != nil {
			fmt.Fprintf(os.Stderr, "testrun: %v\n", err)
		}
	}
	if !ok {
		os.Exit(1)
	}
}

// runner runs one test binary's tests.
type runner struct {
	bin  string
	args []string
	dir  string
	pkg  string

	mu     sync.Mutex // held while a line is written to out
	out    io.Writer
	failed bool
	cpu    []usage
	meter  *cpuMeter // nil: no CPU is counted
}

// list asks the binary for its top-level tests.
func (r *runner) list(ctx context.Context) ([]string, error) {
	cmd := exec.CommandContext(ctx, r.bin, "-test.list", "^Test")
	cmd.Dir = r.dir
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("listing the tests of %s: %w", r.bin, err)
	}
	var tests []string
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, "Test") {
			tests = append(tests, l)
		}
	}
	if len(tests) == 0 {
		return nil, fmt.Errorf("%s lists no test", r.bin)
	}
	return tests, nil
}

// readTimes reads testreport's -times file: "  12.3 s  TestName  pkg".
func readTimes(path string) (map[string]float64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	times := map[string]float64{}
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) < 3 || f[1] != "s" {
			continue
		}
		if s, err := strconv.ParseFloat(f[0], 64); err == nil {
			times[f[2]] = s
		}
	}
	return times, nil
}

// longestFirst orders tests: those times does not know first (in their
// order), then the known ones longest first — so that the last to start
// are the short ones and the workers end together.
func longestFirst(tests []string, times map[string]float64) []string {
	out := append([]string(nil), tests...)
	sort.SliceStable(out, func(i, j int) bool {
		ti, iok := times[out[i]]
		tj, jok := times[out[j]]
		if iok != jok {
			return !iok
		}
		return ti > tj
	})
	return out
}

// run runs tests, n at a time, and ends the output with the package's
// line. It reports whether every test passed.
func (r *runner) run(ctx context.Context, tests []string, n int) bool {
	start := time.Now()
	next := make(chan string)
	var wg sync.WaitGroup
	if r.meter != nil {
		mctx, stop := context.WithCancel(context.Background())
		var mg sync.WaitGroup
		mg.Go(func() { r.meter.run(mctx) })
		defer func() { stop(); mg.Wait() }()
	}
	for range n {
		wg.Go(func() {
			for t := range next {
				r.one(ctx, t)
			}
		})
	}
feed:
	for _, t := range tests {
		select {
		case next <- t:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if ctx.Err() != nil {
		r.failed = true
	}
	action, line := "pass", fmt.Sprintf("ok  \t%s\t%.3fs\n", r.pkg, time.Since(start).Seconds())
	if r.failed {
		action, line = "fail", fmt.Sprintf("FAIL\t%s\t%.3fs\n", r.pkg, time.Since(start).Seconds())
	}
	r.emit(event{Time: time.Now(), Action: "output", Package: r.pkg, Output: line})
	r.emit(event{Time: time.Now(), Action: action, Package: r.pkg, Elapsed: time.Since(start).Seconds()})
	return !r.failed
}

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Time    time.Time `json:",omitzero"`
	Action  string
	Package string
	Test    string  `json:",omitempty"`
	Elapsed float64 `json:",omitempty"`
	Output  string  `json:",omitempty"`
}

func (r *runner) emit(e event) {
	b, _ := json.Marshal(e)
	r.write(b)
}

func (r *runner) write(line []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.out.Write(append(line, '\n'))
}

// one runs test in a process of its own (through go tool test2json) and
// passes its events on as they come: the test's own at once, the
// package's only if the process failed.
func (r *runner) one(ctx context.Context, test string) {
	args := append([]string{"tool", "test2json", "-t", "-p", r.pkg, r.bin,
		"-test.v=test2json", "-test.run", "^" + test + "$"}, r.args...)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = r.dir
	cmd.Stderr = os.Stderr
	// Interrupted, the test binary gets SIGTERM first (its cleanups stop
	// the daemons and browsers it started), a kill ten seconds later.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	stdout, err := cmd.StdoutPipe()
	began := time.Now()
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		r.fail(test, fmt.Sprintf("testrun: could not run %s: %v\n", test, err))
		return
	}
	if r.meter != nil {
		r.meter.start(test, cmd.Process.Pid)
	}
	var pkgLines [][]byte
	sawResult := false
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		line := append([]byte(nil), sc.Bytes()...)
		var e event
		if json.Unmarshal(line, &e) != nil || e.Test == "" {
			pkgLines = append(pkgLines, line)
			continue
		}
		if e.Test == test && (e.Action == "pass" || e.Action == "fail" || e.Action == "skip") {
			sawResult = true
			if e.Action == "fail" {
				r.setFailed()
			}
		}
		r.write(line)
	}
	err = cmd.Wait()
	if r.meter != nil {
		cpu := r.meter.stop(test, cmd.Process.Pid)
		r.mu.Lock()
		r.cpu = append(r.cpu, usage{test, cpu, time.Since(began)})
		r.mu.Unlock()
	}
	if err == nil && sawResult {
		return
	}
	// The process failed: its package-level lines say why (a panic, a
	// timeout, a TestMain that could not start).
	r.setFailed()
	for _, l := range pkgLines {
		var e event
		if json.Unmarshal(l, &e) == nil && (e.Action != "output" || routine(e.Output)) {
			continue // its pass/fail is replaced by testrun's own
		}
		r.write(l)
	}
	if !sawResult {
		r.fail(test, fmt.Sprintf("testrun: %s's process ended without its result: %v\n", test, err))
	}
}

// usage is a test's CPU (cpuMeter) and wall time.
type usage struct {
	test      string
	cpu, wall time.Duration
}

// writeCPU writes each test's CPU and wall time, the most CPU first, and
// their sums.
func (r *runner) writeCPU(path string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	slices.SortFunc(r.cpu, func(a, b usage) int { return cmp.Compare(b.cpu, a.cpu) })
	var b strings.Builder
	var cpu, wall time.Duration
	for _, u := range r.cpu {
		fmt.Fprintf(&b, "%8.1f s CPU %8.1f s  %s\n", u.cpu.Seconds(), u.wall.Seconds(), u.test)
		cpu, wall = cpu+u.cpu, wall+u.wall
	}
	fmt.Fprintf(&b, "%8.1f s CPU %8.1f s  (all %d tests)\n", cpu.Seconds(), wall.Seconds(), len(r.cpu))
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("writing the CPU times: %w", err)
	}
	return nil
}

// routine reports whether a package-level line is one every process
// prints (its PASS, FAIL, ok line), not one saying why it failed.
func routine(s string) bool {
	return s == "PASS\n" || s == "FAIL\n" || strings.HasPrefix(s, "ok  \t") || strings.HasPrefix(s, "FAIL\t") || strings.HasPrefix(s, "=== ")
}

func (r *runner) setFailed() {
	r.mu.Lock()
	r.failed = true
	r.mu.Unlock()
}

// fail reports test failed with why as its output.
func (r *runner) fail(test, why string) {
	r.setFailed()
	r.emit(event{Time: time.Now(), Action: "output", Package: r.pkg, Test: test, Output: why})
	r.emit(event{Time: time.Now(), Action: "fail", Package: r.pkg, Test: test})
}
