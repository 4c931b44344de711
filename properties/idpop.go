package properties

import (
	"fmt"
	"strings"

	"pgregory.net/rapid"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
)

// NameIDPopulations is the name of the check in which rapid draws
// populations of real id shapes (serials, MAC addresses, UUIDs, long
// shared prefixes, ids one character apart, very short ids), holds each
// to what chance allows of identical sequences and shrinks a failure to
// the fewest ids; not judged when chance, estimated from a fleet in
// lockstep, leaves no population able to fail.
const NameIDPopulations = "id-populations"

var _ = register(check{
	name:     NameIDPopulations,
	why:      "Fleets are named by serials, MAC addresses and shared prefixes, and a seed taken from a weak function of the id puts similarly named devices in lockstep.",
	position: 30,
	// It makes devices again: after reproducibility, whose devices must
	// not depend on how many populations rapid drew.
	after: []string{NameReproducibility},
	run:   (*runner).idPopulations,
	cause: func(*runner, *Result) Cause { return WeakSeed },
})

// maxDrawn is the largest population rapid draws for id populations: large
// enough for weak seeds to collide, small enough to shrink quickly.
const maxDrawn = 64

// A drawnFailure is the last population rapid found sharing sequences.
type drawnFailure struct {
	shape    idShape
	ids      []string
	group    []device
	pairs    float64
	limit    limit
	attempts int
}

// idPopulations has rapid draw populations of each real id shape and holds
// each to what chance allows of identical early sequences, with the chance
// of equal delays at each attempt estimated from the whole population.
// rapid shrinks a failing population to the fewest, simplest ids that still
// fail. When that chance leaves no population able to fail (see blind), the
// check is not judged rather than passed.
func (r *runner) idPopulations() Result {
	res := Result{Name: NameIDPopulations}
	if r.cfg.Source == kit.SourceTrace {
		return skipped(NameIDPopulations, "rapid draws new device ids, and a recording holds only its own devices")
	}
	if r.main.hangs > 0 || !r.main.complete() {
		return r.notRun(NameIDPopulations)
	}
	if len(r.clean) < r.cfg.Thresholds.MinDevices {
		return r.notEnough(NameIDPopulations, len(r.clean), "answered without a fault")
	}
	if first := reached(r.clean, 0); first < r.cfg.Thresholds.MinDevices {
		return r.notEnough(NameIDPopulations, first, "gave a first delay")
	}
	k := r.cfg.Attempts
	q := chanceOf(r.clean, k)
	if blind, why := r.blind(q, k); blind {
		return Result{Name: NameIDPopulations, Status: verdict.Inconclusive, Detail: why}
	}
	var last *drawnFailure
	var hung *sample
	var cases int
	tb := &rapidTB{name: "properties/" + NameIDPopulations}
	var want int
	withRapid(r.seed, func(checks int) {
		want = checks
		rapid.Check(tb, func(t *rapid.T) {
			if hung != nil {
				return
			}
			cases++
			shape := idShape(rapid.IntRange(0, int(numShapes)-1).Draw(t, "shape"))
			n := rapid.IntRange(2, maxDrawn).Draw(t, "devices")
			start := rapid.IntRange(0, 999999-maxDrawn).Draw(t, "start")
			seed := rapid.Uint64().Draw(t, "seed")
			ids := shapeIDs(shape, n, start, seed)
			s := collect(r.ctx, r.f, ids, boots{at: r.cfg.Boot}, k, r.cfg)
			if s.hangs > 0 || s.stopped != "" {
				hung = &s
				return
			}
			devs := cleanDevices(s)
			if len(devs) < 2 {
				return
			}
			g, pairs := largestGroup(devs, k)
			lim := r.chanceLimit(q, len(devs), k)
			if pairs >= lim.critical {
				last = &drawnFailure{shape: shape, ids: ids, group: g, pairs: pairs, limit: lim, attempts: k}
				t.Fatalf("%d identical pairs among %d %s; chance allows fewer than %.0f", int(pairs), len(devs), shape, lim.critical)
			}
		})
	})
	if hung != nil {
		return r.hungPopulation(res, hung, cases, k)
	}
	if !tb.failed {
		return noPopulationFailed(res, want, cases, k)
	}
	if last == nil {
		res.Status = verdict.Fail
		res.Detail = "rapid failed without a population: " + strings.Join(tb.errors, "; ")
		return res
	}
	res.Status = verdict.Fail
	res.Figure, res.Threshold, res.Unit, res.Want = last.pairs, last.limit.critical, "identical pairs", "<"
	res.Counterexample = &Counterexample{Devices: shown(last.group, k), Others: max(0, len(last.group)-maxShown), Seed: r.seed, Replay: fmt.Sprintf("%s, or -rapid.seed=%d", r.replay(), r.seed)}
	res.Detail = fmt.Sprintf("the first %d delays of %q, %s, are those of %d of %d %s (shrunk by rapid: %s), %.0f identical pairs; want fewer than %.0f (chance expects %.3g)",
		k, res.Counterexample.Devices[0].ID, formatDelays(last.group[0].delays), len(last.group), len(last.ids), last.shape,
		idList(last.ids), last.pairs, last.limit.critical, last.limit.expected)
	return res
}

// hungPopulation is the id-populations check when the collection of a
// population rapid drew, after cases populations, stopped: a failure when
// a device of it failed the policy's own way, else not judged.
func (r *runner) hungPopulation(res Result, hung *sample, cases, k int) Result {
	res.Status = verdict.Inconclusive
	res.Detail = fmt.Sprintf("not judged: the collection of a population drawn by rapid %s, after %d populations", hung.stopped, cases-1)
	for _, d := range hung.devices {
		if d.fault != nil && d.fault.defect {
			res.Status = verdict.Fail
			res.Detail = fmt.Sprintf("device %q attempt %d: %s, in a population drawn by rapid", d.id, d.fault.attempt, d.fault.msg)
			res.Counterexample = &Counterexample{Attempt: d.fault.attempt, Devices: shown([]device{d}, k), Seed: r.seed, Replay: fmt.Sprintf("%s, or -rapid.seed=%d", r.replay(), r.seed)}
			break
		}
	}
	return res
}

// noPopulationFailed is the id-populations check when none of the cases
// populations rapid drew, of the want asked for, failed: a pass, unless
// rapid drew fewer than asked.
func noPopulationFailed(res Result, want, cases, k int) Result {
	if want < 1 {
		res.Status = verdict.Inconclusive
		res.Detail = fmt.Sprintf("not run: -rapid.checks=%d asks rapid for no population; want at least 1 (the default is 100)", want)
		return res
	}
	if cases < want {
		// rapid ends a check early when, by the clock it reads, the
		// cases so far say the rest would run past its limit of a
		// day; -short does not cut the count (see withRapid).
		res.Status = verdict.Inconclusive
		res.Detail = fmt.Sprintf("rapid drew %d of the %d populations asked of it and stopped: by its clock the rest would have run past its time limit of a day (the policy is slow to make devices); none shared their first %d delays beyond chance", cases, want, k)
		return res
	}
	res.Status = verdict.Pass
	res.Detail = fmt.Sprintf("%d populations of up to %d ids of every shape drawn by rapid: no group sharing their first %d delays beyond chance", cases, maxDrawn, k)
	return res
}

// blind reports whether rapid's populations cannot fail for q, the chance
// of equal delays at each of the first k attempts, and says why. A drawn
// population fails when its identical pairs reach the chance limit, and
// the largest population, maxDrawn ids that all share their first k
// delays, holds the most pairs there can be: when even that stays under
// the limit chance sets for it, no population can fail, and a pass would
// say nothing. That is so when chance, estimated from the population,
// itself expects most ids to share their delays: a fleet in lockstep (no
// jitter, one seed for all), or delays that take only a handful of values.
func (r *runner) blind(q chance, k int) (bool, string) {
	all := float64(maxDrawn) * float64(maxDrawn-1) / 2
	lim := r.chanceLimit(q, maxDrawn, k)
	if all >= lim.critical {
		return false, ""
	}
	g, _ := largestGroup(r.clean, k)
	first := g[0].delays[:min(k, len(g[0].delays))]
	if len(g) == len(r.clean) {
		return true, fmt.Sprintf("not judged: all %d devices share their first %d delays, %s, so chance, estimated from them, expects the ids rapid draws to share them as well: no population can share more than chance; spread and clusters judge a fleet in lockstep",
			len(g), k, formatDelays(first))
	}
	return true, fmt.Sprintf("not judged: %d of %d devices share their first %d delays, %s, and chance, estimated from the population, expects %.3g identical pairs among %d ids and allows %.0f, more than the %.0f there are: the delays take too few values for any population rapid draws to share more than chance",
		len(g), len(r.clean), k, formatDelays(first), lim.expected, maxDrawn, lim.critical, all)
}

// idList writes ids as a quoted list, cut at ten.
func idList(ids []string) string {
	var b strings.Builder
	for i, id := range ids {
		if i == maxShown {
			fmt.Fprintf(&b, " ... %d more", len(ids)-maxShown)
			break
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%q", id)
	}
	return b.String()
}
