package gate

import (
	"context"
	"time"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/reports"
	"github.com/jitterkit/jitterkit/sim"
)

// The backoff of the built-in strategies compared with a policy that is not
// a spec. A storm's figure is how tightly the first retries bunch: from a
// base of 1s with a cap of 30s, over 20ms windows, no jitter peaks at the
// whole fleet while full, equal and decorrelated jitter peak at about N/32,
// N/24 and N/74 of it.
const (
	StormBase = time.Second
	StormCap  = 30 * time.Second
)

// Builtins returns the four built-in strategies with the backoff of spec
// when it is not nil, else base kit.DefaultBase (StormBase in a storm) and
// cap kit.DefaultCap (StormCap in a storm), or capAt when it is positive.
func Builtins(spec *kit.Spec, kind sim.Kind, capAt time.Duration) []kit.Spec {
	base, limit := kit.DefaultBase, kit.DefaultCap
	if kind == sim.Storm {
		base, limit = StormBase, StormCap
	}
	if capAt > 0 {
		limit = capAt
	}
	if spec != nil {
		if spec.Base > 0 {
			base = spec.Base
		}
		limit = specCap(*spec)
	}
	var out []kit.Spec
	for _, st := range kit.Strategies() {
		out = append(out, kit.Spec{Strategy: st, Base: base, Cap: max(limit, base)})
	}
	return out
}

// Headlines returns the figures a comparison on scenarios of kind shows:
// the peak of retry arrivals in a storm, where nothing is served; the peak
// ratio and the time until all are served otherwise.
func Headlines(kind sim.Kind) []sim.Figure {
	if kind == sim.Storm {
		return []sim.Figure{sim.PeakRetryArrivals}
	}
	return []sim.Figure{sim.PeakRatio, sim.AllServed}
}

// compare sets the gate's policy, whose replay is res, beside the four
// built-in strategies on the same scenario, by the scenario's first
// headline figure.
func (g *gate) compare(res sim.Result) (reports.Comparison, error) {
	f := Headlines(res.Scenario.Kind)[0]
	c := reports.Comparison{Figure: f, Scenario: res.Scenario, Config: res.Config}
	row := reports.ComparisonRow{Clients: res.Scenario.Clients}
	c.Policies = append(c.Policies, g.p.Name)
	addCell(&row, res, f)
	// The built-in strategies replay the fleet the policy did: a
	// recording's devices, else the gate's fleet, sampled as the policy's
	// was.
	clients := res.Scenario.Clients
	if g.p.IDs == nil {
		clients = 0
	}
	var cells []cell
	for _, spec := range Builtins(g.p.Spec, res.Scenario.Kind, g.cfg.Checks.Cap) {
		if g.p.Spec == nil || spec.String() != g.p.Spec.String() {
			cells = append(cells, cell{SpecPolicy(spec), clients})
		}
	}
	results, err := g.replayCells("comparison: devices", cells, 0)
	if err != nil {
		return c, err
	}
	for i, cl := range cells {
		c.Policies = append(c.Policies, cl.p.Name)
		addCell(&row, results[i], f)
	}
	c.Rows = []reports.ComparisonRow{row}
	return c, nil
}

// addCell appends res's figure f to row, and marks the cell when no run
// of an outage served a device, so that no time of serving is shown for
// it.
func addCell(row *reports.ComparisonRow, res sim.Result, f sim.Figure) {
	row.Cells = append(row.Cells, res.Summary[f])
	none := reports.ServedNone(res.Scenario, res.Summary)
	if none && row.NoneServed == nil {
		row.NoneServed = make([]bool, len(row.Cells)-1, len(row.Cells))
	}
	if row.NoneServed != nil {
		row.NoneServed = append(row.NoneServed, none)
	}
}

// smallestRecording returns the number of devices of the smallest
// recording among policies, 0 when none is one.
func smallestRecording(policies []Policy) int {
	n := 0
	for _, p := range policies {
		if p.IDs != nil && (n == 0 || len(p.IDs) < n) {
			n = len(p.IDs)
		}
	}
	return n
}

// Compare replays each policy at each fleet size on cfg's scenario, with
// cfg's replications and seed, and returns a comparison per headline
// figure of the scenario's kind (see Headlines). Without policies it
// compares the four built-in strategies (see Builtins). A policy whose
// defect stops a replay is a *DefectError; the other errors are Run's.
func Compare(ctx context.Context, policies []Policy, sizes []int, cfg Config) ([]reports.Comparison, error) {
	cfg = cfg.withDefaults()
	g := &gate{ctx: ctx, cfg: cfg}
	kind := cfg.Scenario.WithDefaults().Kind
	if len(policies) == 0 {
		for _, s := range Builtins(nil, kind, cfg.Checks.Cap) {
			policies = append(policies, SpecPolicy(s))
		}
	}
	if len(sizes) == 0 {
		sizes = []int{0}
	}
	// A row compares the policies on one fleet: beside a recording, the
	// default fleet is the recording's devices (the fewest of any two
	// recordings), so that every policy replays as many.
	if recorded := smallestRecording(policies); recorded > 0 && cfg.Scenario.Clients == 0 {
		for i, n := range sizes {
			if n == 0 {
				sizes[i] = recorded
			}
		}
	}
	var cells []cell // by fleet size, then by policy
	for _, n := range sizes {
		for _, p := range policies {
			s, err := g.scenarioOf(p, n)
			if err != nil {
				return nil, err
			}
			if err := s.Validate(cfg.Replay); err != nil {
				return nil, &InputError{err}
			}
			cells = append(cells, cell{p, n})
		}
	}
	figures := Headlines(kind)
	out := make([]reports.Comparison, len(figures))
	for i, f := range figures {
		out[i] = reports.Comparison{Figure: f, Config: cfg.Replay.WithDefaults()}
		for _, p := range policies {
			out[i].Policies = append(out[i].Policies, p.Name)
		}
	}
	results, err := g.replayCells("replay: devices", cells, 0)
	if err != nil {
		return nil, err
	}
	for j := range sizes {
		rows := make([]reports.ComparisonRow, len(figures))
		for k := range policies {
			res := results[j*len(policies)+k]
			for i, f := range figures {
				rows[i].Clients = res.Scenario.Clients
				addCell(&rows[i], res, f)
				out[i].Scenario = res.Scenario
			}
		}
		for i := range out {
			out[i].Rows = append(out[i].Rows, rows[i])
		}
	}
	for _, p := range policies {
		if p.Close != nil {
			if err := p.Close(); err != nil {
				return nil, &InputError{err}
			}
		}
	}
	return out, nil
}
