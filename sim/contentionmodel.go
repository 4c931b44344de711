package sim

import (
	"fmt"
	"slices"

	"github.com/jitterkit/jitterkit/internal/prose"
	"github.com/jitterkit/jitterkit/kit"
)

// contentionModel is the model of Contention: optimistic concurrency on
// one row, judged by the work and the time until every client succeeds.
// Its engine is contentionEngine.
type contentionModel struct{ serverBase }

func (contentionModel) kind() Kind { return Contention }

// contentionLabels are what a contention calls the figures that name
// devices: its devices are clients and its attempts the writes that are
// the work.
var contentionLabels = map[Figure]string{
	Served:    "clients that succeeded",
	AllServed: "last client succeeded, from t=0",
	Pending:   "clients unfinished at the horizon",
	Attempts:  "writes (the work)",
}

func (contentionModel) label(f Figure) string { return contentionLabels[f] }

func (contentionModel) describe(s Scenario) []string {
	return []string{"one row, network |N(" + prose.FormatDuration(s.Latency) + ", " + prose.FormatDuration(s.LatencySD) + ")|", "horizon " + prose.FormatDuration(s.Horizon)}
}

// findings: clients that did not succeed, or more writes than no
// backoff at all makes.
func (contentionModel) findings(r Result, failed bool) []string {
	switch {
	case failed:
		return []string{unserved(r, "clients", "did not succeed") + ": back off longer after a conflict, with jitter, so that fewer writes collide."}
	case slices.Contains(r.Warnings(), MoreWork):
		return []string{fmt.Sprintf("Back off with more jitter: the policy makes %s writes, more than the %s of no backoff at all; on the same row, full jitter makes %s.",
			prose.Number(r.Summary[Attempts].Median), prose.Number(r.baselineMedian(BaselineNoBackoff, Attempts)), prose.Number(r.baselineMedian("full jitter", Attempts)))}
	}
	return nil
}

// baselineMedian returns the median of figure f of the named baseline of
// r, or 0.
func (r Result) baselineMedian(name string, f Figure) float64 {
	if b := r.Baseline(name); b != nil {
		return b.Summary[f].Median
	}
	return 0
}

// found: the writes the clients made, and whether all succeeded, with
// no more work than no backoff at all.
func (contentionModel) found(r Result) string {
	s := r.Scenario
	head := fmt.Sprintf("the replay's %s clients made %s writes", prose.Number(float64(s.Clients)), prose.Number(r.Summary[Attempts].Median))
	if served := r.Summary[Served].Median; served < float64(s.Clients) {
		return fmt.Sprintf("%s, and %s of them did not succeed by the %s horizon", head, prose.Number(float64(s.Clients)-served), prose.FormatDuration(s.Horizon))
	}
	head += fmt.Sprintf(" and all succeeded after %s", prose.Seconds(r.Summary[AllServed].Median))
	if b := r.Baseline(BaselineNoBackoff); b != nil && slices.Contains(r.Warnings(), MoreWork) {
		head += fmt.Sprintf(", but that is more work than no backoff at all (%s writes)", prose.Number(b.Summary[Attempts].Median))
	}
	return head
}

func (contentionModel) terms(Result) [][2]string {
	return [][2]string{
		{"writes", "The conditional writes that reached the row, the work the clients made: a write fails when another client's write changed the row after this client read it."},
		{"baselines", "The same clients replayed with the backoff simulator's own strategies (a base of 5ms, a cap of 2s, the first backoff twice the base) and with no backoff at all. The replay fails when clients are unfinished at the horizon, and warns when the policy makes more writes than no backoff."},
	}
}

func (m contentionModel) compared() comparison {
	c := m.serverBase.compared()
	c.headlines = []Figure{Attempts, AllServed}
	return c
}

func (contentionModel) runHeads() []string {
	return []string{"Writes", "Reads", "Succeeded (clients)", "Last success, from t=0 (s)", "Unfinished"}
}

func (contentionModel) runCells(s Scenario, run Run) []string {
	return []string{prose.Number(float64(run.Attempts)), prose.Number(float64(run.Reads)), prose.Number(float64(run.Served)), prose.Number(run.AllServed.Seconds()), prose.Number(float64(run.Pending))}
}
func (contentionModel) recovers() bool { return false }

func (contentionModel) defaults(s Scenario) Scenario {
	if len(s.IDs) == 0 {
		def(&s.Clients, defaultContentionClients)
	}
	def(&s.Latency, defaultContentionNetMean)
	def(&s.LatencySD, defaultContentionNetSD)
	def(&s.Horizon, defaultHorizon)
	return s
}

func (contentionModel) takes(field string) bool { return field == "latency" }

// baselines are the simulator's own strategies, at its base and cap, and
// no backoff.
func (contentionModel) baselines(s Scenario) []baselineFleet {
	var out []baselineFleet
	for st := awsNone; st <= awsDecorrelated; st++ {
		out = append(out, baselineFleet{awsBaselineNames[st], s, awsBackoff(st, defaultContentionBase, defaultContentionCap)})
	}
	return out
}

func (contentionModel) servesAll() bool { return true }

func (contentionModel) unjudged(r Result) string {
	if len(r.Runs) > 0 && r.Summary[Attempts].Median <= float64(r.Scenario.Clients) {
		return "no write conflicted in the median run, so that no client backed off and the policy's delays were never judged"
	}
	return ""
}

func (contentionModel) validate(s Scenario) error {
	if err := validateServer(s); err != nil {
		return err
	}
	if s.Clients < 1 || s.Clients > maxContentionClients {
		return invalid("clients %d is not between 1 and %s", s.Clients, prose.FormatCount(maxContentionClients))
	}
	if err := firstError(
		durationWithin("latency", s.Latency, maxContentionNet, ""),
		durationWithin("latency-sd", s.LatencySD, maxContentionNet, ""),
	); err != nil {
		return err
	}
	if floor := 4 * (s.Latency + 3*s.LatencySD); s.Horizon < floor {
		// A client's read and write are four messages: a horizon shorter
		// than four of the longest leaves no client a chance to finish.
		return invalid("horizon %v is shorter than four messages of the network, %v (4 × (latency + 3 × latency-sd)): no client could finish a read and a write", s.Horizon, floor)
	}
	return s.contention().validate()
}

// memory is what a run holds ahead, and as much again for what grows
// with its events (see budget.room): its clients and its series.
func (contentionModel) memory(s Scenario) int64 {
	n := int64(max(s.Clients, len(s.IDs)))
	return 2 * add(mul(n, modelDeviceBytes+contentionClientBytes), serverSeries(s))
}

func (contentionModel) newEngine(s Scenario, f kit.Factory, room int64) (modelEngine, error) {
	e, err := newContentionEngine(s.contention(), f)
	if err != nil {
		return nil, err
	}
	return contentionRunner{e}, nil
}

// contention returns the contention model of s, after defaults.
func (s Scenario) contention() contention {
	return contention{Clients: s.Clients, NetMean: s.Latency, NetSD: s.LatencySD, Horizon: s.Horizon, ids: s.IDs}
}

type contentionRunner struct{ e *contentionEngine }

func (m contentionRunner) run(i int, seed uint64) (Run, error) {
	r, err := m.e.replay(i, seed)
	if err != nil {
		return Run{}, err
	}
	return Run{
		Seed:      r.Seed,
		AllServed: r.LastSuccess,
		Attempts:  r.Calls,
		Reads:     r.Reads,
		Served:    r.Successes,
		GaveUp:    r.Stopped,
		Pending:   r.Unfinished,
	}, nil
}
