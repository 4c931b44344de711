package properties

import (
	"fmt"

	"github.com/jitterkit/jitterkit/kit/verdict"
)

// NameSpread is the name of the check that the first delays (default
// three) vary across devices: coefficient of variation ≥
// Thresholds.MinCV, and no narrow window (1% of the delay, at most 1s)
// holds more devices than independent devices spread with that CV put
// there, nor a clamp at the largest delay more than Thresholds.ClampShare.
const NameSpread = "spread"

var _ = register(check{
	name:     NameSpread,
	why:      "Devices that draw the same delay retry in the same instant, so a fleet that failed together hits the server together again.",
	position: 10,
	run:      (*runner).spread,
	cause:    (*runner).spreadCause,
})

func (r *runner) spread() Result {
	res := Result{Name: NameSpread, Threshold: r.cfg.Thresholds.MinCV, Unit: UnitCV, Want: "≥"}
	sf := lowestCV(r.clean, 0, r.cfg.Attempts, r.cfg.Thresholds.MinDevices)
	if sf.examined == 0 {
		return r.notEnough(NameSpread, reached(r.clean, 0), "gave a first delay")
	}
	res.Figure = sf.cv
	if sf.cv < r.cfg.Thresholds.MinCV {
		res.Status = verdict.Fail
		res.Detail, res.Counterexample = r.spreadFailure(r.clean, sf.attempt, sf.cv, "spread")
		return res
	}
	c := r.busiest(r.clean, 0, r.cfg.Attempts)
	if c.fails() {
		r.crowdResult(&res, c, "spread")
		return res
	}
	res.Status = verdict.Pass
	res.Detail = fmt.Sprintf("lowest CV %.3g at delay %d across %d devices; want ≥ %g", sf.cv, sf.attempt+1, sf.devices, r.cfg.Thresholds.MinCV) +
		c.summary(fmt.Sprintf("delay %d", c.attempt+1))
	return res
}

// spreadCause is the root cause of a lack of spread: the fleet's shared
// schedule when every device waits the same delays, the clock when the
// delays follow it (see clockSeeded), a weak seed when the
// devices shown are copies of each other, a delay without jitter when
// the lowest spread is none, and jitter too small otherwise.
func (r *runner) spreadCause(res *Result) Cause {
	switch fleet := r.fleet(); {
	case fleet.lockstep:
		return r.sharedCause()
	case fleet.clock:
		return ClockSeed
	case copies(res):
		return WeakSeed
	case res.Figure == 0:
		return fleet.unjittered
	}
	return SmallJitter
}
