package properties

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/properties/internal/stats"
)

// NameClusters is the name of the check that no group of devices shares an
// identical sequence, and no window holds the k-th retry of more devices,
// beyond what chance gives from the observed delays, or than independent
// devices whose delays spread put there.
const NameClusters = "clusters"

var _ = register(check{
	name:     NameClusters,
	why:      "Devices that walk through identical delays, or whose retries land in one window, form a synchronised wave even when the fleet as a whole looks spread.",
	position: 20,
	run:      (*runner).clusters,
	cause:    (*runner).clustersCause,
})

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

// clustersCause is the root cause of a cluster: the fleet's shared
// schedule; the clock when the delays follow it (see clockSeeded);
// spread's cause when the retries crowd into a window because
// the delays do; delays aimed at one instant when the retries of devices
// whose schedules differ land together; and otherwise a weak seed, which
// gives devices named alike the same sequence.
func (r *runner) clustersCause(res *Result) Cause {
	ce := res.Counterexample
	switch fleet := r.fleet(); {
	case fleet.lockstep:
		return r.sharedCause()
	case fleet.clock:
		return ClockSeed
	case fleet.spreadFailed && ce != nil && ce.Window > 0:
		return r.diagnosed(NameSpread).Cause
	case ce != nil && ce.Attempt > 0:
		return Realigned
	}
	return WeakSeed
}
