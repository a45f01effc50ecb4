//go:build linux || darwin

package cli

import (
	"os"
	"syscall"
	"unsafe"
)

// The terminal's settings, for reading a secret without echo (the
// ioctls: termiosGet and termiosSet, per system).

func getTermios(f *os.File) (*syscall.Termios, error) {
	var t syscall.Termios
	if err := ioctl(f, termiosGet, unsafe.Pointer(&t)); err != nil {
		return nil, err
	}
	return &t, nil
}

func setTermios(f *os.File, t *syscall.Termios) error {
	return ioctl(f, termiosSet, unsafe.Pointer(t))
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

// echoOff turns the terminal f's echo off; restore puts it back.
func echoOff(f *os.File) (restore func(), err error) {
	old, err := getTermios(f)
	if err != nil {
		return nil, err
	}
	quiet := *old
	quiet.Lflag &^= syscall.ECHO
	if err := setTermios(f, &quiet); err != nil {
		return nil, err
	}
	return func() { _ = setTermios(f, old) }, nil
}
