package main

import (
	"os"
	"strings"
	"testing"
)

// A failed subtest's lines are printed with its "--- FAIL" line first; a
// passing test's log is not; the package's line is; the failure is
// counted, and the times list the top-level tests.
func TestReport(t *testing.T) {
	f, err := os.Open("testdata/fail.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out strings.Builder
	r := &report{out: &out, buf: map[key][]string{}}
	r.read(f)
	got := out.String()
	for _, want := range []string{"--- FAIL: TestParent/bad", "    a_test.go:8: boom", "--- FAIL: TestParent (", "FAIL\ttrdemo"} {
		if !strings.Contains(got, want) {
			t.Errorf("the report lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "noise") || strings.Contains(got, "=== RUN") {
		t.Errorf("the report holds a passing test's log or -v's chatter:\n%s", got)
	}
	if i, j := strings.Index(got, "--- FAIL: TestParent/bad"), strings.Index(got, "context line"); i > j {
		t.Errorf("the log comes before its --- FAIL line:\n%s", got)
	}
	if !r.failed || r.events == 0 {
		t.Errorf("failed %v, %d events", r.failed, r.events)
	}
	if s := r.slowest(5); !strings.Contains(s, "TestPass") || !strings.Contains(s, "TestParent  trdemo FAIL") {
		t.Errorf("times:\n%s", s)
	}
}
