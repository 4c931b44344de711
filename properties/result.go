package properties

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
)

// A Result is the outcome of one check. Its JSON, a check of report.json,
// is keyed by the fields' names in lower case (clock_frozen for
// ClockFrozen) and leaves out Unit, Want, Counterexample, Cause, Remedy,
// Processes and ClockFrozen when they are empty.
type Result struct {
	// Name is the check's short name, one of the Name* constants such as
	// "spread".
	Name string `json:"name"`
	// Why says in one sentence why the property matters to a fleet.
	Why string `json:"why"`
	// Status is the outcome: Pass, Fail, Warn (a finding that fails only
	// when the user asks, such as RequireReproducible), Inconclusive when
	// the check could not gather the evidence it needs, or Skipped when it
	// does not apply to the policy's source. The detail says why.
	Status verdict.Status `json:"status"`
	// Detail states what was measured, got before want, for example
	// `delays("dev-000017")[2] = 10s for 1000 of 1000 devices, CV 0; want spread (CV ≥ 0.05)`.
	Detail string `json:"detail"`
	// Figure is the measured figure and Threshold the limit it is held to,
	// for the checks that have one (both zero otherwise): a coefficient of
	// variation, a share of the fleet, a p-value, a count of bad delays.
	Figure    float64 `json:"figure"`
	Threshold float64 `json:"threshold"`
	// Unit says what the figure counts ("CV", "p", "identical pairs", "of
	// the fleet"), empty when there is no figure; a unit that begins with
	// "of " is a share, which the reports show as a percentage. Want is how
	// the figure is held to the threshold: "≥", "≤" or "<".
	Unit string `json:"unit,omitempty"`
	Want string `json:"want,omitempty"`
	// Counterexample is the smallest set of devices that shows a failure or
	// a warning, or nil.
	Counterexample *Counterexample `json:"counterexample,omitempty"`
	// Cause is the root cause of a finding (a failure or a warning), and
	// Remedy what to change for it, in one sentence; both are empty for a
	// check that passed, was inconclusive or was skipped.
	Cause  Cause  `json:"cause,omitempty"`
	Remedy string `json:"remedy,omitempty"`
	// Processes counts the devices the check judged that were each made
	// in a fresh process of the policy's program, as a fleet runs it (see
	// Config.Processes); 0 when they all came from one process, or from
	// Go code. ClockFrozen says that those processes ran under a frozen
	// clock, every one at its device's boot instant (frozen clock).
	Processes   int  `json:"processes,omitempty"`
	ClockFrozen bool `json:"clock_frozen,omitempty"`
}

// UnitCV is the unit of the spread figures: the coefficient of variation of
// one delay across the devices, its standard deviation over its mean; 0 when
// every device waits the same, 0.577 for full jitter.
const UnitCV = "CV"

// A Counterexample is the smallest set of devices that shows a finding,
// and how to find it again. Its JSON leaves out SameSequence and Window,
// which only shape the message of String, and Others and Replay when
// empty.
type Counterexample struct {
	// Attempt is the 1-based attempt the finding is about, 0 for the whole
	// sequence.
	Attempt int `json:"attempt"`
	// Devices are the devices that show it, sorted by id.
	Devices []DeviceDelays `json:"devices"`
	// Others counts the devices beyond Devices that share the finding,
	// such as the rest of a fleet in lockstep: with Attempt 0 or
	// SameSequence, their whole sequence of delays; with Window, a delay
	// at Attempt within one window of that width; otherwise the delay at
	// Attempt that Devices wait.
	Others int `json:"others,omitempty"`
	// SameSequence says that the Others wait the whole sequence of delays
	// of Devices, not only the delay at Attempt.
	SameSequence bool `json:"-"`
	// Window, when set, is the width of the window that the delays at
	// Attempt of Devices and of the Others lie in.
	Window time.Duration `json:"-"`
	// Seed is the seed that finds it again. The checks set it to
	// Config.Seed, which draws the population and rapid's id populations;
	// for a fleet replay that a device's defect stopped, it is the seed of
	// that replication.
	Seed uint64 `json:"seed"`
	// Replay says how to find it again. The checks write it in Go's terms:
	// "Config.Seed = 7", and for id populations "-rapid.seed=7" as well; a
	// caller may rewrite it in the terms of where it runs, such as a
	// jitterkit command line.
	Replay string `json:"replay,omitempty"`
}

// DeviceDelays are the delays one device drew, and what went wrong with it.
// Its JSON holds the delays in seconds (see MarshalJSON).
type DeviceDelays struct {
	// ID is the device's id.
	ID string
	// Delays are the delays it drew, in order.
	Delays []time.Duration
	// Err describes the device's fault: a panic, a hang, a delay that is
	// not a duration. It is empty for a sound device.
	Err string
}

// deviceDelaysJSON is the JSON shape of DeviceDelays.
type deviceDelaysJSON struct {
	ID      string    `json:"id"`
	DelaysS []float64 `json:"delays_s"`
	Err     string    `json:"err,omitempty"`
}

// MarshalJSON writes d as {"id": ..., "delays_s": [...], "err": ...}: the
// delays in seconds, [] when there are none, and err left out when empty.
func (d DeviceDelays) MarshalJSON() ([]byte, error) {
	s := make([]float64, len(d.Delays))
	for i, x := range d.Delays {
		s[i] = x.Seconds()
	}
	return json.Marshal(deviceDelaysJSON{ID: d.ID, DelaysS: s, Err: d.Err})
}

// UnmarshalJSON reads what MarshalJSON writes, rounding each delay to the
// nearest nanosecond; no delays read as nil. A delay that a time.Duration
// cannot hold is an error.
func (d *DeviceDelays) UnmarshalJSON(b []byte) error {
	var j deviceDelaysJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	var delays []time.Duration
	for i, s := range j.DelaysS {
		x, ok := fromSeconds(s)
		if !ok {
			return fmt.Errorf("properties: device %q: delay %d of %gs is out of range of time.Duration", j.ID, i, s)
		}
		delays = append(delays, x)
	}
	*d = DeviceDelays{ID: j.ID, Delays: delays, Err: j.Err}
	return nil
}

// The longest delays, in seconds, as MarshalJSON writes them.
var (
	minSeconds = time.Duration(math.MinInt64).Seconds()
	maxSeconds = time.Duration(math.MaxInt64).Seconds()
)

// fromSeconds returns the duration of s seconds, to the nanosecond, and
// whether a time.Duration holds it. The ends of its range, which a float64
// rounds to ±2⁶³ ns, are the longest durations.
func fromSeconds(s float64) (time.Duration, bool) {
	switch {
	case !(s >= minSeconds && s <= maxSeconds):
		return 0, false
	case s == minSeconds:
		return math.MinInt64, true
	case s == maxSeconds:
		return math.MaxInt64, true
	}
	return time.Duration(math.Round(s * float64(time.Second))), true
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
	// checks then ran on the devices that answered, unless it was a
	// device made in a fresh process (Config.Processes) that failed: then
	// none ran, and Results is empty. It is nil when the source answered
	// every call.
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
