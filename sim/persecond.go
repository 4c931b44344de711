package sim

import (
	"math"
	"time"
)

// PerSecond accepts at most AcceptRate requests in each whole second (the
// first ones to arrive) and none while it is down. A request that is not
// accepted is rejected at once.
const PerSecond Server = "per-second"

// perSecond is the PerSecond server. Whole second k, from k·1s to (k+1)·1s,
// has a quota of ⌊(k+1)·AcceptRate⌋ − ⌊k·AcceptRate⌋ requests, so that
// the first k seconds together allow ⌊k·AcceptRate⌋, a rate below one a
// second or not a whole number included. It accepts the first arrivals of
// each second, in time order, until the quota is used. While the server
// is down, until Down, it accepts nothing; in the second it comes up
// during, the quota counts the requests accepted from Down on.
type perSecond struct {
	rate     float64
	down     int64
	quota    int64 // of the current second
	accepted int64 // in the current second
}

func newPerSecond(s Scenario) server {
	return &perSecond{rate: s.AcceptRate, down: int64(s.Down)}
}

func (p *perSecond) reset() { p.quota, p.accepted = 0, 0 }

// second offers rejectEvery while the server is down all second and
// acceptFirst while it is up all second.
func (p *perSecond) second(sec int64) (shortcut, int64) {
	p.accepted = 0
	p.quota = int64(math.Floor(float64(sec+1)*p.rate) - math.Floor(float64(sec)*p.rate))
	switch start, end := sec*nsPerSec, (sec+1)*nsPerSec; {
	case end <= p.down:
		return rejectEvery, 0
	case start >= p.down:
		return acceptFirst, p.quota
	}
	return askEach, 0
}

func (p *perSecond) accept(t int64) bool {
	if t < p.down || p.accepted >= p.quota {
		return false
	}
	p.accepted++
	return true
}

func (p *perSecond) hint() (time.Duration, bool) { return 0, false }
