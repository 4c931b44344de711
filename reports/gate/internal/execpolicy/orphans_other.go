//go:build !linux

package execpolicy

import "os/exec"

// Without Linux's child subreaper, Close stops the program's process group
// only: a process that leaves the group outlives it. The leader is reaped
// as soon as it exits.

func mark(*exec.Cmd) string   { return "" }
func awaitExit(int) bool      { return false }
func reapAdopted(int, string) {}
