package reports

import (
	"fmt"
	"math"
	"strings"

	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/properties"
	"github.com/jitterkit/jitterkit/sim"
)

// Advise returns what to change in the policy, one sentence per problem,
// from the findings of the checks (failed or warned) and of the replay. It
// reads the checks by their names (the properties.Name* constants) and
// quotes their figures or details; a finding of a check of another name is
// passed on with its detail. An inconclusive or
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
	// When the first delays do not differ at all, the devices share one
	// schedule, whether for lack of jitter or of a per-device seed; the
	// lockstep that clusters, frozen clock and cap phase then find is the
	// same finding, and the spread advice covers it.
	sameSchedule := false
	for _, c := range r.Checks {
		if c.Name == properties.NameSpread && c.Status == verdict.Fail && c.Figure == 0 {
			sameSchedule = true
		}
	}
	for _, c := range r.Checks {
		switch c.Name {
		case properties.NameClusters, properties.NameIDPopulations, properties.NameFrozenClock, properties.NameCapPhase:
			if sameSchedule {
				continue
			}
		}
		if !c.Status.Finding() {
			continue
		}
		switch c.Name {
		case properties.NameSpread:
			if c.Figure == 0 {
				add("Give each device its own jitter: every device waits the same delays (CV %s, want at least %s). Use full or decorrelated jitter, seeded from a stable hash of the device id, not the clock or a constant.",
					num(c.Figure), num(c.Threshold))
			} else {
				add("Use more jitter, full or decorrelated: the first delays hardly differ across devices (CV %s, want at least %s; full jitter gives 0.577).",
					num(c.Figure), num(c.Threshold))
			}
		case properties.NameClusters, properties.NameIDPopulations:
			add("Seed each device's generator from a stable hash of its whole id, not a constant or part of the id: groups of devices walk in lockstep (%s).",
				c.Detail)
		case properties.NameFrozenClock:
			add("Seed from the device id, not the clock: devices that boot in the same second draw the same delays.")
		case properties.NameReproducibility:
			add("Seed from the device id, so that a device draws the same delays after a restart and a failure can be replayed.")
		case properties.NameCapPhase:
			if c.Figure == 0 {
				add("The jitter vanishes at the cap: apply it after capping (cap the window, then draw the delay within it).")
			} else {
				add("The jitter becomes negligible at later attempts (CV %s, want at least %s): draw it within the whole window, as full or equal jitter do, rather than adding a fixed amount.",
					num(c.Figure), num(c.Threshold))
			}
		case properties.NameBounds:
			add("Return finite delays between 0 and the cap, and never panic: %s.", strings.TrimSuffix(c.Detail, "."))
		case properties.NameConformance:
			add("Make the delays follow the declared strategy, or declare the one they follow: %s.", strings.TrimSuffix(c.Detail, "."))
		default:
			add("Fix %q: %s.", c.Name, strings.TrimSuffix(c.Detail, "."))
		}
	}
	if p := r.Replay; p != nil && p.Status != verdict.Inconclusive && p.Status != verdict.Skipped {
		s := p.Scenario.WithDefaults()
		ratio := p.Summary[sim.PeakRatio].Median
		if p.Stopped == nil && (p.Status == verdict.Fail || ratio > s.Threshold) {
			add("%s", crowdAdvice(s, ratio))
		}
		if g := p.Summary[sim.GaveUp].Median; g > 0 {
			add("Allow more retries or a longer horizon: %s devices gave up before they were served (median over the runs).", num(g))
		}
	}
	return advice
}

// crowdAdvice says how wide the fleet's retries must spread when their peak
// crowds the server: a wave of all N devices stays within the threshold T
// of R accepted a second only when spread over at least N/(T·R) seconds.
func crowdAdvice(s sim.Scenario, ratio float64) string {
	head := fmt.Sprintf("Spread the retries wider (peak ratio %s > %s)", num(ratio), num(s.Threshold))
	if s.Kind == sim.Storm || s.Clients <= 0 || s.AcceptRate <= 0 || s.Threshold <= 0 {
		return head + ": raise the base and the cap, or use more jitter."
	}
	span := float64(s.Clients) / (s.Threshold * s.AcceptRate)
	return fmt.Sprintf("%s: a wave of %s retries stays within %s of %s only when spread over at least %s, so raise the base toward that, with the cap above it, or use more jitter.",
		head, num(float64(s.Clients)), num(s.Threshold), perSecond(s.AcceptRate), seconds(math.Round(span*10)/10))
}
