//go:build unix

package execpolicy

import (
	"os/exec"
	"syscall"
)

const (
	sigTerm = syscall.SIGTERM
	sigKill = syscall.SIGKILL
)

// ownGroup puts the program in a new process group, whose id is its pid, so
// that it can be stopped together with its children.
func ownGroup() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// signalGroup sends sig to the program's process group. A group that has
// already ended is not an error.
func signalGroup(cmd *exec.Cmd, sig syscall.Signal) {
	syscall.Kill(-cmd.Process.Pid, sig)
}
