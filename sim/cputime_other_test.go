//go:build !unix

package sim

import "time"

// cpuTime returns 0 where the process's CPU time is not at hand; the
// benchmarks then leave out their CPU figures.
func cpuTime() time.Duration { return 0 }
