//go:build !unix

package execpolicy

import (
	"os/exec"
	"syscall"
)

const (
	sigTerm = syscall.Signal(0)
	sigKill = syscall.Signal(1)
)

// ownGroup returns nil: process groups are a Unix notion.
func ownGroup() *syscall.SysProcAttr { return nil }

// signalGroup kills the program itself, without process groups.
func signalGroup(cmd *exec.Cmd, sig syscall.Signal) {
	if sig == sigKill {
		cmd.Process.Kill()
	}
}
