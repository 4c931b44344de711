package sim

import (
	"cmp"
	"math"
	"math/bits"
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
	farMin int64 // the first second of far, math.MaxInt64 when empty
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
	return &calendar{chunk: min(max(n/1024, 32), 4096), first: noChunk, farMin: math.MaxInt64}
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
		c.farMin = min(c.farMin, sec)
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
			c.cur = c.farMin
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
	c.far, c.farMin = c.far[:0], math.MaxInt64
	c.cur, c.inRing = 0, 0
}

// nextSecond returns the second that take would take next, and false when
// nothing is pending. The far arrivals are all at or after the next
// multiple of ringSize, where take would move them into the ring before it
// reaches them.
func (c *calendar) nextSecond() (int64, bool) {
	if c.inRing > 0 {
		for sec := c.cur; sec < c.farMin; sec++ {
			if c.ring[sec&(ringSize-1)].last != nil {
				return sec, true
			}
		}
	}
	return c.farMin, len(c.far) > 0
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
	c.farMin = math.MaxInt64
	for _, e := range c.far {
		if sec := e.t / nsPerSec; sec-c.cur < ringSize {
			c.add(e.t, e.dev)
		} else {
			keep = append(keep, e)
			c.farMin = min(c.farMin, sec)
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

// A calendarQueue is a priority queue of events of one kind, each of a
// device, in the order of olEvent.before (time, then device): the queue of
// a reconnect's connects, whose times the policies choose. The events of
// the seconds not yet taken wait in a calendar, unordered; once the caller
// has reached the start of the calendar's next second that has events,
// the queue takes it, sorts its events and hands them out in order. An
// event pushed into the second taken waits in a heap beside, whose first
// event is merged with the sorted second's. A push is then an append and
// a pop a step along a sorted list, where a heap of every pending event
// costs its depth in comparisons both ways.
type calendarQueue struct {
	// first is the queue's first event, or olNone when it is empty. When
	// the events of the second taken are all popped but the calendar
	// holds more (need), it is instead a mark at the start of the
	// calendar's next second that has events, before the events of that
	// instant: the queue holds nothing before it, and the caller that
	// reaches it calls take.
	first olEvent
	need  bool
	kind  uint64
	cal   *calendar
	// start is the start of the second taken last, sorted its events in
	// order and next the first of them still queued; late holds those
	// pushed into it since, and fromLate says that first is late's.
	start    int64
	sorted   []uint64
	next     int
	late     secondHeap
	fromLate bool
	count    []int32 // sortSecond's counts
}

// newCalendarQueue returns an empty queue of events of the given kind,
// which must not be 0, for a fleet of n devices.
func newCalendarQueue(n int, kind uint64) *calendarQueue {
	if kind == 0 {
		panic("sim: a calendar queue of events of kind 0, its mark's")
	}
	return &calendarQueue{first: olNone, kind: kind, cal: newCalendar(n)}
}

// push queues the event of device dev at t, which must not be before the
// start of the second taken last: an event of the instant reached or
// after it, since the caller reached that second to take it.
func (q *calendarQueue) push(t int64, dev uint32) {
	sec := t / nsPerSec
	v := packEvent(t, dev)
	if sec < q.cal.cur {
		if t < q.start {
			panic("sim: an event was pushed into a second before the one taken")
		}
		// The calendar's events come after those of the second taken,
		// and so after this one.
		q.late.push(v)
		if ev := q.event(v); ev.before(q.first) {
			q.first, q.need, q.fromLate = ev, false, true
		}
		return
	}
	if !q.cal.tryAdd(sec, v) {
		q.cal.add(t, dev)
	}
	if at := sec * nsPerSec; at < q.first.t && (q.need || q.first == olNone) {
		q.first, q.need = olEvent{at, 0}, true
	}
}

// event returns the event v of the second taken.
func (q *calendarQueue) event(v uint64) olEvent {
	return olEvent{q.start + int64(v>>32), olKey(q.kind, int(uint32(v)), 0)}
}

// pop removes the first event, which must not be the mark.
func (q *calendarQueue) pop() {
	if q.fromLate {
		q.late.pop()
	} else {
		q.next++
	}
	q.setFirst()
}

// setFirst finds the first event among the sorted second's and the late
// ones, or when there is none, the mark or olNone.
func (q *calendarQueue) setFirst() {
	switch {
	case q.next < len(q.sorted) && (len(q.late) == 0 || q.sorted[q.next] < q.late[0]):
		q.first, q.need, q.fromLate = q.event(q.sorted[q.next]), false, false
	case len(q.late) > 0:
		q.first, q.need, q.fromLate = q.event(q.late[0]), false, true
	default:
		q.first, q.need = olNone, false
		if sec, ok := q.cal.nextSecond(); ok {
			q.first, q.need = olEvent{sec * nsPerSec, 0}, true
		}
	}
}

// take replaces the mark with the events of the calendar's second it
// marks, sorted.
func (q *calendarQueue) take() {
	sec, chunks, _ := q.cal.take()
	q.start = sec * nsPerSec
	q.sortSecond(chunks)
	q.cal.release(chunks)
	q.next = 0
	q.setFirst()
}

// sortSecond puts the events of one second, given as chunks, in order into
// sorted: a counting sort into about as many slices of the second as there
// are events, by the top bits of their times, then a sort of each slice
// that holds many, and an insertion sort of the whole, whose events are
// then out of order only within their slices, which hold about one each
// when the times are spread.
func (q *calendarQueue) sortSecond(chunks [][]uint64) {
	n := 0
	for _, ch := range chunks {
		n += len(ch)
	}
	// An event is under 2⁶², its time within the second (under 2³⁰)
	// above 32 bits of device.
	b := min(max(bits.Len(uint(n)), 4), 16)
	shift := 62 - b
	if cap(q.count) < 1<<b+1 {
		q.count = make([]int32, 1<<b+1)
	}
	count := q.count[:1<<b+1]
	clear(count)
	for _, ch := range chunks {
		for _, v := range ch {
			count[v>>shift+1]++
		}
	}
	for i := 1; i < len(count); i++ {
		count[i] += count[i-1]
	}
	s := slices.Grow(q.sorted[:0], n)[:n]
	for _, ch := range chunks {
		for _, v := range ch {
			i := v >> shift
			s[count[i]] = v
			count[i]++
		}
	}
	// Now count[i] is the end of slice i, and the start of slice i+1.
	lo := int32(0)
	for _, hi := range count[:1<<b] {
		if hi-lo > 16 {
			slices.Sort(s[lo:hi])
		}
		lo = hi
	}
	for i := 1; i < len(s); i++ {
		v, j := s[i], i
		for ; j > 0 && s[j-1] > v; j-- {
			s[j] = s[j-1]
		}
		s[j] = v
	}
	q.sorted = s
}

// reset empties the queue for a new run, keeping its memory.
func (q *calendarQueue) reset() {
	q.cal.reset()
	q.first, q.need, q.fromLate = olNone, false, false
	q.start, q.sorted, q.next = 0, q.sorted[:0], 0
	q.late = q.late[:0]
}

// A secondHeap is a 4-ary min-heap of the events of one second, as a
// calendar packs them (packEvent): the arrivals that come back within the
// second being processed. Four children a node halve the levels a pop
// goes down, against a binary heap, and share their cache lines.
type secondHeap []uint64

func (h *secondHeap) push(ev uint64) {
	*h = append(*h, ev)
	h.up(len(*h)-1, ev)
}

// up puts ev in the hole at i, moving the hole up past the events that
// come after ev.
func (h secondHeap) up(i int, ev uint64) {
	for i > 0 {
		p := (i - 1) / 4
		if h[p] <= ev {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = ev
}

// pop removes and returns the first event. The last event takes its
// place, and as a leaf's event it mostly belongs near the bottom again:
// rather than compare it with the earliest child at every level, pop
// moves the hole down the path of the earliest children to a leaf,
// choosing each by a tournament without branches, and sifts the last
// event up from there (Floyd's bottom-up sift). Events are their keys, so
// equal ones are the same and come out the same whatever the heap's
// layout.
func (h *secondHeap) pop() uint64 {
	a := *h
	top := a[0]
	n := len(a) - 1
	last := a[n]
	a = a[:n]
	*h = a
	if n == 0 {
		return top
	}
	i := 0
	for {
		c := 4*i + 1
		if c+3 >= n {
			if c < n {
				m := c
				for j := c + 1; j < n; j++ {
					m += (j - m) * b2i(a[j] < a[m])
				}
				a[i] = a[m]
				i = m
			}
			break
		}
		x := c + b2i(a[c+1] < a[c])
		y := c + 2 + b2i(a[c+3] < a[c+2])
		m := x + (y-x)*b2i(a[y] < a[x])
		a[i] = a[m]
		i = m
	}
	a.up(i, last)
	return top
}
