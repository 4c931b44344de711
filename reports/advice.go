package reports

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/properties"
	"github.com/jitterkit/jitterkit/sim"
)

// Advise returns what to change in the policy, one sentence each, the
// first thing to do first: the best fix the gate replayed and saw pass
// (r.Fixes), and the others as alternatives; then the remedy of each root
// cause the checks found, once however many checks it fails; then what
// the replay found when no fix was found. For a policy that is not a spec
// and fails a check, the remedy of its first root cause comes first, since
// it says what to change in the policy's own code, and the best fix second,
// as the built-in strategy that does that and passes (see builtinSentence).
// A check without a remedy (a report made by hand) is passed on with its
// detail. An inconclusive or skipped check is no finding and gets no
// advice. Advise returns nil when there is nothing to change.
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
	// The remedies of the failed checks, then of the warnings, each in
	// the order the checks ran.
	var remedies []string
	for _, status := range []verdict.Status{verdict.Fail, verdict.Warn} {
		for _, c := range r.Checks {
			switch {
			case c.Status != status:
			case c.Remedy != "":
				remedies = append(remedies, c.Remedy)
			default:
				remedies = append(remedies, fmt.Sprintf("Fix %q: %s.", c.Name, strings.TrimSuffix(c.Detail, ".")))
			}
		}
	}
	if ownCodeFirst(r) {
		add("%s", remedies[0])
		if len(r.Fixes) > 0 {
			add("%s", builtinSentence(r.Fixes[0]))
		}
		for _, s := range remedies[1:] {
			add("%s", s)
		}
		for i, f := range r.Fixes {
			if i > 0 {
				add("%s", fixSentence(f, false))
			}
		}
	} else {
		for i, f := range r.Fixes {
			add("%s", fixSentence(f, i == 0))
		}
		for _, s := range remedies {
			add("%s", s)
		}
	}
	if p := r.Replay; p != nil && p.Stopped != nil {
		// A replay stopped by the policy's defect: a panic, a bad delay,
		// a call that never returned.
		add("%s", properties.BadDelay.Remedy())
	}
	if p := r.Replay; p != nil && p.Stopped == nil && p.Status != verdict.Inconclusive && p.Status != verdict.Skipped {
		s := p.Scenario.WithDefaults()
		ratio := p.Summary[sim.PeakRatio].Median
		if len(r.Fixes) == 0 && (p.Status == verdict.Fail || ratio > s.Threshold) {
			add("%s", crowdAdvice(s, ratio))
		}
		if slices.Contains(p.result().Warnings(), sim.GaveUpUnserved) {
			add("Allow more retries or a longer horizon: %s devices gave up before they were served (median over the runs).", num(p.Summary[sim.GaveUp].Median))
		}
	}
	return advice
}

// ownCodeFirst reports whether the advice on r begins with what to change
// in the policy's own code: the policy is not a spec, so that a fix can
// only put a built-in strategy in its place, and it fails a check, whose
// remedy says what is wrong in it. A warning alone comes first only when
// the replay did not fail: its remedy does not fix a storm, which the best
// fix does.
func ownCodeFirst(r Report) bool {
	if r.Policy.Spec != "" {
		return false
	}
	if slices.ContainsFunc(r.Checks, func(c Check) bool { return c.Status == verdict.Fail }) {
		return true
	}
	storm := r.Replay != nil && r.Replay.Status == verdict.Fail
	return !storm && slices.ContainsFunc(r.Checks, func(c Check) bool { return c.Status == verdict.Warn })
}

// builtinSentence says, after the remedy of a policy's own code, that the
// fix's built-in strategy does what the remedy asks and passes, and what it
// was seen to do. A fix that scales the policy is said as fixSentence says
// it.
func builtinSentence(f Fix) string {
	if f.Spec == "" {
		return fixSentence(f, false)
	}
	s := fixSentence(Fix{Change: "the built-in " + f.Spec + " does that and passes", PeakRatio: f.PeakRatio, AllServed: f.AllServed, Checked: f.Checked}, true)
	return s
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
