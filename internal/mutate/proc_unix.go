//go:build unix

package main

import (
	"os/exec"
	"syscall"
)

// setProcessGroup runs cmd in its own process group and makes cancelling
// it kill the whole group, so that an interrupted run leaves no test binary
// behind (go test runs the tests in a child process).
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
