// Command testreport reads `go test -json` on its standard input and
// prints what `go test` prints without -v — each package's ok or FAIL
// line, and the whole output of every test that failed — so that a long
// suite's log says what failed and nothing else. With -times FILE it also
// writes the slowest top-level tests, their time and package, to FILE
// (docs/testing.md keeps the slowest twenty).
//
// It exits 1 when a test or a package failed, or when its input held no
// test event at all (a `go test` that could not start).
//
//	go test -json ./... | go run ./cmd/testreport -times /tmp/times.txt
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Action  string
	Package string
	Test    string
	Elapsed float64
	Output  string
}

type key struct{ pkg, test string }

// report holds what the events said so far.
type report struct {
	out    io.Writer
	buf    map[key][]string // a running test's output, until it passes or fails
	times  []timing
	failed bool
	events int
}

type timing struct {
	pkg, test string
	secs      float64
	passed    bool
}

func main() {
	times := flag.String("times", "", "write the slowest top-level tests to this file")
	top := flag.Int("top", 20, "how many of the slowest tests -times writes")
	flag.Parse()
	r := &report{out: os.Stdout, buf: map[key][]string{}}
	r.read(os.Stdin)
	if r.failed {
		r.unfinished()
	}
	if *times != "" {
		if err := os.WriteFile(*times, []byte(r.slowest(*top)), 0o644); err != nil {
			fmt.Fprintf(os.Stderr, "testreport: writing the test times: %v\n", err)
		}
	}
	if r.failed || r.events == 0 {
		os.Exit(1)
	}
}

// read handles every line of in: an event, or a line that is not one
// (a build error the go command printed as text), passed on as it is.
func (r *report) read(in io.Reader) {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			fmt.Fprintln(r.out, string(line))
			continue
		}
		r.events++
		r.handle(e)
	}
}

func (r *report) handle(e event) {
	k := key{e.Package, e.Test}
	switch {
	case e.Action == "build-output":
		fmt.Fprint(r.out, e.Output) // a compile error
	case e.Test == "" && e.Action == "output":
		// The package's own lines: ok/FAIL, a panic outside a test, a
		// build error. "PASS" and "=== RUN"-style chatter of -v is left
		// out, as go test leaves it out without -v.
		if s := e.Output; s != "PASS\n" && !strings.HasPrefix(s, "=== ") {
			fmt.Fprint(r.out, s)
		}
	case e.Test == "" && (e.Action == "fail" || e.Action == "build-fail"):
		r.failed = true
	case e.Action == "output":
		r.buf[k] = append(r.buf[k], e.Output)
	case e.Action == "pass" || e.Action == "skip":
		delete(r.buf, k)
		if e.Action == "pass" && e.Test != "" && !strings.Contains(e.Test, "/") {
			r.times = append(r.times, timing{e.Package, e.Test, e.Elapsed, true})
		}
	case e.Action == "fail":
		r.failed = true
		if e.Test != "" && !strings.Contains(e.Test, "/") {
			r.times = append(r.times, timing{e.Package, e.Test, e.Elapsed, false})
		}
		r.flush(k)
	}
}

// flush prints a test's lines and forgets them: as go test prints a
// failed test without -v, its "--- FAIL" line first, then what it logged
// (its "=== RUN" chatter left out).
func (r *report) flush(k key) {
	var head, body []string
	for _, s := range r.buf[k] {
		switch t := strings.TrimSpace(s); {
		case strings.HasPrefix(t, "=== "):
		case strings.HasPrefix(t, "--- "):
			head = append(head, s)
		default:
			body = append(body, s)
		}
	}
	for _, s := range append(head, body...) {
		fmt.Fprint(r.out, s)
	}
	delete(r.buf, k)
}

// unfinished prints the lines of the tests that never passed or failed:
// those a test binary that panicked or timed out was running.
func (r *report) unfinished() {
	keys := make([]key, 0, len(r.buf))
	for k := range r.buf {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].pkg+" "+keys[i].test < keys[j].pkg+" "+keys[j].test })
	for _, k := range keys {
		fmt.Fprintf(r.out, "--- NO RESULT: %s (%s): its test binary ended while it ran\n", k.test, k.pkg)
		r.flush(k)
	}
}

// slowest is the n slowest top-level tests, one a line: seconds, test,
// package, and FAIL for one that failed.
func (r *report) slowest(n int) string {
	t := append([]timing(nil), r.times...)
	sort.Slice(t, func(i, j int) bool { return t[i].secs > t[j].secs })
	var b strings.Builder
	for i, x := range t {
		if i == n {
			break
		}
		mark := ""
		if !x.passed {
			mark = " FAIL"
		}
		fmt.Fprintf(&b, "%8.1f s  %s  %s%s\n", x.secs, x.test, x.pkg, mark)
	}
	return b.String()
}
