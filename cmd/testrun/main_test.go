package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// demoBinary compiles testdata/demo's tests.
func demoBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "demo.test")
	if out, err := exec.Command("go", "test", "-c", "-o", bin, "./testdata/demo").CombinedOutput(); err != nil {
		t.Fatalf("compiling the demo tests: %v\n%s", err, out)
	}
	return bin
}

// run runs bin's tests with testrun and returns its events by test.
func run(t *testing.T, bin string, n int, env ...string) (map[string][]event, bool) {
	t.Helper()
	for _, e := range env {
		k, v, _ := strings.Cut(e, "=")
		t.Setenv(k, v)
	}
	var out bytes.Buffer
	r := &runner{bin: bin, dir: "testdata/demo", pkg: "demo", out: &out}
	tests, err := r.list(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ok := r.run(context.Background(), tests, n)
	events := map[string][]event{}
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var e event
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("a line that is no event: %q", l)
		}
		events[e.Test] = append(events[e.Test], e)
	}
	return events, ok
}

func result(evs []event) string {
	for _, e := range evs {
		if e.Action == "pass" || e.Action == "fail" || e.Action == "skip" {
			return e.Action
		}
	}
	return ""
}

func TestRun(t *testing.T) {
	bin := demoBinary(t)
	events, ok := run(t, bin, 2, "DEMO_MEET="+t.TempDir())
	if ok {
		t.Error("a run with a failing test reported success")
	}
	for test, want := range map[string]string{"TestPass": "pass", "TestFail": "fail", "TestSkip": "skip", "TestPanic": "pass", "TestMeetA": "pass", "TestMeetB": "pass"} {
		if got := result(events[test]); got != want {
			t.Errorf("%s: %q, want %q (two at a time: the meeting tests pass only side by side)", test, got, want)
		}
	}
	// One line for the package, at the end: the processes' own are gone.
	pkg := events[""]
	if len(pkg) != 2 || !strings.HasPrefix(pkg[0].Output, "FAIL\tdemo\t") || pkg[1].Action != "fail" {
		t.Errorf("package events: %+v", pkg)
	}
}

// A test binary that panics: its test fails, and the panic is passed on.
func TestRunPanic(t *testing.T) {
	bin := demoBinary(t)
	events, ok := run(t, bin, 1, "DEMO_PANIC=1")
	if ok || result(events["TestPanic"]) != "fail" {
		t.Fatalf("the panicking test: ok %v, events %+v", ok, events["TestPanic"])
	}
	var all strings.Builder
	for _, evs := range events {
		for _, e := range evs {
			all.WriteString(e.Output)
		}
	}
	if !strings.Contains(all.String(), "kaboom") {
		t.Errorf("the panic's message is not in the output:\n%s", all.String())
	}
}

// The CPU of a test's process and of the processes below it is kept, the
// most first.
func TestCPU(t *testing.T) {
	bin := demoBinary(t)
	burnt := filepath.Join(t.TempDir(), "burnt")
	t.Setenv("DEMO_BURN", burnt)
	r := &runner{bin: bin, dir: "testdata/demo", pkg: "demo", out: io.Discard, meter: newCPUMeter(20 * time.Millisecond)}
	r.run(context.Background(), []string{"TestPass", "TestBurn"}, 1)
	path := filepath.Join(t.TempDir(), "cpu.txt")
	if err := r.writeCPU(path); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 3 || !strings.HasSuffix(lines[0], "  TestBurn") || !strings.HasSuffix(lines[1], "  TestPass") || !strings.Contains(lines[2], "(all 2 tests)") {
		t.Fatalf("the CPU file:\n%s", b)
	}
	var burn, pass usage
	for _, u := range r.cpu {
		if u.test == "TestBurn" {
			burn = u
		} else {
			pass = u
		}
	}
	// The shell's CPU is in TestBurn's: not all of it — the meter loses
	// what a process spends after its last look at it (an interval, 20 ms
	// here, and more on a loaded machine, where the look comes late), and
	// counts in ticks — but a good part, however fast or busy the machine:
	// a child the meter did not count would add nothing.
	b, err = os.ReadFile(burnt)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := strconv.Atoi(string(b))
	if err != nil {
		t.Fatal(err)
	}
	shell := time.Duration(ms) * time.Millisecond
	if shell < 100*time.Millisecond {
		t.Fatalf("the shell burnt %v: too little to tell from a test's own CPU; burn longer", shell)
	}
	t.Logf("TestBurn %v, TestPass %v, its shell %v", burn.cpu, pass.cpu, shell)
	if burn.cpu-pass.cpu < shell/4 {
		t.Errorf("TestBurn's CPU %v is not TestPass's %v plus most of its shell's %v", burn.cpu, pass.cpu, shell)
	}
}

func TestLongestFirst(t *testing.T) {
	got := longestFirst([]string{"TestA", "TestB", "TestNew", "TestC"}, map[string]float64{"TestA": 1, "TestB": 30, "TestC": 5})
	if want := "TestNew TestB TestC TestA"; strings.Join(got, " ") != want {
		t.Errorf("order %v, want %s", got, want)
	}
}

func TestReadTimes(t *testing.T) {
	p := filepath.Join(t.TempDir(), "times.txt")
	os.WriteFile(p, []byte("    44.5 s  TestBig  pkg\n     1.0 s  TestSmall  pkg FAIL\nnoise\n"), 0o644)
	times, err := readTimes(p)
	if err != nil || times["TestBig"] != 44.5 || times["TestSmall"] != 1 || len(times) != 2 {
		t.Errorf("times %v, err %v", times, err)
	}
}

func TestParseStat(t *testing.T) {
	line := "4242 (a (b) c) S 17 4242 4242 0 -1 4194560 500 0 0 0 250 31 0 0 20 0 1 0 987654 1000 100 18446744073709551615"
	p, ok := parseStat([]byte(line))
	if !ok || p.pid != 4242 || p.ppid != 17 || p.ticks != 281 || p.start != 987654 {
		t.Errorf("parseStat(%q) = %+v, %v", line, p, ok)
	}
	for _, bad := range []string{"", "4242", "x (a) S 1", "4242 (a) S 17 1 2"} {
		if _, ok := parseStat([]byte(bad)); ok {
			t.Errorf("parseStat(%q) took a line that is no stat", bad)
		}
	}
}
