//go:build unix

package sim

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time the process has used, user and system: on a
// shared machine it counts the benchmark's own work, where the elapsed
// time also counts the time other processes held the cores.
func cpuTime() time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
