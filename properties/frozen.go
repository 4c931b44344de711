package properties

import (
	"fmt"
	"slices"
	"time"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
)

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
func (r *runner) frozenClock(frozen inBubble) Result {
	res := Result{Name: NameFrozenClock, Threshold: r.cfg.Thresholds.MinCV, Unit: UnitCV, Want: "≥"}
	switch r.cfg.Source {
	case Recorded:
		return skipped(NameFrozenClock, "recorded delays cannot be drawn again at a frozen instant")
	case External:
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

// reproducibleSample is how many devices reproducibility makes again.
const reproducibleSample = 100

// reproducibility makes the first devices again, in this process and, when
// Config.Second is set, from the second process, and compares their early
// delays with the first time.
func (r *runner) reproducibility() Result {
	th := r.cfg.Thresholds.MinReproducible
	res := Result{Name: NameReproducibility, Threshold: th, Unit: "of the devices", Want: "≥"}
	if r.cfg.Source == Recorded {
		return skipped(NameReproducibility, "a recording plays back the delays it holds, whatever drew them")
	}
	if r.main.hangs > 0 || !r.main.complete() {
		return r.notRun(NameReproducibility)
	}
	first := r.clean[:min(reproducibleSample, len(r.clean))]
	if len(first) == 0 {
		return r.notEnough(NameReproducibility, 0, "answered without a fault")
	}
	if reached(first, 0) == 0 {
		// Empty schedules are the same again whatever draws them.
		return r.notEnough(NameReproducibility, 0, "gave a first delay")
	}
	ids := make([]string, len(first))
	for i, d := range first {
		ids[i] = d.id
	}
	type source struct {
		name string
		f    kit.Factory
	}
	sources := []source{{"made again in this process", r.f}}
	if r.cfg.Second != nil {
		sources = append(sources, source{"from a second process", r.cfg.Second})
	}
	k := r.cfg.Attempts
	checked, same := 0, 0
	var bad *Counterexample
	var badDetail string
	for _, src := range sources {
		again := collect(r.ctx, src.f, ids, boots{at: r.cfg.Boot}, k, r.cfg)
		byID := map[string]device{}
		for _, d := range again.devices {
			byID[d.id] = d
		}
		for _, d := range first {
			checked++
			a, ok := byID[d.id]
			want := d.delays[:min(k, len(d.delays))]
			if ok && a.fault == nil && slices.Equal(a.delays, want) {
				same++
				continue
			}
			if bad != nil {
				continue
			}
			got := DeviceDelays{ID: d.id, Err: src.name}
			switch {
			case !ok:
				got.Err += ": not read (" + again.stopped + ")"
			case a.fault != nil:
				got.Err += ": " + a.fault.msg
			default:
				got.Delays = a.delays
			}
			bad = &Counterexample{Devices: []DeviceDelays{{ID: d.id, Delays: want}, got}, Seed: r.seed, Replay: r.replay()}
			badDetail = fmt.Sprintf("the first %d delays of %q = %s, then %s %s", k, d.id, formatDelays(want), formatDelays(got.Delays), src.name)
		}
	}
	res.Figure = float64(same) / float64(checked)
	if bad == nil {
		res.Status = verdict.Pass
		res.Detail = fmt.Sprintf("all %d devices gave the same first %d delays %s", len(first), k, sourcesText(len(sources)))
		return res
	}
	res.Counterexample = bad
	if res.Figure >= th {
		// A few devices that differ are within the share tolerated: the
		// verdict is the share's, not one device's.
		res.Status = verdict.Pass
		res.Detail = fmt.Sprintf("%d of %d sequences of the first %d delays were the same %s, at least %g%%; %d differ: %s",
			same, checked, k, sourcesText(len(sources)), 100*th, checked-same, badDetail)
		return res
	}
	res.Status = verdict.Warn
	if r.cfg.RequireReproducible {
		res.Status = verdict.Fail
	}
	res.Detail = fmt.Sprintf("%s (%d of %d sequences differ); want the same delays for the same id in at least %g%% of them", badDetail, checked-same, checked, 100*th)
	return res
}

func sourcesText(n int) string {
	if n == 1 {
		return "when made again in this process"
	}
	return "when made again in this process and from a second process"
}
