package reports

import (
	"fmt"
	"math"
	"strings"

	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/sim"
)

// Advise returns what to change in the policy, one sentence each, the
// first thing to do first: the best fix the gate replayed and saw pass
// (r.Fixes), and the others as alternatives; then the remedy of each root
// cause the checks found, once however many checks it fails; then what
// the replay found when no fix was found. A check without a remedy (a
// report made by hand) is passed on with its detail. An inconclusive or
// skipped check is no finding and gets no advice. Advise returns nil when
// there is nothing to change.
func Advise(r Report) []string {
	var advice []string
	add := func(format string, args ...any) {
		s := fmt.Sprintf(format, args...)
		for _, a := range advice {
			if a == s {
				return
			}
		}
		advice = append(advice, s)
	}
	for i, f := range r.Fixes {
		add("%s", fixSentence(f, i == 0))
	}
	for _, c := range r.Checks {
		switch {
		case !c.Status.Finding():
		case c.Remedy != "":
			add("%s", c.Remedy)
		default:
			add("Fix %q: %s.", c.Name, strings.TrimSuffix(c.Detail, "."))
		}
	}
	if p := r.Replay; p != nil && p.Stopped == nil && p.Status != verdict.Inconclusive && p.Status != verdict.Skipped {
		s := p.Scenario.WithDefaults()
		ratio := p.Summary[sim.PeakRatio].Median
		if len(r.Fixes) == 0 && (p.Status == verdict.Fail || ratio > s.Threshold) {
			add("%s", crowdAdvice(s, ratio))
		}
		if g := p.Summary[sim.GaveUp].Median; g > 0 {
			add("Allow more retries or a longer horizon: %s devices gave up before they were served (median over the runs).", num(g))
		}
	}
	return advice
}

// fixSentence says what a fix changes and what it was seen to do.
func fixSentence(f Fix, first bool) string {
	change := upperFirst(f.Change)
	if !first {
		change = "Or " + f.Change
	}
	var seen []string
	if f.PeakRatio != (sim.Estimate{}) || f.AllServed != (sim.Estimate{}) {
		seen = append(seen, fmt.Sprintf("replayed on the same scenario, its peak ratio is %s and every device is served after %s",
			interval(f.PeakRatio, ""), seconds(f.AllServed.Median)))
	}
	if f.Checked {
		seen = append(seen, "it passes every check")
	}
	if len(seen) == 0 {
		return change + "."
	}
	return change + " (" + strings.Join(seen, "; ") + ")."
}

// crowdAdvice says how wide the fleet's retries must spread at least when
// their peak crowds the server: a wave of all N devices stays within the
// threshold T of R accepted a second only when spread over at least
// N/(T·R) seconds. It is a lower bound, not a fix: the waves of later
// retries add to the first.
func crowdAdvice(s sim.Scenario, ratio float64) string {
	head := fmt.Sprintf("Spread the retries wider (peak ratio %s > %s)", num(ratio), num(s.Threshold))
	if s.Kind == sim.Storm || s.Clients <= 0 || s.AcceptRate <= 0 || s.Threshold <= 0 {
		return head + ": raise the base and the cap, or use more jitter."
	}
	span := float64(s.Clients) / (s.Threshold * s.AcceptRate)
	return fmt.Sprintf("%s: a wave of %s retries stays within %s of %s only when spread over %s at least, so the base must be longer than that, with the cap above it; no change was found that passes.",
		head, num(float64(s.Clients)), num(s.Threshold), perSecond(s.AcceptRate), seconds(math.Round(span*10)/10))
}
