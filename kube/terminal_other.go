//go:build !linux

package kube

import "os"

// stdinIsTerminal reports whether standard input is a character device,
// which is how a terminal looks where the terminal attributes are not read.
var stdinIsTerminal = func() bool {
	fi, err := os.Stdin.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
