package properties

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/properties/internal/stats"
)

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
	// fresh counts the devices of main made each in a fresh process (see
	// Config.Processes), the first of the population; freshErr is why
	// none were, when the processes failed.
	fresh    int
	freshErr error
	// frozen runs the frozen-clock check's devices in a bubble, or is nil.
	frozen inBubble
	// suite holds the checks that apply to cfg, in order, and judging
	// their results by name, as far as the run has taken each.
	suite   []check
	judging map[string]*judgement
	shape   *fleetShape // see fleet; nil until a cause reads it
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

// crowdResult makes res the failure of a check whose busiest window c
// holds too many devices: its figure is the share of the fleet in it.
func (r *runner) crowdResult(res *Result, c crowd, want string) {
	a := c.attempt
	x, _ := column(r.clean, a)
	res.Status = verdict.Fail
	res.Figure, res.Threshold, res.Unit, res.Want = float64(c.count)/float64(c.n), float64(c.critical)/float64(c.n), unitFleet, "<"
	res.Detail, res.Counterexample = r.crowdFailure(c, stats.CV(x), want)
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

// A limit is what chance allows of identical pairs.
type limit struct{ expected, critical float64 }

func (r *runner) chanceLimit(q chance, n, k int) limit {
	th := r.cfg.Thresholds
	e := q.expectedPairs(n, k)
	return limit{expected: e, critical: math.Max(2, stats.PoissonCritical(th.ClusterAlpha, th.ClusterSlack*e))}
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
