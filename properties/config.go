package properties

import (
	"time"

	"github.com/jitterkit/jitterkit/kit"
)

// Config says which devices a run examines, for how long, and what it
// compares them against. Zero fields take the defaults documented on each.
type Config struct {
	// Devices is the size of the population, at least 1000 for spread
	// (default 1000). It is ignored when IDs is set.
	Devices int
	// IDs, when set, is the fixed population, such as the devices of a
	// recorded trace. Otherwise the population is drawn from Seed: a mix of
	// sequential serials, MAC addresses, UUIDs, ids with a long shared
	// prefix, ids one character apart and very short ids.
	IDs []string
	// Attempts is how many early delays of each device spread, clusters,
	// frozen clock, reproducibility and conformance examine (default 3).
	Attempts int
	// CapAttempts is the horizon of the cap phase: delays are read up to
	// this attempt or until the policy stops (default 32).
	CapAttempts int
	// Cap is the declared cap that bounds every delay; 0 declares none.
	Cap time.Duration
	// Claim is the strategy the policy claims to follow, for conformance;
	// nil leaves conformance out of the suite: without a claim it has
	// nothing to test against.
	Claim *kit.Spec
	// Seed draws the population and rapid's id populations; every failure
	// prints it. Zero means the -rapid.seed flag when one is set, else 1.
	Seed uint64
	// Boot is the frozen instant every device is given as its boot time
	// (default midnight UTC 2000-01-01, the instant testing/synctest starts
	// its clock at).
	Boot time.Time
	// Second, when set, is the same policy from a second process (an exec
	// policy started again), for reproducibility across processes.
	Second kit.Factory
	// RequireReproducible makes reproducibility a failure rather than a
	// warning.
	RequireReproducible bool
	// Timeout is the run-wide deadline (default 30s). A policy call that
	// takes longer than CallTimeout is reported as a hang, naming the device
	// and attempt, and the run goes on with the next device.
	Timeout time.Duration
	// CallTimeout is the longest a single call to the factory or to Next may
	// take before it counts as a hang (default 2s).
	CallTimeout time.Duration
	// Thresholds are the limits of the checks; each zero field takes its
	// value from DefaultThresholds.
	Thresholds Thresholds
}

// Defaults of the Config fields left zero.
const (
	DefaultDevices     = 1000
	DefaultAttempts    = 3
	DefaultCapAttempts = 32
	DefaultSeed        = 1
	DefaultTimeout     = 30 * time.Second
	DefaultCallTimeout = 2 * time.Second
)

// DefaultBoot is the boot instant given to every device by default:
// midnight UTC 2000-01-01, where testing/synctest's fake clock starts.
var DefaultBoot = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// withDefaults returns c with its zero fields set.
func (c Config) withDefaults() Config {
	if c.Devices <= 0 {
		c.Devices = DefaultDevices
	}
	if len(c.IDs) > 0 {
		c.Devices = len(c.IDs)
	}
	if c.Attempts <= 0 {
		c.Attempts = DefaultAttempts
	}
	if c.CapAttempts <= 0 {
		c.CapAttempts = DefaultCapAttempts
	}
	c.CapAttempts = max(c.CapAttempts, c.Attempts)
	if c.Boot.IsZero() {
		c.Boot = DefaultBoot
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	if c.CallTimeout <= 0 {
		c.CallTimeout = DefaultCallTimeout
	}
	c.Thresholds = c.Thresholds.withDefaults()
	return c
}

// Thresholds are the limits the checks compare their figures against. Each
// default is derived from the distributions involved, as its comment says,
// so that a policy that must pass fails fewer than 1 run in 10,000 with
// random seeds, while every bug class the checks exist for fails by a wide
// margin.
type Thresholds struct {
	// MinCV is the smallest coefficient of variation across devices that
	// spread, frozen clock and cap phase accept at any attempt (default
	// 0.05).
	//
	// Uniform jitter of ±f has CV f/√3: ±10%, the least jitter in common
	// use, gives 0.0577, gRPC's ±20% gives 0.115, equal jitter 0.19, full
	// jitter 0.577; ±1% gives 0.0058. The default sits below ±10% and an
	// order of magnitude above ±1%. The sampling error of a CV c over n
	// devices is about c·√((1+2c²)/(2n)): 0.0013 for ±10% at n = 1000, so
	// 0.05 lies 6.0 standard errors below it (a false failure below 10⁻⁸),
	// and the margin only grows for stronger jitter.
	MinCV float64
	// ClusterAlpha is the probability, under independent devices, of the
	// number of devices sharing an identical sequence that clusters still
	// accepts (default 1e-7).
	//
	// Chance gives an expected number of identical pairs E = C(n,2)·Π q_j,
	// where q_j is the probability that two devices draw the same j-th
	// delay, estimated from the observed delays at attempt j. Identical
	// pairs are then close to Poisson(E). The check fails when the observed
	// pairs reach the smallest count k with P(Poisson(ClusterSlack·E) ≥ k)
	// < ClusterAlpha. The alpha is spent once per run on the population and
	// at most 100 times by rapid's id populations, 10⁻⁵ in all, a tenth of
	// the false-failure budget.
	ClusterAlpha float64
	// ClusterSlack multiplies the chance expectation E before the Poisson
	// test (default 10). The product Π q_j assumes a device's delays are
	// independent of each other; decorrelated jitter makes them positively
	// dependent, which raises the chance of identical sequences. Over the
	// first three delays of decorrelated jitter rounded to whole
	// milliseconds the rise is 2.2× (1.9·10⁻⁸ against 8.9·10⁻⁹, computed
	// exactly in the package's tests); the slack covers four times that.
	ClusterSlack float64
	// MaxLockstep is the largest share of the fleet that clusters accepts
	// sharing one whole sequence of delays, whatever chance expects
	// (default 0.01).
	//
	// Chance is estimated from the observed delays, so a fleet whose every
	// device draws the same value at every attempt (no jitter, a constant
	// seed) makes chance itself expect lockstep. This bound judges that
	// case: for the policies that must pass, the chance of two identical
	// whole sequences is below 10⁻⁴⁰ even rounded to milliseconds, so a
	// group of 1% of the fleet (10 of 1000 devices) does not arise by
	// chance; only devices retrying in lockstep form it.
	MaxLockstep float64
	// ArrivalRatio is the largest ratio clusters accepts between the most
	// devices whose k-th retry lands in one window and the most that
	// independent devices with the same delays per attempt put in one window
	// (default 4).
	//
	// The independent fleet is the observed one with each attempt's delays
	// shuffled across devices. The window holds on average about one device
	// (its width is the 5–95% range of arrival times over the population
	// size), so the busiest window of n independent devices holds a
	// Poisson maximum: 5 to 8 devices for n = 1000. Where the density peaks
	// a window holds a few devices on average, and 4× the busiest (20 or
	// more) then has P(Poisson(3) ≥ 20) ≈ 8·10⁻¹¹ per window, below 10⁻⁷
	// over 1000 windows. Over 2100 runs of the policies that must pass, the
	// largest ratio measured was 1.69.
	ArrivalRatio float64
	// KSAlpha is the p-value below which conformance rejects the claimed
	// strategy at one attempt (default 1e-6). With Attempts tests per run,
	// the false-failure rate stays below 3·10⁻⁶. At n = 1000 it still
	// rejects any distribution whose CDF is 0.085 away from the claim.
	// Delays stored in whole units (milliseconds, microseconds) are spread
	// back over their unit before the test, so that rounding alone does
	// not move the statistic.
	KSAlpha float64
	// MinDevices is the fewest devices a figure is computed from (default
	// 100); attempts that fewer devices reach are not examined.
	MinDevices int
}

// DefaultThresholds returns the default thresholds, derived as documented on
// each field.
func DefaultThresholds() Thresholds {
	return Thresholds{
		MinCV:        0.05,
		ClusterAlpha: 1e-7,
		ClusterSlack: 10,
		MaxLockstep:  0.01,
		ArrivalRatio: 4,
		KSAlpha:      1e-6,
		MinDevices:   100,
	}
}

// withDefaults returns t with its zero fields taken from DefaultThresholds.
func (t Thresholds) withDefaults() Thresholds {
	d := DefaultThresholds()
	if t.MinCV == 0 {
		t.MinCV = d.MinCV
	}
	if t.ClusterAlpha == 0 {
		t.ClusterAlpha = d.ClusterAlpha
	}
	if t.ClusterSlack == 0 {
		t.ClusterSlack = d.ClusterSlack
	}
	if t.MaxLockstep == 0 {
		t.MaxLockstep = d.MaxLockstep
	}
	if t.ArrivalRatio == 0 {
		t.ArrivalRatio = d.ArrivalRatio
	}
	if t.KSAlpha == 0 {
		t.KSAlpha = d.KSAlpha
	}
	if t.MinDevices == 0 {
		t.MinDevices = d.MinDevices
	}
	return t
}
