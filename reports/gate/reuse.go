package gate

import (
	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/properties"
)

// An external program costs the gate the time it takes to answer, and a
// replay may ask it the same request more than once: the search for a fix
// replays the policy slowed down on the gate's own runs, whose fleets are
// the same devices again, and a server model makes a device's policy
// afresh for each of its requests. A program that answers the same request
// with the same delays every time need be asked only once. So once the
// property checks find the program reproducible, the replays of the gate
// ask it each request once and reuse its reply (Policy.reuse), within a
// share of the memory limit (replyBudget). The checks themselves always
// ask afresh: it is their answers that decide whether a program is
// reproducible, and a program seeded from its clock or from a generator
// that its devices share must show its changing answers to them.

// reuseReplies makes the gate's replays reuse the replies of the policy's
// program when the checks out found it reproducible and its replays make
// the same device more than once.
func (g *gate) reuseReplies(out properties.Outcome) {
	if g.p.reuse == nil || !reproducible(out) || !g.repeats() {
		return
	}
	budget := g.replyBudget()
	if budget <= 0 {
		return
	}
	g.p.Factory = g.p.reuse(budget)
	g.reserved = 2 * budget
}

// reproducible reports whether the checks found every device they made
// again give the same delays, in this process and from a second one: not
// merely the share of them that passes the check.
func reproducible(out properties.Outcome) bool {
	for _, r := range out.Results {
		if r.Name == properties.NameReproducibility {
			return r.Status == verdict.Pass && r.Counterexample == nil
		}
	}
	return false
}

// repeats reports whether the gate's replays may make a device of the
// policy more than once: the search for a fix replays the gate's runs
// again, and a server model makes a device's policy for each of its
// requests. The replay of a fleet alone makes each device once, and its
// runs replay fleets of their own.
func (g *gate) repeats() bool {
	return g.cfg.Steps&Fix != 0 || g.cfg.Scenario.WithDefaults().Kind.ServerModel()
}

// replyBudget returns the bytes the replies kept for reuse may take: what
// the largest replay of the policy leaves of the memory limit (the
// smallest of the checks' and the scenario's), halved for the garbage the
// collector lets the heap grow by, and at most a quarter of the limit. The
// largest replay of the policy is the search for a fix's test that a
// change holds on other seeds, with the most runs. The replays that run
// side by side plan within the limit less the reserve (see plan).
func (g *gate) replyBudget() int64 {
	s, err := g.scenario(0)
	if err != nil {
		return 0
	}
	s = s.WithDefaults()
	limit := g.cfg.Checks.MemoryLimit
	if limit == 0 {
		limit = properties.DefaultMemoryLimit
	}
	limit = min(limit, s.MemoryLimit)
	cfg := g.cfg.Replay
	if g.cfg.Steps&Fix != 0 {
		cfg.Runs = holdsRuns(cfg.WithDefaults().Runs)
	}
	return min(limit/4, (limit-s.Memory(nil, cfg))/2)
}
