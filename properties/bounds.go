package properties

import (
	"fmt"
	"slices"
	"strings"

	"github.com/jitterkit/jitterkit/internal/prose"
	"github.com/jitterkit/jitterkit/kit/verdict"
)

// NameBounds is the name of the check that every delay is finite, ≥ 0 and
// ≤ the declared cap, which names panics and hangs with their device and
// attempt, and a factory that returns one policy to two devices with both.
const NameBounds = "bounds"

var _ = register(check{
	name:     NameBounds,
	why:      "A negative, infinite or over-cap delay, a panic or a hang turns a retry loop into a busy loop, a stuck device or a crash.",
	position: 70,
	run:      (*runner).bounds,
	cause:    (*runner).boundsCause,
})

// bounds holds every delay of every device to be finite, not negative, and
// not above the declared cap, and reports every panic, hang and delay that
// is not a duration with its device and attempt.
func (r *runner) bounds() Result {
	res := Result{Name: NameBounds}
	found := r.boundsFindings()
	want := "want every delay finite and ≥ 0"
	if r.cfg.Cap > 0 {
		want = "want every delay in [0, " + prose.FormatDuration(r.cfg.Cap) + "] (the declared cap)"
	}
	res.Figure, res.Unit, res.Want = float64(len(found)), "bad delays", "≤"
	if len(found) > 0 && !slices.ContainsFunc(found, func(f boundsFinding) bool { return f.dev.fault == nil || f.dev.fault.sharedWith == "" }) {
		// Every finding is a device given another's policy: what is
		// wrong is the factory, not a delay.
		res.Unit, want = "devices sharing a policy", "want a policy of its own for every device"
	}
	if len(found) == 0 && len(r.clean) == 0 && r.main.complete() {
		return Result{Name: NameBounds, Status: verdict.Inconclusive,
			Detail: fmt.Sprintf("no device of %d answered without a failure of its source: no delay to judge", r.main.total)}
	}
	if len(found) == 0 && reached(r.clean, 0) == 0 && r.main.complete() {
		return Result{Name: NameBounds, Status: verdict.Inconclusive,
			Detail: fmt.Sprintf("no device of %d gave a delay: no delay to judge", r.main.total)}
	}
	if len(found) == 0 {
		res.Status = verdict.Pass
		most := 0 // the most delays a device gave: a recording's, or a policy's that stops
		for _, d := range r.main.devices {
			most = max(most, len(d.delays))
		}
		attempts := "attempts"
		if most == 1 {
			attempts = "attempt"
		}
		res.Detail = fmt.Sprintf("all delays of %d devices over up to %d %s in bounds; %s", len(r.main.devices), most, attempts, want)
		return res
	}
	return r.boundsFailed(res, found, want)
}

// A boundsFinding is a device whose delay is out of bounds, or that
// failed: the attempt, and what is wrong.
type boundsFinding struct {
	dev     device
	attempt int
	text    string
}

// boundsFindings returns the devices whose first bad delay is negative or
// over the declared cap, and those whose policy failed: a panic, a hang or
// a delay that is no duration.
func (r *runner) boundsFindings() []boundsFinding {
	var found []boundsFinding
	for _, d := range r.main.devices {
		if d.fault != nil && d.fault.defect {
			text := fmt.Sprintf("device %q attempt %d: %s", d.id, d.fault.attempt, d.fault.msg)
			if d.fault.attempt == 0 {
				text = fmt.Sprintf("device %q: %s", d.id, d.fault.msg)
			}
			found = append(found, boundsFinding{d, d.fault.attempt, text})
			continue
		}
		for a, v := range d.delays {
			switch {
			case v < 0:
				found = append(found, boundsFinding{d, a + 1, fmt.Sprintf("delay %d of %q = %s", a+1, d.id, prose.FormatDuration(v))})
			case r.cfg.Cap > 0 && v > r.cfg.Cap:
				found = append(found, boundsFinding{d, a + 1, fmt.Sprintf("delay %d of %q = %s", a+1, d.id, prose.FormatDuration(v))})
			default:
				continue
			}
			break
		}
	}
	return found
}

// boundsFailed fails res on the findings found, the first device by id
// named, with want the bounds the delays were held to.
func (r *runner) boundsFailed(res Result, found []boundsFinding, want string) Result {
	res.Status = verdict.Fail
	slices.SortFunc(found, func(a, b boundsFinding) int { return strings.Compare(a.dev.id, b.dev.id) })
	devs := make([]device, len(found))
	for i, f := range found {
		devs[i] = f.dev
	}
	res.Counterexample = &Counterexample{Attempt: found[0].attempt, Devices: shown(devs, r.cfg.CapAttempts), Seed: r.seed, Replay: r.replay()}
	for i := range res.Counterexample.Devices {
		if f := found[i]; f.dev.fault == nil {
			res.Counterexample.Devices[i].Err = "out of bounds: " + f.text
		}
	}
	res.Detail = fmt.Sprintf("%s, and %d of %d devices in all; %s", found[0].text, len(found), r.main.total, want)
	if len(found) == 1 {
		res.Detail = fmt.Sprintf("%s, the only device of %d; %s", found[0].text, r.main.total, want)
	}
	if r.main.stopped != "" {
		res.Detail += "; the collection " + r.main.stopped
	}
	return res
}

// boundsCause is the root cause of a bad delay: delays beyond the
// declared cap, or a delay that is no duration, a panic or a hang.
func (r *runner) boundsCause(*Result) Cause {
	if r.overCap() {
		return OverCap
	}
	return BadDelay
}
