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
		if r.cfg.Processes == nil {
			return skipped(NameFrozenClock, "an external program is never told a device's boot instant, and no process of it was started under a frozen clock; a program seeded from its own clock shows as lockstep in spread and clusters only when its processes share a second")
		}
		if r.main.hangs > 0 || !r.main.complete() {
			return r.notRun(NameFrozenClock)
		}
		return r.frozenProcesses()
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

// frozenProcesses is frozen clock for a program: its devices are made in
// fresh processes, one per device, as a fleet runs the program, each under
// a frozen clock (Config.Processes). The first frozenProcesses devices of
// the population are made twice: every process frozen at one
// boot instant, as devices powered on by one relay boot, and each frozen at
// its own instant a second apart. A program that seeds its generator from
// the clock when its process starts gives every process at one instant the
// one sequence, whatever the clock's resolution; booted apart, its
// processes draw apart.
//
// The figure is the share of the devices at one instant that wait one
// whole sequence of delays: 1 for a program seeded from its clock, at
// every seed, since nothing else differs between its processes. The check
// fails when that share is over one half while the devices booted apart
// stay under it: a policy whose delays spread shares no whole sequence of
// floating-point delays between two of its devices by chance, and
// half of them is far from both. Lockstep in both cases is not the clock's
// doing (a policy with no jitter): spread and clusters report it, and the
// check is inconclusive. Judged on whole sequences rather than on a CV,
// the check holds a weak jitter (±10%) to no threshold it could miss by
// sampling error on a few devices.
//
// When no clock can be frozen (Processes.Unfrozen), the check is skipped
// and says why; when the processes fail under the frozen clock, it is
// inconclusive, with their error.
func (r *runner) frozenProcesses() Result {
	res := Result{Name: NameFrozenClock, Threshold: 0.5, Unit: "of the devices", Want: "≤", ClockFrozen: true}
	if why := r.cfg.Processes.Unfrozen(); why != "" {
		return Result{Name: NameFrozenClock, Status: verdict.Skipped, Detail: "not run: no frozen clock reaches the program's processes: " + why}
	}
	n := min(len(r.ids), frozenProcesses)
	k := r.cfg.Attempts
	ask := func(b boots) ([]device, error) {
		devs := make([]kit.Device, n)
		for i, id := range r.ids[:n] {
			devs[i] = kit.Device{ID: id, Boot: b.of(i)}
		}
		f, err := r.cfg.Processes.Fresh(r.ctx, devs, k, true)
		if err != nil {
			return nil, err
		}
		return cleanDevices(collect(r.ctx, f, r.ids[:n], b, k, r.cfg)), nil
	}
	shared, err := ask(boots{at: r.cfg.Boot})
	var spaced []device
	if err == nil {
		spaced, err = ask(boots{at: r.cfg.Boot, apart: bootApart})
	}
	if err != nil {
		return Result{Name: NameFrozenClock, Status: verdict.Inconclusive, ClockFrozen: true,
			Detail: fmt.Sprintf("the program's processes failed under a frozen clock, so the check has no devices to judge: %v", err)}
	}
	if len(shared) < n || len(spaced) < n || reached(shared, 0) < n || reached(spaced, 0) < n {
		return r.notEnough(NameFrozenClock, min(reached(shared, 0), reached(spaced, 0)), "gave a first delay in their frozen processes")
	}
	one, _ := largestGroup(shared, k)
	two, _ := largestGroup(spaced, k)
	share := float64(len(one)) / float64(n)
	apart := float64(len(two)) / float64(n)
	res.Figure, res.Processes = share, 2*n
	where := fmt.Sprintf("%d devices, each in a fresh process of its own under a clock frozen at one instant, %s (libfaketime)", n, r.cfg.Boot.Format(time.RFC3339))
	switch {
	case share <= 0.5:
		res.Status = verdict.Pass
		res.Detail = fmt.Sprintf("%s: the largest group sharing the first %d delays holds %d of them; want at most half", where, k, len(one))
	case apart <= 0.5:
		res.Status = verdict.Fail
		ce := &Counterexample{Devices: shown(one, k), SameSequence: true, Seed: r.seed, Replay: r.replay()}
		ce.Devices = ce.Devices[:min(2, len(ce.Devices))]
		ce.Others = len(one) - len(ce.Devices)
		res.Counterexample = ce
		res.Detail = fmt.Sprintf("%s: the first %d delays of %q, %s, are those of %d of the %d devices; booted a second apart, each process under its own frozen clock, the largest group holds %d: the delays follow the clock the program read when its process started; want at most half in one group",
			where, k, one[0].id, formatDelays(one[0].delays), len(one), n, len(two))
	default:
		res.Status = verdict.Inconclusive
		res.Figure = apart
		res.Detail = fmt.Sprintf("the devices wait one sequence even when their processes boot a second apart (%d of %d, %d of %d at one instant), so a frozen clock has no spread to collapse: the lack of spread is spread's finding, not the clock's",
			len(two), n, len(one), n)
	}
	return res
}
