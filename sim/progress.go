package sim

import "context"

// WithProgress returns a context whose replays report to add how far they
// have come, in devices: a run of N devices adds N in all, in parts as its
// simulated time passes, so that a long run shows progress before it ends,
// and a replay of R runs adds R·N for each of its fleets (the policy's,
// and the baselines of a server model: see [Scenario.Fleets]), as do the
// runs of [Over]. add is called from the replay's workers side by side,
// and must be safe for that. The tipping point's search, which a replay
// makes beside its runs, reports nothing.
func WithProgress(ctx context.Context, add func(devices int64)) context.Context {
	return context.WithValue(ctx, progressKey{}, add)
}

type progressKey struct{}

// progressOf returns the progress ctx asks the replay to report to, or nil.
func progressOf(ctx context.Context) func(int64) {
	add, _ := ctx.Value(progressKey{}).(func(int64))
	return add
}

// withoutProgress returns ctx whose replays report no progress.
func withoutProgress(ctx context.Context) context.Context {
	if progressOf(ctx) == nil {
		return ctx
	}
	return context.WithValue(ctx, progressKey{}, (func(int64))(nil))
}

// A tracker reports the progress of one worker's runs: each run's devices,
// in the share of its span of simulated time that has passed.
type tracker struct {
	add  func(int64) // nil when no progress is asked
	n    int64       // devices a run
	span float64     // simulated nanoseconds a run covers
	done int64       // devices of the current run reported
}

// newTracker returns the tracker of runs of s, after defaults, reporting
// to the progress ctx asks for.
func newTracker(ctx context.Context, s Scenario) tracker {
	return tracker{add: progressOf(ctx), n: int64(s.Clients), span: float64(max(s.Horizon, 1))}
}

// at reports the current run's progress at simulated time t. A run that
// fails reports no more: its share is the replay's to finish.
func (p *tracker) at(t int64) {
	if p.add == nil {
		return
	}
	u := int64(float64(p.n) * min(float64(t)/p.span, 1))
	if u > p.done {
		p.add(u - p.done)
		p.done = u
	}
}

// end reports the rest of a run that ended, and readies the tracker for
// the next.
func (p *tracker) end() {
	if p.add != nil && p.n > p.done {
		p.add(p.n - p.done)
	}
	p.done = 0
}

// count reports the current run's progress when it has done i of its
// devices, as a storm's run goes device by device.
func (p *tracker) count(i int) {
	if p.add != nil && int64(i) > p.done {
		p.add(int64(i) - p.done)
		p.done = int64(i)
	}
}
