package gate

import (
	"cmp"
	"errors"
	"math"
	"slices"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/reports"
	"github.com/jitterkit/jitterkit/sim"
)

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
	changes := s.ServerChanges()
	m := g.meter("fix search: changes", int64(len(changes)))
	defer m.Finish()
	for _, c := range changes {
		m.Add(1)
		h := *g
		c.Apply(&h.cfg.Scenario)
		res, stopped, err := h.replayWith(g.p, 0)
		if ce := (*kit.ConfigError)(nil); errors.As(err, &ce) && ce.Memory {
			// A change whose replay would not fit the memory limit (a
			// budget's state for every device) is not offered: nothing
			// was measured of it.
			continue
		}
		if why, ok := refused(err); ok {
			skipped = append(skipped, reports.SkippedFix{Change: c.Change, Server: c.Flags, Reason: why})
			continue
		}
		if err != nil || stopped != nil {
			return out, skipped, err
		}
		if st := res.Status(); st != verdict.Pass && st != verdict.Warn {
			continue
		}
		changed := h.cfg.Scenario
		fix := reports.Fix{Change: c.Change, Server: c.Flags, Side: c.Side, Scenario: &changed, PeakRatio: res.Summary[sim.PeakRatio], Runs: len(res.Runs), Recovered: res.Recovered()}
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
		return cmp.Or(cmp.Compare(sim.SideRank(a.Side), sim.SideRank(b.Side)),
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
