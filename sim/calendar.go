package sim

import (
	"cmp"
	"slices"
	"unsafe"
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
// turns. A bucket is a chain of fixed-size chunks, numbered in one pool and
// linked by number, drawn from a shared free list, so that buckets that
// grow and empty again reuse the same memory, and a chunk's place in a
// chain takes the same few bytes whatever the seconds it passes through;
// a taken bucket is handed over as its chunks, and its chunks return to the
// free list once the second is processed.
const (
	ringBits = 12
	ringSize = 1 << ringBits
	// ringBytes is the size of the ring's buckets.
	ringBytes = ringSize * int64(unsafe.Sizeof(bucket{}))
	nsPerSec  = int64(1e9)
)

type calendar struct {
	ring   [ringSize]bucket
	far    []farEvent
	cur    int64 // the next second to take
	inRing int   // pending events in the ring; the others are far
	chunk  int   // events per chunk
	// chunks holds every chunk, by number; the length of a second's last
	// chunk is its bucket's. next holds, by number, the chunk after each
	// in its second, or noChunk.
	chunks [][]uint64
	next   []int32
	free   []int32    // the numbers of the empty chunks
	taken  [][]uint64 // the chunks of the second taken last
	first  int32      // the first of them, or noChunk once they are released
}

// A bucket is one second's chain of chunks: the numbers of its first and
// last chunks, and the last chunk, which its arrivals are appended to; nil
// when the second holds none.
type bucket struct {
	last        []uint64
	first, tail int32
}

// noChunk ends a chain of chunks.
const noChunk = -1

type farEvent struct {
	t   int64
	dev uint32
}

// newCalendar returns a calendar for a fleet of n devices. Chunks hold
// n/1024 events (at least 32, at most 4096), so that even a ring whose
// every second is pending wastes at most four events' room per device.
func newCalendar(n int) *calendar {
	return &calendar{chunk: min(max(n/1024, 32), 4096), first: noChunk}
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
	b := &c.ring[sec&(ringSize-1)]
	n := len(b.last)
	if uint64(sec-c.cur) >= ringSize || n == cap(b.last) {
		return false
	}
	b.last = b.last[:n+1]
	b.last[n] = ev
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
	b := &c.ring[sec&(ringSize-1)]
	if len(b.last) == cap(b.last) {
		id := c.emptyChunk()
		if b.last == nil {
			b.first = id
		} else {
			c.chunks[b.tail] = b.last
			c.next[b.tail] = id
		}
		b.tail, b.last = id, c.chunks[id]
	}
	b.last = append(b.last, packEvent(t, dev))
	c.inRing++
}

// emptyChunk returns the number of an empty chunk, which ends its chain:
// one of the free list's, or a new one.
func (c *calendar) emptyChunk() int32 {
	if k := len(c.free); k > 0 {
		id := c.free[k-1]
		c.free = c.free[:k-1]
		c.chunks[id], c.next[id] = c.chunks[id][:0], noChunk
		return id
	}
	c.chunks = append(c.chunks, make([]uint64, 0, c.chunk))
	c.next = append(c.next, noChunk)
	return int32(len(c.chunks) - 1)
}

// take returns the next second that has arrivals, and its events as
// chunks, which the caller hands back with release once it has processed
// them, before it takes the next. ok is false when nothing is pending.
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
		b := &c.ring[c.cur&(ringSize-1)]
		n := 0
		if b.last != nil {
			c.chunks[b.tail] = b.last
			chunks = c.taken[:0]
			for id := b.first; id != noChunk; id = c.next[id] {
				chunks = append(chunks, c.chunks[id])
				n += len(c.chunks[id])
			}
			c.taken, c.first = chunks, b.first
			*b = bucket{}
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
	c.release(nil)
	for i := range c.ring {
		if b := &c.ring[i]; b.last != nil {
			c.first = b.first
			c.release(nil)
			*b = bucket{}
		}
	}
	c.far = c.far[:0]
	c.cur, c.inRing = 0, 0
}

// release returns the chunks of the second taken last, which chunks holds,
// to the free list, once the second is processed.
func (c *calendar) release(chunks [][]uint64) {
	clear(chunks)
	for id := c.first; id != noChunk; id = c.next[id] {
		c.free = append(c.free, id)
	}
	c.first = noChunk
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
