package sim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/jitterkit/jitterkit/kit/verdict"
)

// replaySchema names the version of the replay's JSON shape.
const replaySchema = "jitterkit.replay/v1"

// A Result holds every run of a replay and the summary of their figures.
type Result struct {
	// Scenario is the replayed scenario, with its defaults filled in.
	Scenario Scenario
	// Config is the replications' configuration, with its defaults.
	Config Config
	// Runs are the runs, in the order of their number.
	Runs []Run
	// Representative is the number of the representative run, whose
	// histograms a report draws: the run whose peak of retry arrivals is
	// the median run's (the lower median of an even number of runs), the
	// lowest-numbered of the runs with that peak. Its histograms are kept
	// whatever Config.RepresentativeOnly says.
	Representative int
	// Summary maps each figure (see [Figures]) to its median over the runs
	// and the confidence interval at Config.Level.
	Summary map[Figure]Estimate
	// Policy names the replayed policy in the JSON, such as a spec; Replay
	// leaves it empty.
	Policy string
	// Baselines are the same scenario replayed by the kit with other
	// policies, with the same runs, for comparison: an Overload's without
	// retries, and a Contention's with no backoff and the simulator's own
	// strategies. The other kinds have none.
	Baselines []Baseline
	// TippingPoint is an Overload's tipping point, when Config.TippingPoint
	// asked for it.
	TippingPoint *TippingPoint
	// Stop says, of a fleet replay of the default runs (Config.Runs left
	// zero), how many runs it made and why no more (see [StopMargin]);
	// Config.Runs is then the most it would have made. It is nil when the
	// runs were set, or the scenario is a server model's: the replay made
	// Config.Runs runs.
	Stop *Stop
}

// A Baseline is a scenario replayed with a policy of the kit's, beside the
// policy under test.
type Baseline struct {
	// Name says what the policy is, such as "no retries" or "full jitter".
	Name string `json:"name"`
	// Recovered counts the runs that recovered, in the recovery kinds,
	// and Unrecovered lists the numbers of those that did not, in order:
	// the baseline's run i has the seed of the policy's run i.
	Recovered   int   `json:"recovered_runs"`
	Unrecovered []int `json:"unrecovered_runs,omitempty"`
	// Summary is the median of each figure over the runs, with its
	// interval.
	Summary map[Figure]Estimate `json:"summary"`
}

// A TippingPoint is the shortest dip, in whole seconds, that an Overload's
// fleet fails to recover from (some run does not recover), beside
// the same fleet's without retries, searched by bisection between 1s and
// Longest with every other field of the scenario kept. A zero Dip, or
// BaselineDip, means that none up to Longest failed: it is longer.
type TippingPoint struct {
	Dip, BaselineDip, Longest time.Duration
}

// MinRunsToPass is the fewest runs whose peak ratios can pass a replay: the
// interval of fewer is no interval.
const MinRunsToPass = 3

// Status judges the median peak ratio against the scenario's threshold:
// Fail when it is over the threshold; Inconclusive when no retry arrived
// within the horizon in the median run, so that there is no load of
// retries to judge, or when fewer than MinRunsToPass runs were replayed;
// Warn when the replay has a warning (see [Result.Warnings]); Pass
// otherwise. Each rule but the count of runs is a statistic over the
// runs, so that no device of one run decides the verdict: the chance of
// another verdict at another seed is documented on [Warning], whose
// binomial rule the median of retries follows too, with p the chance that
// a run has none. Beside the peak ratio, it fails periodic timers whose
// offsets are the policy's (OffsetPolicy) and crowd the server over the
// threshold, and timers of any offsets that alone exceed the server
// ([OffsetsCrowd]); a storm that a wide window averages away in the median
// run fails, unless Config.AllowWideWindow makes it a warning
// ([WideWindow]). With Config.FailWarnings, a replay that would warn fails.
func (r Result) Status() verdict.Status {
	if r.Scenario.Kind.ServerModel() {
		return r.modelStatus()
	}
	switch {
	case r.Summary[PeakRatio].Median > r.Scenario.Threshold || r.timersCrowd() || r.wideWindowFails():
		return verdict.Fail
	case len(r.Runs) > 0 && r.Summary[PeakRetryArrivals].Median == 0:
		return verdict.Inconclusive
	case len(r.Runs) < MinRunsToPass:
		// One fleet's peak is no interval: a storm in it is evidence
		// enough to fail, its absence too little to pass.
		return verdict.Inconclusive
	case len(r.Warnings()) > 0:
		return r.warned()
	}
	return verdict.Pass
}

// warned returns the status of a replay that has a warning: Warn, or Fail
// with Config.FailWarnings.
func (r Result) warned() verdict.Status {
	if r.Config.FailWarnings {
		return verdict.Fail
	}
	return verdict.Warn
}

// wideWindowFails reports whether a window wider than a second averages
// away a storm that 1s windows show in the median run: its peak ratio at
// 1s is over the threshold, as a replay in 1s windows would fail, unless
// Config.AllowWideWindow.
func (r Result) wideWindowFails() bool {
	fine, ok := r.Summary[PeakRatio1s]
	return ok && !r.Config.AllowWideWindow && AveragedAway(r.Scenario, r.Summary) != "" && fine.Median > r.Scenario.Threshold
}

// A Warning is a finding of a replay short of a failure: a replay whose
// median peak ratio is within the threshold, and that has one, warns.
//
// Each is judged on a statistic over the runs, whose chance of another
// verdict at another seed follows from how often one run is over its
// limit. Let p be the probability that one run is (for a policy that
// draws from a generator the kit cannot seed, such as the library's own or
// the clock, p is the policy's, whatever the seed). Of R runs, R odd, the
// median run is over the limit with probability P = P(Bin(R, p) > R/2);
// for R even, the median is the mean of the middle two, and P lies
// between P(Bin(R, p) > R/2) and P(Bin(R, p) ≥ R/2). The verdicts at two
// seeds then differ with probability 2P(1−P). A rule on the median of R ≥
// 3 runs moves only when about half the runs move: no one run decides it.
type Warning int

// The warnings, in the order [Result.Warnings] lists them.
const (
	// IntervalOver: the peak ratio's confidence interval reaches over
	// the threshold, so that the median may be over it. The interval's
	// high end is a statistic of the runs' peak ratios, near their order
	// statistic of rank u, the upper end of the distribution-free interval
	// of a median at Config.Level: with 5 runs, the highest; with the
	// default 20, the 15th. The replay then warns when about R−u+1 runs
	// are over the threshold, with P ≈ P(Bin(R, p) ≥ R−u+1): with 5 runs,
	// a policy whose runs are over it one time in 100 warns with P ≈ 0.049
	// and flips between two seeds with probability 0.093; with 20 runs,
	// P(Bin(20, 0.01) ≥ 6) ≈ 3·10⁻⁸. One device moves a run's peak ratio by
	// one retry over the window's budget, so it decides the rule only in a
	// run within that of the threshold.
	IntervalOver Warning = iota + 1
	// StillPending: more than Thresholds.MaxPending of the fleet was
	// still retrying at the horizon in the median run, so that the figures
	// may understate the load.
	StillPending
	// GaveUpUnserved: more than Thresholds.MaxGaveUp of an outage's
	// fleet gave up before it was served in the median run.
	GaveUpUnserved
	// WideWindow: the window is wider than a second and averages a storm
	// away: the same runs' peak of retries in whole seconds is over the
	// threshold, in the median run or at its interval's high end (see
	// [AveragedAway]), the statistics IntervalOver and the failure judge.
	// In the median run it fails the replay, unless
	// Config.AllowWideWindow.
	WideWindow
	// SlowRecovery: a recovery kind's fleet takes much longer to recover
	// than the same scenario without retries, the baseline the replay runs
	// itself: its median time to recover is at least twice the
	// baseline's, and 10s (two recovery windows) longer. The retries, not
	// the trigger, keep the service down.
	SlowRecovery
	// RecoveryUncertain: the median run recovered, but the interval of the
	// time to recover reaches the horizon: enough runs did not recover
	// that another seed may not.
	RecoveryUncertain
	// MoreWork: a Contention's policy makes more writes than no backoff
	// at all, in the median run.
	MoreWork
	// BudgetNeverBinds: an Overload's budget, held by each device, lets
	// more retries through than the server can serve, whatever the
	// storm: each device's reserve or minimum, times the fleet, is at
	// least the server's capacity (see [Scenario.BudgetWarning]).
	BudgetNeverBinds
	// BudgetNoHeadroom: the offered load plus the retries the budget
	// allows reaches the server's capacity, which leaves it nothing to
	// drain its queue with after the trigger.
	BudgetNoHeadroom
)

func (w Warning) String() string {
	switch w {
	case IntervalOver:
		return "interval over the threshold"
	case StillPending:
		return "still retrying at the horizon"
	case GaveUpUnserved:
		return "gave up unserved"
	case WideWindow:
		return "a wide window averages the storm away"
	case SlowRecovery:
		return "recovery much slower than without retries"
	case RecoveryUncertain:
		return "some runs did not recover"
	case MoreWork:
		return "more work than no backoff"
	case BudgetNeverBinds:
		return "the budget cannot hold the retries below capacity"
	case BudgetNoHeadroom:
		return "the budget leaves no headroom"
	}
	return fmt.Sprintf("Warning(%d)", int(w))
}

// Warnings returns the replay's warnings, in the order of their constants,
// whatever its status: a replay that fails may have some too. Each compares
// a median over the runs with a limit: the scenario's threshold, or a
// share of its fleet (Config.Thresholds, with their defaults).
func (r Result) Warnings() []Warning {
	if r.Scenario.Kind.ServerModel() {
		return r.modelWarnings()
	}
	var out []Warning
	th := r.Config.Thresholds.WithDefaults()
	clients := float64(r.Scenario.WithDefaults().Clients)
	if r.Summary[PeakRatio].High > r.Scenario.Threshold {
		out = append(out, IntervalOver)
	}
	if r.Summary[Pending].Median > th.MaxPending*clients {
		out = append(out, StillPending)
	}
	if r.Scenario.Kind.model().judgesGaveUp() && r.Summary[GaveUp].Median > th.MaxGaveUp*clients {
		out = append(out, GaveUpUnserved)
	}
	if AveragedAway(r.Scenario, r.Summary) != "" {
		out = append(out, WideWindow)
	}
	return out
}

// Thresholds are the limits of a replay's warnings that are shares of its
// fleet (see [Warning]); the peak ratio's is the scenario's Threshold. Each
// zero field takes its default.
type Thresholds struct {
	// MaxGaveUp is the largest share of an outage's fleet that may give
	// up before it is served, in the median run, without a warning
	// (default 0.01).
	//
	// One device is 1/N of a fleet of N. At 1% of the fleet, a policy must
	// lose more than 4 devices of the default 400, or 5 of 500, in more
	// than half the runs: no device of one run, nor one device in every
	// run of a fleet of 100 or more, reaches it. When each device gives up
	// independently with probability q, a run is over the limit with p =
	// P(Bin(N, q) > N·MaxGaveUp), and P follows as [Warning] says. At the
	// default 20 runs of 400 devices, q = 0.25% (one device a run on
	// average) gives p = 0.0036 and P below 10⁻¹⁵; q = 0.5% gives P below
	// 2·10⁻⁸; q = 2% (8 devices a run) gives 1−P below 10⁻⁶. At 5 runs of
	// 500 devices, q = 0.2% gives P = 2·10⁻⁹, q = 0.5% gives P = 7·10⁻⁴,
	// and q = 2.5% gives 1−P = 3·10⁻⁵. Only a policy near the limit, q
	// between about 0.7% and 2%, may warn at one seed and not at another.
	// Measured on 5 runs of 500 devices (TestScoreboardFlips in
	// testdata/libs, seeds 1 to 200), go-retryablehttp's
	// LinearJitterBackoff, which seeds a generator from the clock on every
	// call and whose fleet loses a device or two in some runs, gave the
	// same verdict at every seed in each of three measurements; warning
	// on any device that gave up, it warned at 13, 18 and 14 of the 200
	// seeds.
	MaxGaveUp float64
	// MaxPending is the largest share of the fleet that may still be
	// retrying at the horizon, in the median run, without a warning
	// (default 0.01). Its devices would arrive after the
	// horizon, at most MaxPending·N more arrivals; the rule is the same
	// statistic as MaxGaveUp's, with the same chances.
	MaxPending float64
}

// Defaults of the Thresholds fields left zero.
const (
	defaultMaxGaveUp  = 0.01
	defaultMaxPending = 0.01
)

// WithDefaults returns t with every zero field set to its default.
func (t Thresholds) WithDefaults() Thresholds {
	if t.MaxGaveUp == 0 {
		t.MaxGaveUp = defaultMaxGaveUp
	}
	if t.MaxPending == 0 {
		t.MaxPending = defaultMaxPending
	}
	return t
}

// validate reports the first field of t, after defaults, that is not a
// share of a fleet.
func (t Thresholds) validate() error {
	switch {
	case !(t.MaxGaveUp > 0 && t.MaxGaveUp <= 1):
		return invalid("gave-up share %v is not in (0, 1]", t.MaxGaveUp)
	case !(t.MaxPending > 0 && t.MaxPending <= 1):
		return invalid("pending share %v is not in (0, 1]", t.MaxPending)
	}
	return nil
}

// Passed reports whether the replay did not fail: its status is Pass or
// Warn.
func (r Result) Passed() bool { return r.Status() != verdict.Fail }

// Detail says what was judged and what the fleet did, got before want:
//
//	peak ratio 39.62 [38.10, 40.70] > threshold 0.6: up to 1,981 retries in one 1s window against a budget of 50 (median of 20 runs, 95% CI); busiest window 1,981 arrivals; all served after 14.8s; 3,103 attempts; 400 of 400 served
func (r Result) Detail() string {
	d := r.detail()
	if r.Config.FailWarnings {
		lax := r
		lax.Config.FailWarnings = false
		if lax.Status() == verdict.Warn {
			names := make([]string, 0, 2)
			for _, w := range r.Warnings() {
				names = append(names, w.String())
			}
			d += fmt.Sprintf("; warned (%s), which fails, since every warning does (FailWarnings)", strings.Join(names, ", "))
		}
	}
	return d
}

// detail says what the replay judged and found, as Detail, but for the
// warnings that FailWarnings fails.
func (r Result) detail() string {
	if r.Scenario.Kind.ServerModel() {
		return r.modelDetail()
	}
	s, sum := r.Scenario, r.Summary
	p := sum[PeakRatio]
	op := "≤"
	if p.Median > s.Threshold {
		op = ">"
	}
	retries := "retries"
	if s.Kind.Periodic() {
		retries = "re-sends of rejected firings"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "peak ratio %.2f [%.2f, %.2f] %s threshold %v: up to %s %s in one %v window against a budget of %s (median of %s, %g%% CI)",
		p.Median, p.Low, p.High, op, s.Threshold, count(sum[PeakRetryArrivals].Median), retries, s.Window,
		count(s.windowBudget()), r.runsJudged(), 100*r.Config.Level)
	if s.Kind.Periodic() {
		b.WriteString("; " + timerLoad(s, sum))
	}
	if hidden := AveragedAway(s, sum); hidden != "" {
		b.WriteString("; " + hidden)
	}
	fmt.Fprintf(&b, "; busiest window %s arrivals", count(sum[BusiestWindowArrivals].Median))
	s.Kind.model().outcome(r, &b)
	return b.String()
}

// runsJudged says how many runs the medians are of: "20 runs", or "6 of
// at most 20 runs" for a replay of the default runs that stopped early.
func (r Result) runsJudged() string {
	if st := r.Stop; st != nil && st.Runs < st.MaxRuns {
		return fmt.Sprintf("%d of at most %d runs", len(r.Runs), st.MaxRuns)
	}
	return fmt.Sprintf("%d runs", len(r.Runs))
}

// count writes x with thousands separators, and with one decimal when it
// is not whole (a median of an even number of runs).
func count(x float64) string {
	if !(math.Abs(x) < 1e15) {
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	tenths := int64(math.Round(math.Abs(x) * 10))
	s := strconv.FormatInt(tenths/10, 10)
	var b strings.Builder
	if x < 0 && tenths != 0 {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if d := tenths % 10; d != 0 {
		fmt.Fprintf(&b, ".%d", d)
	}
	return b.String()
}

// MarshalJSON writes the result in the replay's JSON shape: "schema",
// "scenario", "policy", "config", "status", "detail", "runs" and "summary",
// then, for a replay of the default runs, "stop" (see [Stop]; its config's
// "runs" is then the most), in the server models, "baselines" and, when it
// was searched, an Overload's "tipping_point" (see
// [TippingPoint.MarshalJSON]). The recovery kinds also write
// "recovered_runs", the runs that recovered, "never_recovered", true
// when the median run did not (its "recovery_s" is then the time to the
// horizon, a lower bound), and "collapses", the runs that never recovered
// and the bounds on the chance of collapse (see [Collapses]).
func (r Result) MarshalJSON() ([]byte, error) {
	runs := r.Runs
	if runs == nil {
		runs = []Run{}
	}
	var recovered *int
	var never *bool
	if r.Scenario.Kind.Recovers() {
		n, no := r.Recovered(), r.NeverRecovered()
		recovered, never = &n, &no
	}
	return marshal(resultJSON{
		RecoveredRuns:  recovered,
		NeverRecovered: never,
		Collapses:      r.Collapses(),
		Schema:         replaySchema,
		Scenario:       r.Scenario,
		Policy:         r.Policy,
		Config:         r.Config,
		Status:         r.Status(),
		Detail:         r.Detail(),
		Runs:           runs,
		Summary:        r.Summary,
		Stop:           r.Stop,
		Baselines:      r.Baselines,
		TippingPoint:   r.TippingPoint,
	})
}

// WriteJSON writes r's JSON, indented, naming policy as the replayed
// policy.
func (r Result) WriteJSON(w io.Writer, policy string) error {
	r.Policy = policy
	b, err := marshal(r)
	if err != nil {
		return err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		return err
	}
	out.WriteByte('\n')
	_, err = out.WriteTo(w)
	return err
}

// marshal is json.Marshal without the escaping of <, > and &, which the
// replay's text never needs hidden from HTML.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

type resultJSON struct {
	Schema   string              `json:"schema"`
	Scenario Scenario            `json:"scenario"`
	Policy   string              `json:"policy"`
	Config   Config              `json:"config"`
	Status   verdict.Status      `json:"status"`
	Detail   string              `json:"detail"`
	Runs     []Run               `json:"runs"`
	Summary  map[Figure]Estimate `json:"summary"`
	Stop     *Stop               `json:"stop,omitzero"`

	RecoveredRuns  *int          `json:"recovered_runs,omitempty"`
	NeverRecovered *bool         `json:"never_recovered,omitempty"`
	Collapses      *Collapses    `json:"collapses,omitempty"`
	Baselines      []Baseline    `json:"baselines,omitzero"`
	TippingPoint   *TippingPoint `json:"tipping_point,omitzero"`
}

// MarshalJSON writes the replications' configuration after its defaults:
// "runs", "seed", "level", "resamples" and "thresholds", whose
// "max_gave_up" and "max_pending" are shares of the fleet, and, when set,
// "tipping_point": true when the replay searched for it, "collapse_bound",
// "fail_warnings" and "allow_wide_window".
func (c Config) MarshalJSON() ([]byte, error) {
	d := c.WithDefaults()
	return marshal(configJSON{Runs: d.Runs, Seed: d.Seed, Level: d.Level, Resamples: d.Resamples,
		Thresholds:   thresholdsJSON{MaxGaveUp: d.Thresholds.MaxGaveUp, MaxPending: d.Thresholds.MaxPending},
		TippingPoint: d.TippingPoint, CollapseBound: d.CollapseBound, FailWarnings: d.FailWarnings, AllowWideWindow: d.AllowWideWindow})
}

type configJSON struct {
	Runs       int            `json:"runs"`
	Seed       uint64         `json:"seed"`
	Level      float64        `json:"level"`
	Resamples  int            `json:"resamples"`
	Thresholds thresholdsJSON `json:"thresholds"`

	TippingPoint    bool    `json:"tipping_point,omitzero"`
	CollapseBound   float64 `json:"collapse_bound,omitzero"`
	FailWarnings    bool    `json:"fail_warnings,omitzero"`
	AllowWideWindow bool    `json:"allow_wide_window,omitzero"`
}

type thresholdsJSON struct {
	MaxGaveUp  float64 `json:"max_gave_up"`
	MaxPending float64 `json:"max_pending"`
}

// MarshalJSON writes the run's figures, with times in seconds. A run
// whose histograms were not kept (Config.RepresentativeOnly) has no
// "arrivals" and "retry_arrivals". The figures that only some scenarios
// have (the timers' of the periodic kinds, the 1s peaks of a wide window)
// are written when they are not zero: a missing one reads as zero. So are
// the server models' figures: a run that did not recover, or whose broker
// never warmed, has no "recovered" or "warm", and only the representative
// run of an Overload or a Reconnect has its "series".
func (r Run) MarshalJSON() ([]byte, error) {
	arrivals, retries := r.Arrivals, r.RetryArrivals
	if (arrivals == nil) != (retries == nil) {
		// A Run made by hand with one histogram: write the other empty.
		arrivals, retries = nonNil(arrivals), nonNil(retries)
	}
	return marshal(runJSON{
		Seed:                  r.Seed,
		AllServedS:            r.AllServed.Seconds(),
		BusiestWindowArrivals: r.BusiestWindowArrivals,
		PeakRetryArrivals:     r.PeakRetryArrivals,
		PeakRatio:             r.PeakRatio,
		Attempts:              r.Attempts,
		Served:                r.Served,
		GaveUp:                r.GaveUp,
		AttemptLimited:        r.AttemptLimited,
		Pending:               r.Pending,
		PeakFirings:           r.PeakFirings,
		TimerLoadRatio:        r.TimerLoadRatio,
		FiringsMissed:         r.FiringsMissed,
		PeakRetryArrivals1s:   r.PeakRetryArrivals1s,
		PeakRatio1s:           r.PeakRatio1s,
		P50ServedS:            r.P50.Seconds(),
		P99ServedS:            r.P99.Seconds(),
		Arrivals:              arrivals,
		RetryArrivals:         retries,

		Recovered:                r.Recovered,
		RecoveredAfterS:          r.RecoveredAfter.Seconds(),
		Amplification:            r.Amplification,
		AmplificationFromTrigger: r.AmplificationFromTrigger,
		Goodput:                  r.Goodput,
		Timeouts:                 r.Timeouts,
		Rejections:               r.Rejections,
		JobsAtEnd:                r.JobsAtEnd,
		Accepted:                 r.Accepted,
		Dropped:                  r.Dropped,
		Refused:                  r.Refused,
		BudgetRefused:            r.BudgetRefused,
		BudgetThrottled:          r.BudgetThrottled,
		WarmAtS:                  r.WarmAt.Seconds(),
		Warm:                     r.Warm,
		Reads:                    r.Reads,
		Series:                   r.Series,
	})
}

type runJSON struct {
	Seed                  uint64  `json:"seed"`
	AllServedS            float64 `json:"all_served_s"`
	BusiestWindowArrivals int     `json:"busiest_window_arrivals"`
	PeakRetryArrivals     int     `json:"peak_retry_arrivals"`
	PeakRatio             float64 `json:"peak_ratio"`
	Attempts              int     `json:"attempts"`
	Served                int     `json:"served"`
	GaveUp                int     `json:"gave_up"`
	AttemptLimited        int     `json:"attempt_limited"`
	Pending               int     `json:"pending"`
	PeakFirings           int     `json:"peak_firings,omitzero"`
	TimerLoadRatio        float64 `json:"timer_load_ratio,omitzero"`
	FiringsMissed         int     `json:"firings_missed,omitzero"`
	PeakRetryArrivals1s   int     `json:"peak_retry_arrivals_1s,omitzero"`
	PeakRatio1s           float64 `json:"peak_ratio_1s,omitzero"`
	P50ServedS            float64 `json:"p50_served_s"`
	P99ServedS            float64 `json:"p99_served_s"`
	Arrivals              []int   `json:"arrivals,omitzero"`
	RetryArrivals         []int   `json:"retry_arrivals,omitzero"`

	// The server models' figures, named as their figures in the summary
	// where they have one (Goodput, SessionsAccepted, ...).
	Recovered                bool    `json:"recovered,omitzero"`
	RecoveredAfterS          float64 `json:"recovered_after_s,omitzero"`
	Amplification            float64 `json:"amplification,omitzero"`
	AmplificationFromTrigger float64 `json:"amplification_from_trigger,omitzero"`
	Goodput                  float64 `json:"goodput_after_trigger,omitzero"`
	Timeouts                 int     `json:"timeouts,omitzero"`
	Rejections               int     `json:"rejections,omitzero"`
	JobsAtEnd                int     `json:"jobs_at_end,omitzero"`
	Accepted                 int     `json:"sessions_accepted,omitzero"`
	Dropped                  int     `json:"sessions_dropped,omitzero"`
	Refused                  int     `json:"connects_refused,omitzero"`
	BudgetRefused            int     `json:"budget_refused,omitzero"`
	BudgetThrottled          int     `json:"budget_throttled,omitzero"`
	WarmAtS                  float64 `json:"warm_at_s,omitzero"`
	Warm                     bool    `json:"warm,omitzero"`
	Reads                    int     `json:"reads,omitzero"`
	Series                   *Series `json:"series,omitzero"`
}

func nonNil(h []int) []int {
	if h == nil {
		return []int{}
	}
	return h
}
