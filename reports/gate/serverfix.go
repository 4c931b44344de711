package gate

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/reports"
	"github.com/jitterkit/jitterkit/sim"
)

// A serverChange is a change of a server model's scenario that the gate
// replays when the policy fails it: what it changes, in words and as the
// flags that make it, and how.
type serverChange struct {
	change, flags string
	side          string // reports.SideBudget, SideReset or SideServer
	apply         func(*sim.Scenario)
}

// fleetBudgets are the budgets the gate replays at the fleet's scope on a
// failing Overload or Reconnect: the retry budgets and the circuit
// breaker, with their libraries' defaults. The adaptive throttle, which
// rejects first attempts as well as retries, is left to the user.
var fleetBudgets = []sim.BudgetKind{sim.Finagle, sim.Envoy, sim.GRPC, sim.AWS, sim.AWS2026, sim.Breaker}

// serverChanges returns the changes of the scenario s (after defaults)
// that may end its storm without touching the policy. In an Overload, no
// backoff ends a storm of timed-out work, and the fixes belong to the
// server: a queue bounded at half the jobs it serves within one timeout,
// so that an attempt it could not answer in time is rejected at once, and
// the skipping of work whose client stopped waiting. In a Reconnect the
// fix is the devices' reset rule (a drop after the connect counted as a
// failure, or a reset followed by a jittered wait) or the broker's
// refusing until it is warm. Changes already made are left out.
func serverChanges(s sim.Scenario) []serverChange {
	var out []serverChange
	if s.Kind.Recovers() && (s.Budget.Kind == sim.NoBudget || s.Budget.Scope == sim.ScopeDevice) {
		kinds := fleetBudgets
		if k := s.Budget.Kind; k != sim.NoBudget {
			// The fleet's own budget first, shared rather than held by
			// each device; then the others.
			kinds = append([]sim.BudgetKind{k}, slices.DeleteFunc(slices.Clone(kinds), func(o sim.BudgetKind) bool { return o == k })...)
		}
		for _, k := range kinds {
			name := k.Name()
			if name == "" {
				name = string(k)
			}
			out = append(out, serverChange{
				fmt.Sprintf("put %s, with its defaults, where the whole fleet shares it (a proxy or gateway in front of the server, or one client for every caller), so that it bounds the retries the fleet makes as a whole", name),
				fmt.Sprintf("--budget %s --budget-scope fleet", k),
				reports.SideBudget,
				func(s *sim.Scenario) { s.Budget = sim.Budget{Kind: k, Scope: sim.ScopeFleet} }})
		}
	}
	switch s.Kind {
	case sim.Overload:
		limit := max(1, int(math.Floor(s.AcceptRate*s.Timeout.Seconds()/2)))
		if s.QueueLimit == 0 || s.QueueLimit > limit {
			out = append(out, serverChange{
				fmt.Sprintf("bound the server's queue at %d jobs, half of what it serves in one %s timeout, so that it rejects at once what it could not answer in time", limit, s.Timeout),
				fmt.Sprintf("--queue-limit %d", limit),
				reports.SideServer,
				func(s *sim.Scenario) { s.QueueLimit = limit }})
		}
		if !s.DropExpired {
			out = append(out, serverChange{
				"have the server skip the work whose client has stopped waiting for it",
				"--drop-expired",
				reports.SideServer,
				func(s *sim.Scenario) { s.DropExpired = true }})
		}
	case sim.Reconnect:
		if s.RefuseCold {
			// A broker that refuses until it is warm drops no session:
			// no rule for a drop changes anything.
			break
		}
		if s.OnDrop != sim.DropContinue {
			out = append(out, serverChange{
				"count a session the broker drops right after accepting it as a failed connect, so that the devices' backoff goes on growing instead of resetting: the fix is the reset rule",
				"--on-drop continue",
				reports.SideReset,
				func(s *sim.Scenario) { s.OnDrop = sim.DropContinue }})
		}
		if s.OnDrop == sim.DropReset {
			out = append(out, serverChange{
				"after a drop, reset the backoff but wait a random share of its first delay before reconnecting",
				"--on-drop reset-jitter",
				reports.SideReset,
				func(s *sim.Scenario) { s.OnDrop = sim.DropResetJitter }})
		}
		out = append(out, serverChange{
			"have the broker refuse connects until it is warm instead of accepting and dropping them",
			"--refuse-cold",
			reports.SideServer,
			func(s *sim.Scenario) { s.RefuseCold = true }})
	}
	return out
}

// serverFixes replays each server change of a failing server model's
// replay on the same fleet and policy, and returns those that pass: the
// replay, not a rule, says which end the storm. A change the scenario
// refuses is skipped, and returned with why (see refused): it is no
// verdict on the policy, and never the run's error. They are ranked by how
// little they change (a budget the fleet shares, then the devices' reset
// rule, then the server), then by the time to recover and the retry
// amplification of their replays, the changes' order breaking ties.
func (g *gate) serverFixes() ([]reports.Fix, []reports.SkippedFix, error) {
	s, err := g.scenario(0)
	if err != nil {
		return nil, nil, err
	}
	var out []reports.Fix
	var skipped []reports.SkippedFix
	changes := serverChanges(s.WithDefaults())
	m := g.meter("fix search: changes", int64(len(changes)))
	defer m.Finish()
	for _, c := range changes {
		m.Add(1)
		h := *g
		c.apply(&h.cfg.Scenario)
		res, stopped, err := h.replayWith(g.p, 0)
		if ce := (*kit.ConfigError)(nil); errors.As(err, &ce) && ce.Memory {
			// A change whose replay would not fit the memory limit (a
			// budget's state for every device) is not offered: nothing
			// was measured of it.
			continue
		}
		if why, ok := refused(err); ok {
			skipped = append(skipped, reports.SkippedFix{Change: c.change, Server: c.flags, Reason: why})
			continue
		}
		if err != nil || stopped != nil {
			return out, skipped, err
		}
		if st := res.Status(); st != verdict.Pass && st != verdict.Warn {
			continue
		}
		changed := h.cfg.Scenario
		fix := reports.Fix{Change: c.change, Server: c.flags, Side: c.side, Scenario: &changed, PeakRatio: res.Summary[sim.PeakRatio], Runs: len(res.Runs), Recovered: res.Recovered()}
		if est, ok := res.Summary[sim.Amplification]; ok {
			fix.Amplification = &est
		}
		if est, ok := res.Summary[sim.RecoveryTime]; ok {
			fix.Recovery = &est
		}
		if est, ok := res.Summary[sim.AllServed]; ok && s.Kind == sim.Reconnect {
			fix.AllServed = est
		}
		out = append(out, fix)
	}
	median := func(e *sim.Estimate) float64 {
		if e == nil {
			return math.Inf(1)
		}
		return e.Median
	}
	slices.SortStableFunc(out, func(a, b reports.Fix) int {
		return cmp.Or(cmp.Compare(reports.SideRank(a.Side), reports.SideRank(b.Side)),
			cmp.Compare(median(a.Recovery), median(b.Recovery)),
			cmp.Compare(median(a.Amplification), median(b.Amplification)))
	})
	return out, skipped, nil
}

// refused returns why the scenario refuses a candidate whose replay ended
// with err, and true, when err is a configuration the replay refuses for
// something other than the memory it would need.
func refused(err error) (string, bool) {
	var ce *kit.ConfigError
	if !errors.As(err, &ce) || ce.Memory {
		return "", false
	}
	return ce.Err.Error(), true
}
