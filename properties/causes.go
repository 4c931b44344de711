package properties

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/properties/internal/stats"
)

// A Cause is what is wrong with a policy behind a finding: one root cause,
// which one remedy fixes, however many checks it fails.
type Cause string

// The root causes the checks tell apart.
const (
	// NoJitter: every device waits one fixed schedule of delays.
	NoJitter Cause = "no-jitter"
	// ClockSeed: the delays follow the clock, so devices booted together
	// draw the same ones.
	ClockSeed Cause = "clock-seed"
	// SharedSeed: every device draws from one seed, a constant or missing
	// one.
	SharedSeed Cause = "shared-seed"
	// WeakSeed: the seed is a weak function of the id (a sum, a prefix, a
	// few characters), so similarly named devices draw the same delays.
	WeakSeed Cause = "weak-seed"
	// SharedGenerator: the devices draw from a generator that is not their
	// own, so a device's delays cannot be found again from its id.
	SharedGenerator Cause = "shared-generator"
	// ProcessGenerator: the devices draw from a generator the runtime
	// seeds from the operating system in each process (Python's random,
	// JavaScript's Math.random, Go's math/rand since Go 1.20): the fleet
	// spreads, but a device's delays cannot be found again from its id.
	// Its user cannot seed a library's generator per device, so the cause
	// has no remedy: the finding is stated, not advised. It is declared
	// (Config.ProcessSeeded), or evident when no device gives its delays
	// again, in this process or from a second one, while the fleet spreads,
	// also at a frozen instant (frozen-clock passes, which rules the clock
	// out).
	ProcessGenerator Cause = "process-generator"
	// SmallJitter: the jitter is too small a part of the window to spread
	// the fleet.
	SmallJitter Cause = "small-jitter"
	// JitterLostAtCap: the jitter vanishes once the window reaches the cap.
	JitterLostAtCap Cause = "jitter-lost-at-cap"
	// UnjitteredDelay: one delay, or a few, is the same for every device
	// while the others spread, as a first delay of exactly the base, or a
	// reconnect loop's attempt 0 of no wait at all, is. The Remedy of a
	// Result with this cause names those delays, what every device waits
	// there and which delays spread; the cause's own Remedy is the same
	// advice without them.
	UnjitteredDelay Cause = "unjittered-delay"
	// AddedJitter: a fixed amount of jitter added to growing delays becomes
	// negligible at later attempts.
	AddedJitter Cause = "added-jitter"
	// Realigned: every device's schedule differs, but its retries land
	// together, as delays that aim at a fixed instant do.
	Realigned Cause = "realigned"
	// OverCap: delays beyond the declared cap.
	OverCap Cause = "over-cap"
	// BadDelay: negative, infinite or NaN delays, a panic or a call that
	// never returns.
	BadDelay Cause = "bad-delay"
	// SharedInstance: the factory returns one policy to several devices,
	// where a fleet runs one instance per device.
	SharedInstance Cause = "shared-instance"
	// WrongStrategy: the delays do not follow the strategy the policy
	// claims.
	WrongStrategy Cause = "wrong-strategy"
)

// remedies say what to change for each cause, in one sentence.
var remedies = map[Cause]string{
	NoJitter:        "Add jitter: draw each delay at random within its backoff window (full jitter: uniform between 0 and the window; decorrelated: between the base and three times the previous delay), from a generator seeded per device.",
	ClockSeed:       "Seed each device's generator from a stable hash of its id (the FNV-1a hash of the id's bytes; kit.HashID in Go), not from the clock: devices powered on together boot in the same second.",
	SharedSeed:      "Seed each device's generator from a stable hash of its id (the FNV-1a hash of the id's bytes; kit.HashID in Go), not from a constant, nor from the clock when devices may start together: every device now draws the same delays.",
	WeakSeed:        "Seed from a hash of the whole id (the FNV-1a hash of its bytes; kit.HashID in Go), not from a sum, a prefix or a few characters of it: devices named alike draw the same delays.",
	SharedGenerator: "Give each device a generator of its own, seeded from a hash of its id, instead of one the process shares: a device then draws the same delays after a restart, and a failure can be found again.",
	SmallJitter:     "Jitter over the whole window, as full jitter (uniform between 0 and the window) does: jitter of ±f of the window spreads devices by only f/√3, too little to break up a fleet's waves.",
	JitterLostAtCap: "Apply the jitter after the cap: cap the window, then draw the delay within it, so that devices at the cap still spread.",
	UnjitteredDelay: "Jitter every delay, the first one too: a delay that every device waits alike, an immediate retry included, brings the fleet back in one instant however well the others spread.",
	AddedJitter:     "Draw the jitter within the whole window, as full or equal jitter do, rather than adding a fixed amount, which becomes negligible as the delays grow.",
	Realigned:       "Draw each delay from the device's own schedule, not toward a fixed instant: the retries of different devices land together.",
	OverCap:         "Keep every delay within the declared cap: apply the cap after the jitter, or declare the cap the policy really has.",
	BadDelay:        "Return finite delays between 0 and the cap, and never panic or block in the factory, in Next or in Observe.",
	SharedInstance:  "Make a new policy in each call of the factory: a fleet runs one instance per device, and one instance that several devices share draws one stream of delays that no device of a real fleet waits.",
	WrongStrategy:   "Make the delays follow the declared strategy, or declare the one they follow.",
}

// Remedy returns what to change for the cause, in one sentence, or "" for
// an unknown one and for ProcessGenerator, which leaves nothing for its
// user to change.
func (c Cause) Remedy() string { return remedies[c] }

// diagnose gives the finding res of check c (a failure or a warning) its
// root cause and remedy. A fleet whose devices share one schedule fails
// several checks for one reason (see sharedCause), and a fleet whose
// devices differ but wait one delay alike lacks jitter at that delay alone
// (see fleet); each check's cause reads them, and a factory that returned
// one policy to several devices is the root of every finding.
func (r *runner) diagnose(c check, res Result) Result {
	if !res.Status.Finding() {
		return res
	}
	if r.main.shared > 0 {
		// Devices that share one instance draw from one stream: every
		// finding follows from it.
		res.Cause, res.Remedy = SharedInstance, SharedInstance.Remedy()
		return res
	}
	res.Cause = c.cause(r, &res)
	switch {
	case res.Remedy != "":
		// The check's cause wrote a remedy that names what it found.
	case res.Cause == UnjitteredDelay:
		res.Remedy = r.fleet().unjitteredRemedy
	default:
		res.Remedy = res.Cause.Remedy()
	}
	return res
}

// A fleetShape is what spread's result says of the whole fleet, which the
// causes of several checks read.
type fleetShape struct {
	// spreadFailed says that spread failed.
	spreadFailed bool
	// lockstep says that every device waits the same delays; narrow that
	// spread failed with a spread above none.
	lockstep, narrow bool
	// unjittered is the cause of a spread of none among devices that
	// differ elsewhere: the jitter lost at the cap, one delay without
	// jitter that the others spread around (its remedy names the delays),
	// or none at all.
	unjittered       Cause
	unjitteredRemedy string
	// clock says that the delays follow the clock (see clockSeeded).
	clock bool
}

// fleet returns the fleet's shape, judging spread for it the first time.
func (r *runner) fleet() *fleetShape {
	if r.shape != nil {
		return r.shape
	}
	f := &fleetShape{unjittered: NoJitter}
	if s := r.judged(NameSpread); s.Status == verdict.Fail {
		f.spreadFailed = true
		f.lockstep, f.narrow = s.Figure == 0 && r.allSame(), s.Figure > 0
		if s.Figure == 0 && !f.lockstep && s.Counterexample != nil {
			if r.atCap(s.Counterexample.Attempt) {
				f.unjittered = JitterLostAtCap
			} else if u := r.unjittered(); u.found() {
				f.unjittered, f.unjitteredRemedy = UnjitteredDelay, u.remedy()
			}
		}
	}
	f.clock = r.clockSeeded()
	r.shape = f
	return f
}

// sharedCause is the cause of a fleet in lockstep: the clock when
// frozen-clock found that the delays follow it (which judges frozen-clock
// the first time), a fixed schedule when the shared delays grow by one
// ratio as a backoff without jitter does, and a shared seed otherwise.
func (r *runner) sharedCause() Cause {
	switch {
	case r.judged(NameFrozenClock).Status == verdict.Fail:
		return ClockSeed
	case r.fixedSchedule():
		return NoJitter
	}
	return SharedSeed
}

// clockSeeded reports whether the delays follow the clock rather than the
// device: frozen-clock found that they collapse at one frozen instant and
// spread when the devices boot a second apart (judging it the first time),
// or, when frozen-clock could not run (an external program's clock), most
// of the fleet draws one jittered sequence while the others draw another, as a seed that every device shares and that changed while the
// fleet was made does: the clock's second, read by processes that start
// one after another across a second's turn. Devices named alike that a
// weak seed gives one sequence are a small part of a fleet of varied ids;
// a constant seed never changes; and delays without jitter never go down,
// as a jittered sequence does.
func (r *runner) clockSeeded() bool {
	switch r.judged(NameFrozenClock).Status {
	case verdict.Fail:
		return true
	case verdict.Skipped:
	default:
		// Frozen-clock judged the clock: the copies are not its.
		return false
	}
	largest, others := r.largestCopies()
	if largest == nil || 2*len(largest) <= len(r.clean) {
		return false
	}
	ds := r.clean[largest[0]].delays
	down := false
	for i := 1; i < len(ds); i++ {
		down = down || ds[i] < ds[i-1]
	}
	return down && others
}

// largestCopies returns the indices in r.clean of the largest group of
// devices that wait one whole sequence of delays, and whether a device
// outside it draws other delays where both have one (not merely fewer).
func (r *runner) largestCopies() ([]int, bool) {
	groups := map[string][]int{}
	var best []int
	for i, d := range r.clean {
		k := fmt.Sprint(d.delays)
		groups[k] = append(groups[k], i)
		if len(groups[k]) > len(best) {
			best = groups[k]
		}
	}
	if len(best) < 2 {
		return nil, false
	}
	ds := r.clean[best[0]].delays
	for _, d := range r.clean {
		n := min(len(d.delays), len(ds))
		if !slices.Equal(d.delays[:n], ds[:n]) {
			return best, true
		}
	}
	return best, false
}

// unjitteredDelays are the delays every device waits alike while others
// spread: attempts are 0-based, fixed[i] is waited at attempt alike[i].
type unjitteredDelays struct {
	alike     []int
	fixed     []time.Duration
	spreading []int
}

func (u unjitteredDelays) found() bool { return len(u.alike) > 0 && len(u.spreading) > 0 }

// unjittered finds, among the delays spread judges, those every device
// that reaches them waits alike, and the delays that spread (CV ≥ MinCV):
// among the same first delays, else, when none of those spreads, among
// the later ones up to CapAttempts. An attempt fewer than MinDevices
// reach is not examined.
func (r *runner) unjittered() unjitteredDelays {
	var u unjitteredDelays
	spreads := func(from, to int) {
		for a := from; a < to; a++ {
			if x, _ := column(r.clean, a); len(x) >= r.cfg.Thresholds.MinDevices && stats.CV(x) >= r.cfg.Thresholds.MinCV {
				u.spreading = append(u.spreading, a)
			}
		}
	}
	for a := range r.cfg.Attempts {
		_, who := column(r.clean, a)
		if len(who) < r.cfg.Thresholds.MinDevices {
			continue
		}
		v := who[0].delays[a]
		if !slices.ContainsFunc(who, func(d device) bool { return d.delays[a] != v }) {
			u.alike, u.fixed = append(u.alike, a), append(u.fixed, v)
		}
	}
	spreads(0, r.cfg.Attempts)
	if len(u.spreading) == 0 {
		spreads(r.cfg.Attempts, r.cfg.CapAttempts)
	}
	return u
}

// remedy says which delays to jitter, what every device waits there and
// which delays spread, in one sentence: "Delay 1 is 100ms for every device
// while delays 2–3 spread: jitter it too, ...".
func (u unjitteredDelays) remedy() string {
	var b strings.Builder
	spreading := attemptList(u.spreading, "spreads", "spread")
	zero := slices.Contains(u.fixed, 0)
	if len(u.alike) == 1 {
		fmt.Fprintf(&b, "Delay %d is %s for every device", u.alike[0]+1, human(u.fixed[0]))
		if zero {
			b.WriteString(" (a retry at once)")
		}
		fmt.Fprintf(&b, " while %s: jitter it too, ", spreading)
		if zero {
			b.WriteString("drawing it at random between 0 and the base delay")
		} else {
			b.WriteString("drawing it at random within its window as the others are")
		}
	} else {
		fmt.Fprintf(&b, "%s are %s for every device while %s: jitter them too, drawing each at random within its window as the others are",
			capitalize(attemptList(u.alike, "", "")), formatDelays(u.fixed), spreading)
		if zero {
			b.WriteString(" (between 0 and the base delay for a wait of 0)")
		}
	}
	switch {
	case u.alike[0] == 0 && u.fixed[0] == 0:
		b.WriteString(", or the whole fleet retries in the instant it failed.")
	case len(u.alike) == 1:
		b.WriteString(", or the fleet's retries after it arrive together.")
	default:
		b.WriteString(", or the fleet's retries after them arrive together.")
	}
	return b.String()
}

// attemptList writes 0-based attempts as the 1-based delays a reader
// counts, runs of them as ranges, with the verb that agrees: "delay 1
// spreads", "delays 2–3 spread", "delays 1, 3–5 spread". It lists ten
// runs at most and says how many more.
func attemptList(as []int, one, many string) string {
	var runs []string
	for i := 0; i < len(as); {
		j := i
		for j+1 < len(as) && as[j+1] == as[j]+1 {
			j++
		}
		if j == i {
			runs = append(runs, strconv.Itoa(as[i]+1))
		} else {
			runs = append(runs, fmt.Sprintf("%d–%d", as[i]+1, as[j]+1))
		}
		i = j + 1
	}
	if len(runs) > maxShown {
		runs = append(runs[:maxShown], fmt.Sprintf("%d more", len(runs)-maxShown))
	}
	noun, verb := "delays", many
	if len(as) == 1 {
		noun, verb = "delay", one
	}
	s := noun + " " + strings.Join(runs, ", ")
	if verb != "" {
		s += " " + verb
	}
	return s
}

// capitalize returns s with its first letter upper case.
func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// allSame reports whether every device that answered waits the same
// delays.
func (r *runner) allSame() bool {
	if len(r.clean) < 2 {
		return false
	}
	for _, d := range r.clean[1:] {
		if !slices.Equal(d.delays, r.clean[0].delays) {
			return false
		}
	}
	return true
}

// fixedSchedule reports whether every device waits one schedule that never
// shrinks, as a backoff without jitter does, whatever its growth
// (exponential, Fibonacci, linear, constant) and however it starts (0, as
// a reconnect loop's first try). Delays drawn from one shared seed go down
// as well as up, but for jitter too narrow to undo the growth, whose
// remedy is the same: jitter drawn per device. A schedule of one or two
// delays is fixed when they are whole milliseconds.
func (r *runner) fixedSchedule() bool {
	if !r.allSame() {
		return false
	}
	ds := r.clean[0].delays
	if len(ds) < 3 {
		// Too short to see a growth: a schedule written by hand is in
		// whole milliseconds (two immediate retries: 0, 0), a delay drawn
		// from a shared seed almost never is.
		for _, d := range ds {
			if d%time.Millisecond != 0 {
				return false
			}
		}
		return len(ds) > 0
	}
	for i := 1; i < len(ds); i++ {
		if ds[i] < ds[i-1] {
			return false
		}
	}
	return true
}

// atCap reports whether delay attempt (from 1) of every device is at the
// cap: the declared one, else the longest delay any device drew.
func (r *runner) atCap(attempt int) bool {
	limit := r.cfg.Cap
	if limit <= 0 {
		for _, d := range r.clean {
			for _, v := range d.delays {
				limit = max(limit, v)
			}
		}
	}
	if attempt < 1 || limit <= 0 {
		return false
	}
	for _, d := range r.clean {
		if len(d.delays) < attempt || d.delays[attempt-1] < limit {
			return false
		}
	}
	return true
}

// overCap reports whether a device's delays went beyond the declared cap.
func (r *runner) overCap() bool {
	if r.cfg.Cap <= 0 {
		return false
	}
	for _, d := range r.main.devices {
		for _, v := range d.delays {
			if v > r.cfg.Cap && v < time.Duration(math.MaxInt64) {
				return true
			}
		}
	}
	return false
}
