//go:build !linux

package execpolicy

import (
	"os"
	"os/exec"
	"syscall"
)

// Without Linux's /proc a tracker does nothing: Close stops the program's
// process group only, and a program started through sh -c that closes its
// output is found by the timeout.
type tracker struct{}

func awaitExit(int) bool { return false }

func newTracker(*exec.Cmd) *tracker             { return &tracker{} }
func (t *tracker) started(*exec.Cmd, *os.File)  {}
func (t *tracker) signalAll(syscall.Signal) int { return 0 }
func (t *tracker) outputClosed() (string, bool) { return "", false }
