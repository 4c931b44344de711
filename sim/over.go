package sim

import (
	"context"
	"math"

	"github.com/jitterkit/jitterkit/kit"
)

// Over reports, for each run numbered from from up to to−1 of a replay of
// s with cfg, whether its peak ratio is over limit: what Run.PeakRatio >
// limit says of the run of that number in Replay's result, which depends
// only on f, s, cfg.Seed and the number. cfg.Runs is ignored.
//
// Over costs what deciding that costs, not what the run's figures cost: a
// run stops at the end of the first simulated second in which one of its
// windows holds more retries than limit allows, since arrivals are only
// ever added, and only a run that stays within the limit is replayed to
// its end. A run stopped early does not meet what the rest of it would
// have asked of its policies, so a defect that would have shown there is
// not reported: Over is for telling candidates apart cheaply, and a
// candidate that passes is replayed whole before it is trusted. A Storm's
// runs, which replay device by device rather than in time, are replayed
// whole.
//
// Over replays the fleet kinds only: a server model's verdict is not its
// peak ratio, and it is refused with a *kit.ConfigError, as are runs out
// of range and what Replay refuses. Errors are Replay's: the policy's
// [*DeviceError] of the lowest-numbered run that failed, or where ctx
// stopped it.
func Over(ctx context.Context, f kit.Factory, s Scenario, cfg Config, limit float64, from, to int) ([]bool, error) {
	if ctx == nil {
		panic("sim: Over with a nil context")
	}
	if f == nil {
		panic("sim: Over with a nil factory")
	}
	switch {
	case from < 0:
		return nil, invalid("first run %d is negative", from)
	case to <= from:
		return nil, invalid("runs from %d up to %d are none", from, to)
	case to > maxRuns:
		return nil, invalid("run %d is past the last of 1,000,000", to-1)
	case math.IsNaN(limit):
		return nil, invalid("limit of the peak ratio is NaN")
	}
	cfg.Runs = to - from
	cfg.RepresentativeOnly = false
	if err := s.Validate(f, cfg); err != nil {
		return nil, err
	}
	s, cfg = s.WithDefaults(), cfg.WithDefaults()
	if s.Kind.ServerModel() {
		return nil, invalid("Over replays the fleet kinds, and %s is a server model: replay it with Replay", s.Kind)
	}
	b := s.budget(f, cfg)
	b.collect()
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	r := newReplay(ctx, f, s, cfg, to-from, b.workers)
	r.figuresOnly, r.first, r.failed = true, from, to
	over := overCount(limit, s.windowBudget())
	for w := range r.slots {
		r.slots[w].e.overAt = over
	}
	if err := r.replayRuns(ctx, stop, from, to); err != nil {
		return nil, err
	}
	out := make([]bool, to-from)
	for i := range out {
		out[i] = r.runs[i].PeakRatio > limit
	}
	return out, nil
}

// overCount returns the fewest retries in one window whose ratio to budget
// is over limit, computed as a Run's PeakRatio is, or math.MaxInt64 when
// no count within reach of a run is.
func overCount(limit, budget float64) int64 {
	const most = 1 << 62
	ratio := func(c int64) float64 { return float64(c) / budget }
	if !(budget > 0) || !(limit*budget < most) {
		return math.MaxInt64
	}
	c := int64(max(0, math.Floor(limit*budget)))
	for c > 0 && ratio(c-1) > limit {
		c--
	}
	for ratio(c) <= limit {
		c++
	}
	return c
}

// overIn reports whether a window the second sec covers holds overAt
// retries or more: the run is then over the limit whatever follows.
func (e *engine) overIn(sec int64) bool {
	if e.overAt == math.MaxInt64 {
		return false
	}
	first := sec * nsPerSec / e.win
	last := min(int64(len(e.rhist))-1, ((sec+1)*nsPerSec-1)/e.win)
	for w := first; w <= last; w++ {
		if e.rhist[w] >= e.overAt {
			return true
		}
	}
	return false
}
