package sim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/jitterkit/jitterkit/kit/verdict"
)

// Schema names the version of the replay's JSON shape.
const Schema = "jitterkit.replay/v1"

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
}

// MinRunsToPass is the fewest runs whose peak ratios can pass a replay: the
// interval of fewer is no interval.
const MinRunsToPass = 3

// Status judges the median peak ratio against the scenario's threshold:
// Fail when it is over the threshold; Inconclusive when no retry arrived
// within the horizon in any run, so that there is no load of retries to
// judge, or when fewer than MinRunsToPass runs were replayed; Warn when the ratio is within the threshold but its interval
// reaches over it, when devices were still retrying at the horizon, so
// that the figures may understate the load, or when devices of an outage
// gave up before they were served (in the median run or at the interval's
// high end); Pass otherwise. Beside the peak ratio, it judges two loads
// the peak ratio does not show: periodic timers whose offsets are the
// policy's (OffsetPolicy) and crowd the server over the threshold fail
// ([OffsetsCrowd]), and a storm that a wide window averages away warns
// ([AveragedAway]).
func (r Result) Status() verdict.Status {
	p := r.Summary[PeakRatio]
	outage := r.Scenario.Kind == Outage || r.Scenario.Kind == LongOutage
	switch {
	case p.Median > r.Scenario.Threshold || r.policyTimersCrowd():
		return verdict.Fail
	case len(r.Runs) > 0 && r.Summary[PeakRetryArrivals].High == 0:
		return verdict.Inconclusive
	case len(r.Runs) < MinRunsToPass:
		// One fleet's peak is no interval: a storm in it is evidence
		// enough to fail, its absence too little to pass.
		return verdict.Inconclusive
	case p.High > r.Scenario.Threshold || r.Summary[Pending].Median > 0:
		return verdict.Warn
	case outage && r.Summary[GaveUp].High > 0:
		return verdict.Warn
	case AveragedAway(r.Scenario, r.Summary) != "":
		return verdict.Warn
	}
	return verdict.Pass
}

// Passed reports whether the replay did not fail: its status is Pass or
// Warn.
func (r Result) Passed() bool { return r.Status() != verdict.Fail }

// Detail says what was judged and what the fleet did, got before want:
//
//	peak ratio 39.62 [38.10, 40.70] > threshold 0.6: up to 1,981 retries in one 1s window against a budget of 50 (median of 20 runs, 95% CI); busiest window 1,981 arrivals; all served after 14.8s; 3,103 attempts; 400 of 400 served
func (r Result) Detail() string {
	s, sum := r.Scenario, r.Summary
	p := sum[PeakRatio]
	op := "≤"
	if p.Median > s.Threshold {
		op = ">"
	}
	retries := "retries"
	if s.Kind.periodic() {
		retries = "re-sends of rejected firings"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "peak ratio %.2f [%.2f, %.2f] %s threshold %v: up to %s %s in one %v window against a budget of %s (median of %d runs, %g%% CI)",
		p.Median, p.Low, p.High, op, s.Threshold, count(sum[PeakRetryArrivals].Median), retries, s.Window,
		count(s.windowBudget()), len(r.Runs), 100*r.Config.Level)
	if s.Kind.periodic() {
		b.WriteString("; " + timerLoad(s, sum))
	}
	if hidden := AveragedAway(s, sum); hidden != "" {
		b.WriteString("; " + hidden)
	}
	fmt.Fprintf(&b, "; busiest window %s arrivals", count(sum[BusiestWindowArrivals].Median))
	switch served := sum[Served].Median; {
	case s.Kind == Storm || served == 0:
	case s.Kind == Outage || s.Kind == LongOutage:
		if served < float64(s.Clients) {
			fmt.Fprintf(&b, "; last served after %.1fs", sum[AllServed].Median)
		} else {
			fmt.Fprintf(&b, "; all served after %.1fs", sum[AllServed].Median)
		}
	default:
		fmt.Fprintf(&b, "; last firing served after %.1fs", sum[AllServed].Median)
	}
	fmt.Fprintf(&b, "; %s attempts", count(sum[Attempts].Median))
	if s.Kind == Storm {
		return b.String()
	}
	switch g := sum[GaveUp].Median; {
	case s.Kind.periodic():
		fmt.Fprintf(&b, "; %s firings served", count(sum[Served].Median))
		if m := sum[FiringsMissed].Median; m > 0 {
			fmt.Fprintf(&b, ", %s missed", count(m))
		}
		if g > 0 {
			fmt.Fprintf(&b, "; %s of %s devices missed a firing", count(g), count(float64(s.Clients)))
		}
	default:
		fmt.Fprintf(&b, "; %s of %s served", count(sum[Served].Median), count(float64(s.Clients)))
		if g > 0 {
			fmt.Fprintf(&b, "; %s gave up", count(g))
		}
	}
	if n := sum[Pending].Median; n > 0 {
		fmt.Fprintf(&b, "; %s still retrying at the %v horizon", count(n), s.Horizon)
	}
	return b.String()
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
// "scenario", "policy", "config", "status", "detail", "runs" and "summary".
func (r Result) MarshalJSON() ([]byte, error) {
	runs := r.Runs
	if runs == nil {
		runs = []Run{}
	}
	return marshal(resultJSON{
		Schema:   Schema,
		Scenario: r.Scenario,
		Policy:   r.Policy,
		Config:   r.Config,
		Status:   r.Status(),
		Detail:   r.Detail(),
		Runs:     runs,
		Summary:  r.Summary,
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
}

// MarshalJSON writes the replications' configuration after its defaults:
// "runs", "seed", "level" and "resamples".
func (c Config) MarshalJSON() ([]byte, error) {
	d := c.WithDefaults()
	return marshal(configJSON{Runs: d.Runs, Seed: d.Seed, Level: d.Level, Resamples: d.Resamples})
}

type configJSON struct {
	Runs      int     `json:"runs"`
	Seed      uint64  `json:"seed"`
	Level     float64 `json:"level"`
	Resamples int     `json:"resamples"`
}

// MarshalJSON writes the run's figures, with times in seconds. A run
// whose histograms were not kept (Config.RepresentativeOnly) has no
// "arrivals" and "retry_arrivals". The figures that only some scenarios
// have (the timers' of the periodic kinds, the 1s peaks of a wide window)
// are written when they are not zero: a missing one reads as zero.
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
}

func nonNil(h []int) []int {
	if h == nil {
		return []int{}
	}
	return h
}
