package sim

import (
	"container/heap"
	"math"
)

// A shortlist keeps the histograms of the runs that may still be the
// representative one ([representative]): the run of rank k = ⌊(n−1)/2⌋
// among the n runs ordered by peak of retry arrivals, then by number.
//
// Once m runs have finished, a finished run of rank j among them ends with
// a rank between j and j + n − m, so it may still be the representative
// only if k − (n − m) ≤ j ≤ k. Those ranks are a contiguous range, which
// narrows by one at its low end with each run that finishes once m > n − k
// − 1, and stops growing at its high end once m > k: a run dropped never
// comes back, and when every run has finished the range holds rank k
// alone. The shortlist keeps the histograms of the runs in the range and
// counts those dropped below and above it; at most ⌈n/2⌉ are kept at
// once, whatever order the runs finish in.
type shortlist struct {
	n, k         int
	seen         int // runs added
	below, above int // runs dropped below and above the kept ones
	kept         []*histogram
	low          keyHeap // the kept runs, lowest first (with dropped ones, skipped)
	high         keyHeap // the kept runs, highest first (with dropped ones, skipped)
	count        int     // runs kept
}

// A runKey orders runs as representative does: by peak, then by number.
type runKey struct {
	peak int
	run  int
}

func (a runKey) less(b runKey) bool {
	return a.peak < b.peak || a.peak == b.peak && a.run < b.run
}

func newShortlist(n int) *shortlist {
	return &shortlist{n: n, k: (n - 1) / 2, kept: make([]*histogram, n), high: keyHeap{max: true}}
}

// add records that run finished with the given peak; hist is called for
// its histograms only if the run may still be the representative one.
func (l *shortlist) add(peak, run int, hist func() *histogram) {
	key := runKey{peak, run}
	l.seen++
	switch {
	case l.count > 0 && l.below > 0 && key.less(l.low.top(l)):
		// Below every kept run, and so below rank below, the lowest
		// rank that may still be the representative's.
		l.below++
	case l.count > 0 && l.above > 0 && l.high.top(l).less(key):
		l.above++
	default:
		l.kept[run] = hist()
		l.count++
		heap.Push(&l.low, key)
		heap.Push(&l.high, key)
	}
	lo, hi := max(0, l.k-(l.n-l.seen)), min(l.k, l.seen-1)
	for l.below < lo {
		l.drop(&l.low)
		l.below++
	}
	for l.below+l.count-1 > hi {
		l.drop(&l.high)
		l.above++
	}
}

// drop forgets the histograms of the kept run at the top of h.
func (l *shortlist) drop(h *keyHeap) {
	key := h.top(l)
	heap.Pop(h)
	l.kept[key.run] = nil
	l.count--
}

// histogram returns the histograms kept of run, which must be the
// representative one of the runs added: of all n, or of the first m < n
// when a replay stopped after m. That run has rank k' = ⌊(m−1)/2⌋ among
// the m, and a run dropped is of rank below k − (n − m) ≤ k' or above k ≥
// k' among them, so it is still kept.
func (l *shortlist) histogram(run int) *histogram {
	h := l.kept[run]
	if h == nil || l.seen == l.n && l.count != 1 {
		panic("sim: the representative run's histograms were not kept")
	}
	return h
}

// A keyHeap is a heap of runKeys, lowest first, or highest first when max
// is set. Runs dropped from the shortlist through the other heap stay in
// it until they reach its top, where top skips them.
type keyHeap struct {
	keys []runKey
	max  bool
}

// top returns the heap's first key of a run still kept, popping the keys
// of dropped runs above it.
func (h *keyHeap) top(l *shortlist) runKey {
	for l.kept[h.keys[0].run] == nil {
		heap.Pop(h)
	}
	return h.keys[0]
}

func (h *keyHeap) Len() int { return len(h.keys) }
func (h *keyHeap) Less(i, j int) bool {
	if h.max {
		return h.keys[j].less(h.keys[i])
	}
	return h.keys[i].less(h.keys[j])
}
func (h *keyHeap) Swap(i, j int) { h.keys[i], h.keys[j] = h.keys[j], h.keys[i] }
func (h *keyHeap) Push(x any)    { h.keys = append(h.keys, x.(runKey)) }
func (h *keyHeap) Pop() any {
	k := h.keys[len(h.keys)-1]
	h.keys = h.keys[:len(h.keys)-1]
	return k
}

// A histogram holds a run's two histograms while a shortlist keeps them:
// 4 bytes a window, or 8 in a run with a window of more than 2³¹−1
// arrivals.
type histogram struct {
	arrivals, retries []int32
	wide              *[2][]int64
}

// newHistogram returns a compact copy of the histograms.
func newHistogram(arrivals, retries []int64) *histogram {
	if peak(arrivals) > math.MaxInt32 {
		return &histogram{wide: &[2][]int64{append([]int64{}, arrivals...), append([]int64{}, retries...)}}
	}
	h := &histogram{arrivals: make([]int32, len(arrivals)), retries: make([]int32, len(retries))}
	for i, c := range arrivals {
		h.arrivals[i] = int32(c)
	}
	for i, c := range retries {
		h.retries[i] = int32(c)
	}
	return h
}

// ints returns the histograms as a Run holds them.
func (h *histogram) ints() (arrivals, retries []int) {
	if h.wide != nil {
		return ints(h.wide[0]), ints(h.wide[1])
	}
	return ints(h.arrivals), ints(h.retries)
}
