//go:build !unix

package kube

import "os/exec"

// killProcessGroupOnCancel leaves cmd as it is: without process groups,
// cancelling the context kills the plugin, and cmd.WaitDelay bounds the wait
// for the children that keep its output open.
func killProcessGroupOnCancel(cmd *exec.Cmd) {}
