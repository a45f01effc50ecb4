//go:build linux

package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// openPTY opens a pseudo-terminal: its master, and its slave (the
// terminal a program reads). The test is skipped where there is none.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { m.Close() })
	var unlock int32
	if err := ioctl(m, syscall.TIOCSPTLCK, unsafe.Pointer(&unlock)); err != nil {
		t.Skipf("unlocking the pseudo-terminal: %v", err)
	}
	var n uint32
	if err := ioctl(m, syscall.TIOCGPTN, unsafe.Pointer(&n)); err != nil {
		t.Skipf("naming the pseudo-terminal: %v", err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("opening the pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return m, s
}

// TestSecretFromTerminal: typed in a terminal, the value is read without
// echo, and the echo is back afterwards, also after Ctrl-C.
func TestSecretFromTerminal(t *testing.T) {
	master, slave := openPTY(t)
	if !isTerminal(slave) {
		t.Fatal("the pseudo-terminal is not taken for a terminal")
	}
	type result struct {
		v   string
		err error
	}
	got := make(chan result, 1)
	var prompt bytes.Buffer
	go func() {
		v, err := readSecretValue(context.Background(), slave, &prompt, "PW")
		got <- result{v, err}
	}()
	// Wait for the echo to go off before typing.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		tio, err := getTermios(slave)
		if err != nil {
			t.Fatal(err)
		}
		if tio.Lflag&syscall.ECHO == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the echo never went off")
		}
	}
	if _, err := master.WriteString("typed-value-3a7\n"); err != nil {
		t.Fatal(err)
	}
	var r result
	select {
	case r = <-got:
	case <-time.After(5 * time.Second):
		t.Fatal("the value was never read")
	}
	if r.err != nil || r.v != "typed-value-3a7" {
		t.Fatalf("read %q, %v", r.v, r.err)
	}
	if !strings.Contains(prompt.String(), "value of secret PW (not shown") {
		t.Errorf("prompt %q", prompt.String())
	}
	// What the terminal showed: the newline at most, not the value.
	if err := master.SetReadDeadline(time.Now().Add(200 * time.Millisecond)); err != nil {
		t.Fatalf("the test cannot read the terminal without blocking: %v", err)
	}
	shown, _ := io.ReadAll(master)
	if strings.Contains(string(shown), "typed-value") {
		t.Errorf("the terminal echoed the value: %q", shown)
	}
	if tio, err := getTermios(slave); err != nil || tio.Lflag&syscall.ECHO == 0 {
		t.Errorf("the echo is not back on: %v", err)
	}

	// Ctrl-C (the context ends) while it waits: no value, echo back on.
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		v, err := readSecretValue(ctx, slave, io.Discard, "PW")
		got <- result{v, err}
	}()
	time.Sleep(100 * time.Millisecond)
	cancel()
	select {
	case r = <-got:
	case <-time.After(5 * time.Second):
		t.Fatal("an interrupted read never returned")
	}
	if r.err == nil || !strings.Contains(r.err.Error(), "interrupted") {
		t.Errorf("interrupted: %q, %v", r.v, r.err)
	}
	if tio, err := getTermios(slave); err != nil || tio.Lflag&syscall.ECHO == 0 {
		t.Errorf("the echo is not back on after an interrupt: %v", err)
	}
	master.WriteString("\n") // let the abandoned reader go
}
