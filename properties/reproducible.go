package properties

import (
	"fmt"
	"slices"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
)

// NameReproducibility is the name of the check that the same id gives the
// same delays again, in this process and from a second one (a warning
// unless Config.RequireReproducible).
const NameReproducibility = "reproducibility"

var _ = register(check{
	name:     NameReproducibility,
	why:      "A device whose delays cannot be replayed from its id cannot be debugged, or simulated before a rollout.",
	position: 50,
	run:      (*runner).reproducibility,
	cause:    (*runner).reproducibilityCause,
})

// reproducibleSample is how many devices reproducibility makes again.
const reproducibleSample = 100

// reproducibility makes the first devices again, in this process and, when
// Config.Second is set, from the second process, and compares their early
// delays with the first time.
func (r *runner) reproducibility() Result {
	th := r.cfg.Thresholds.MinReproducible
	res := Result{Name: NameReproducibility, Threshold: th, Unit: "of the devices", Want: "≥"}
	if r.cfg.Source == kit.SourceTrace {
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
	sources := []reproSource{{"made again in this process", r.f}}
	if r.cfg.Second != nil {
		sources = append(sources, reproSource{"from a second process", r.cfg.Second})
	}
	k := r.cfg.Attempts
	checked, same := 0, 0
	var bad *Counterexample
	var badDetail string
	for _, src := range sources {
		n, sm, x, detail := r.makeAgain(src, first, ids)
		checked, same = checked+n, same+sm
		if bad == nil {
			bad, badDetail = x, detail
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

// A reproSource makes devices again: the policy's factory in this
// process, or a second process's.
type reproSource struct {
	name string
	f    kit.Factory
}

// makeAgain makes the devices first, whose ids are ids, again from src,
// and returns how many it checked, how many gave the same first delays,
// and the first that did not, as a counterexample and its words.
func (r *runner) makeAgain(src reproSource, first []device, ids []string) (checked, same int, bad *Counterexample, badDetail string) {
	k := r.cfg.Attempts
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
	return checked, same, bad, badDetail
}

func sourcesText(n int) string {
	if n == 1 {
		return "when made again in this process"
	}
	return "when made again in this process and from a second process"
}

// reproducibilityCause is the root cause of delays that a device's id
// does not give again: the clock when the delays follow it (see
// clockSeeded); a generator the runtime seeds in each process, declared
// (Config.ProcessSeeded) or evident (see processSeeded); and otherwise a
// generator the devices share.
func (r *runner) reproducibilityCause(res *Result) Cause {
	switch {
	case r.fleet().clock:
		return ClockSeed
	case r.cfg.ProcessSeeded || r.processSeeded(res):
		return ProcessGenerator
	}
	return SharedGenerator
}

// processSeeded reports whether reproducibility's finding res shows a
// generator seeded anew in each process from the operating system: no
// device gave its delays again, in this process nor from a second one
// (a seed that two processes share, a constant or the clock's second,
// gives the first device its delays again there), while spread and
// clusters found the devices spread and independent, and frozen-clock
// found that they spread at a frozen instant, which rules the clock out:
// a program seeded from the clock once per process gives no device its
// delays again either, when its second process starts in another second.
func (r *runner) processSeeded(res *Result) bool {
	if r.cfg.Second == nil || res.Figure != 0 {
		return false
	}
	for _, name := range []string{NameSpread, NameClusters} {
		if r.judged(name).Status == verdict.Fail {
			return false
		}
	}
	return r.judged(NameFrozenClock).Status == verdict.Pass
}
