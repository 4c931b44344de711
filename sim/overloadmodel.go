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

// overloadModel is the model of Overload: an open-loop stream of requests
// into a server with one FIFO queue whose capacity dips, judged on
// whether the fleet recovers. Its engine is overloadEngine.
type overloadModel struct{ serverBase }

func (overloadModel) kind() Kind { return Overload }

// overloadLabels are what an overload calls the figures that name
// devices: its servings and attempts are requests.
var overloadLabels = map[Figure]string{
	Served:   "requests answered in time",
	GaveUp:   "requests that failed every attempt",
	Attempts: "attempts sent",
}

func (overloadModel) label(f Figure) string { return overloadLabels[f] }

func (overloadModel) describe(s Scenario) []string {
	parts := []string{prose.Number(s.Rate) + " requests/s into " + prose.Number(s.AcceptRate) + " jobs/s", "timeout " + prose.FormatDuration(s.Timeout)}
	if s.Retries == NoRetries {
		parts = append(parts, "no retries")
	} else {
		parts = append(parts, strings.Replace(prose.Plural(s.Retries, "retrie"), "1 retrie", "1 retry", 1))
	}
	dip := "a dip to " + prose.Number(100*max(s.Dip, 0)) + "%"
	if s.Dip == DipStall {
		dip = "a stall"
	}
	dip += " for " + prose.FormatDuration(s.DipFor) + " at " + prose.FormatDuration(s.DipAt)
	if s.Ramp > 0 {
		dip += ", back over " + prose.FormatDuration(s.Ramp)
	}
	parts = append(parts, dip)
	if s.QueueLimit > 0 {
		parts = append(parts, "queue limit "+prose.Number(float64(s.QueueLimit)))
	}
	if s.DropExpired {
		parts = append(parts, "expired work dropped")
	}
	parts = append(parts, s.Budget.held()...)
	return append(parts, "round trip "+prose.FormatDuration(s.RTT), "horizon "+prose.FormatDuration(s.Horizon))
}

// findings: a budget that slows the recovery; else retries that slow it,
// or that keep the queue full of work nobody waits for.
func (overloadModel) findings(r Result, failed bool) []string {
	if text := budgetSlows(r, failed); text != "" {
		return []string{text}
	}
	s := r.Scenario
	noRetries := r.Baseline(BaselineNoRetries)
	switch {
	case !failed && slices.Contains(r.Warnings(), SlowRecovery) && noRetries != nil:
		rec, base := r.Summary[RecoveryTime].Median, noRetries.Summary[RecoveryTime].Median
		return []string{fmt.Sprintf("The retries slow the recovery down: the fleet recovers %s after the dip, %s later than the same fleet without retries (%s), since the work of the attempts that time out still reaches the server (%s attempts per request from the dip on); %s to recover sooner.",
			prose.Seconds(rec), prose.Seconds(rec-base), prose.Seconds(base), prose.Number(r.Summary[AmplificationFromTrigger].Median), tighter(s))}
	case failed:
		amp, runs := collapsedAmplification(r)
		head := fmt.Sprintf("Jitter alone does not end this storm: each attempt that times out leaves its work in the queue, and the retries (%s attempts per request from the dip on%s) keep the server over its capacity of %s after the dip",
			prose.Number(amp), runs, prose.PerSecond(s.AcceptRate))
		if noRetries != nil && !noRetries.NeverRecovered(len(r.Runs)) {
			head += fmt.Sprintf("; without retries the same fleet recovers %s after the dip", prose.Seconds(noRetries.Summary[RecoveryTime].Median))
		}
		return []string{head + "."}
	}
	return nil
}

// tighter says how to bound an Overload's retries further: with a budget
// the fleet shares, which the gate replays and ranks, or, with one shared
// already, a tighter one.
func tighter(s Scenario) string {
	if s.Budget.Kind != NoBudget && s.Budget.Scope == ScopeFleet {
		return "tighten the budget the fleet shares (a smaller share or reserve), or gate it to see the budgets the kit replays, ranked,"
	}
	return "bound the retries the fleet makes as a whole with a budget it shares (jitterkit gate replays each with --budget KIND --budget-scope fleet and ranks those that pass),"
}

// collapsedAmplification returns the retry amplification from the trigger
// on that an Overload's diagnosis quotes, and which runs it is of: the
// median over the runs that collapsed when some did but the median run
// recovered (a bimodal fleet, whose median run shows no storm), else the
// median over every run.
func collapsedAmplification(r Result) (float64, string) {
	c := r.Collapses()
	if c == nil || c.Collapsed == 0 || 2*c.Collapsed > c.Runs {
		return r.Summary[AmplificationFromTrigger].Median, ""
	}
	var amp []float64
	for _, run := range r.Runs {
		if !run.Recovered {
			amp = append(amp, run.AmplificationFromTrigger)
		}
	}
	if len(amp) == 0 {
		return r.Summary[AmplificationFromTrigger].Median, ""
	}
	slices.Sort(amp)
	return median(amp), ", median over the " + prose.Plural(len(amp), "run") + " that collapsed"
}

// changes: a queue bounded at half the jobs the server serves within one
// timeout, so that an attempt it could not answer in time is rejected at
// once, and the skipping of work whose client stopped waiting. No backoff
// ends a storm of timed-out work: the fixes belong to the server.
func (overloadModel) changes(s Scenario) []ServerChange {
	var out []ServerChange
	limit := max(1, int(math.Floor(s.AcceptRate*s.Timeout.Seconds()/2)))
	if s.QueueLimit == 0 || s.QueueLimit > limit {
		out = append(out, ServerChange{
			fmt.Sprintf("bound the server's queue at %d jobs, half of what it serves in one %s timeout, so that it rejects at once what it could not answer in time", limit, s.Timeout),
			fmt.Sprintf("--queue-limit %d", limit),
			SideServer,
			func(s *Scenario) { s.QueueLimit = limit }})
	}
	if !s.DropExpired {
		out = append(out, ServerChange{
			"have the server skip the work whose client has stopped waiting for it",
			"--drop-expired",
			SideServer,
			func(s *Scenario) { s.DropExpired = true }})
	}
	return out
}

func (overloadModel) tried(Scenario) []string {
	return []string{"a bounded queue", "dropped expired work"}
}

func (overloadModel) found(r Result) string { return recoveryFound(r, "") }

func (overloadModel) terms(r Result) [][2]string {
	s := r.Scenario
	terms := recoveryTerms(r, fmt.Sprintf("the dip of the capacity to %s%% for %s from %s", prose.Number(100*max(s.Dip, 0)), prose.FormatDuration(s.DipFor), prose.FormatDuration(s.DipAt)))
	terms = append(terms, [2]string{"baseline", "The same fleet replayed without retries. A recovery at least twice as long as the baseline's, and 10s longer, warns: the retries, not the dip, keep the service down."})
	if r.TippingPoint != nil {
		terms = append(terms, [2]string{"tipping point", "The shortest dip, in whole seconds, after which the median run does not recover, searched with every other part of the scenario kept, beside the baseline's."})
	}
	return terms
}

func (overloadModel) seriesChart(s Scenario) SeriesChart {
	failed := []string{"timed out"}
	if s.QueueLimit > 0 {
		failed = append(failed, "rejected")
	}
	if s.DropExpired {
		failed = append(failed, "dropped")
	}
	if n := len(failed); n > 1 {
		failed[n-2] += " or " + failed[n-1]
		failed = failed[:n-1]
	}
	from, to := s.DipAt.Seconds(), (s.DipAt + s.DipFor).Seconds()
	c := SeriesChart{
		First: "first attempts sent", Retries: "retries sent", Successes: "answered in time", Failures: strings.Join(failed, ", "),
		Capacity: "server capacity (jobs/s)", Jobs: "jobs in the system (waiting or in service)", JobsAxis: "jobs in the system",
		From: from, To: to, RampTo: to + s.Ramp.Seconds(),
		Trigger:  fmt.Sprintf("dip to %s%% for %s at %s", prose.Number(math.Round(s.Dip*100*1000)/1000), prose.FormatDuration(s.DipFor), prose.FormatDuration(s.DipAt)),
		End:      "the dip",
		Budgeted: true,
	}
	if s.Ramp > 0 {
		c.Ramp = fmt.Sprintf("ramp back (%s)", prose.FormatDuration(s.Ramp))
	}
	return c
}

func (m overloadModel) compared() comparison {
	c := m.serverBase.compared()
	c.budgets = true
	return c
}

func (overloadModel) runHeads() []string {
	return []string{"Recovered", "Recovered, from the dip's end (s)", "Amplification", "Goodput", "Jobs at the horizon", "Timeouts", "Attempts", "Peak ratio"}
}

func (overloadModel) runCells(s Scenario, run Run) []string {
	return append(recoveredCells(run), prose.Number(run.Amplification), prose.Number(run.Goodput), prose.Number(float64(run.JobsAtEnd)), prose.Number(float64(run.Timeouts)), prose.Number(float64(run.Attempts)), prose.Number(run.PeakRatio))
}
func (overloadModel) recovers() bool { return true }

// tips is true: an overload searches the shortest dip it does not
// recover from.
func (overloadModel) tips() bool { return true }

func (overloadModel) defaults(s Scenario) Scenario {
	if len(s.IDs) == 0 {
		def(&s.Clients, defaultOverloadClients)
	}
	def(&s.AcceptRate, defaultOverloadAcceptRate)
	def(&s.Rate, defaultRate)
	def(&s.RTT, defaultOverloadRTT)
	def(&s.Timeout, defaultTimeout)
	def(&s.Retries, defaultOverloadRetries)
	def(&s.Dip, defaultDip)
	def(&s.DipFor, defaultDipFor)
	def(&s.DipAt, defaultDipAt)
	def(&s.Horizon, defaultModelHorizon)
	s.Budget = s.Budget.WithDefaults()
	def(&s.Threshold, defaultThreshold)
	return s
}

func (overloadModel) takes(field string) bool {
	switch field {
	case "rate", "timeout", "dip", "dip-for", "dip-at", "ramp", "queue-limit", "drop-expired", "retries":
		return true
	}
	return slices.Contains(serverFields, field)
}

func (overloadModel) parts(s, d Scenario) []FleetPart {
	var parts []FleetPart
	if s.AcceptRate == 0 {
		parts = append(parts, FleetPart{"accept-rate", fmt.Sprintf("accept rate %g/s", d.AcceptRate)})
	}
	if s.Rate == 0 {
		parts = append(parts, FleetPart{"rate", fmt.Sprintf("rate %g/s", d.Rate)})
	}
	return parts
}

func (overloadModel) triggerEnd(s Scenario) time.Duration { return s.DipAt + s.DipFor }

// baselines are the same fleet whose requests never retry, and so have
// no budget of retries.
func (overloadModel) baselines(s Scenario) []baselineFleet {
	s.Retries, s.Budget = NoRetries, Budget{}
	return []baselineFleet{{BaselineNoRetries, s, noRetryPolicy}}
}

func (overloadModel) servesAll() bool { return false }

func (overloadModel) unjudged(r Result) string {
	if r.Scenario.Retries == NoRetries {
		return "the clients make no retries (retries 0), so that the policy is never asked for a delay"
	}
	if why, ok := recoveryUnjudged(r); ok {
		return why
	}
	if c := r.Collapses(); c.Excused > 0 && c.Runs < MinRunsToPass {
		return fmt.Sprintf("the same fleet without retries never recovers either, in %d of %d runs: the scenario, not the policy, keeps the service down", c.Excused, len(r.Runs))
	}
	return ""
}

func (overloadModel) ended() string { return "the dip's end" }

func (overloadModel) amplification(r Result, b *strings.Builder) {
	fmt.Fprintf(b, ", %.2f from the trigger on", r.Summary[AmplificationFromTrigger].Median)
}

// stateAtEnd writes the jobs in the system at the horizon.
func (overloadModel) stateAtEnd(r Result, b *strings.Builder) {
	s, sum := r.Scenario, r.Summary
	jobs := "jobs"
	if sum[JobsAtEnd].Median == 1 {
		jobs = "job"
	}
	fmt.Fprintf(b, "; %s %s in the system at the %s horizon", count(sum[JobsAtEnd].Median), jobs, prose.FormatDuration(s.Horizon))
}

func (overloadModel) validate(s Scenario) error {
	if err := validateServer(s); err != nil {
		return err
	}
	if s.Clients < 1 || s.Clients > maxClients {
		return invalid("clients %d is not between 1 and %d", s.Clients, maxClients)
	}
	if err := durationWithin("rtt", s.RTT, maxHorizon, ""); err != nil {
		return err
	}
	return s.validateOverload()
}

func (s Scenario) validateOverload() error {
	window := recoveryWindow * time.Second
	for _, d := range []struct {
		name string
		d    time.Duration
	}{{"dip-at", s.DipAt}, {"dip-for", s.DipFor}, {"ramp", s.Ramp}, {"timeout", s.Timeout}} {
		if d.d > maxHorizon {
			return invalid("%s %v is beyond the longest replay, %v", d.name, d.d, maxHorizon)
		}
	}
	end := s.DipAt + s.DipFor + s.Ramp
	switch {
	case !(s.Rate > 0) || math.IsInf(s.Rate, 0):
		return invalid("rate %v requests a second is not a positive number", s.Rate)
	case s.Rate < minOverloadRate:
		// A request a thousand seconds apart is no stream to judge, and
		// the gaps of a slower one overflow the clock.
		return invalid("rate %v requests a second is below %v", s.Rate, minOverloadRate)
	case !(s.AcceptRate >= minOverloadCapacity && s.AcceptRate <= maxOverloadCapacity):
		return invalid("accept-rate %v jobs a second is not between 1e-6 and 1e6", s.AcceptRate)
	case s.Rate >= s.AcceptRate:
		return invalid("rate %v requests a second is at or over the accept-rate of %v jobs a second: the server is overloaded without a dip, and no fleet recovers from that", s.Rate, s.AcceptRate)
	case s.Timeout <= 0:
		return invalid("timeout %v is not positive", s.Timeout)
	case s.RTT < 0:
		return invalid("rtt %v is negative", s.RTT)
	case s.RTT >= s.Timeout:
		return invalid("rtt %v is not shorter than the %v timeout: every attempt would time out", s.RTT, s.Timeout)
	case s.Retries < NoRetries || s.Retries > maxOverloadRetries:
		return invalid("retries %d is not between 0 and %d", s.Retries, maxOverloadRetries)
	case s.Dip != DipStall && !(s.Dip > 0 && s.Dip < 1):
		return invalid("dip %v is not a fraction of the capacity above 0 and below 1 (a dip to 0 stalls the server)", s.Dip)
	case s.DipFor <= 0:
		return invalid("dip-for %v is not positive: without a dip there is nothing to recover from", s.DipFor)
	case s.DipAt < 0:
		return invalid("dip-at %v is negative", s.DipAt)
	case s.Ramp < 0:
		return invalid("ramp %v is negative", s.Ramp)
	case s.QueueLimit < 0:
		return invalid("queue-limit %d is negative", s.QueueLimit)
	case end > s.Horizon-window:
		return invalid("the dip ends at %v (dip-at %v, dip-for %v, ramp %v), less than %v before the %v horizon: recovery could not be judged", end, s.DipAt, s.DipFor, s.Ramp, window, s.Horizon)
	case s.Budget.Kind != NoBudget && limitsRetries(s.Budget.Kind) && s.Retries == NoRetries:
		return invalid("budget %s limits retries, and the clients make none (retries 0)", s.Budget)
	case s.Rate*(s.Horizon-s.recoveryStart()).Seconds() < recoveryShare:
		// A window passes when at most 1% of the outcomes learned in it
		// are failures: with fewer requests than that after the
		// trigger, no failure share other than none can be told apart,
		// and a fleet that sends nothing would pass.
		return invalid("rate %v requests a second offers %.1f requests from the dip's end to the %v horizon, fewer than %d: too few to judge whether 1%% of them fail; raise the rate or the horizon", s.Rate, s.Rate*(s.Horizon-s.recoveryStart()).Seconds(), s.Horizon, recoveryShare)
	}
	if err := s.Budget.validate(); err != nil {
		return err
	}
	return s.overload().validate()
}

// minOverloadRate is the slowest stream of requests an overload replays.
const minOverloadRate = 1e-3

// memory is what a run holds ahead, and as much again for what grows
// with its events (see budget.room): its devices, the Poisson stream's
// requests, with five standard deviations of room, and the attempts in
// flight within one timeout, each of them up to four events.
func (overloadModel) memory(s Scenario) int64 {
	n := int64(max(s.Clients, len(s.IDs)))
	mean := s.Rate * s.Horizon.Seconds()
	requests := int64(mean + 5*math.Sqrt(mean) + 1)
	retries := int64(max(s.Retries, 0))
	perDevice := modelDeviceBytes + 2 + 8*retries
	inFlight := int64(s.Rate*float64(1+retries)*s.Timeout.Seconds()) + 1
	if s.Budget.Kind != NoBudget {
		perDevice += 8 // a request's ticket
	}
	return 2 * add(mul(n, perDevice), mul(requests, overloadRequestBytes), mul(4*inFlight, overloadEventBytes), s.budgetBytes(requests*(1+retries)), serverSeries(s))
}

func (overloadModel) newEngine(s Scenario, f kit.Factory, room int64) (modelEngine, error) {
	o := s.overload()
	o.room = room
	e, err := newOverloadEngine(o, f)
	if err != nil {
		return nil, err
	}
	return overloadRunner{e, s}, nil
}

// overload returns the overload model of s, after defaults.
func (s Scenario) overload() overload {
	o := overload{
		Devices:     s.Clients,
		Rate:        s.Rate,
		RTT:         s.RTT,
		Capacity:    s.AcceptRate,
		DipStart:    s.DipAt,
		DipLength:   s.DipFor,
		DipFraction: max(s.Dip, 0),
		Ramp:        s.Ramp,
		Timeout:     s.Timeout,
		Retries:     max(s.Retries, 0),
		QueueLimit:  s.QueueLimit,
		DropExpired: s.DropExpired,
		Horizon:     s.Horizon,
		Budget:      s.Budget,
		ids:         s.IDs,
	}
	return o
}

type overloadRunner struct {
	e *overloadEngine
	s Scenario
}

func (m overloadRunner) run(i int, seed uint64) (Run, error) {
	r, err := m.e.replay(i, seed)
	if err != nil {
		return Run{}, err
	}
	out := Run{
		Seed:                     r.Seed,
		Attempts:                 r.Attempts,
		Served:                   r.Successes,
		GaveUp:                   r.Stopped + r.Exhausted,
		Timeouts:                 r.Timeouts,
		Rejections:               r.Rejections,
		JobsAtEnd:                r.JobsAtEnd,
		BudgetRefused:            r.Refused,
		BudgetThrottled:          r.Throttled,
		Amplification:            r.Amplification,
		AmplificationFromTrigger: r.AmplificationFromTrigger,
		Goodput:                  r.GoodputAfterTrigger,
	}
	out.setSeries(m.s, r.Series, r.Recovery, r.RecoveredAt)
	return out, nil
}

// limitsRetries reports whether the budget kind limits retries only; a
// kind that is none of BudgetKinds is refused as one that does.
func limitsRetries(k BudgetKind) bool {
	m, ok := k.model()
	return !ok || m.limitsRetries()
}
