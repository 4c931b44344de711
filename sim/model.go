package sim

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/jitterkit/jitterkit/internal/prose"
	"github.com/jitterkit/jitterkit/kit"
)

// A model is one kind of scenario: the defaults of the fields its kind
// reads, the optional fields it takes and the checks of their values, the
// memory one of its runs holds, and how many arrivals a device makes.
// Each kind's model lives in the kind's own file and is listed once, in
// models; the rest of the package asks a scenario's model, not its kind.
type model interface {
	// kind is the scenario the model replays.
	kind() Kind
	// defaults returns s, of the model's kind, with the zero fields the
	// kind reads set to its defaults; WithDefaults then sets the fields
	// every kind shares (the devices, the window, the memory limit).
	defaults(s Scenario) Scenario
	// takes reports whether the kind takes the optional field named as
	// modelFields names it; a scenario that sets another is refused.
	takes(field string) bool
	// validate reports the first field of s, after defaults, whose value
	// the kind refuses.
	validate(s Scenario) error
	// parts returns the parts of the fleet s, as described before defaults
	// (d after them), that the kind's defaults fill in, beyond its devices
	// (see [Scenario.DefaultedParts]).
	parts(s, d Scenario) []FleetPart
	// memory returns what one run of s, after defaults, holds at most by
	// the memory estimate (see Scenario.budget).
	memory(s Scenario) int64
	// arrivals returns the most arrivals of one device in a run of s,
	// after defaults.
	arrivals(s Scenario) int64
	// firings returns the most timer firings of one device over the
	// horizon of s, after defaults, or 1 in a kind without timers: the
	// most times a device is served.
	firings(s Scenario) int64
	// span returns the stretch of simulated time the arrivals of a run of
	// s, after defaults, fall in.
	span(s Scenario) time.Duration
	// label returns what the kind calls figure f where its own words
	// differ from the figure's (see [Kind.Label]), or "".
	label(f Figure) string
	// describe returns the parts of the one-line description of s, after
	// defaults, that follow its fleet (see [Scenario.Describe]).
	describe(s Scenario) []string
	// findings says what keeps the service of replay r, after defaults,
	// down, or slows its recovery (see [Result.Findings]).
	findings(r Result, failed bool) []string
	// terms defines the terms a report of replay r, after defaults, uses
	// (see [Result.Terms]).
	terms(r Result) [][2]string
	// compared says how a comparison sets policies side by side on the
	// kind (see [Kind.Headlines]).
	compared() comparison
	// runHeads head the columns of the kind's table of runs, one a run
	// (see [Kind.RunHeads]).
	runHeads() []string
	// runCells returns the cells of run's row in that table, for s after
	// defaults.
	runCells(s Scenario, run Run) []string
	// outcome writes the end of a fleet kind's replay detail: what its
	// devices did beyond the peaks (see [Result.Detail]).
	outcome(r Result, b *strings.Builder)
	// judgesGaveUp reports whether devices that gave up unserved fail a
	// replay of the kind (see [GaveUpUnserved]).
	judgesGaveUp() bool
	// arrivalsOnly reports whether the kind counts arrivals alone,
	// against no server: nothing is served, no outcome is observed, and
	// its peaks are judged in its own windows only.
	arrivalsOnly() bool
	// tips reports whether the kind searches the tipping point of its
	// trigger (Config.TippingPoint).
	tips() bool
	// timers reports whether the kind's devices fire periodic timers.
	timers() bool
	// recovers reports whether the kind is judged on recovery after a
	// trigger, rather than on its peak ratio.
	recovers() bool
	// server reports whether the kind is a server model, replayed by an
	// engine of its own (newEngine) rather than by the fleet's.
	server() bool
}

// A modelEngine replays runs of one of the server models.
type modelEngine interface {
	run(run int, seed uint64) (Run, error)
	// progress returns the tracker of the engine's runs.
	progress() *tracker
}

// A engineModel is a model with an engine of its own.
type engineModel interface {
	model
	// newEngine returns the engine of s, after defaults, for policies of
	// f (nil for a baseline the model makes itself), with room bytes for
	// what grows in a run (see budget.room).
	newEngine(s Scenario, f kit.Factory, room int64) (modelEngine, error)
	// triggerEnd returns when the trigger of s, after defaults, ends: the
	// instant recovery is judged from, before its rounding.
	triggerEnd(s Scenario) time.Duration
	// baselines returns the fleets replayed beside the policy's of s,
	// after defaults, to compare it with (see Result.Baselines).
	baselines(s Scenario) []baselineFleet
	// servesAll reports whether a replay fails when its median run
	// leaves devices unserved at the horizon.
	servesAll() bool
	// found says what replay r, after defaults, found, in the terms of
	// the model's verdict (see [Result.Found]).
	found(r Result) string
	// unjudged says why the replay r judged nothing of its policy, or
	// returns "" when it did (see [Result.Unjudged]).
	unjudged(r Result) string
}

// A recoveryModel is a server model judged on whether the service
// recovers after a trigger.
type recoveryModel interface {
	engineModel
	// ended names the trigger's end, from which recovery is judged, as
	// a replay's detail says it.
	ended() string
	// amplification writes what the detail of replay r adds to its retry
	// amplification.
	amplification(r Result, b *strings.Builder)
	// stateAtEnd writes the state replay r ends in.
	stateAtEnd(r Result, b *strings.Builder)
	// changes returns the model's own changes of s, after defaults, that
	// may end its storm, beyond a budget the fleet shares (see
	// [Scenario.ServerChanges]).
	changes(s Scenario) []ServerChange
	// tried names the kinds of change the model tries on s, in a list.
	tried(s Scenario) []string
	// seriesChart says what the time-series chart of a run of s, after
	// defaults, draws (see [Scenario.SeriesChart]).
	seriesChart(s Scenario) SeriesChart
}

// models are the scenarios' models, in the order of Kinds.
var models = []model{
	outageModel{},
	outageModel{long: true},
	stormModel{},
	periodicModel{},
	periodicModel{aligned: true},
	overloadModel{},
	reconnectModel{},
	contentionModel{},
}

// Kinds returns the scenarios, in the order of their constants.
func Kinds() []Kind {
	kinds := make([]Kind, len(models))
	for i, m := range models {
		kinds[i] = m.kind()
	}
	return kinds
}

// model returns the model of the kind, Outage's for the zero Kind, and
// for a kind that is none of Kinds, which Validate refuses, the defaults
// and checks the fleet kinds share.
func (k Kind) model() model {
	if k == "" {
		k = Outage
	}
	if m, ok := k.registered(); ok {
		return m
	}
	return fleetModel{}
}

// registered returns the model of the kind, and false for a kind that is
// none of Kinds.
func (k Kind) registered() (model, bool) {
	for _, m := range models {
		if m.kind() == k {
			return m, true
		}
	}
	return nil, false
}

// Periodic reports whether the kind's devices fire periodic timers:
// Periodic and PeriodicAligned.
func (k Kind) Periodic() bool { return k.model().timers() }

// ArrivalsOnly reports whether the kind counts arrivals alone, against no
// server, as a storm does: nothing is accepted or served.
func (k Kind) ArrivalsOnly() bool { return k.model().arrivalsOnly() }

// Recovers reports whether the kind is judged on recovery after a
// trigger, Overload and Reconnect, rather than on its peak ratio.
func (k Kind) Recovers() bool { return k.model().recovers() }

// ServerModel reports whether the kind is one of the server models
// (Overload, Reconnect, Contention), replayed by an engine of its own and
// judged by its own rules rather than by the fleet's peak ratio.
func (k Kind) ServerModel() bool { return k.model().server() }

// Label returns what a replay of kind k calls figure f: the figure's own
// label (see [Figure.Label]), unless the kind names what it counts in
// words of its own, such as the periodic kinds' firings or the server
// models' requests, connects and writes.
func (k Kind) Label(f Figure) string {
	if l := k.model().label(f); l != "" {
		return l
	}
	return f.Label()
}

// A comparison is how a comparison of policies sets them side by side on
// a kind: the figures it shows, the backoff of the built-in strategies it
// compares, and whether it adds a row for each retry budget.
type comparison struct {
	headlines []Figure
	base, cap time.Duration
	budgets   bool
}

// Headlines returns the figures a comparison of policies on kind k shows,
// the first of which it ranks them by: the peak of retry arrivals in a
// storm, where nothing is served; the time to recover and the retry
// amplification in the recovery kinds (the peak ratio does not predict
// recovery); the writes and the time until the last client succeeds in a
// contention; the peak ratio and the time until all are served otherwise.
func (k Kind) Headlines() []Figure { return k.model().compared().headlines }

// CompareBackoff returns the base and cap of the built-in strategies a
// comparison on kind k sets beside a policy that gives none: kit's
// defaults, but in a storm a base of 1s and a cap of 30s, which bring its
// peaks to about N/32, N/24 and N/74 of N devices for full, equal and
// decorrelated jitter, where no jitter peaks at all of them.
func (k Kind) CompareBackoff() (base, cap time.Duration) {
	c := k.model().compared()
	return c.base, c.cap
}

// ComparesBudgets reports whether a comparison on kind k adds a row for
// each retry budget: in an Overload.
func (k Kind) ComparesBudgets() bool { return k.model().compared().budgets }

// RunHeads head the columns of the table of a replay's runs of kind k,
// one row a run, after the run's number and its seed: what the kind
// judges a run by, then what it counted.
func (k Kind) RunHeads() []string { return k.model().runHeads() }

// Terms defines the terms a report of replay r uses in the words of its
// model, with the replay's own figures where it has them: each a term and
// its definition.
func (r Result) Terms() [][2]string {
	r.Scenario = r.Scenario.WithDefaults()
	return r.Scenario.Kind.model().terms(r)
}

// Describe returns the one-line description of s, after its defaults,
// that heads every report and comparison of a replay, from after its
// fleet: the server (a storm has none, but obeys a Retry-After hint), the
// outage and the window, what is not the kind's default (the spread of
// the first attempts, the horizon, a storm's retries), the timers of the
// periodic kinds; a server model's own parameters. Joined after the fleet
// and the kind, it reads:
//
//	outage: 400 clients, accept rate 50/s, down 2s, window 1s
//	overload: 200 clients, 70 requests/s into 100 jobs/s, timeout 1s, 3 retries, a dip to 10% for 5s at 30s, round trip 0s, horizon 5m
func (s Scenario) Describe() []string {
	s = s.WithDefaults()
	return s.Kind.model().describe(s)
}

// RunCells returns the cells of run's row in the table of runs of s,
// under [Kind.RunHeads], each number as [prose.Number] writes it; a time
// that run never reached is "–".
func (s Scenario) RunCells(run Run) []string {
	s = s.WithDefaults()
	return s.Kind.model().runCells(s, run)
}

// kindNames lists the scenarios for a refusal.
func kindNames() string {
	names := make([]string, 0, len(models))
	for _, k := range Kinds() {
		names = append(names, string(k))
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// takers returns the kinds that take the optional field name, in the
// order of Kinds.
func takers(field string) []Kind {
	var kinds []Kind
	for _, m := range models {
		if m.takes(field) {
			kinds = append(kinds, m.kind())
		}
	}
	return kinds
}

// def sets *p to v when *p is zero.
func def[T comparable](p *T, v T) {
	var zero T
	if *p == zero {
		*p = v
	}
}

// fleetModel holds what the fleet kinds (Outage, LongOutage, Storm and
// the periodic kinds) share: their fields, their defaults, their checks
// and their memory. Each embeds it; on its own it is the model of a kind
// that is none of Kinds, whose defaults are those the fleet kinds share.
type fleetModel struct{}

func (fleetModel) kind() Kind     { return "" }
func (fleetModel) timers() bool   { return false }
func (fleetModel) recovers() bool { return false }
func (fleetModel) server() bool   { return false }
func (m fleetModel) defaults(s Scenario) Scenario {
	return fleetDefaults(s, defaultStartSpread)
}

// fleetFields are the optional fields every fleet kind takes.
var fleetFields = []string{"burst", "retry-after", "server", "window", "period", "timer-offset", "down", "start-spread", "accept-rate", "threshold", "max-attempts"}

func (fleetModel) takes(field string) bool { return slices.Contains(fleetFields, field) }

func (m fleetModel) validate(s Scenario) error { return validateFleet(s, m, nil) }

// fleetDefaults sets the zero fields a fleet kind reads, after the kind's
// own, to the defaults the fleet kinds share; spread is the kind's start
// spread.
func fleetDefaults(s Scenario, spread time.Duration) Scenario {
	def(&s.AcceptRate, defaultAcceptRate)
	def(&s.Burst, max(1, s.AcceptRate))
	def(&s.StartSpread, spread)
	def(&s.Period, defaultPeriod)
	def(&s.Horizon, defaultHorizon)
	def(&s.RetryAfter, defaultRetryAfter)
	def(&s.Retries, defaultRetries)
	def(&s.Threshold, defaultThreshold)
	def(&s.MaxAttempts, defaultMaxAttempts)
	return s
}

// parts are the accept rate and the down time of a fleet kind left to
// their defaults.
func (fleetModel) parts(s, d Scenario) []FleetPart {
	var parts []FleetPart
	if s.AcceptRate == 0 {
		parts = append(parts, FleetPart{"accept-rate", fmt.Sprintf("accept rate %g/s", d.AcceptRate)})
	}
	if s.Down == 0 && d.Down > 0 {
		parts = append(parts, FleetPart{"down", "down " + prose.FormatDuration(d.Down)})
	}
	return parts
}

func (fleetModel) memory(s Scenario) int64 {
	return fleetRunBytes(s, deviceBytes+calendarBytes+policyBytes)
}

// fleetRunBytes is what a run of a fleet kind holds: perDevice bytes for
// each device, its histograms, and its calendar.
func fleetRunBytes(s Scenario, perDevice int64) int64 {
	n := int64(max(s.Clients, 0))
	return add(mul(n, perDevice), mul(s.windows(), 2*8), runBytes, calendarChunk(s.Clients)*ringSize*8)
}

func (fleetModel) judgesGaveUp() bool { return false }
func (fleetModel) arrivalsOnly() bool { return false }
func (fleetModel) tips() bool         { return false }

// outcome writes when the last device was served, the attempts, the
// devices served and those that gave up, and those still retrying.
func (fleetModel) outcome(r Result, b *strings.Builder) {
	if served := r.Summary[Served].Median; served != 0 {
		fmt.Fprintf(b, "; last firing served after %.1fs", r.Summary[AllServed].Median)
	}
	writeAttempts(r, b)
	writeServed(r, b)
	writePending(r, b)
}

// writeAttempts writes the median run's attempts.
func writeAttempts(r Result, b *strings.Builder) {
	fmt.Fprintf(b, "; %s attempts", count(r.Summary[Attempts].Median))
}

// writeServed writes the devices the median run served, and those that
// gave up.
func writeServed(r Result, b *strings.Builder) {
	sum := r.Summary
	fmt.Fprintf(b, "; %s of %s served", count(sum[Served].Median), count(float64(r.Scenario.Clients)))
	if g := sum[GaveUp].Median; g > 0 {
		fmt.Fprintf(b, "; %s gave up", count(g))
	}
}

// writePending writes the devices still retrying at the horizon.
func writePending(r Result, b *strings.Builder) {
	if n := r.Summary[Pending].Median; n > 0 {
		fmt.Fprintf(b, "; %s still retrying at the %v horizon", count(n), r.Scenario.Horizon)
	}
}

func (fleetModel) arrivals(s Scenario) int64     { return int64(s.MaxAttempts) }
func (fleetModel) firings(Scenario) int64        { return 1 }
func (fleetModel) span(s Scenario) time.Duration { return s.Horizon }
func (fleetModel) label(Figure) string           { return "" }

func (fleetModel) describe(s Scenario) []string {
	var parts []string
	if s.Kind != Storm {
		parts = append(parts, "accept rate "+prose.PerSecond(s.AcceptRate))
		if s.Server == TokenBucket {
			parts = append(parts, "token bucket with burst "+prose.Number(s.Burst))
		}
	}
	if s.Down > 0 {
		parts = append(parts, "down "+prose.FormatDuration(s.Down))
	}
	parts = append(parts, "window "+prose.FormatDuration(s.Window))
	// A start spread, a horizon or a storm's retries of the user's own
	// change what the peak means: they are named when they are not the
	// kind's default.
	def := Scenario{Kind: s.Kind, Clients: s.Clients, AcceptRate: s.AcceptRate, Down: s.Down, Window: s.Window, Period: s.Period}.WithDefaults()
	if s.StartSpread != def.StartSpread {
		parts = append(parts, "first attempts spread over "+prose.FormatDuration(s.StartSpread))
	}
	if s.Horizon != def.Horizon {
		parts = append(parts, "horizon "+prose.FormatDuration(s.Horizon))
	}
	if s.Kind == Storm && s.Retries != def.Retries {
		parts = append(parts, prose.Number(float64(s.Retries))+" retries each")
	}
	if s.Kind.Periodic() {
		parts = append(parts, "period "+prose.FormatDuration(s.Period))
		if s.TimerOffset == OffsetPolicy {
			parts = append(parts, "timer offsets from the policy")
		}
	}
	if s.Server == RetryAfter {
		parts = append(parts, "Retry-After "+prose.FormatDuration(s.RetryAfter))
	}
	return parts
}

func (fleetModel) findings(Result, bool) []string { return nil }

func (fleetModel) terms(r Result) [][2]string {
	s := r.Scenario
	budget := s.AcceptRate * s.Window.Seconds()
	return [][2]string{
		{"accept budget", fmt.Sprintf("The requests the server accepts in one window while it is up: its accept rate times the window, here %s × %s = %s.", prose.PerSecond(s.AcceptRate), prose.FormatDuration(s.Window), prose.Number(budget))},
		{"peak ratio", "The most retry arrivals in one window of a run, over the accept budget. It leaves out each device's first attempt, which the policy does not choose."},
		{"threshold", fmt.Sprintf("The peak ratio the replay may reach, here %s: at most %s retries in one window. The replay fails when the median peak ratio over the runs is over it.", prose.Number(s.Threshold), prose.Number(s.Threshold*budget))},
	}
}

func (fleetModel) compared() comparison {
	return comparison{headlines: []Figure{PeakRatio, AllServed}, base: kit.DefaultBase, cap: kit.DefaultCap}
}

func (fleetModel) runHeads() []string {
	return []string{"All served, from t=0 (s)", "Busiest window (arrivals)", "Peak retries", "Peak ratio", "Attempts", "Served (devices)", "Gave up (devices)", "p50 (s)", "p99 (s)"}
}

func (fleetModel) runCells(s Scenario, run Run) []string {
	return []string{prose.Number(run.AllServed.Seconds()), prose.Number(float64(run.BusiestWindowArrivals)),
		prose.Number(float64(run.PeakRetryArrivals)), prose.Number(run.PeakRatio), prose.Number(float64(run.Attempts)),
		prose.Number(float64(run.Served)), prose.Number(float64(run.GaveUp)), prose.Number(run.P50.Seconds()), prose.Number(run.P99.Seconds())}
}

// serverBase holds what the server models (Overload, Reconnect,
// Contention) share. Each embeds it.
type serverBase struct{}

func (serverBase) timers() bool                        { return false }
func (serverBase) server() bool                        { return true }
func (serverBase) parts(s, d Scenario) []FleetPart     { return nil }
func (serverBase) arrivals(s Scenario) int64           { return int64(s.MaxAttempts) }
func (serverBase) firings(Scenario) int64              { return 1 }
func (serverBase) span(s Scenario) time.Duration       { return s.Horizon }
func (serverBase) triggerEnd(s Scenario) time.Duration { return s.Down }
func (serverBase) baselines(Scenario) []baselineFleet  { return nil }
func (serverBase) judgesGaveUp() bool                  { return false }
func (serverBase) arrivalsOnly() bool                  { return false }
func (serverBase) tips() bool                          { return false }
func (serverBase) label(Figure) string                 { return "" }

func (serverBase) compared() comparison {
	return comparison{headlines: []Figure{RecoveryTime, Amplification}, base: kit.DefaultBase, cap: kit.DefaultCap}
}

// recoveredCells are the first two cells of a recovery model's row in its
// table of runs: whether run recovered, and after how long from the
// trigger's end.
func recoveredCells(run Run) []string {
	if !run.Recovered {
		return []string{"no", "–"}
	}
	return []string{"yes", prose.Number(run.RecoveredAfter.Seconds())}
}

// outcome is none: a server model's detail is its own (see
// Result.modelDetail).
func (serverBase) outcome(Result, *strings.Builder) {}

// serverSeries is what a server model's run holds of its per-second
// series over the horizon of s.
func serverSeries(s Scenario) int64 {
	return mul(int64(s.Horizon/time.Second)+1, seriesBytes)
}

// validateServer reports the first of the fields every server model
// reads, after defaults, that is out of range.
func validateServer(s Scenario) error {
	if s.Clients < 0 {
		return invalid("clients %d is negative", s.Clients)
	}
	if s.Threshold < 0 || math.IsNaN(s.Threshold) || math.IsInf(s.Threshold, 0) || s.Threshold > maxThreshold {
		return invalid("threshold %v is not a positive number up to 1e12", s.Threshold)
	}
	if s.Horizon < 0 || s.Horizon > maxHorizon {
		return invalid("horizon %v is not between 0 and %v", s.Horizon, maxHorizon)
	}
	return nil
}

// between refuses, naming the flag name, a duration d of a server model
// beyond hi, or, for the latencies, below zero; what names hi. The
// negative values of the others are refused as negative by their model.
func durationWithin(name string, d, hi time.Duration, what string) error {
	if d > hi || d < 0 && strings.HasPrefix(name, "latency") {
		return invalid("%s %v is not between 0 and %s%v", name, d, what, hi)
	}
	return nil
}

// firstError returns the first error that is not nil.
func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// serverFields are the optional fields that the server models of
// Overload and Reconnect share.
var serverFields = []string{"rtt", "budget", "budget-scope", "accept-rate"}
