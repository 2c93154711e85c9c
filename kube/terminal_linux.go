package kube

import (
	"os"
	"syscall"
	"unsafe"
)

// stdinIsTerminal reports whether standard input is a terminal: whether
// the terminal attributes can be read from it.
var stdinIsTerminal = func() bool {
	var t syscall.Termios
	_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, os.Stdin.Fd(), syscall.TCGETS, uintptr(unsafe.Pointer(&t)))
	return errno == 0
}
