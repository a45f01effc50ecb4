package cli

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"syscall"
	"unsafe"
)

// The terminal's settings, for reading a secret without echo (Linux
// ioctls; browserd runs on Linux).

func getTermios(f *os.File) (*syscall.Termios, error) {
	var t syscall.Termios
	if err := ioctl(f, syscall.TCGETS, unsafe.Pointer(&t)); err != nil {
		return nil, err
	}
	return &t, nil
}

func setTermios(f *os.File, t *syscall.Termios) error {
	return ioctl(f, syscall.TCSETS, unsafe.Pointer(t))
}

// ioctl runs one ioctl on f (through SyscallConn, which, unlike Fd,
// leaves f's mode alone).
func ioctl(f *os.File, req uintptr, arg unsafe.Pointer) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var errno syscall.Errno
	if err := rc.Control(func(fd uintptr) {
		_, _, errno = syscall.Syscall(syscall.SYS_IOCTL, fd, req, uintptr(arg))
	}); err != nil {
		return err
	}
	if errno != 0 {
		return errno
	}
	return nil
}

// isTerminal reports whether f is a terminal.
func isTerminal(f *os.File) bool {
	_, err := getTermios(f)
	return err == nil
}

// readHiddenLine reads one line from the terminal f with its echo off,
// and puts the echo back however it ends — also when ctx ends first
// (Ctrl-C).
func readHiddenLine(ctx context.Context, f *os.File) (string, error) {
	old, err := getTermios(f)
	if err != nil {
		return "", err
	}
	quiet := *old
	quiet.Lflag &^= syscall.ECHO
	if err := setTermios(f, &quiet); err != nil {
		return "", err
	}
	defer setTermios(f, old)
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
