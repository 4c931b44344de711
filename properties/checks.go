package properties

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/properties/internal/stats"
)

// The names of the checks, in the order a run reports them.
const (
	NameSpread          = "spread"
	NameClusters        = "clusters"
	NameIDPopulations   = "id-populations"
	NameFrozenClock     = "frozen-clock"
	NameReproducibility = "reproducibility"
	NameCapPhase        = "cap-phase"
	NameBounds          = "bounds"
	NameConformance     = "conformance"
)

// why says why each check matters to a fleet.
var why = map[string]string{
	NameSpread:          "Devices that draw the same delay retry in the same instant, so a fleet that failed together hits the server together again.",
	NameClusters:        "Devices that walk through identical delays, or whose retries land in one window, form a synchronised wave even when the fleet as a whole looks spread.",
	NameIDPopulations:   "Fleets are named by serials, MAC addresses and shared prefixes, and a seed taken from a weak function of the id puts similarly named devices in lockstep.",
	NameFrozenClock:     "Devices powered on by one relay share the clock, so a policy seeded from the time gives them all the same delays.",
	NameReproducibility: "A device whose delays cannot be replayed from its id cannot be debugged, or simulated before a rollout.",
	NameCapPhase:        "After a long outage every device sits at the cap, and jitter that vanishes there makes the whole fleet retry in unison once per cap interval.",
	NameBounds:          "A negative, infinite or over-cap delay, a panic or a hang turns a retry loop into a busy loop, a stuck device or a crash.",
	NameConformance:     "A policy that does not follow the strategy it claims makes every capacity estimate built on that strategy wrong.",
}

// Run runs the whole suite on the policy f makes, over the population cfg
// describes, and returns every check's result. It returns an error, and
// runs nothing, when cfg is out of range or the run would need more memory
// than cfg.MemoryLimit (see [Config.Validate]).
//
// Run never panics on a policy that panics. A call that makes no progress
// for cfg.CallTimeout is reported by the bounds check as a hang, with the
// device and the attempt, and the other checks run on the devices that
// answered; the call's goroutine is left behind. A check passes only on
// the evidence it asks for: when the run could not examine the whole
// population (a deadline, a cancelled context, a policy that hangs again
// and again), a check that found a failure among the devices read still
// fails, and the others are Inconclusive, with the reason and the count.
//
// Run draws rapid's id populations with the seed cfg.Seed and with rapid's
// fail files turned off, through rapid's settings in the standard flag set.
// Outside go test it first registers the testing flags (testing.Init) and,
// unless the program has done so, parses the standard flag set with no
// arguments: a program that calls Run keeps its own flags on a flag set of
// its own, and passes its seed in cfg.Seed.
func Run(ctx context.Context, f kit.Factory, cfg Config) (Outcome, error) {
	return run(ctx, f, cfg, nil)
}

// An inBubble runs fn inside a testing/synctest bubble, where time.Now stands
// still while goroutines run and moves on only when they all wait.
type inBubble func(fn func())

// run is Run with an optional bubble for the frozen-clock check.
func run(ctx context.Context, f kit.Factory, cfg Config, frozen inBubble) (Outcome, error) {
	if f == nil {
		panic("properties: nil factory")
	}
	if err := cfg.Validate(); err != nil {
		return Outcome{}, err
	}
	r := newRunner(ctx, f, cfg)
	defer r.cancel()
	return r.outcome(frozen), nil
}

// newRunner reads the population's delays for the checks to share. The
// caller calls r.cancel when the run is over.
func newRunner(ctx context.Context, f kit.Factory, cfg Config) *runner {
	cfg = cfg.withDefaults()
	r := &runner{cfg: cfg, f: f, seed: resolveSeed(cfg.Seed)}
	if cfg.Timeout > 0 {
		r.ctx, r.cancel = context.WithTimeout(ctx, cfg.Timeout)
	} else {
		r.ctx, r.cancel = context.WithCancel(ctx)
	}
	r.ids = cfg.IDs
	if len(r.ids) == 0 {
		r.ids = population(r.seed, cfg.Devices)
	}
	r.main = collect(r.ctx, f, r.ids, boots{at: cfg.Boot}, cfg.CapAttempts, cfg)
	r.clean = cleanDevices(r.main)
	return r
}

// outcome runs every check.
func (r *runner) outcome(frozen inBubble) Outcome {
	var out Outcome
	out.Err = sourceErrors(r.main)
	out.Hung, out.Shared = r.main.hangs > 0, r.main.shared > 0
	// Reproducibility makes devices again before rapid draws its own, so
	// that what a policy with shared state gives does not depend on how
	// many populations rapid drew.
	again := r.reproducibility()
	out.Results = []Result{
		r.spread(),
		r.clusters(),
		r.idPopulations(),
		r.frozenClock(frozen),
		again,
		r.capPhase(),
		r.bounds(),
	}
	if r.cfg.Claim != nil {
		out.Results = append(out.Results, r.conformance())
	}
	for i := range out.Results {
		out.Results[i] = r.settle(out.Results[i])
		out.Results[i].Why = why[out.Results[i].Name]
	}
	r.diagnose(out.Results)
	out.EarlyDelays = make([][]time.Duration, r.cfg.Attempts)
	for a := range out.EarlyDelays {
		for _, d := range r.clean {
			if a < len(d.delays) {
				out.EarlyDelays[a] = append(out.EarlyDelays[a], d.delays[a])
			}
		}
	}
	return out
}

// settle holds a check's pass to the whole population: a check that
// passed on a collection that stopped early passed on part of what it was
// asked to judge, which is not a pass.
func (r *runner) settle(res Result) Result {
	if res.Status == verdict.Pass && !r.main.complete() {
		res.Status = verdict.Inconclusive
		res.Detail = fmt.Sprintf("not judged on the whole population: the collection %s; on the %d devices read: %s",
			r.main.stopped, len(r.main.devices), res.Detail)
	}
	return res
}

// A runner holds what the checks of one run share.
type runner struct {
	ctx    context.Context // ends at the run-wide deadline
	cancel context.CancelFunc
	cfg    Config
	f      kit.Factory
	seed   uint64
	ids    []string
	main   sample
	clean  []device // devices of main without a fault
}

// replay says how to run the same checks again from Go: the run's seed.
func (r *runner) replay() string {
	return fmt.Sprintf("Config.Seed = %d", r.seed)
}

// cleanDevices returns the devices of s without a fault: s.devices itself
// when none has one.
func cleanDevices(s sample) []device {
	i := slices.IndexFunc(s.devices, func(d device) bool { return d.fault != nil })
	if i < 0 {
		return s.devices
	}
	out := slices.Clone(s.devices[:i])
	for _, d := range s.devices[i:] {
		if d.fault == nil {
			out = append(out, d)
		}
	}
	return out
}

// sourceErrors joins the source failures of s, each with its device and
// attempt, cut at ten.
func sourceErrors(s sample) error {
	var errs []error
	n := 0
	for _, d := range s.devices {
		if d.fault == nil || d.fault.defect {
			continue
		}
		if n++; n <= maxShown {
			errs = append(errs, fmt.Errorf("device %q attempt %d: %s", d.id, d.fault.attempt, d.fault.msg))
		}
	}
	if n > maxShown {
		errs = append(errs, fmt.Errorf("... and %d more devices", n-maxShown))
	}
	if s.canceled != nil {
		errs = append(errs, fmt.Errorf("%s", s.stopped))
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("properties: the policy's source failed: %w", errors.Join(errs...))
}

// seconds returns d in seconds.
func seconds(d time.Duration) float64 { return d.Seconds() }

// column returns the delays at attempt a (0-based) of the devices that
// reached it, and those devices.
func column(devs []device, a int) ([]float64, []device) {
	var who []device
	for _, d := range devs {
		if a < len(d.delays) {
			who = append(who, d)
		}
	}
	return delaysAt(nil, who, a), who
}

// delaysAt appends to x the delays at attempt a (0-based), in seconds, of
// the devices that reached it.
func delaysAt(x []float64, devs []device, a int) []float64 {
	for _, d := range devs {
		if a < len(d.delays) {
			x = append(x, seconds(d.delays[a]))
		}
	}
	return x
}

// reached counts the devices that reached attempt a (0-based).
func reached(devs []device, a int) int {
	n := 0
	for _, d := range devs {
		if a < len(d.delays) {
			n++
		}
	}
	return n
}

// spreadFigure is the lowest CV across devices over attempts [from, to).
type spreadFigure struct {
	cv       float64
	attempt  int // 0-based attempt of the lowest CV; -1 when none examined
	devices  int // devices that reached it
	examined int // attempts examined
}

func lowestCV(devs []device, from, to, minDevices int) spreadFigure {
	sf := spreadFigure{cv: math.Inf(1), attempt: -1}
	x := make([]float64, 0, len(devs))
	for a := from; a < to; a++ {
		x = delaysAt(x[:0], devs, a)
		if len(x) < minDevices {
			continue
		}
		sf.examined++
		if cv := stats.CV(x); cv < sf.cv {
			sf.cv, sf.attempt, sf.devices = cv, a, len(x)
		}
	}
	return sf
}

// spreadFailure writes the detail and counterexample of a lack of spread at
// attempt a: the group of devices that drew one identical delay when it is
// most of them, or else the two devices that bound the narrow range all
// others lie in.
func (r *runner) spreadFailure(devs []device, a int, cv float64, want string) (string, *Counterexample) {
	x, who := column(devs, a)
	groups := map[time.Duration][]device{}
	var mode time.Duration
	for _, d := range who {
		v := d.delays[a]
		groups[v] = append(groups[v], d)
		if len(groups[v]) > len(groups[mode]) || (len(groups[v]) == len(groups[mode]) && v < mode) {
			mode = v
		}
	}
	ce := &Counterexample{Attempt: a + 1, Seed: r.seed, Replay: r.replay()}
	limit := r.cfg.Attempts
	if a >= limit {
		limit = a + 1
	}
	if g := groups[mode]; len(g) >= 2 && 2*len(g) >= len(x) {
		// Two devices show devices in lockstep; the count says how many.
		ce.Devices = shown(g, limit)[:2]
		ce.Others = len(g) - 2
		ce.SameSequence = !slices.ContainsFunc(g, func(d device) bool { return !slices.Equal(d.delays, g[0].delays) })
		return fmt.Sprintf("delay %d of %q = %s for %d of %d devices, CV %.3g; want %s (CV ≥ %g)",
			a+1, ce.Devices[0].ID, human(mode), len(g), len(x), cv, want, r.cfg.Thresholds.MinCV), ce
	}
	lo, hi := who[0], who[0]
	for _, d := range who {
		if d.delays[a] < lo.delays[a] {
			lo = d
		}
		if d.delays[a] > hi.delays[a] {
			hi = d
		}
	}
	ce.Devices = shown([]device{lo, hi}, limit)
	return fmt.Sprintf("delay %d of all %d devices lies in [%s, %s] (that of %q and of %q): CV %.3g; want %s (CV ≥ %g)",
		a+1, len(x), human(lo.delays[a]), human(hi.delays[a]), lo.id, hi.id, cv, want, r.cfg.Thresholds.MinCV), ce
}

// shown returns up to maxShown of devs, sorted by id, with their first
// limit delays.
func shown(devs []device, limit int) []DeviceDelays {
	devs = slices.Clone(devs)
	slices.SortFunc(devs, func(a, b device) int { return strings.Compare(a.id, b.id) })
	var out []DeviceDelays
	for i, d := range devs {
		if i == maxShown {
			break
		}
		dd := DeviceDelays{ID: d.id, Delays: slices.Clone(d.delays[:min(limit, len(d.delays))])}
		if d.fault != nil {
			dd.Err = d.fault.msg
		}
		out = append(out, dd)
	}
	return out
}

// notEnough is the result of a check that had too few devices to judge.
func (r *runner) notEnough(name string, reached int, what string) Result {
	detail := fmt.Sprintf("%d of %d devices %s; want at least %d to judge", reached, r.main.total, what, r.cfg.Thresholds.MinDevices)
	if r.main.stopped != "" {
		detail += " (the collection " + r.main.stopped + ")"
	}
	return Result{Name: name, Status: verdict.Inconclusive, Detail: detail}
}

// notRun is the result of a check that did not run because the
// population's collection stopped early or hung.
func (r *runner) notRun(name string) Result {
	why := r.main.stopped
	if why == "" {
		why = fmt.Sprintf("%d of %d devices hung", r.main.hangs, r.main.total)
	}
	return Result{Name: name, Status: verdict.Inconclusive,
		Detail: fmt.Sprintf("not run: the policy did not answer every device of the population (%s; see bounds)", why)}
}

// skipped is the result of a check that does not apply to the policy's
// source, saying why.
func skipped(name, why string) Result {
	return Result{Name: name, Status: verdict.Skipped, Detail: "does not apply: " + why}
}

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

// crowdResult makes res the failure of a check whose busiest window c
// holds too many devices: its figure is the share of the fleet in it.
func (r *runner) crowdResult(res *Result, c crowd, want string) {
	a := c.attempt
	x, _ := column(r.clean, a)
	res.Status = verdict.Fail
	res.Figure, res.Threshold, res.Unit, res.Want = float64(c.count)/float64(c.n), float64(c.critical)/float64(c.n), unitFleet, "<"
	res.Detail, res.Counterexample = r.crowdFailure(c, stats.CV(x), want)
}

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
		if r.cfg.Source == Recorded {
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
	if r.cfg.Source == Recorded {
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
			r.cfg.Attempts, kit.FormatDuration(time.Duration(top*1e9).Round(time.Millisecond)), kit.FormatDuration(r.cfg.Cap))
	}
	return false, fmt.Sprintf("the recording never reaches a cap: its largest delays still grow at the last attempts it holds (up to %s, 95th percentile); declare the policy's cap, or record delays through a longer outage, to judge the cap phase",
		kit.FormatDuration(time.Duration(top*1e9).Round(time.Millisecond)))
}

// stopped marks the end of a sequence when the collision probability of an
// attempt is estimated: a device that stopped draws this value.
const stopped = time.Duration(math.MinInt64)

// chance holds per-attempt collision probabilities: q[a] is the chance that
// two devices draw the same delay at attempt a, or both have stopped.
type chance []float64

func chanceOf(devs []device, attempts int) chance {
	q := make(chance, attempts)
	col := make([]time.Duration, len(devs))
	for a := range attempts {
		for i, d := range devs {
			col[i] = stopped
			if a < len(d.delays) {
				col[i] = d.delays[a]
			}
		}
		q[a] = stats.CollisionProb(col)
	}
	return q
}

// expectedPairs returns how many pairs of n independent devices chance
// makes share all of the first k delays.
func (q chance) expectedPairs(n, k int) float64 {
	p := float64(n) * float64(n-1) / 2
	for _, v := range q[:k] {
		p *= v
	}
	return p
}

// largestGroup returns the largest group of devices that share their
// first k delays (all of them when k is negative), the first such group in
// the order of devs when several are as large, and the number of identical
// pairs among all groups. It sorts positions rather than building a key per
// device, so it allocates only a few words per device.
func largestGroup(devs []device, k int) ([]device, float64) {
	prefix := func(i int) []time.Duration {
		if ds := devs[i].delays; k >= 0 && k < len(ds) {
			return ds[:k]
		}
		return devs[i].delays
	}
	order := make([]int, len(devs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return slices.Compare(prefix(a), prefix(b)) })
	var pairs float64
	best := order[:0]
	for i := 0; i < len(order); {
		j := i + 1
		for j < len(order) && slices.Equal(prefix(order[i]), prefix(order[j])) {
			j++
		}
		g := order[i:j] // in the order of devs: the sort is stable
		pairs += float64(len(g)) * float64(len(g)-1) / 2
		if len(g) > len(best) || len(g) == len(best) && g[0] < best[0] {
			best = g
		}
		i = j
	}
	out := make([]device, len(best))
	for i, p := range best {
		out[i] = devs[p]
	}
	return out, pairs
}

func (r *runner) clusters() Result {
	th := r.cfg.Thresholds
	res := Result{Name: NameClusters}
	n := len(r.clean)
	if n < th.MinDevices {
		return r.notEnough(NameClusters, n, "answered without a fault")
	}
	if first := reached(r.clean, 0); first < th.MinDevices {
		// Devices that wait no delay share the empty schedule: no
		// evidence of spread or of clusters.
		return r.notEnough(NameClusters, first, "gave a first delay")
	}
	g, pairs := largestGroup(r.clean, -1)
	want := r.chanceLimit(chanceOf(r.clean, r.cfg.CapAttempts), n, r.cfg.CapAttempts)
	res.Figure, res.Threshold, res.Unit, res.Want = pairs, want.critical, "identical pairs", "<"
	if pairs >= want.critical {
		res.Status = verdict.Fail
		res.Counterexample = &Counterexample{Devices: shown(g, r.cfg.CapAttempts), Others: max(0, len(g)-maxShown), Seed: r.seed, Replay: r.replay()}
		res.Detail = fmt.Sprintf("the delays of %q, %s, are those of %d of %d devices, %.0f identical pairs in all; want fewer than %.0f (chance expects %.3g)",
			res.Counterexample.Devices[0].ID, formatDelays(g[0].delays), len(g), n, pairs, want.critical, want.expected)
		return res
	}
	if len(g) > 1 && len(g[0].delays) > 0 && float64(len(g)) > th.MaxLockstep*float64(n) {
		res.Status = verdict.Fail
		res.Figure, res.Threshold, res.Unit, res.Want = float64(len(g))/float64(n), th.MaxLockstep, "of the fleet", "≤"
		res.Counterexample = &Counterexample{Devices: shown(g, r.cfg.CapAttempts)[:2], Others: len(g) - 2, Seed: r.seed, Replay: r.replay()}
		res.Detail = fmt.Sprintf("the delays of %q, %s, are those of %d of %d devices: they retry in lockstep; want at most %g%% of the fleet sharing one sequence",
			res.Counterexample.Devices[0].ID, formatDelays(g[0].delays), len(g), n, 100*th.MaxLockstep)
		return res
	}
	arr := r.arrivals()
	if arr.ratio > th.ArrivalRatio {
		res.Status = verdict.Fail
		res.Figure, res.Threshold, res.Unit, res.Want = arr.ratio, th.ArrivalRatio, "× chance in one window", "≤"
		res.Counterexample = &Counterexample{Attempt: arr.attempt, Devices: shown(arr.devices, arr.attempt), Seed: r.seed, Replay: r.replay()}
		res.Detail = fmt.Sprintf("the retries after delay %d of %d of %d devices land in one %s window at %s; want at most %g× the %.3g that independent devices put in one window",
			arr.attempt, arr.count, arr.n, human(arr.width), human(arr.at), th.ArrivalRatio, arr.reference)
		return res
	}
	c := r.busiestArrival()
	if c.fails() {
		res.Status = verdict.Fail
		res.Figure, res.Threshold, res.Unit, res.Want = float64(c.count)/float64(c.n), float64(c.critical)/float64(c.n), unitFleet, "<"
		ce := &Counterexample{Attempt: c.attempt, Devices: shown(c.devices, c.attempt), Window: dur(c.width), Seed: r.seed, Replay: r.replay()}
		ce.Others = c.count - len(ce.Devices)
		res.Counterexample = ce
		place := c.where()
		if strings.HasPrefix(place, "exactly") {
			place = "at " + place
		}
		res.Detail = fmt.Sprintf("the retries after delay %d of %d of %d devices land %s, in one window of %s (%g%% of the median arrival); want fewer than %d in one window (independent devices whose delays spread with CV %g reach %d with probability below %g)",
			c.attempt, c.count, c.n, place, human(dur(c.width)), 100*th.ConcentrationWidth, c.critical, th.MinCV, c.critical, th.ConcentrationAlpha)
		return res
	}
	res.Status = verdict.Pass
	res.Detail = fmt.Sprintf("largest group sharing all delays: %d of %d devices, %.0f identical pairs; want fewer than %.0f (chance expects %.3g)",
		len(g), n, pairs, want.critical, want.expected)
	if arr.ratio > 0 {
		res.Detail += fmt.Sprintf("; busiest arrival window %.2g× that of independent devices (after delay %d)", arr.ratio, arr.attempt)
	}
	res.Detail += c.summary(fmt.Sprintf("the retry after delay %d", c.attempt))
	return res
}

// A limit is what chance allows of identical pairs.
type limit struct{ expected, critical float64 }

func (r *runner) chanceLimit(q chance, n, k int) limit {
	th := r.cfg.Thresholds
	e := q.expectedPairs(n, k)
	return limit{expected: e, critical: math.Max(2, stats.PoissonCritical(th.ClusterAlpha, th.ClusterSlack*e))}
}

// arrivalFigure is the worst arrival clustering over the early retries.
type arrivalFigure struct {
	ratio     float64
	attempt   int // 1-based retry
	count, n  int
	reference float64 // mean busiest-window count of the shuffled fleets
	width, at time.Duration
	devices   []device
}

// arrivalShuffles is how many independent fleets the busiest window is
// compared against.
const arrivalShuffles = 3

// arrivals compares, for each of the first Attempts retries, the busiest
// window of the fleet's arrival times (the sum of a device's delays so far)
// with that of independent fleets: the same delays per attempt, shuffled
// across devices.
func (r *runner) arrivals() arrivalFigure {
	var worst arrivalFigure
	rng := rand.New(rand.NewPCG(r.seed, 0x617272))
	for k := 1; k <= r.cfg.Attempts; k++ {
		var devs []device
		for _, d := range r.clean {
			if len(d.delays) >= k {
				devs = append(devs, d)
			}
		}
		n := len(devs)
		if n < r.cfg.Thresholds.MinDevices {
			break
		}
		obs := make([]float64, n)
		for i, d := range devs {
			for _, v := range d.delays[:k] {
				obs[i] += seconds(v)
			}
		}
		var ref float64
		var width float64
		shuffled := make([]float64, n)
		perm := make([]int, n)
		for s := range arrivalShuffles {
			clear(shuffled)
			for a := range k {
				for i := range perm {
					perm[i] = i
				}
				rng.Shuffle(n, func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
				for i, p := range perm {
					shuffled[i] += seconds(devs[p].delays[a])
				}
			}
			slices.Sort(shuffled)
			if s == 0 {
				width = (shuffled[n*95/100] - shuffled[n*5/100]) / float64(n)
				if width <= 0 {
					break
				}
			}
			c, _ := stats.MaxWindow(width, shuffled)
			ref += float64(c) / arrivalShuffles
		}
		if width <= 0 {
			continue
		}
		sorted := slices.Clone(obs)
		slices.Sort(sorted)
		c, at := stats.MaxWindow(width, sorted)
		if ratio := float64(c) / ref; ratio > worst.ratio {
			worst = arrivalFigure{ratio: ratio, attempt: k, count: c, n: n, reference: ref,
				width: time.Duration(width * 1e9), at: time.Duration(at * 1e9)}
			worst.devices = nil
			for i, t := range obs {
				if t >= at && t < at+width {
					worst.devices = append(worst.devices, devs[i])
				}
			}
		}
	}
	return worst
}

// unitFleet is the unit of a figure that is a share of the fleet.
const unitFleet = "of the fleet"

// A crowd is the most devices whose delay at one attempt, or whose
// arrival time at one retry, lies in one narrow window, against the
// fewest that fails.
type crowd struct {
	count, n int
	critical int     // the fewest devices in one window that fails
	attempt  int     // the 0-based attempt of a delay, or the 1-based retry of an arrival
	lo, hi   float64 // the smallest and largest value in the window, in seconds
	width    float64 // the window's width in seconds; 0 for a clamp
	clamp    bool    // every device of the crowd waits exactly the largest delay
	devices  []device
}

// judged reports whether the crowd was measured: enough devices reached
// its attempt.
func (c crowd) judged() bool { return c.n > 0 }

// fails reports whether the crowd is larger than chance allows.
func (c crowd) fails() bool { return c.judged() && c.count >= c.critical }

// closeness ranks crowds by how near they come to failing.
func (c crowd) closeness() float64 {
	if !c.judged() {
		return -1
	}
	return float64(c.count) / float64(c.critical)
}

// referenceShare is the most that one device whose delay is spread as
// little as spread accepts (uniform, CV = MinCV) puts in a window of
// relative width ConcentrationWidth: see Thresholds.ConcentrationWidth.
func (t Thresholds) referenceShare() float64 {
	return math.Min(1, t.ConcentrationWidth/(2*math.Sqrt(3)*t.MinCV))
}

// windowCritical returns the fewest of n devices in the busiest of n
// windows that chance fills with probability below ConcentrationAlpha when
// each device lands in a window with probability p: the window's first
// device and Binomial(n−1, p) others, over n windows.
func (t Thresholds) windowCritical(n int, p float64) int {
	return 1 + stats.BinomialCritical(t.ConcentrationAlpha/float64(n), n-1, p)
}

// crowdAt returns the busiest window of the delays at attempt a (0-based)
// of the devices that reached it. Devices that wait exactly the largest
// delay, as a clamp makes them, are held to ClampShare; every other
// window, of width min(ConcentrationWidth·v, ConcentrationWindow) from
// the delay v of one device, to what the reference of
// ConcentrationWidth puts there. Of the two, the crowd nearer to failing
// is returned.
func (r *runner) crowdAt(devs []device, a int) crowd {
	th := r.cfg.Thresholds
	var who []device
	for _, d := range devs {
		if a < len(d.delays) {
			who = append(who, d)
		}
	}
	n := len(who)
	if n < th.MinDevices {
		return crowd{attempt: a}
	}
	slices.SortStableFunc(who, func(x, y device) int { return cmp.Compare(x.delays[a], y.delays[a]) })
	x := delaysAt(make([]float64, 0, n), who, a)
	best := crowd{attempt: a}
	rest := n
	if top := x[n-1]; n >= 2 && x[n-2] == top {
		for rest > 0 && x[rest-1] == top {
			rest--
		}
		best = crowd{count: n - rest, n: n, critical: stats.BinomialCritical(th.ConcentrationAlpha, n, th.ClampShare),
			attempt: a, lo: top, hi: top, clamp: true, devices: who[rest:]}
	}
	if rest > 0 {
		k, i := stats.MaxRelWindow(th.ConcentrationWidth, th.ConcentrationWindow.Seconds(), x[:rest])
		w := crowd{count: k, n: n, critical: th.windowCritical(n, th.referenceShare()), attempt: a,
			lo: x[i], hi: x[i+k-1], width: math.Min(th.ConcentrationWidth*math.Max(x[i], 0), th.ConcentrationWindow.Seconds()),
			devices: who[i : i+k]}
		if w.closeness() > best.closeness() {
			best = w
		}
	}
	return best
}

// busiest returns the crowd nearest to failing over attempts [from, to).
func (r *runner) busiest(devs []device, from, to int) crowd {
	best := crowd{attempt: -1}
	for a := from; a < to; a++ {
		if c := r.crowdAt(devs, a); c.closeness() > best.closeness() {
			best = c
		}
	}
	return best
}

// arrivalCrowd returns the busiest window of the arrival times of the
// k-th retry (the sum of a device's first k delays) of the devices that
// reached it. The window is min(ConcentrationWidth·m, ConcentrationWindow)
// wide, m the median arrival time. The reference device draws each delay
// spread as little as spread accepts, uniform with CV = MinCV around the
// median delay of its attempt; the density of a sum of independent delays
// is at most that of its least dense term, the delay of the largest
// median M, so one device lands in the window with probability at most
// width/(2√3·MinCV·M).
func (r *runner) arrivalCrowd(k int) crowd {
	th := r.cfg.Thresholds
	var devs []device
	for _, d := range r.clean {
		if len(d.delays) >= k {
			devs = append(devs, d)
		}
	}
	n := len(devs)
	if n < th.MinDevices {
		return crowd{attempt: k}
	}
	var largest float64
	x := make([]float64, 0, n)
	for a := range k {
		x = delaysAt(x[:0], devs, a)
		slices.Sort(x)
		largest = math.Max(largest, x[n/2])
	}
	t := make([]float64, n)
	for i, d := range devs {
		for _, v := range d.delays[:k] {
			t[i] += seconds(v)
		}
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(t[a], t[b]) })
	sorted := make([]float64, n)
	for i, o := range order {
		sorted[i] = t[o]
	}
	width := math.Min(th.ConcentrationWidth*math.Max(sorted[n/2], 0), th.ConcentrationWindow.Seconds())
	if !(width > 0) || !(largest > 0) {
		return crowd{attempt: k}
	}
	count, at := stats.MaxWindow(width, sorted)
	c := crowd{count: count, n: n, critical: th.windowCritical(n, math.Min(1, width/(2*math.Sqrt(3)*th.MinCV*largest))),
		attempt: k, width: width}
	first := sort.SearchFloat64s(sorted, at)
	c.lo, c.hi = sorted[first], sorted[first+count-1]
	for _, o := range order[first : first+count] {
		c.devices = append(c.devices, devs[o])
	}
	return c
}

// busiestArrival returns the arrival crowd nearest to failing over the
// first Attempts retries.
func (r *runner) busiestArrival() crowd {
	best := crowd{attempt: 0}
	for k := 1; k <= r.cfg.Attempts; k++ {
		if c := r.arrivalCrowd(k); c.closeness() > best.closeness() {
			best = c
		}
	}
	return best
}

// where writes the extent of a crowd's values: "exactly 10s" or "within
// 500µs of 100.5ms".
func (c crowd) where() string {
	if dur(c.lo) == dur(c.hi) {
		return "exactly " + human(dur(c.lo))
	}
	return fmt.Sprintf("within %s of %s", human(dur((c.hi-c.lo)/2)), human(dur((c.lo+c.hi)/2)))
}

// dur returns s seconds as a duration, to the nearest nanosecond.
func dur(s float64) time.Duration { return time.Duration(math.Round(s * 1e9)) }

// crowdFailure writes the detail and counterexample of a delay at which
// too many devices crowd into one window; cv is the spread figure at the
// same delays, and what says what the check wants.
func (r *runner) crowdFailure(c crowd, cv float64, want string) (string, *Counterexample) {
	th := r.cfg.Thresholds
	limit := max(r.cfg.Attempts, c.attempt+1)
	ce := &Counterexample{Attempt: c.attempt + 1, Devices: shown(c.devices, limit), Seed: r.seed, Replay: r.replay()}
	ce.Others = c.count - len(ce.Devices)
	if c.clamp {
		return fmt.Sprintf("delay %d of %d of %d devices is %s, the largest delay of any device there, CV %.3g: a clamp holds them together; want %s: fewer than %d at one clamp (independent devices clamped with probability %.3g, the most decorrelated jitter's clamp holds, reach %d with probability below %g)",
			c.attempt+1, c.count, c.n, c.where(), cv, want, c.critical, th.ClampShare, c.critical, th.ConcentrationAlpha), ce
	}
	ce.Window = dur(c.width)
	return fmt.Sprintf("delay %d of %d of %d devices lies %s, in one window of %s (%g%% of the delay), CV %.3g; want %s: fewer than %d in one window (independent devices spread with CV %g reach %d with probability below %g)",
		c.attempt+1, c.count, c.n, c.where(), human(dur(c.width)), 100*th.ConcentrationWidth, cv, want, c.critical, th.MinCV, c.critical, th.ConcentrationAlpha), ce
}

// summary is what a check that passed says of its busiest window; at
// names the delay or retry, as "delay 3".
func (c crowd) summary(at string) string {
	if !c.judged() {
		return ""
	}
	if c.clamp {
		return fmt.Sprintf("; most at the largest delay: %d of %d devices %s at %s, want fewer than %d", c.count, c.n, c.where(), at, c.critical)
	}
	return fmt.Sprintf("; busiest window: %d of %d devices %s at %s, want fewer than %d", c.count, c.n, c.where(), at, c.critical)
}

// clamped reports whether res is the failure of a crowd of devices that
// all wait exactly the largest delay, as a clamp makes them.
func clamped(res *Result) bool {
	ce := res.Counterexample
	return res.Unit == unitFleet && ce != nil && ce.Attempt > 0 && ce.Window == 0 && !ce.SameSequence && res.Name != NameClusters
}

// copies reports whether the devices res shows include two with the same
// whole sequence of delays: a crowd made of devices that draw the same
// delays, as weak seeds give, rather than of delays jittered too little.
func copies(res *Result) bool {
	ce := res.Counterexample
	if res.Unit != unitFleet || ce == nil {
		return false
	}
	for i, a := range ce.Devices {
		for _, b := range ce.Devices[i+1:] {
			if slices.Equal(a.Delays, b.Delays) {
				return true
			}
		}
	}
	return false
}
