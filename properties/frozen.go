package properties

import (
	"fmt"
	"time"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
)

// NameFrozenClock is the name of the check that devices made at one frozen
// instant still spread.
const NameFrozenClock = "frozen-clock"

var _ = register(check{
	name:     NameFrozenClock,
	why:      "Devices powered on by one relay share the clock, so a policy seeded from the time gives them all the same delays.",
	position: 40,
	// It makes devices again: after reproducibility, whose devices must
	// not depend on what other checks drew before.
	after: []string{NameReproducibility},
	run:   (*runner).frozenClock,
	cause: func(*runner, *Result) Cause { return ClockSeed },
})

// frozenDevices is the most devices frozen-clock makes again.
const frozenDevices = 10_000

// bootApart is how far apart frozen-clock boots the devices it compares
// with those booted at one instant: more than a second, so that no two
// share a second of the clock.
const bootApart = time.Second + 7*time.Millisecond

// frozenClock makes the same devices twice: all at one boot instant, as
// devices powered on by one relay boot, and each at its own instant a
// second apart. Delays that spread in the second case but not in the first
// come from the clock. Inside a testing/synctest bubble (Check) the wall
// clock stands still too, and moves on by a second between the devices
// booted apart, so a policy seeded from time.Now is caught as well;
// elsewhere (Run) only Device.Boot differs. When the delays do not spread
// even a second apart, the clock is not what collapses them, and the check
// cannot tell whether it would: it says so, and spread reports the lack of
// spread.
//
// Both figures are coefficients of variation over the devices, up to
// frozenDevices of them, judged against Thresholds.MinCV, whose comment
// bounds the chance that a policy which must pass fails. A policy seeded
// from the clock draws one sequence for every device at a frozen instant,
// a CV of exactly 0 at every seed; one drawing from a generator the kit
// cannot seed spreads at one instant as well as apart. One device moves a
// CV of n devices by about its distance from their mean over √n means, so
// it decides the check only when every other device draws one delay and it
// draws several times that one.
//
// A policy that is kit.FakeClocked (the loop adapter's) ran its device's
// code under a fake clock of its own, which read the device's boot instant
// when the code started: its clock is frozen and aligned with its boot
// already, and its code cannot run inside the check's bubble, since bubbles
// do not nest. The check finds this out on one device made outside any
// bubble, and then compares devices booted at one instant with devices
// booted apart without a bubble, in Check as in Run; a clock that could not
// start at Config.Boot leaves it inconclusive.
func (r *runner) frozenClock() Result {
	frozen := r.frozen
	res := Result{Name: NameFrozenClock, Threshold: r.cfg.Thresholds.MinCV, Unit: UnitCV, Want: "≥"}
	switch r.cfg.Source {
	case kit.SourceTrace:
		return skipped(NameFrozenClock, "recorded delays cannot be drawn again at a frozen instant")
	case kit.SourceExec:
		return skipped(NameFrozenClock, "an external program is never told a device's boot instant, and its clock cannot be frozen; a program seeded from its own clock shows as lockstep in spread and clusters")
	}
	if r.main.hangs > 0 || !r.main.complete() {
		return r.notRun(NameFrozenClock)
	}
	ids := r.ids[:min(len(r.ids), frozenDevices)]
	k := r.cfg.Attempts
	together, apart := boots{at: r.cfg.Boot}, boots{at: r.cfg.Boot, apart: bootApart}
	var shared, spaced []device
	where := "booted at one instant, " + r.cfg.Boot.Format(time.RFC3339)
	if start, ok := r.fakeClockStart(ids); ok {
		if !start.Equal(r.cfg.Boot) {
			return Result{Name: NameFrozenClock, Status: verdict.Inconclusive, Threshold: r.cfg.Thresholds.MinCV,
				Detail: fmt.Sprintf("the policy's own fake clock (kit.FakeClocked) started at %s, not at the boot instant %s, so devices booted apart would not start apart: set Config.Boot to %s or later",
					start.UTC().Format(time.RFC3339Nano), r.cfg.Boot.Format(time.RFC3339Nano), start.UTC().Format(time.RFC3339))}
		}
		frozen = nil
		where += ", each under a fake clock of its own started at its boot instant (kit.FakeClocked)"
	}
	if frozen != nil {
		frozen(func() {
			shared = cleanDevices(collectSync(r.f, ids, together, k))
			spaced = cleanDevices(collectSync(r.f, ids, apart, k))
		})
		// The same words as without a bubble: a report does not depend
		// on whether the check ran in go test or in the CLI.
	} else {
		for _, d := range r.clean {
			if d.index < len(ids) {
				shared = append(shared, d)
			}
		}
		spaced = cleanDevices(collect(r.ctx, r.f, ids, apart, k, r.cfg))
	}
	one := lowestCV(shared, 0, k, r.cfg.Thresholds.MinDevices)
	two := lowestCV(spaced, 0, k, r.cfg.Thresholds.MinDevices)
	if one.examined == 0 || two.examined == 0 {
		return r.notEnough(NameFrozenClock, reached(shared, 0), "gave a first delay at one boot instant")
	}
	res.Figure = one.cv
	th := r.cfg.Thresholds.MinCV
	switch {
	case one.cv >= th:
		res.Status = verdict.Pass
		res.Detail = fmt.Sprintf("%d devices %s: lowest CV %.3g at delay %d; want ≥ %g", len(shared), where, one.cv, one.attempt+1, th)
	case two.cv >= th:
		res.Status = verdict.Fail
		res.Detail, res.Counterexample = r.spreadFailure(shared, one.attempt, one.cv, "spread")
		res.Detail = fmt.Sprintf("%d devices %s: %s; booted a second apart, the same devices spread (CV %.3g): the delays follow the clock",
			len(shared), where, res.Detail, two.cv)
	default:
		res.Status = verdict.Inconclusive
		res.Figure = two.cv
		res.Detail = fmt.Sprintf("the delays do not spread even when the devices boot a second apart (lowest CV %.3g at delay %d, %.3g at one instant; want ≥ %g), so a frozen clock has no spread to collapse: the lack of spread is spread's finding, not the clock's",
			two.cv, two.attempt+1, one.cv, th)
	}
	return res
}

// fakeClockStart makes the policy of the first device, booted at
// Config.Boot, where the check runs (outside any bubble of its own), and
// returns the instant its fake clock started at when it is kit.FakeClocked.
// A factory that panics says no: the main collection has reported it.
func (r *runner) fakeClockStart(ids []string) (start time.Time, ok bool) {
	if len(ids) == 0 {
		return time.Time{}, false
	}
	defer func() {
		if recover() != nil {
			start, ok = time.Time{}, false
		}
	}()
	c, ok := r.f(kit.Device{ID: ids[0], Boot: r.cfg.Boot}).(kit.FakeClocked)
	if !ok {
		return time.Time{}, false
	}
	return c.ClockStart(), true
}
