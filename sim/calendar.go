package sim

import (
	"cmp"
	"slices"
)

// The calendar holds every device's pending arrival, bucketed by whole
// second. The per-second server only needs to know which arrivals of a
// second come first, so a second's bucket is never kept in order: the engine
// selects the first ones when it reaches the second, or sorts the bucket
// when the server needs every arrival in order. An event packs the arrival's
// nanoseconds within its second (under 2³⁰) above the device's number, so
// that ordering events orders arrivals by time, and equal times by device.
//
// The buckets of the next ringSize seconds are a ring; arrivals further
// ahead wait in an unordered list and move into the ring each time the ring
// turns. A bucket is a list of fixed-size chunks drawn from a shared free
// list, so that buckets that grow and empty again reuse the same memory;
// a taken bucket is handed over as its chunks, and its chunks return to the
// free list once the second is processed.
const (
	ringBits = 12
	ringSize = 1 << ringBits
	// ringBytes is the size of the ring's bucket headers.
	ringBytes = ringSize * 24
	nsPerSec  = int64(1e9)
)

type calendar struct {
	ring   [ringSize][][]uint64 // per second, its chunks
	far    []farEvent
	cur    int64        // the next second to take
	inRing int          // pending events in the ring; the others are far
	chunk  int          // events per chunk
	free   [][]uint64   // empty chunks
	lists  [][][]uint64 // spare chunk lists
}

type farEvent struct {
	t   int64
	dev uint32
}

// newCalendar returns a calendar for a fleet of n devices. Chunks hold
// n/1024 events (at least 32, at most 4096), so that even a ring whose
// every second is pending wastes at most four events' room per device.
func newCalendar(n int) *calendar {
	return &calendar{chunk: min(max(n/1024, 32), 4096)}
}

func packEvent(t int64, dev uint32) uint64 {
	return uint64(t%nsPerSec)<<32 | uint64(dev)
}

// tryAdd schedules the event ev (packEvent) in second sec, as add does,
// when the second is in the ring and its last chunk has room, and says
// whether it did. It is short enough to be inlined where arrivals are
// scheduled by the million:
//
//	if !c.tryAdd(t/nsPerSec, packEvent(t, dev)) {
//		c.add(t, dev)
//	}
func (c *calendar) tryAdd(sec int64, ev uint64) bool {
	chunks := c.ring[sec&(ringSize-1)]
	if uint64(sec-c.cur) >= ringSize || len(chunks) == 0 {
		return false
	}
	last := &chunks[len(chunks)-1]
	ch := *last
	n := len(ch)
	if n == cap(ch) {
		return false
	}
	ch = ch[:n+1]
	ch[n] = ev
	*last = ch
	c.inRing++
	return true
}

// add schedules dev's arrival at t, which must not be before the next
// second to take.
func (c *calendar) add(t int64, dev uint32) {
	sec := t / nsPerSec
	if sec < c.cur {
		panic("sim: an arrival was scheduled in a second already taken")
	}
	if sec-c.cur >= ringSize {
		c.far = append(c.far, farEvent{t, dev})
		return
	}
	chunks := c.ring[sec&(ringSize-1)]
	if chunks == nil && len(c.lists) > 0 {
		chunks, c.lists = c.lists[len(c.lists)-1], c.lists[:len(c.lists)-1]
	}
	last := len(chunks) - 1
	if last < 0 || len(chunks[last]) == cap(chunks[last]) {
		var ch []uint64
		if k := len(c.free); k > 0 {
			ch, c.free = c.free[k-1], c.free[:k-1]
		} else {
			ch = make([]uint64, 0, c.chunk)
		}
		chunks = append(chunks, ch)
		c.ring[sec&(ringSize-1)] = chunks
		last++
	}
	chunks[last] = append(chunks[last], packEvent(t, dev))
	c.inRing++
}

// take returns the next second that has arrivals, and its events as
// chunks, which the caller hands back with release once it has processed
// them. ok is false when nothing is pending.
func (c *calendar) take() (sec int64, chunks [][]uint64, ok bool) {
	for c.inRing+len(c.far) > 0 {
		if c.inRing == 0 {
			next := c.far[0].t / nsPerSec
			for _, e := range c.far[1:] {
				next = min(next, e.t/nsPerSec)
			}
			c.cur = next
			c.flush()
		}
		i := c.cur & (ringSize - 1)
		chunks = c.ring[i]
		c.ring[i] = nil
		n := 0
		for _, ch := range chunks {
			n += len(ch)
		}
		c.inRing -= n
		sec = c.cur
		c.cur++
		if c.cur&(ringSize-1) == 0 {
			c.flush()
		}
		if n > 0 {
			return sec, chunks, true
		}
	}
	return 0, nil, false
}

// reset empties the calendar for a new run, keeping its chunks.
func (c *calendar) reset() {
	for i, chunks := range c.ring {
		if chunks != nil {
			c.release(chunks)
			c.ring[i] = nil
		}
	}
	c.far = c.far[:0]
	c.cur, c.inRing = 0, 0
}

// release returns the chunks of a processed second to the free list.
func (c *calendar) release(chunks [][]uint64) {
	for i, ch := range chunks {
		c.free = append(c.free, ch[:0])
		chunks[i] = nil
	}
	c.lists = append(c.lists, chunks[:0])
}

// flush moves the far arrivals that now fall within the ring into it.
func (c *calendar) flush() {
	keep := c.far[:0]
	for _, e := range c.far {
		if e.t/nsPerSec-c.cur < ringSize {
			c.add(e.t, e.dev)
		} else {
			keep = append(keep, e)
		}
	}
	clear(c.far[len(keep):])
	c.far = keep
}

// selectFirst reorders b so that b[k] is its k-th smallest value (from 0),
// with the smaller ones before it in no particular order: a quickselect
// with the median of three as pivot, which sorts what is left after 64
// rounds so that no input makes it quadratic.
func selectFirst[T cmp.Ordered](b []T, k int) {
	lo, hi := 0, len(b)-1
	for round := 0; hi-lo > 16 && round < 64; round++ {
		mid := lo + (hi-lo)/2
		if b[mid] < b[lo] {
			b[mid], b[lo] = b[lo], b[mid]
		}
		if b[hi] < b[lo] {
			b[hi], b[lo] = b[lo], b[hi]
		}
		if b[hi] < b[mid] {
			b[hi], b[mid] = b[mid], b[hi]
		}
		pivot := b[mid]
		i, j := lo, hi
		for i <= j {
			for b[i] < pivot {
				i++
			}
			for b[j] > pivot {
				j--
			}
			if i <= j {
				b[i], b[j] = b[j], b[i]
				i++
				j--
			}
		}
		// Now b[lo..j] ≤ pivot ≤ b[i..hi], and b[j+1..i-1] = pivot.
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return
		}
	}
	slices.Sort(b[lo : hi+1])
}
