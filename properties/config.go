package properties

import (
	"fmt"
	"math"
	"time"

	"github.com/jitterkit/jitterkit/internal/prose"
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
	// Processes, when set, makes devices in fresh processes of the
	// policy's program, one process per device, as a fleet runs it (an
	// exec policy's gate sets it): the first 32 devices of the population
	// are each made in a process of their own and the
	// others by the factory, and frozen clock makes its devices in
	// processes whose clocks stand still. See [Processes]. It applies to
	// Source kit.SourceExec alone.
	Processes Processes
	// Source is where the policy comes from, which says which checks
	// apply (see [kit.Source]); the zero value is a Go factory, to which
	// every check applies.
	Source kit.Source
	// RequireReproducible makes reproducibility a failure rather than a
	// warning.
	RequireReproducible bool
	// ProcessSeeded declares that the policy draws from a generator its
	// runtime seeds from the operating system in each process, as Python's
	// random, JavaScript's Math.random and Go's math/rand since Go 1.20 do,
	// and as a library that draws from one leaves its user no way to seed
	// per device. Reproducibility's finding then names that generator and
	// gives no remedy. Without the declaration the checks recognise it
	// when a second process is asked (see [ProcessGenerator]).
	ProcessSeeded bool
	// Timeout is a deadline for the whole run; zero (the default) sets
	// none, so that the whole population is examined however long it
	// takes. A run that reaches its deadline judges only what it examined:
	// a check that found a failure on the devices read still fails, and
	// every other check is Inconclusive, never a pass.
	Timeout time.Duration
	// CallTimeout is how long a single call to the factory or to Next may
	// go without returning before it counts as a hang, the policy's defect,
	// reported with the device and the attempt (default 30s). A call
	// normally returns within microseconds, so the default is millions of
	// times that: a loaded machine stalls a goroutine for milliseconds, not
	// for half a minute. A negative CallTimeout sets no limit, for sources
	// that time their calls themselves, as an external program does.
	CallTimeout time.Duration
	// MemoryLimit is the most memory, in bytes, the run may need by the
	// estimate of [Config.Memory]; a run that would need more is refused
	// (default DefaultMemoryLimit, 4 GiB).
	MemoryLimit int64
	// Thresholds are the limits of the checks; each zero field takes its
	// value from DefaultThresholds.
	Thresholds Thresholds
}

// Defaults of the Config fields left zero.
const (
	DefaultDevices     = 1000
	DefaultAttempts    = 3
	defaultCapAttempts = 32
	defaultSeed        = 1
	DefaultCallTimeout = 30 * time.Second
	DefaultMemoryLimit = 4 << 30
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
		c.CapAttempts = defaultCapAttempts
	}
	c.CapAttempts = max(c.CapAttempts, c.Attempts)
	if c.Boot.IsZero() {
		c.Boot = DefaultBoot
	}
	if c.CallTimeout == 0 {
		c.CallTimeout = DefaultCallTimeout
	}
	if c.MemoryLimit == 0 {
		c.MemoryLimit = DefaultMemoryLimit
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
	// ConcentrationWidth is the width of the window spread, cap phase and
	// clusters count devices in, as a fraction of the delay (or of the
	// retry's arrival time) at its start (default 0.01): devices in one
	// window retry within 1% of one another's delay.
	//
	// The reference is a fleet of independent devices whose delay is
	// spread as little as spread accepts: uniform with CV = MinCV, so over
	// a relative width of 2√3·MinCV = 0.173. Such a device lands in a
	// window of relative width ρ with probability at most
	// p₀ = ρ/(2√3·MinCV), 0.0577 at the defaults. Every policy that must
	// pass puts less in any window: full jitter at most ρ, equal jitter
	// 2ρ, ±10% jitter 1.1ρ/0.2 = 5.5ρ, decorrelated jitter below its
	// clamp at most ρ/2 (its densest part is just above the base), and
	// delays rounded to whole milliseconds no more once the window spans
	// a millisecond.
	ConcentrationWidth float64
	// ConcentrationWindow is the widest window, however long the delay
	// (default 1s, the fleet replay's window): devices in it retry in one
	// window of the replay.
	ConcentrationWindow time.Duration
	// ConcentrationAlpha is the probability, under the reference of
	// ConcentrationWidth, that one attempt's busiest window holds as many
	// devices as the check fails at (default 1e-7).
	//
	// The window that starts at one of the n devices holds that device
	// and Binomial(n−1, p₀) others. The check fails when a window holds
	// the smallest count k with n·P(1 + Binomial(n−1, p₀) ≥ k) <
	// ConcentrationAlpha: the union bound over the n windows, so that
	// chance fills some window that full with probability below alpha.
	// At n = 1000 and p₀ = 0.0577, k = 112 (11.2% of the fleet), where
	// the policies that must pass put at most 5.5%, 55 devices, in a
	// window on average. Spread tests Attempts attempts, cap phase up to
	// CapAttempts and clusters Attempts arrival times: 38 tests a run at
	// the defaults, under 4·10⁻⁶ in all.
	ConcentrationAlpha float64
	// ClampShare is the largest share of the fleet that spread and cap
	// phase accept waiting exactly the largest delay of an attempt, as a
	// policy that clamps its delays there makes them (default 2/3).
	//
	// A clamp puts at the cap every draw beyond it. Decorrelated jitter
	// draws from [base, 3·previous] and clamps at the cap, so a device at
	// the cap stays there with probability 2/(3 − base/cap), 2/3 as the
	// base shrinks; over many attempts its share at the cap settles at
	// 0.31 for base/cap = 0.01 and 0.51 for base/cap = 1/8, and stays
	// below 2/3 up to base/cap = 0.3. A jitter drawn from a window that
	// keeps doubling past the cap before the clamp puts nearly every
	// device there (all but 2.4% at delay 12 of min·2ⁿ with max = 100·min).
	// The check fails when the devices at the largest delay reach the
	// smallest count k with P(Binomial(n, ClampShare) ≥ k) <
	// ConcentrationAlpha: 744 of 1000 devices.
	ClampShare float64
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
	// MinReproducible is the smallest share of the devices made again
	// that reproducibility accepts giving the same delays as the first
	// time (default 0.95).
	//
	// A policy seeded per device gives the same delays every time: every
	// device reproduces, at every seed. One that draws from a generator
	// the kit cannot seed (the library's own, the clock) reproduces a
	// device only when its draws repeat by chance: none of the Go retry
	// libraries that draw so reproduced more than 2% of its devices. Of n devices made
	// again, each differing independently with probability q, more than
	// (1−MinReproducible)·n differ with P = P(Bin(n, q) > n/20), and the
	// verdicts at two seeds differ with probability 2P(1−P). At the
	// check's 100 devices, one device (1%) does not decide it: q = 1%
	// warns with P = 5.4·10⁻⁴, q = 2% with P = 0.016; q = 20% fails to warn
	// with 1−P = 1.9·10⁻⁵, and q = 98% never in practice. With a second
	// process, 200 devices: q = 1% warns with P = 6.9·10⁻⁶. The verdict
	// flips with a chance above 10⁻³ only for a policy whose devices
	// differ between 1% and 17% of the time. Measured at seeds 1 to 200
	// (TestScoreboardFlips in testdata/libs), backoff v4's math/rand
	// defaults, retry-go v4's full jitter from math/rand and
	// go-retryablehttp's clock-seeded LinearJitterBackoff reproduced none
	// of their devices, and warned, at every seed.
	MinReproducible float64
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

		ConcentrationWidth:  0.01,
		ConcentrationWindow: time.Second,
		ConcentrationAlpha:  1e-7,
		ClampShare:          2.0 / 3,
		MinReproducible:     0.95,
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
	if t.ConcentrationWidth == 0 {
		t.ConcentrationWidth = d.ConcentrationWidth
	}
	if t.ConcentrationWindow == 0 {
		t.ConcentrationWindow = d.ConcentrationWindow
	}
	if t.ConcentrationAlpha == 0 {
		t.ConcentrationAlpha = d.ConcentrationAlpha
	}
	if t.ClampShare == 0 {
		t.ClampShare = d.ClampShare
	}
	if t.MinReproducible == 0 {
		t.MinReproducible = d.MinReproducible
	}
	return t
}

// maxAttempts is the most delays a run reads from one device: a Config
// beyond it is refused.
const maxAttempts = 1 << 16

// Validate reports the first field of c, after defaults, that is out of
// range, and refuses a run that would need more memory than its
// MemoryLimit, saying how much it would need and what to change. Its
// error is a *[kit.ConfigError].
func (c Config) Validate() error {
	d := c.withDefaults()
	t := d.Thresholds
	switch {
	case c.Devices < 0:
		return invalid("devices %d is negative", c.Devices)
	case c.Attempts < 0 || c.Attempts > maxAttempts:
		return invalid("attempts %d is not between 1 and %d", c.Attempts, maxAttempts)
	case c.CapAttempts < 0 || c.CapAttempts > maxAttempts:
		return invalid("cap attempts %d is not between 1 and %d", c.CapAttempts, maxAttempts)
	case c.Cap < 0:
		return invalid("cap %v is negative", c.Cap)
	case c.Timeout < 0:
		return invalid("timeout %v is negative", c.Timeout)
	case c.MemoryLimit < 0:
		return invalid("memory limit %d is negative", c.MemoryLimit)
	case !c.Source.Known():
		return invalid("unknown source %q", c.Source)
	case !(t.MinCV > 0) || math.IsInf(t.MinCV, 0):
		return invalid("MinCV %v is not a positive number", t.MinCV)
	case !(t.ClusterAlpha > 0 && t.ClusterAlpha < 1):
		return invalid("ClusterAlpha %v is not between 0 and 1", t.ClusterAlpha)
	case !(t.ClusterSlack >= 1) || math.IsInf(t.ClusterSlack, 0):
		return invalid("ClusterSlack %v is not a number of at least 1", t.ClusterSlack)
	case !(t.MaxLockstep > 0 && t.MaxLockstep <= 1):
		return invalid("MaxLockstep %v is not in (0, 1]", t.MaxLockstep)
	case !(t.ArrivalRatio > 1) || math.IsInf(t.ArrivalRatio, 0):
		return invalid("ArrivalRatio %v is not a number above 1", t.ArrivalRatio)
	case !(t.KSAlpha > 0 && t.KSAlpha < 1):
		return invalid("KSAlpha %v is not between 0 and 1", t.KSAlpha)
	case t.MinDevices < 2:
		return invalid("MinDevices %d is below 2", t.MinDevices)
	case !(t.ConcentrationWidth > 0 && t.ConcentrationWidth < 1):
		return invalid("ConcentrationWidth %v is not between 0 and 1", t.ConcentrationWidth)
	case t.ConcentrationWindow < 0:
		return invalid("ConcentrationWindow %v is negative", t.ConcentrationWindow)
	case !(t.ConcentrationAlpha > 0 && t.ConcentrationAlpha < 1):
		return invalid("ConcentrationAlpha %v is not between 0 and 1", t.ConcentrationAlpha)
	case !(t.ClampShare > 0 && t.ClampShare < 1):
		return invalid("ClampShare %v is not between 0 and 1", t.ClampShare)
	case !(t.MinReproducible > 0 && t.MinReproducible <= 1):
		return invalid("MinReproducible %v is not in (0, 1]", t.MinReproducible)
	}
	if d.Claim != nil {
		if err := d.Claim.Validate(); err != nil {
			return invalid("claimed spec: %w", err)
		}
	}
	for i, id := range d.IDs {
		if id == "" {
			return invalid("IDs[%d] is empty", i)
		}
	}
	if need := d.Memory(); need > d.MemoryLimit {
		return &kit.ConfigError{Package: "properties", Memory: true, Err: fmt.Errorf("checking %d devices over %d attempts would need about %s, above the memory limit of %s: check fewer devices or fewer attempts, or raise the limit",
			d.Devices, d.CapAttempts, prose.FormatBytes(need), prose.FormatBytes(d.MemoryLimit))}
	}
	return nil
}

// invalid returns a *kit.ConfigError saying what is wrong.
func invalid(format string, args ...any) error {
	return &kit.ConfigError{Package: "properties", Err: fmt.Errorf(format, args...)}
}

// Bytes the memory estimate counts per device. The run keeps every
// device's delays (8 bytes each), its first delays again for charts, its
// record (56 bytes, in two lists while the checks run) and its id, and the
// checks build lists of a few words per device while they run: the
// concentration of spread, cap-phase and clusters sorts a copy of one
// attempt's delays or arrivals at a time. The garbage collector lets the
// heap grow to about twice what is kept before it collects (GOGC=100), so
// each kept byte counts twice. At 100,000 devices of full jitter the peak
// heap measured 1,260 to 1,535 bytes a device, as the collector's timing
// varies, against an estimate of 1,760 (TestMemoryEstimateCoversThePeak).
const (
	bytesPerDelay  = 2 * 8
	bytesPerDevice = 2 * 600
)

// Memory estimates the peak bytes a run of c needs, after defaults. The
// policies themselves are made one at a time and dropped once read; what
// they keep of their own is not counted.
func (c Config) Memory() int64 {
	c = c.withDefaults()
	perDevice := int64(bytesPerDelay*(c.CapAttempts+c.Attempts) + bytesPerDevice)
	n := int64(c.Devices)
	if n != 0 && perDevice > math.MaxInt64/n {
		return math.MaxInt64
	}
	return n * perDevice
}
