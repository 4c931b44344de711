package execpolicy

import (
	"sync"

	"github.com/jitterkit/jitterkit/kit"
)

// Reusing returns a factory of the program's policy, like Factory, that
// asks the program each request once: a request made again, for the same
// device and the same number of delays, is answered with the delays of the
// first reply, and never reaches the program. This is sound only for a
// program that answers the same request with the same delays every time,
// whenever it is asked and whatever it was asked before: a program seeded
// from the device's id. A program that draws from its clock or from a
// generator shared by its devices answers the same request differently
// each time, and a factory that reuses its replies would hide that: ask
// Factory when the difference matters, as the checks that find such a
// program do.
//
// The replies are kept while the delays, ids and bookkeeping of those kept
// take at most budget bytes (see keptBytes); once it is full, a reply is
// no longer kept, and a request for it goes to the program. Each call of
// Reusing keeps its own replies. A reply is kept once it has been read and
// decoded; a protocol error is never kept, and once the program has failed
// or is closed every request fails as Factory's do.
func (p *Program) Reusing(budget int64) kit.Factory {
	k := &kept{room: budget, replies: make(map[keptKey][]float64)}
	return func(d kit.Device) kit.Policy {
		pl := &policy{p: p, id: d.ID, keep: k}
		pl.r = p.request(d.ID, p.opt.Attempts, k)
		return pl
	}
}

// keptOverhead is the memory a kept reply takes beside its delays and its
// device's id: its key and the slice's header in the map's slot, the
// map's spare slots, and the rounding of the two allocations to their
// size classes, as measured by TestKeptBytes.
const keptOverhead = 128

// keptBytes returns the memory a kept reply of delays for the device id is
// counted at.
func keptBytes(id string, delays []float64) int64 {
	return int64(len(id)) + 8*int64(cap(delays)) + keptOverhead
}

// kept holds the replies a Reusing factory reuses, by their request.
type kept struct {
	mu      sync.Mutex
	room    int64 // the bytes left for replies
	replies map[keptKey][]float64
}

// A keptKey is a request: the device and the number of delays asked for.
type keptKey struct {
	device   string
	attempts int
}

// get returns the delays of the reply kept for the request, if there is
// one. They are shared: the caller must not change them.
func (k *kept) get(device string, attempts int) ([]float64, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	d, ok := k.replies[keptKey{device, attempts}]
	return d, ok
}

// put keeps the delays of the reply to the request, when they fit.
func (k *kept) put(device string, attempts int, delays []float64) {
	n := keptBytes(device, delays)
	k.mu.Lock()
	defer k.mu.Unlock()
	key := keptKey{device, attempts}
	if _, ok := k.replies[key]; ok || n > k.room {
		return
	}
	k.replies[key] = delays
	k.room -= n
}
