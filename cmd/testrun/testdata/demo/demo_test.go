// Package demo is testrun's test binary: tests that pass, fail, skip and
// panic, and two that meet (each waits for the other to have started, so
// they pass only when they run at once).
package demo

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

func TestPass(t *testing.T) { t.Log("noise") }

func TestFail(t *testing.T) { t.Error("boom") }

func TestSkip(t *testing.T) { t.Skip("not here") }

func TestPanic(t *testing.T) {
	if os.Getenv("DEMO_PANIC") == "" {
		return
	}
	panic("kaboom")
}

func TestMeetA(t *testing.T) { meet(t, "a", "b") }

func TestMeetB(t *testing.T) { meet(t, "b", "a") }

func meet(t *testing.T, me, other string) {
	dir := os.Getenv("DEMO_MEET")
	if dir == "" {
		return
	}
	if err := os.WriteFile(filepath.Join(dir, me), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(dir, other)); err == nil {
			return
		}
	}
	t.Fatalf("%s never started beside %s", other, me)
}

// TestBurn starts a shell that works for a while (a fixed count of
// iterations) and waits for it: its CPU is counted in the test's. The
// shell's CPU, as the kernel counted it, goes to the file DEMO_BURN names
// (milliseconds), for the test of the meter to compare.
func TestBurn(t *testing.T) {
	path := os.Getenv("DEMO_BURN")
	if path == "" {
		return
	}
	cmd := exec.Command("sh", "-c", `i=0; while [ $i -lt 1000000 ]; do i=$((i+1)); done; echo $i`)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	if err := os.WriteFile(path, []byte(strconv.FormatInt(cpu.Milliseconds(), 10)), 0o644); err != nil {
		t.Fatal(err)
	}
}
