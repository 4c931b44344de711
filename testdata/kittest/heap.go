package kittest

import (
	"runtime"
	"runtime/debug"
	"sync/atomic"
	"time"
)

// PeakHeap runs f and returns the most heap in use while it ran above what
// was in use before it, sampled every interval, with the collector at its
// default setting (GOGC=100): the figure a memory estimate must cover.
// It is never negative.
func PeakHeap(every time.Duration, f func()) int64 {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	var peak atomic.Uint64
	peak.Store(base.HeapInuse)
	done, sampled := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(sampled)
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			if m.HeapInuse > peak.Load() {
				peak.Store(m.HeapInuse)
			}
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	f()
	close(done)
	<-sampled
	return int64(peak.Load()) - int64(base.HeapInuse)
}
