//go:build !unix

package main

import "os/exec"

// setProcessGroup does nothing where process groups do not exist: the go
// command is killed on cancel, as exec.CommandContext does.
func setProcessGroup(*exec.Cmd) {}
