package sim

import (
	"container/heap"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/jitterkit/jitterkit/kit"
)

// heapReplay is the obvious design of the replay, written as plainly as the
// reference Python simulation of the outage: one priority queue of every
// pending arrival, popped in order of time (then device), and a server that
// decides each arrival in that order. It replays the Outage, LongOutage
// and periodic kinds on every server, with the same fleet, offsets and
// figures as Replay's run with the given seed, so it is both the oracle the
// calendar engine is tested against and the baseline of its benchmark.
// Policies must not fail.
func heapReplay(f kit.Factory, s Scenario, seed uint64) Run {
	s = s.WithDefaults()
	n := s.Clients
	prefix, boot := devicePrefix(seed), bootTime(seed)
	rng := rand.NewPCG(seed, splitmix64(seed))
	pol := make([]kit.Policy, n)
	att := make([]int, n)
	q := make(eventHeap, 0, n)
	periodic, period, horizon := s.Kind.Periodic(), int64(s.Period), int64(s.Horizon)
	phase, firing := make([]int64, n), make([]int64, n)
	resending, missedOne := make([]bool, n), make([]bool, n)
	for i := range n {
		id := serialID(prefix, i)
		pol[i] = f(kit.Device{ID: id, Boot: boot})
		var t int64
		if s.StartSpread > 0 {
			t = int64(rng.Uint64() % uint64(s.StartSpread))
		}
		if s.Kind == Periodic {
			t = int64(kit.HashID(id) % uint64(period))
			if s.TimerOffset == OffsetPolicy {
				t = 0
			}
		}
		if periodic && s.TimerOffset == OffsetPolicy {
			d, err := pol[i].Next()
			if err == nil {
				t += int64(d) % period
			}
		}
		phase[i] = t
		if t < horizon {
			q = append(q, heapEvent{t, i})
		}
	}
	heap.Init(&q)

	var r Run
	r.Seed = seed
	var hist, rhist []int
	perSecond := map[int64]int{} // retries in each second, for a wide window
	var success []int64
	// next moves dev to its next firing and queues it within the horizon.
	next := func(dev int) {
		firing[dev]++
		resending[dev] = false
		if t := phase[dev] + firing[dev]*period; t < horizon {
			heap.Push(&q, heapEvent{t, dev})
		}
	}
	miss := func(dev int) {
		r.FiringsMissed++
		if !missedOne[dev] {
			missedOne[dev] = true
			r.GaveUp++
		}
	}
	acceptedIn := map[int64]int64{}
	tokens, tokensAt, filled := 0.0, int64(0), false
	accept := func(t int64) bool {
		if t < int64(s.Down) {
			return false
		}
		if s.Server == TokenBucket {
			if !filled {
				tokens, tokensAt, filled = s.Burst, int64(s.Down), true
			}
			tokens = min(s.Burst, tokens+float64(t-tokensAt)*s.AcceptRate/1e9)
			tokensAt = t
			if tokens >= 1 {
				tokens--
				return true
			}
			return false
		}
		sec := t / 1e9
		quota := int64(math.Floor(float64(sec+1)*s.AcceptRate) - math.Floor(float64(sec)*s.AcceptRate))
		if acceptedIn[sec] >= quota {
			return false
		}
		acceptedIn[sec]++
		return true
	}
	for q.Len() > 0 {
		ev := heap.Pop(&q).(heapEvent)
		t, dev := ev.t, ev.dev
		att[dev]++
		r.Attempts++
		w := int(t / int64(s.Window))
		for len(hist) <= w {
			hist, rhist = append(hist, 0), append(rhist, 0)
		}
		hist[w]++
		retry := att[dev] > 1
		if periodic {
			retry = resending[dev]
			resending[dev] = true
		}
		if retry {
			rhist[w]++
			perSecond[t/1e9]++
		}
		if accept(t) {
			r.Served++
			r.AllServed = max(r.AllServed, time.Duration(t))
			if periodic {
				success = append(success, t-phase[dev]-firing[dev]*period)
				next(dev)
				continue
			}
			success = append(success, t)
			continue
		}
		if att[dev] >= s.MaxAttempts {
			r.AttemptLimited++
			if periodic {
				miss(dev)
			} else {
				r.GaveUp++
			}
			continue
		}
		d := s.RetryAfter
		if s.Server != RetryAfter {
			var err error
			d, err = pol[dev].Next()
			if errors.Is(err, kit.ErrStop) && periodic {
				miss(dev)
				next(dev)
				continue
			}
			if errors.Is(err, kit.ErrStop) {
				r.GaveUp++
				continue
			}
			if err != nil || d < 0 {
				panic("heapReplay: the policy failed")
			}
		}
		if f := phase[dev] + (firing[dev]+1)*period; periodic && f < horizon && t+int64(d) >= f {
			miss(dev)
			next(dev)
			continue
		}
		if int64(d) >= int64(s.Horizon)-t {
			r.Pending++
			continue
		}
		heap.Push(&q, heapEvent{t + int64(d), dev})
	}
	if periodic {
		// Before the trailing empty windows are cut: the histograms
		// have the same length.
		for w := range hist {
			r.PeakFirings = max(r.PeakFirings, hist[w]-rhist[w])
		}
		r.TimerLoadRatio = float64(r.PeakFirings) / (s.AcceptRate * s.Window.Seconds())
	}
	for len(hist) > 0 && hist[len(hist)-1] == 0 {
		hist, rhist = hist[:len(hist)-1], rhist[:len(rhist)-1]
	}
	for len(rhist) > 0 && rhist[len(rhist)-1] == 0 {
		rhist = rhist[:len(rhist)-1]
	}
	r.Arrivals, r.RetryArrivals = hist, rhist
	if r.Arrivals == nil {
		r.Arrivals = []int{}
	}
	if r.RetryArrivals == nil {
		r.RetryArrivals = []int{}
	}
	r.BusiestWindowArrivals, r.PeakRetryArrivals = maxOf(hist), maxOf(rhist)
	r.PeakRatio = float64(r.PeakRetryArrivals) / (s.AcceptRate * s.Window.Seconds())
	if s.Window > time.Second {
		for _, c := range perSecond {
			r.PeakRetryArrivals1s = max(r.PeakRetryArrivals1s, c)
		}
		r.PeakRatio1s = float64(r.PeakRetryArrivals1s) / s.AcceptRate
	}
	if len(success) > 0 {
		slices.Sort(success)
		rank := func(q float64) time.Duration {
			return time.Duration(success[int(math.Ceil(q*float64(len(success))))-1])
		}
		r.P50, r.P99 = rank(0.5), rank(0.99)
	}
	return r
}

func maxOf(x []int) int {
	m := 0
	for _, v := range x {
		m = max(m, v)
	}
	return m
}

type heapEvent struct {
	t   int64
	dev int
}

type eventHeap []heapEvent

func (h eventHeap) Len() int { return len(h) }
func (h eventHeap) Less(i, j int) bool {
	return h[i].t < h[j].t || h[i].t == h[j].t && h[i].dev < h[j].dev
}
func (h eventHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *eventHeap) Push(x any)   { *h = append(*h, x.(heapEvent)) }
func (h *eventHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// tunedHeapReplay is the priority-queue design at its best, for the
// benchmark: the per-second server only, a typed binary heap without
// interfaces, and the per-second count kept in two integers because arrivals
// come out in order. It returns the attempts and the time the last device
// was served, which must equal Replay's.
func tunedHeapReplay(f kit.Factory, s Scenario, seed uint64) (attempts int, allServed time.Duration) {
	s = s.WithDefaults()
	n := s.Clients
	prefix, boot := devicePrefix(seed), bootTime(seed)
	rng := rand.NewPCG(seed, splitmix64(seed))
	pol := make([]kit.Policy, n)
	q := make([]heapEvent, 0, n)
	for i := range n {
		pol[i] = f(kit.Device{ID: serialID(prefix, i), Boot: boot})
		q = append(q, heapEvent{int64(rng.Uint64() % uint64(s.StartSpread)), i})
	}
	less := func(a, b heapEvent) bool { return a.t < b.t || a.t == b.t && a.dev < b.dev }
	down := func(i int) {
		for {
			l := 2*i + 1
			if l >= len(q) {
				return
			}
			if r := l + 1; r < len(q) && less(q[r], q[l]) {
				l = r
			}
			if !less(q[l], q[i]) {
				return
			}
			q[i], q[l] = q[l], q[i]
			i = l
		}
	}
	for i := len(q)/2 - 1; i >= 0; i-- {
		down(i)
	}
	hist := make([]int32, 0, 64)
	sec, accepted, quota := int64(-1), int64(0), int64(0)
	for len(q) > 0 {
		ev := q[0]
		attempts++
		w := int(ev.t / int64(s.Window))
		for len(hist) <= w {
			hist = append(hist, 0)
		}
		hist[w]++
		if ev.t/1e9 != sec {
			sec, accepted = ev.t/1e9, 0
			quota = int64(math.Floor(float64(sec+1)*s.AcceptRate) - math.Floor(float64(sec)*s.AcceptRate))
		}
		if ev.t >= int64(s.Down) && accepted < quota {
			accepted++
			allServed = time.Duration(ev.t)
			q[0] = q[len(q)-1]
			q = q[:len(q)-1]
			down(0)
			continue
		}
		d, err := pol[ev.dev].Next()
		if err != nil || d < 0 || int64(d) >= int64(s.Horizon)-ev.t {
			panic("tunedHeapReplay: the policy stopped or failed")
		}
		q[0].t += int64(d)
		down(0)
	}
	return attempts, allServed
}
