package cli

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
)

// readHiddenLine reads one line from the terminal f with its echo off,
// and puts the echo back however it ends — also when ctx ends first
// (Ctrl-C).
func readHiddenLine(ctx context.Context, f *os.File) (string, error) {
	restore, err := echoOff(f)
	if err != nil {
		return "", err
	}
	defer restore()
	type line struct {
		s   string
		err error
	}
	got := make(chan line, 1)
	go func() {
		s, err := bufio.NewReader(f).ReadString('\n')
		if errors.Is(err, io.EOF) {
			err = nil // Ctrl-D ends it too (at once: an empty value)
		}
		got <- line{s, err}
	}()
	select {
	case <-ctx.Done():
		return "", ctx.Err()
	case l := <-got:
		return l.s, l.err
	}
}
