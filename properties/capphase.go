package properties

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/jitterkit/jitterkit/internal/prose"
	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
)

// NameCapPhase is the name of the check that delays long after the window
// reaches the cap still spread, by the same figures as spread.
const NameCapPhase = "cap-phase"

var _ = register(check{
	name:     NameCapPhase,
	why:      "After a long outage every device sits at the cap, and jitter that vanishes there makes the whole fleet retry in unison once per cap interval.",
	position: 60,
	run:      (*runner).capPhase,
	cause:    (*runner).capPhaseCause,
})

func (r *runner) capPhase() Result {
	res := Result{Name: NameCapPhase, Threshold: r.cfg.Thresholds.MinCV, Unit: UnitCV, Want: "≥"}
	sf := lowestCV(r.clean, r.cfg.Attempts, r.cfg.CapAttempts, r.cfg.Thresholds.MinDevices)
	if sf.examined == 0 {
		if !r.main.complete() || len(r.clean) < r.cfg.Thresholds.MinDevices {
			return r.notEnough(NameCapPhase, reached(r.clean, r.cfg.Attempts), fmt.Sprintf("gave a delay beyond attempt %d", r.cfg.Attempts))
		}
		longest := 0
		for _, d := range r.clean {
			longest = max(longest, len(d.delays))
		}
		if r.cfg.Source == kit.SourceTrace {
			return skipped(NameCapPhase, fmt.Sprintf("fewer than %d devices of the trace have a delay beyond attempt %d (the longest holds %d): the recording never reaches the cap phase; record delays through a longer outage to judge it",
				r.cfg.Thresholds.MinDevices, r.cfg.Attempts, longest))
		}
		return skipped(NameCapPhase, fmt.Sprintf("fewer than %d devices retry beyond attempt %d (the longest schedule holds %d delays): the policy stops before a cap phase",
			r.cfg.Thresholds.MinDevices, r.cfg.Attempts, longest))
	}
	res.Figure = sf.cv
	want := "spread at the later delays"
	if r.cfg.Cap > 0 {
		want = "spread at the later delays, up to the cap of " + human(r.cfg.Cap)
	}
	if sf.cv < r.cfg.Thresholds.MinCV {
		res.Status = verdict.Fail
		res.Detail, res.Counterexample = r.spreadFailure(r.clean, sf.attempt, sf.cv, want)
		return res
	}
	c := r.busiest(r.clean, r.cfg.Attempts, r.cfg.CapAttempts)
	if c.fails() {
		r.crowdResult(&res, c, want)
		return res
	}
	res.Status = verdict.Pass
	res.Detail = fmt.Sprintf("lowest CV %.3g at delay %d across %d devices, over delays %d to %d; want ≥ %g",
		sf.cv, sf.attempt+1, sf.devices, r.cfg.Attempts+1, r.cfg.Attempts+sf.examined, r.cfg.Thresholds.MinCV) +
		c.summary(fmt.Sprintf("delay %d", c.attempt+1))
	if r.cfg.Source == kit.SourceTrace {
		if seen, why := r.capSeen(r.cfg.Attempts + sf.examined); !seen {
			return skipped(NameCapPhase, why+"; the later delays it holds spread ("+res.Detail+")")
		}
	}
	return res
}

// capSeen reports whether the delays of attempts [Attempts, to) reach the
// cap phase, and says why not when they do not. With a declared cap, an
// attempt is in the cap phase when the largest delays (the 95th
// percentile across devices) reach three quarters of the cap: a window at
// the cap puts them there under every strategy, a window half as wide does
// not. Without one, the cap shows as the largest delays levelling off: two
// attempts in a row whose 95th percentiles differ by less than a quarter,
// where a growing window doubles them.
func (r *runner) capSeen(to int) (bool, string) {
	min := r.cfg.Thresholds.MinDevices
	var prev float64
	top := 0.0
	x := make([]float64, 0, len(r.clean))
	for a := r.cfg.Attempts; a < to; a++ {
		x = delaysAt(x[:0], r.clean, a)
		if len(x) < min {
			continue
		}
		slices.Sort(x)
		q := x[len(x)*95/100]
		top = math.Max(top, q)
		if c := r.cfg.Cap.Seconds(); c > 0 && q >= 0.75*c {
			return true, ""
		}
		if r.cfg.Cap == 0 && prev > 0 && q < 1.25*prev && q > 0.8*prev {
			return true, ""
		}
		prev = q
	}
	if r.cfg.Cap > 0 {
		return false, fmt.Sprintf("the recording never reaches the cap: the largest delays after attempt %d come to %s of the declared %s (95th percentile); record delays through a longer outage to judge the cap phase",
			r.cfg.Attempts, prose.FormatDuration(time.Duration(top*1e9).Round(time.Millisecond)), prose.FormatDuration(r.cfg.Cap))
	}
	return false, fmt.Sprintf("the recording never reaches a cap: its largest delays still grow at the last attempts it holds (up to %s, 95th percentile); declare the policy's cap, or record delays through a longer outage, to judge the cap phase",
		prose.FormatDuration(time.Duration(top*1e9).Round(time.Millisecond)))
}

// capPhaseCause is the root cause of a lack of spread at the cap: the
// fleet's shared schedule, the clock when the delays follow it, a weak seed when the devices shown are copies,
// delays every device waits alike below the cap (a constant pause, whose
// remedy it writes in res, naming the delays and the cap), jitter lost at
// the cap when none is left there or a clamp holds the devices, jitter as
// narrow at the cap as at first, and otherwise a fixed amount of jitter
// that the grown delays dwarf.
func (r *runner) capPhaseCause(res *Result) Cause {
	switch fleet := r.fleet(); {
	case fleet.lockstep:
		return r.sharedCause()
	case fleet.clock:
		return ClockSeed
	case copies(res):
		return WeakSeed
	case res.Figure == 0 && res.Counterexample != nil && !r.atCap(res.Counterexample.Attempt):
		if p := r.pausesBelowCap(); len(p.alike) > 0 {
			res.Remedy = p.remedy()
			return UnjitteredDelay
		}
		return JitterLostAtCap
	case res.Figure == 0 || clamped(res):
		return JitterLostAtCap
	case fleet.narrow:
		return SmallJitter
	}
	return AddedJitter
}

// A belowCap is the later delays every device waits alike, below the cap:
// attempts are 0-based, fixed[i] is waited at attempt alike[i]; limit is
// the cap, declared (declared) or else the longest delay drawn.
type belowCap struct {
	alike    []int
	fixed    []time.Duration
	limit    time.Duration
	declared bool
}

// pausesBelowCap finds, among the delays cap-phase judges (from Attempts
// to CapAttempts), those every device that reaches them waits alike and
// that stay below the cap: a pause of the same length for every device, as
// a client's fixed wait between dials is, which no jitter at the cap would
// spread. An attempt fewer than MinDevices reach is not examined.
func (r *runner) pausesBelowCap() belowCap {
	p := belowCap{limit: r.cfg.Cap, declared: r.cfg.Cap > 0}
	if !p.declared {
		for _, d := range r.clean {
			for _, v := range d.delays {
				p.limit = max(p.limit, v)
			}
		}
	}
	for a := r.cfg.Attempts; a < r.cfg.CapAttempts; a++ {
		_, who := column(r.clean, a)
		if len(who) < r.cfg.Thresholds.MinDevices {
			continue
		}
		v := who[0].delays[a]
		if v < p.limit && !slices.ContainsFunc(who, func(d device) bool { return d.delays[a] != v }) {
			p.alike, p.fixed = append(p.alike, a), append(p.fixed, v)
		}
	}
	return p
}

// remedy names the delays every device waits alike below the cap, what
// they wait and the cap, in one sentence: "Delays 4–32 are 100ms for every
// device, below the 1s cap: a constant pause with no jitter; ...".
func (p belowCap) remedy() string {
	var b strings.Builder
	one := len(p.alike) == 1
	same := !slices.ContainsFunc(p.fixed, func(v time.Duration) bool { return v != p.fixed[0] })
	what := formatDelays(p.fixed)
	if same {
		what = human(p.fixed[0])
	}
	verb := "are"
	if one {
		verb = "is"
	}
	fmt.Fprintf(&b, "%s %s %s for every device, below ", capitalize(attemptList(p.alike, "", "")), verb, what)
	if p.declared {
		fmt.Fprintf(&b, "the %s cap", human(p.limit))
	} else {
		fmt.Fprintf(&b, "the longest delay drawn, %s", human(p.limit))
	}
	each, them := "it", "it"
	if !one {
		each, them = "each", "them"
	}
	if same {
		hi, why := 2*p.fixed[0], "twice the pause, which keeps its mean"
		if hi > p.limit {
			hi, why = p.limit, "the cap"
		}
		fmt.Fprintf(&b, ": a constant pause with no jitter; draw %s at random between 0 and %s (%s)", each, human(hi), why)
	} else {
		fmt.Fprintf(&b, ": delays with no jitter; draw %s at random within its window, as full jitter does", each)
	}
	fmt.Fprintf(&b, ", or the fleet's retries after %s arrive together.", them)
	return b.String()
}
