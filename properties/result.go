package properties

import (
	"fmt"
	"strings"
	"time"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
)

// A Result is the outcome of one check.
type Result struct {
	// Name is the check's short name, such as "spread".
	Name string
	// Why says in one sentence why the property matters to a fleet.
	Why string
	// Status is the outcome: Pass, Fail, Warn (a finding that fails only
	// when the user asks, such as RequireReproducible), Inconclusive when
	// the check could not gather the evidence it needs, or Skipped when it
	// does not apply to the policy's source. The detail says why.
	Status verdict.Status
	// Detail states what was measured, got before want, for example
	// `delays("dev-000017")[2] = 10s for 1000 of 1000 devices, CV 0; want spread (CV ≥ 0.05)`.
	Detail string
	// Figure is the measured figure and Threshold the limit it is held to,
	// for the checks that have one (both zero otherwise). Unit says what
	// the figure counts ("CV", "p", "identical pairs", "of the fleet"), empty
	// when there is no figure, and Want how it is held to the threshold:
	// "≥", "≤" or "<".
	Figure, Threshold float64
	Unit, Want        string
	// Counterexample is the smallest set of devices that shows a failure or
	// a warning, or nil.
	Counterexample *Counterexample
	// Cause is the root cause of a finding (a failure or a warning), and
	// Remedy what to change for it, in one sentence; both are empty for a
	// check that passed, was inconclusive or was skipped.
	Cause  Cause
	Remedy string
}

// UnitCV is the unit of the spread figures: the coefficient of variation of
// one delay across the devices, its standard deviation over its mean; 0 when
// every device waits the same, 0.577 for full jitter.
const UnitCV = "CV"

// A Counterexample is the smallest set of devices that shows a finding.
type Counterexample struct {
	// Attempt is the 1-based attempt the finding is about, 0 for the whole
	// sequence.
	Attempt int
	// Devices are the devices that show it, sorted by id.
	Devices []DeviceDelays
	// Others counts the devices beyond Devices that share the finding,
	// such as the rest of a fleet in lockstep: with Attempt 0 or
	// SameSequence, their whole sequence of delays; with Window, a delay
	// at Attempt within one window of that width; otherwise the delay at
	// Attempt that Devices wait.
	Others int
	// SameSequence says that the Others wait the whole sequence of delays
	// of Devices, not only the delay at Attempt.
	SameSequence bool
	// Window, when set, is the width of the window that the delays at
	// Attempt of Devices and of the Others lie in.
	Window time.Duration
	// Seed is the seed of the run that found it: Config.Seed, which draws
	// the population and rapid's id populations.
	Seed uint64
	// Replay says how to run the same check again, in Go's terms:
	// "Config.Seed = 7", and for id populations "-rapid.seed=7" as well.
	Replay string
}

// DeviceDelays are the delays one device drew, and what went wrong with it.
type DeviceDelays struct {
	ID     string
	Delays []time.Duration
	// Err describes the device's fault: a panic, a hang, a delay that is
	// not a duration. It is empty for a sound device.
	Err string
}

// An Outcome is the result of a whole run.
type Outcome struct {
	// Results holds one Result per check, in the order of the suite.
	Results []Result
	// EarlyDelays[a][d] is the delay before retry a+1 of device d, for the
	// first Attempts attempts, for charts. A device that stopped or failed
	// earlier has no entry at that attempt.
	EarlyDelays [][]time.Duration
	// Err reports failures of the policy's source, such as an external
	// program that stopped answering, with the device and attempt; the
	// checks then ran on the devices that answered. It is nil when the
	// source answered every call.
	Err error
	// Hung reports that a call of the policy for a device of the
	// population, to the factory or to Next, did not return within
	// Config.CallTimeout and was left behind (bounds names the device and
	// the attempt): a replay of the policy would wait on such a call for
	// ever.
	Hung bool
	// Shared reports that the factory returned one policy to two devices
	// of the population (bounds names both): a replay of it would replay
	// one instance, not a fleet.
	Shared bool
}

// Status returns the outcome of the run: Fail if any check failed, else
// Inconclusive if any check was (or every check was skipped), else Warn if
// any warned, else Pass. Skipped checks do not count.
func (o Outcome) Status() verdict.Status {
	statuses := make([]verdict.Status, len(o.Results))
	for i, r := range o.Results {
		statuses[i] = r.Status
	}
	return verdict.Combine(statuses...)
}

// String writes the counterexample as the lines a failing test prints: one
// line per device, cut at ten, and the replay.
func (c *Counterexample) String() string {
	var b strings.Builder
	for i, d := range c.Devices {
		if i == maxShown {
			fmt.Fprintf(&b, "\t... and %d more devices\n", len(c.Devices)-maxShown)
			break
		}
		fmt.Fprintf(&b, "\t%q: %s", d.ID, formatDelays(d.Delays))
		if d.Err != "" {
			fmt.Fprintf(&b, " (%s)", d.Err)
		}
		b.WriteByte('\n')
	}
	if c.Others > 0 {
		fmt.Fprintf(&b, "\t... and %d more devices %s\n", c.Others, c.shared())
	}
	if c.Replay != "" {
		fmt.Fprintf(&b, "\treplay: %s\n", c.Replay)
	}
	return b.String()
}

// shared says what the Others share with Devices.
func (c *Counterexample) shared() string {
	a := c.Attempt
	switch {
	case a <= 0 || c.SameSequence:
		return "with the same delays"
	case c.Window > 0:
		return fmt.Sprintf("with delay %d in the same %s window", a, human(c.Window))
	case len(c.Devices) > 0 && a <= len(c.Devices[0].Delays):
		return fmt.Sprintf("with the same delay %d (%s)", a, human(c.Devices[0].Delays[a-1]))
	}
	return fmt.Sprintf("with the same delay %d", a)
}

// maxShown is how many devices or values a message lists before it says how
// many more there are.
const maxShown = 10

// formatDelays writes delays as [1s 2.5s 4s], cut at ten.
func formatDelays(ds []time.Duration) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, d := range ds {
		if i == maxShown {
			fmt.Fprintf(&b, " ... %d more", len(ds)-maxShown)
			break
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(human(d))
	}
	b.WriteByte(']')
	return b.String()
}

// human writes d as a reader reads a delay: four significant digits at
// most, 1m29.83s rather than 1m29.825678645s.
func human(d time.Duration) string { return kit.FormatApprox(d) }
