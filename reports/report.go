package reports

import "github.com/jitterkit/jitterkit/kit/verdict"

// Schema names the version of the report's JSON shape. A change that a
// reader of report.json would notice gets a new version.
const Schema = "jitterkit.report/v1"

// A Report is everything one run of the kit found about one policy: the
// property checks, the fleet replay, a comparison with other policies, and
// what to change. It is plain data: the caller fills it in, and the Write
// functions render it. The same Report always renders to the same bytes.
//
// Times and delays are in seconds. Every number must be finite: a delay that
// is NaN or infinite belongs in a device's Err, as text.
type Report struct {
	// Schema is the version of this shape; the Write functions set it to
	// [Schema] when it is empty.
	Schema string `json:"schema"`
	// Verdict is the gate's verdict (see [verdict.Gate]): Pass, Fail, or
	// Inconclusive when a check or the replay could not gather the evidence
	// it needs.
	Verdict verdict.Status `json:"verdict"`
	// Policy says which policy was checked and where it came from.
	Policy Policy `json:"policy"`
	// Scenario is the replay's scenario, and the threshold it is held to.
	Scenario Scenario `json:"scenario"`
	// KitVersion is the version of jitterkit that wrote the report.
	KitVersion string `json:"kit_version"`
	// Seed is the seed the checks and the replay derived theirs from; the
	// same seed gives the same report.
	Seed uint64 `json:"seed"`
	// Checks are the property checks, in the order they ran.
	Checks []Check `json:"checks"`
	// Replay is the fleet replay, or nil when none ran.
	Replay *Replay `json:"replay,omitempty"`
	// Comparison sets the policy beside others on the same scenario, or is
	// nil.
	Comparison *Comparison `json:"comparison,omitempty"`
	// EarlyDelays are the first delays of every checked device, one entry
	// per attempt, for the chart of their spread.
	EarlyDelays []AttemptDelays `json:"early_delays,omitempty"`
	// Advice is what to change, one sentence each, usually from [Advise].
	Advice []string `json:"advice,omitempty"`
}

// A Policy identifies the checked policy. Only Source and one of Spec or
// Command are usually set; Name is what the report calls it.
type Policy struct {
	// Name is a short name for the policy in titles and tables.
	Name string `json:"name"`
	// Spec is the policy spec, such as "full:base=100ms,cap=10s".
	Spec string `json:"spec,omitempty"`
	// Command is the program of an exec policy.
	Command string `json:"command,omitempty"`
	// Source says where the policy came from: "spec", "exec", "trace",
	// "config" or "go".
	Source string `json:"source"`
}

// A Scenario is the replay's setting, in the words of the CLI's flags.
type Scenario struct {
	// Name is the scenario: "outage", "storm" or "periodic".
	Name string `json:"name"`
	// Clients is the number of devices in the fleet.
	Clients int `json:"clients"`
	// AcceptRate is the number of requests the server accepts per second;
	// 0 means no limit.
	AcceptRate float64 `json:"accept_rate"`
	// DownS is how long the server is down at the start, in seconds.
	DownS float64 `json:"down_s"`
	// WindowS is the width of the histogram's windows, in seconds.
	WindowS float64 `json:"window_s"`
	// StartSpreadS is the spread of the devices' first attempts, in seconds.
	StartSpreadS float64 `json:"start_spread_s"`
	// HorizonS is when the replay stops, in seconds; 0 means none.
	HorizonS float64 `json:"horizon_s,omitempty"`
	// RetryAfterS is the server's fixed Retry-After hint, in seconds; 0
	// means none.
	RetryAfterS float64 `json:"retry_after_s,omitempty"`
	// Runs is the number of replications.
	Runs int `json:"runs"`
	// Threshold is the highest peak ratio that passes (0.6 by default:
	// under 60% of the accept budget is comfortable).
	Threshold float64 `json:"threshold"`
}

// A Check is the result of one property check.
type Check struct {
	// Name is the check's short name, such as "spread" or "cap phase".
	Name string `json:"name"`
	// Why says in one sentence why the property matters to a fleet.
	Why string `json:"why"`
	// Status is the outcome: pass, fail, warn (a finding that fails only
	// when asked), inconclusive (not enough evidence, never a pass) or
	// skipped (the check does not apply to the source).
	Status verdict.Status `json:"status"`
	// Detail says what was measured, got before want, for a reader who
	// does not open the source.
	Detail string `json:"detail"`
	// Figure is the number the check measured and Threshold the bound it
	// is held to, in the check's own terms: a coefficient of variation, a
	// share of the fleet, a p-value, a count of bad delays.
	Figure    float64 `json:"figure"`
	Threshold float64 `json:"threshold"`
	// Counterexample is the smallest evidence of a failure, or nil.
	Counterexample *Counterexample `json:"counterexample,omitempty"`
}

// A Counterexample is the smallest set of devices that shows a check's
// failure, and how to replay it.
type Counterexample struct {
	// Attempt is the retry, counting from 1, at which the property broke;
	// 0 when the failure is not about one attempt.
	Attempt int `json:"attempt"`
	// Devices are the devices involved, with the delays they drew.
	Devices []DeviceDelays `json:"devices"`
	// Replay is the command, or the -rapid.seed, that reproduces the failure.
	Replay string `json:"replay,omitempty"`
}

// DeviceDelays are the delays one device drew, and the error that ended
// them, if any.
type DeviceDelays struct {
	// ID is the device's id.
	ID string `json:"id"`
	// DelaysS are the delays it drew, in seconds, in order.
	DelaysS []float64 `json:"delays_s"`
	// Err is the error that ended the device's delays, as text: a panic, a
	// delay that is not a number, a program that stopped answering.
	Err string `json:"err,omitempty"`
}

// A Replay holds the figures of the fleet replay: every run, their summary,
// and the arrival histogram of one run.
type Replay struct {
	// Status is Fail when the median peak ratio is over the scenario's
	// threshold.
	Status verdict.Status `json:"status"`
	// Detail says what was judged, got before want.
	Detail string `json:"detail"`
	// Runs are the replications, in the order of their seeds.
	Runs []Run `json:"runs"`
	// Summary is the median of each figure over the runs, with an interval.
	Summary Summary `json:"summary"`
	// Histogram is the arrival histogram of one representative run.
	Histogram Histogram `json:"histogram"`
}

// A Run holds the figures of one replication of the replay.
type Run struct {
	// Seed is the run's own seed.
	Seed uint64 `json:"seed"`
	// AllServedS is when the last device was served, in seconds.
	AllServedS float64 `json:"all_served_s"`
	// BusiestWindowArrivals is the most arrivals in one window, first
	// attempts included.
	BusiestWindowArrivals int `json:"busiest_window_arrivals"`
	// PeakRetryArrivals is the most retry arrivals in one window, first
	// attempts excluded.
	PeakRetryArrivals int `json:"peak_retry_arrivals"`
	// PeakRatio is PeakRetryArrivals over the window's accept budget.
	PeakRatio float64 `json:"peak_ratio"`
	// Attempts counts every attempt, first ones included.
	Attempts int `json:"attempts"`
	// Served counts the devices served; GaveUp those whose policy stopped
	// first.
	Served int `json:"served"`
	GaveUp int `json:"gave_up"`
	// P50ServedS and P99ServedS are the median and 99th percentile of the
	// devices' time to success, in seconds.
	P50ServedS float64 `json:"p50_served_s"`
	P99ServedS float64 `json:"p99_served_s"`
}

// A Summary holds the median of each of a Run's figures over the runs, with
// its confidence interval.
type Summary struct {
	// Level is the confidence level of the intervals, such as 0.95; 0
	// when it is not known. The other fields are named as in Run.
	Level                 float64  `json:"level"`
	AllServedS            Interval `json:"all_served_s"`
	BusiestWindowArrivals Interval `json:"busiest_window_arrivals"`
	PeakRetryArrivals     Interval `json:"peak_retry_arrivals"`
	PeakRatio             Interval `json:"peak_ratio"`
	Attempts              Interval `json:"attempts"`
	Served                Interval `json:"served"`
	GaveUp                Interval `json:"gave_up"`
	P50ServedS            Interval `json:"p50_served_s"`
	P99ServedS            Interval `json:"p99_served_s"`
}

// An Interval is a median and the confidence interval around it.
type Interval struct {
	// Median is the median over the runs.
	Median float64 `json:"median"`
	// Low and High bound the median's confidence interval.
	Low  float64 `json:"low"`
	High float64 `json:"high"`
}

// A Histogram counts the arrivals of one run in consecutive windows; window
// i covers [i·WindowS, (i+1)·WindowS).
type Histogram struct {
	// Seed is the seed of the run it shows.
	Seed uint64 `json:"seed"`
	// WindowS is the width of a window, in seconds.
	WindowS float64 `json:"window_s"`
	// Arrivals counts all arrivals per window, first attempts included.
	Arrivals []int `json:"arrivals"`
	// Retries counts the retry arrivals per window.
	Retries []int `json:"retries"`
	// Budget is the number of requests the server accepts in one window
	// while it is up.
	Budget float64 `json:"budget"`
	// Threshold is the most retry arrivals per window that pass: the
	// scenario's threshold times Budget.
	Threshold float64 `json:"threshold"`
}

// A Comparison is a table of one figure of the replay: a row per fleet
// size, a column per policy, and in each cell the figure's median and
// interval.
type Comparison struct {
	// Figure names the compared figure, as in Run's JSON:
	// "peak_retry_arrivals", "all_served_s", "attempts"...
	Figure string `json:"figure"`
	// Scenario is the scenario every cell ran; its Clients is replaced by
	// each row's.
	Scenario Scenario `json:"scenario"`
	// Policies are the columns' headings, usually policy specs.
	Policies []string `json:"policies"`
	// Rows are the fleet sizes, smallest first.
	Rows []ComparisonRow `json:"rows"`
}

// A ComparisonRow is one fleet size of a Comparison.
type ComparisonRow struct {
	// Clients is the fleet size of the row.
	Clients int `json:"clients"`
	// Cells holds one interval per policy, in the order of Policies.
	Cells []Interval `json:"cells"`
}

// AttemptDelays are the delays that every checked device drew before one
// retry.
type AttemptDelays struct {
	// Attempt counts retries from 1.
	Attempt int `json:"attempt"`
	// DelaysS holds one delay per device, in seconds.
	DelaysS []float64 `json:"delays_s"`
}
