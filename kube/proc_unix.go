//go:build unix

package kube

import (
	"os/exec"
	"syscall"
)

// killProcessGroupOnCancel starts cmd in a process group of its own and
// makes the cancellation of its context kill the whole group: a plugin that
// is a shell script dies with the commands it started.
func killProcessGroupOnCancel(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
