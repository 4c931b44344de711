package properties

import (
	"fmt"
	"slices"
	"time"

	"github.com/jitterkit/jitterkit/kit"
)

// frozenClock holds the early delays of devices all made at one boot
// instant to spread. Inside a testing/synctest bubble (Check) the wall clock
// is frozen too, so a policy that seeds from time.Now collapses; elsewhere
// (Run) only the boot instant is shared.
func (r *runner) frozenClock(frozen bubble) Result {
	res := Result{Name: NameFrozenClock, Threshold: r.cfg.Thresholds.MinCV}
	devs := r.clean
	where := fmt.Sprintf("with every device booted at %s", r.cfg.Boot.Format(time.RFC3339))
	if frozen != nil && r.main.hangs == 0 && r.main.stopped == "" {
		var s sample
		if frozen(func() { s = collectSync(r.f, r.ids, r.cfg.Boot, r.cfg.Attempts) }) {
			devs = cleanDevices(s)
			where = fmt.Sprintf("with every device made at %s inside a testing/synctest bubble", r.cfg.Boot.Format(time.RFC3339))
		}
	}
	sf := lowestCV(devs, 0, r.cfg.Attempts, r.cfg.Thresholds.MinDevices)
	if sf.examined == 0 {
		x, _ := column(devs, 0)
		return r.notEnough(NameFrozenClock, len(x), "gave a first delay under the frozen clock")
	}
	res.Figure = sf.cv
	if sf.cv < r.cfg.Thresholds.MinCV {
		res.Status = Fail
		res.Detail, res.Counterexample = r.spreadFailure(devs, sf.attempt, sf.cv, "spread")
		res.Detail = where + ": " + res.Detail
		return res
	}
	res.Status = Pass
	res.Detail = fmt.Sprintf("%s: lowest CV %.3g at delays[%d] across %d devices; want ≥ %g", where, sf.cv, sf.attempt, sf.devices, r.cfg.Thresholds.MinCV)
	return res
}

// reproducibleSample is how many devices reproducibility makes again.
const reproducibleSample = 100

// reproducibility makes the first devices again, in this process and, when
// Config.Second is set, from the second process, and compares their early
// delays with the first time.
func (r *runner) reproducibility() Result {
	res := Result{Name: NameReproducibility, Threshold: 1}
	if r.main.hangs > 0 || r.main.stopped != "" {
		res.Status = Warn
		res.Detail = "not run: the policy did not answer every device of the population (see bounds)"
		return res
	}
	first := r.clean[:min(reproducibleSample, len(r.clean))]
	if len(first) == 0 {
		return r.notEnough(NameReproducibility, 0, "answered without a fault")
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
		again := collect(r.ctx, src.f, ids, r.cfg.Boot, k, r.cfg)
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
			bad = &Counterexample{Devices: []DeviceDelays{{ID: d.id, Delays: want}, got}, Replay: r.replay()}
			badDetail = fmt.Sprintf("delays(%q)[0:%d] = %s, then %s %s", d.id, k, formatDelays(want), formatDelays(got.Delays), src.name)
		}
	}
	res.Figure = float64(same) / float64(checked)
	if bad == nil {
		res.Status = Pass
		res.Detail = fmt.Sprintf("all %d devices gave the same delays[0:%d] %s", len(first), k, sourcesText(len(sources)))
		return res
	}
	res.Status = Warn
	if r.cfg.RequireReproducible {
		res.Status = Fail
	}
	res.Counterexample = bad
	res.Detail = fmt.Sprintf("%s (%d of %d sequences differ); want the same delays for the same id", badDetail, checked-same, checked)
	return res
}

func sourcesText(n int) string {
	if n == 1 {
		return "when made again in this process"
	}
	return "when made again in this process and from a second process"
}
