package sim

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCalendarQueue drives a calendarQueue as the reconnect engine drives
// its sends, next to an olHeap of the same events, and requires the same
// events in the same order. Each device's first event is drawn in
// [0, first); a popped event's device comes back through a FIFO a hop
// later, as a reconnect's connect comes back as a reply, and is then
// pushed again after a drawn delay. The queue's mark is taken only once
// the FIFO has nothing before it, so that events are pushed into the
// seconds before the one the queue takes next, and into the one it took.
func TestCalendarQueue(t *testing.T) {
	uniform := func(max time.Duration) func(*rand.Rand) int64 {
		return func(r *rand.Rand) int64 { return r.Int64N(int64(max)) }
	}
	for _, c := range []queueCase{
		{"spread over seconds", 50, time.Second, 50 * time.Millisecond, uniform(3 * time.Second)},
		{"most within their second", 2000, 10 * time.Millisecond, 25 * time.Millisecond, uniform(time.Second)},
		{"crowded instants", 300, 0, 0, func(r *rand.Rand) int64 { return int64(5 * time.Millisecond * time.Duration(r.IntN(3))) }},
		{"zero delays and hops", 100, 0, 0, func(*rand.Rand) int64 { return 0 }},
		{"crowded seconds", 5000, time.Millisecond, time.Millisecond, uniform(time.Millisecond)},
		{"empty seconds between", 3, time.Second, 400 * time.Millisecond, uniform(20 * time.Second)},
		{"beyond the calendar's ring", 20, 2 * time.Hour, time.Second, uniform(3 * time.Hour)},
	} {
		t.Run(c.name, func(t *testing.T) {
			q := newCalendarQueue(c.devices, rcSend)
			for run := range 2 {
				// The second run reuses the queue.
				q.reset()
				c.run(t, q, rand.New(rand.NewPCG(uint64(run), uint64(c.devices))))
			}
		})
	}
}

// A queueCase is a case of TestCalendarQueue: its devices, the range of
// their first events, the hop and the delays.
type queueCase struct {
	name    string
	devices int
	first   time.Duration
	hop     time.Duration
	delay   func(*rand.Rand) int64
}

// run drives q, empty, as TestCalendarQueue says.
func (c queueCase) run(t *testing.T, q *calendarQueue, r *rand.Rand) {
	t.Helper()
	var want olHeap
	var back olRing
	back.reset()
	push := func(at int64, dev int) {
		q.push(at, uint32(dev))
		want.push(olEvent{at, olKey(rcSend, dev, 0)})
	}
	for dev := range c.devices {
		var at int64
		if c.first > 0 {
			at = r.Int64N(int64(c.first))
		}
		push(at, dev)
	}
	const events = 100_000
	for n := 0; n < events && (len(want) > 0 || back.n > 0); n++ {
		if h := q.first; h.t < back.first.t || h.t == back.first.t && h.k < back.first.k {
			if q.need {
				require.Equal(t, want.min().t/nsPerSec*nsPerSec, h.t, "event %d: the mark is not at the start of the first event's second", n)
				q.take()
				continue
			}
			require.Equal(t, want.min(), h, "event %d: the queue's first event (got) against the heap's (want)", n)
			q.pop()
			want.pop()
			back.push(olEvent{h.t + int64(c.hop), h.k})
			continue
		}
		ev := back.pop()
		push(ev.t+c.delay(r), ev.req())
	}
	if q.need {
		q.take()
	}
	assert.Equal(t, want.min(), q.first, "the first event left")
}

// TestSortSecond sorts seconds of events whose times are spread, crowded
// into one slice of the second, or equal, as the events of a calendar's
// second are packed (packEvent), given as chunks.
func TestSortSecond(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 3))
	for _, c := range []struct {
		name string
		n    int
		time func() int64
	}{
		{"none", 0, nil},
		{"one", 1, func() int64 { return 999_999_999 }},
		{"spread", 1000, func() int64 { return r.Int64N(nsPerSec) }},
		{"crowded", 1000, func() int64 { return 500_000_000 + r.Int64N(1000) }},
		{"equal", 300, func() int64 { return 7 }},
		{"many", 100_000, func() int64 { return r.Int64N(nsPerSec) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			var events []uint64
			for _, dev := range r.Perm(c.n) {
				events = append(events, packEvent(c.time(), uint32(dev)))
			}
			var chunks [][]uint64
			for rest := events; len(rest) > 0; {
				k := min(len(rest), 1+r.IntN(64))
				chunks, rest = append(chunks, rest[:k]), rest[k:]
			}
			q := newCalendarQueue(c.n, rcSend)
			q.sortSecond(chunks)
			want := slices.Clone(events)
			slices.Sort(want)
			require.Equal(t, len(want), len(q.sorted))
			for i := range want {
				require.Equal(t, want[i], q.sorted[i], "event %d of %d", i, len(want))
			}
		})
	}
}
