package reports

import (
	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/properties"
	"github.com/jitterkit/jitterkit/sim"
)

// schema names the version of the report's JSON shape. A change that a
// reader of report.json would notice gets a new version. In v2 the replay
// carries its scenario, configuration, runs and summary in the shapes of
// sim's own JSON (the shape of jitterkit replay --json), and comparisons
// are a list.
const schema = "jitterkit.report/v2"

// A Report is everything one run of the kit found about one policy: the
// property checks, the fleet replay, comparisons with other policies, and
// what to change. It is plain data: the caller fills it in, usually through
// the gate, and the Write functions render it. The same Report always
// renders to the same bytes.
//
// The delays of the counterexamples are durations, which the JSON holds in
// seconds; the early delays are in seconds. Every number must be finite: a
// delay that is NaN or infinite belongs in a device's Err, as text.
type Report struct {
	// Schema is the version of this shape; the Write functions set it to
	// this version's, "jitterkit.report/v2", when it is empty.
	Schema string `json:"schema"`
	// Verdict is the gate's verdict (see [verdict.Gate]): Pass, Fail, or
	// Inconclusive when a check or the replay could not gather the evidence
	// it needs.
	Verdict verdict.Status `json:"verdict"`
	// Policy says which policy was checked and where it came from.
	Policy Policy `json:"policy"`
	// KitVersion is the version of jitterkit that wrote the report.
	KitVersion string `json:"kit_version"`
	// Seed is the seed the checks and the replay derived theirs from; the
	// same seed gives the same report.
	Seed uint64 `json:"seed"`
	// Checks are the results of the property checks, in the order they
	// ran.
	Checks []properties.Result `json:"checks"`
	// Replay is the fleet replay, or nil when none ran.
	Replay *Replay `json:"replay,omitempty"`
	// Comparisons set the policy, or several, beside others on one
	// scenario: one table per figure.
	Comparisons []Comparison `json:"comparisons,omitempty"`
	// EarlyDelays are the first delays of every checked device, one entry
	// per attempt, for the chart of their spread.
	EarlyDelays []AttemptDelays `json:"early_delays,omitempty"`
	// Fixes are changes to the policy that were replayed on the same
	// scenario and passed, the first the one to make: see [Fix].
	Fixes []Fix `json:"fixes,omitempty"`
	// FixesNotSearched says that the policy failed and no change was
	// searched for (the gate ran without its Fix step), so that the lack
	// of Fixes says nothing about whether one passes.
	FixesNotSearched bool `json:"fixes_not_searched,omitempty"`
	// FixesSkipped are the changes the search for a fix did not replay
	// because the scenario refuses them, each with why.
	FixesSkipped []SkippedFix `json:"fixes_skipped,omitempty"`
	// Advice is what to change, one sentence each, usually from [Advise].
	Advice []string `json:"advice,omitempty"`
}

// A Fix is a change to the policy that was tried on the same scenario, with
// the same replications, and passed the replay, and the property checks
// when the change could fail them.
type Fix struct {
	// Change says what to change, in words: "raise the base from 10s to
	// 60s and the cap from 2m to 5m".
	Change string `json:"change"`
	// Spec is the changed policy when it is a built-in strategy, such as
	// "full:base=1m,cap=5m"; empty when Scale applies.
	Spec string `json:"spec,omitempty"`
	// Scale multiplies every delay of the policy itself, when the change
	// keeps the policy and slows it down; 0 otherwise.
	Scale float64 `json:"scale,omitempty"`
	// PeakRatio and AllServed are the changed policy's replay: the median
	// and interval of its peak ratio and of the time until every device is
	// served, in seconds.
	PeakRatio sim.Estimate `json:"peak_ratio"`
	AllServed sim.Estimate `json:"all_served_s"`
	// Checked says that the property checks ran on the changed policy and
	// passed; a scaled policy keeps the checks' verdicts, which do not
	// depend on scale.
	Checked bool `json:"checked"`
	// Server, in a server model's replay, is the change of the server or of
	// the devices' reaction to it rather than of the policy, as the flags
	// that make it, such as "--queue-limit 100"; Spec and Scale are then
	// empty.
	Server string `json:"server,omitempty"`
	// Recovery and Recovered are the changed replay's time to recover
	// after the trigger, in seconds, and the runs that recovered, of Runs.
	Recovery  *sim.Estimate `json:"recovery_s,omitempty"`
	Recovered int           `json:"recovered_runs,omitempty"`
	// Runs is the number of runs of the changed replay, in a server model's
	// replay, or when it is of the default runs and stopped early (see
	// sim.Stop); 0 when it made the gate's Config.Runs.
	Runs int `json:"runs,omitempty"`
	// Amplification is the changed replay's retry amplification, in a
	// server model's replay.
	Amplification *sim.Estimate `json:"amplification,omitempty"`
	// Side says, of a Server change, whose it is: a budget the fleet
	// shares, the devices' reset rule, or the server's.
	Side string `json:"side,omitempty"`
	// Scenario is the changed scenario of a Server change, to gate again
	// with; the JSON does not hold it (Server says it in flags).
	Scenario *sim.Scenario `json:"-"`
}

// A SkippedFix is a change the search for a fix did not replay: the
// scenario, so changed, is refused.
type SkippedFix struct {
	// Change says what the change would have been, in words.
	Change string `json:"change"`
	// Server is the change as flags, in a server model's replay.
	Server string `json:"server,omitempty"`
	// Reason is why the scenario refuses it.
	Reason string `json:"reason"`
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
	// Source says where the policy came from: "spec", "exec", "trace" or
	// "go".
	Source kit.Source `json:"source"`
}

// A Replay holds the fleet replay: its scenario, every run's figures, their
// summary, and which run's histograms the charts draw. Its scenario,
// configuration and runs are sim's own types, written as jitterkit replay
// --json writes them.
type Replay struct {
	// Status is sim's verdict of the replay (see sim.Result.Status): Fail
	// when the median peak ratio is over the scenario's threshold, or, on
	// a recovery kind, when a judged run never recovered; and Fail when
	// a policy's defect stopped the replay (see Stopped).
	Status verdict.Status `json:"status"`
	// Detail says what was judged, got before want.
	Detail string `json:"detail"`
	// Scenario is the replayed scenario, with its defaults.
	Scenario sim.Scenario `json:"scenario"`
	// Config is the replications' configuration, with its defaults.
	Config sim.Config `json:"config"`
	// Stop says, of a replay of the default runs, how many it made and why
	// no more (see sim.Result.Stop); Config.Runs is then the most. It is
	// nil when the replay made Config.Runs runs.
	Stop *sim.Stop `json:"stop,omitempty"`
	// Runs are the replications, in the order of their number. Only the
	// representative run holds its histograms.
	Runs []sim.Run `json:"runs"`
	// Representative is the number of the run the chart draws: its arrival
	// histogram, or a server model's time series.
	Representative int `json:"representative"`
	// Summary is the median of each figure over the runs, with its
	// interval at Config.Level.
	Summary map[sim.Figure]sim.Estimate `json:"summary"`
	// Stopped is the device whose policy's defect (a panic, a bad delay, a
	// call that never returned) stopped the replay, or nil; a stopped
	// replay has no runs and no summary.
	Stopped *properties.Counterexample `json:"stopped,omitempty"`
	// Sample, when set, says the replay was of a sample of the fleet.
	Sample *Sample `json:"sample,omitempty"`
	// Baselines are the scenario replayed with the kit's own policies for
	// comparison (see sim.Result.Baselines), in the server models only.
	Baselines []sim.Baseline `json:"baselines,omitempty"`
	// TippingPoint is an overload's tipping point, when it was searched.
	TippingPoint *sim.TippingPoint `json:"tipping_point,omitempty"`
	// Collapses says, in the recovery kinds, how many runs never
	// recovered and what that bounds of the chance of collapse (see
	// sim.Result.Collapses); nil in the other kinds.
	Collapses *sim.Collapses `json:"collapses,omitempty"`
	// Reproduce, when a run collapsed, says how to replay the first run
	// that did alone, from its seed, in the words of the gate's caller.
	Reproduce string `json:"reproduce,omitempty"`
}

// A Sample is a replay of 1/Of of a fleet against 1/Of of its accept rate,
// whose peak ratio is not Error under the whole fleet's (see
// gate.Config.Sample).
type Sample struct {
	// Of is the fraction's denominator: 100 for a hundredth.
	Of int `json:"of"`
	// Clients and AcceptRate are the whole fleet's.
	Clients    int     `json:"clients"`
	AcceptRate float64 `json:"accept_rate"`
	// Error is the relative margin a sample's pass keeps under the
	// threshold before it warns.
	Error float64 `json:"error"`
}

// MarkSample records that the replay was of 1/of of the fleet of whole,
// with the relative error allowed, and turns a pass whose peak ratio lies
// within that error of the threshold into a warning: the whole fleet may
// be over it.
func (p *Replay) MarkSample(whole sim.Scenario, of int, relErr float64) {
	p.Sample = &Sample{Of: of, Clients: whole.Clients, AcceptRate: whole.AcceptRate, Error: relErr}
	if p.Status == verdict.Pass && p.Sample.Near(p.Summary[sim.PeakRatio].Median, p.Scenario.WithDefaults().Threshold) {
		p.Status = verdict.Warn
	}
}

// Near reports whether a sample's peak ratio lies within the sample's
// Error of the threshold, or over it: the whole fleet's may be over.
func (x Sample) Near(ratio, threshold float64) bool { return ratio*(1+x.Error) > threshold }

// A Comparison is a table of one figure of the replay: a row per fleet
// size, a column per policy, and in each cell the figure's median and
// interval.
type Comparison struct {
	// Figure is the compared figure.
	Figure sim.Figure `json:"figure"`
	// Scenario is the scenario every cell ran; its Clients is replaced by
	// each row's.
	Scenario sim.Scenario `json:"scenario"`
	// Config is the replications of every cell.
	Config sim.Config `json:"config"`
	// Policies are the columns' headings, usually policy specs.
	Policies []string `json:"policies"`
	// Note says, in sentences, how the policies beside the first were
	// chosen, such as the scale the built-in strategies were given, and
	// what the scenario does to all of them; empty when there is nothing
	// to say.
	Note string `json:"note,omitempty"`
	// Rows are the fleet sizes, smallest first.
	Rows []ComparisonRow `json:"rows"`
}

// A ComparisonRow is one fleet size of a Comparison, or one retry budget
// at a fleet size.
type ComparisonRow struct {
	// Clients is the fleet size of the row.
	Clients int `json:"clients"`
	// Budget is the spec of the retry budget (see sim.ParseBudget) the
	// row's replays give the clients in place of the scenario's, and
	// BudgetScope who holds it, as the scenario's JSON writes them; both
	// are empty in a row of the scenario itself.
	Budget      string          `json:"budget,omitempty"`
	BudgetScope sim.BudgetScope `json:"budget_scope,omitempty"`
	// Cells holds one estimate per policy, in the order of Policies.
	Cells []sim.Estimate `json:"cells"`
	// Runs holds, in the order of Policies, the runs each cell made, when
	// its replay was of the default runs and so stopped once its verdict
	// was decided (see sim.Stop); it is empty when every cell made the
	// comparison's Config.Runs.
	Runs []int `json:"runs,omitempty"`
	// NoneServed marks, in the order of Policies, the cells of an outage
	// in which no run served a device: a time of serving there has no
	// value. It is empty when every cell served some.
	NoneServed []bool `json:"none_served,omitempty"`
}

// noValue reports whether cell i of the row has no value for figure f: a
// time of serving where none was served.
func (r ComparisonRow) noValue(f sim.Figure, i int) bool {
	return i < len(r.NoneServed) && r.NoneServed[i] && servingTime(f)
}

// AttemptDelays are the delays that every checked device drew before one
// retry.
type AttemptDelays struct {
	// Attempt counts retries from 1.
	Attempt int `json:"attempt"`
	// DelaysS holds one delay per device, in seconds.
	DelaysS []float64 `json:"delays_s"`
}
