package reports

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/properties"
	"github.com/jitterkit/jitterkit/sim"
)

// This file holds what every format for people says first: the verdict's
// reason in one line, what to change first, and the checks with the
// findings before the rest. The text summary, Markdown, HTML and JUnit
// all take them from here, so that they say the same thing.

// verdictReason says in one line why r has its verdict, naming the parts
// that decided it: "the replay's peak ratio 2.56 is over the 0.6
// threshold", "3 checks failed: spread, clusters, cap-phase", "no
// verdict: the frozen-clock check was inconclusive". It begins with a
// small letter and has no full stop, so that each format can frame it.
func verdictReason(r Report) string {
	n := checksByStatus(r.Checks)
	replay := replayReason(r.Replay)
	replayStatus := verdict.Skipped
	if r.Replay != nil {
		replayStatus = r.Replay.Status
	}
	switch r.Verdict {
	case verdict.Pass:
		return passReason(r, n, replay, replayStatus)
	case verdict.Inconclusive:
		return inconclusiveReason(r, n, replay, replayStatus)
	case verdict.Warn:
		if reason := warnReason(n, replay, replayStatus); reason != "" {
			return reason
		}
	}
	// A fail, or a verdict that is not one of jitterkit's: name what
	// failed.
	var parts []string
	if replayStatus == verdict.Fail {
		parts = append(parts, replay)
	}
	switch len(n.failed) {
	case 0:
	case 1:
		parts = append(parts, fmt.Sprintf("the %s check failed", n.failed[0]))
	default:
		parts = append(parts, fmt.Sprintf("%s failed: %s", plural(len(n.failed), "check"), names(n.failed)))
	}
	if len(parts) == 0 {
		return "no check and no replay in the report failed"
	}
	return joinReasons(parts)
}

// checkNames are the names of a report's checks by their status.
type checkNames struct {
	failed, inconclusive, warned, passed, skipped []string
}

// checksByStatus sorts the names of checks by their status; a status that
// is not one of jitterkit's counts as failed.
func checksByStatus(checks []properties.Result) checkNames {
	var n checkNames
	for _, c := range checks {
		switch c.Status {
		case verdict.Pass:
			n.passed = append(n.passed, c.Name)
		case verdict.Warn:
			n.warned = append(n.warned, c.Name)
		case verdict.Inconclusive:
			n.inconclusive = append(n.inconclusive, c.Name)
		case verdict.Skipped:
			n.skipped = append(n.skipped, c.Name)
		default:
			n.failed = append(n.failed, c.Name)
		}
	}
	return n
}

// passReason is verdictReason of a report r that passed: the replay's
// reason and how the checks passed, or that nothing was judged.
func passReason(r Report, n checkNames, replay string, replayStatus verdict.Status) string {
	var parts []string
	if replay != "" && replayStatus != verdict.Skipped {
		parts = append(parts, replay)
	}
	switch {
	case len(n.passed) > 0 && len(n.warned) == 0 && len(n.skipped) > 0:
		parts = append(parts, fmt.Sprintf("%s passed and %s did not apply: %s", plural(len(n.passed), "check"), num(float64(len(n.skipped))), names(n.skipped)))
	case len(n.passed) > 0 && len(n.warned) == 0:
		parts = append(parts, allPassed(len(n.passed)))
	case len(n.passed) > 0:
		parts = append(parts, fmt.Sprintf("%s passed and %s warned: %s", plural(len(n.passed), "check"), num(float64(len(n.warned))), names(n.warned)))
	case len(n.warned) > 0:
		parts = append(parts, fmt.Sprintf("%s warned: %s", plural(len(n.warned), "check"), names(n.warned)))
	}
	switch {
	case len(parts) > 0:
		return joinReasons(parts)
	case len(r.Comparisons) > 0:
		return "nothing was judged: the report compares policies, with no checks and no replay"
	}
	return "nothing was judged: the report holds no checks and no replay"
}

// inconclusiveReason is verdictReason of a report r with no verdict: what
// was inconclusive, or why nothing could be judged.
func inconclusiveReason(r Report, n checkNames, replay string, replayStatus verdict.Status) string {
	var parts []string
	if replayStatus == verdict.Inconclusive {
		parts = append(parts, replay)
	}
	if len(n.inconclusive) > 0 {
		parts = append(parts, checksWere(n.inconclusive, "inconclusive"))
	}
	if len(parts) == 0 {
		switch {
		case len(r.Checks) == 0 && r.Replay == nil:
			parts = append(parts, "the report holds no checks and no replay")
		case len(n.skipped) == len(r.Checks) && (r.Replay == nil || replayStatus == verdict.Skipped):
			parts = append(parts, "every check was skipped")
		default:
			parts = append(parts, "too little evidence was gathered")
		}
	}
	return "no verdict: " + joinReasons(parts)
}

// warnReason is verdictReason of a report that warned: what warned, or ""
// when neither the replay nor a check did.
func warnReason(n checkNames, replay string, replayStatus verdict.Status) string {
	var parts []string
	if replayStatus == verdict.Warn {
		parts = append(parts, replay)
	}
	switch len(n.warned) {
	case 0:
	case 1:
		parts = append(parts, fmt.Sprintf("the %s check warned", n.warned[0]))
	default:
		parts = append(parts, fmt.Sprintf("%s warned: %s", plural(len(n.warned), "check"), names(n.warned)))
	}
	if len(parts) == 0 {
		return ""
	}
	return joinReasons(parts)
}

// replayReason says what the replay found, in the terms of its verdict:
// the median peak ratio against the threshold, or why there is none.
func replayReason(p *Replay) string {
	switch {
	case p == nil:
		return ""
	case p.Stopped != nil:
		x := p.Stopped
		if len(x.Devices) == 0 {
			return "a defect of the policy stopped the replay"
		}
		if x.Attempt > 0 {
			return fmt.Sprintf("a defect of the policy stopped the replay at device \"%s\", delay %d", x.Devices[0].ID, x.Attempt)
		}
		return fmt.Sprintf("a defect of the policy stopped the replay at device \"%s\"", x.Devices[0].ID)
	case p.Status == verdict.Inconclusive && p.Scenario.Kind.ServerModel() && p.result().Unjudged() != "":
		return "the replay judged nothing of the policy: " + p.result().Unjudged()
	case p.Status == verdict.Inconclusive && p.Scenario.Kind.ServerModel() && len(p.Runs) > 0 && p.Summary[sim.Attempts].Median == 0:
		return fmt.Sprintf("nothing was sent within the replay's %s horizon in the median run, so its recovery is no evidence", duration(p.Scenario.WithDefaults().Horizon))
	case p.Status == verdict.Inconclusive && len(p.Runs) > 0 && p.Summary[sim.PeakRetryArrivals].Median == 0:
		return fmt.Sprintf("no device retried within the replay's %s horizon in the median run, so it has no retries to judge", duration(p.Scenario.WithDefaults().Horizon))
	case p.Status == verdict.Inconclusive && len(p.Runs) > 0 && len(p.Runs) < sim.MinRunsToPass:
		return fmt.Sprintf("%s cannot pass the replay: one fleet's peak is no interval; want at least %d runs", plural(len(p.Runs), "run"), sim.MinRunsToPass)
	case p.Status == verdict.Inconclusive:
		return "the replay was inconclusive"
	case p.Status == verdict.Skipped:
		return "the replay was skipped"
	case len(p.Runs) == 0:
		return "the replay has no runs"
	}
	s := p.Scenario.WithDefaults()
	if s.Kind.ServerModel() {
		return p.result().Found()
	}
	ratio := p.Summary[sim.PeakRatio]
	head := fmt.Sprintf("the replay's peak ratio %s%s is", num(ratio.Median), onDefaultFleet(p))
	if ratio.Median > s.Threshold {
		return fmt.Sprintf("%s over the %s threshold", head, num(s.Threshold))
	}
	if crowd := sim.OffsetsCrowd(s, p.Summary); crowd != "" {
		return crowd
	}
	head = fmt.Sprintf("%s within the %s threshold", head, num(s.Threshold))
	if p.Status == verdict.Pass {
		return head
	}
	switch w := p.result().Warnings(); {
	case slices.Contains(w, sim.IntervalOver):
		head += fmt.Sprintf(", but its interval reaches %s", num(ratio.High))
	case slices.Contains(w, sim.StillPending):
		head += fmt.Sprintf(", but %s devices were still retrying at the horizon", num(p.Summary[sim.Pending].Median))
	case slices.Contains(w, sim.GaveUpUnserved):
		head += fmt.Sprintf(", but %s of %s devices gave up before they were served", num(p.Summary[sim.GaveUp].Median), num(float64(s.Clients)))
	case slices.Contains(w, sim.WideWindow):
		head += ", but " + sim.AveragedAway(s, p.Summary)
	case p.Sample != nil && ratio.Median*(1+p.Sample.Error) > s.Threshold:
		head += fmt.Sprintf(", but the whole fleet's may be over it: a sample's error is %s%%", num(100*p.Sample.Error))
	}
	return head
}

// onDefaultFleet returns " on the default fleet" when the replay's fleet
// is sim's default in every part its kind replays: the clients, the accept
// rate (but in a storm, which judges arrivals alone) and the down time
// where the kind has one, of devices drawn rather than recorded, and not a
// sample. The peak ratio it qualifies is then the default scenario's
// (every format names its figures beside the reason), which says little
// of the fleet the policy serves. It returns "" for any other fleet. A
// fleet described with the default's values reads as the default, as it
// is.
func onDefaultFleet(p *Replay) string {
	s := p.Scenario.WithDefaults()
	def := sim.Scenario{Kind: s.Kind}.WithDefaults()
	switch {
	case p.Sample != nil || len(s.IDs) > 0:
		return ""
	case s.Clients != def.Clients || s.Down != def.Down:
		return ""
	case !s.Kind.ArrivalsOnly() && s.AcceptRate != def.AcceptRate:
		return ""
	}
	return " on the default fleet"
}

// result returns the replay as sim's result, for the rules sim judges it
// by (see sim.Result.Warnings).
func (p *Replay) result() sim.Result {
	return sim.Result{Scenario: p.Scenario, Config: p.Config, Runs: p.Runs, Representative: p.Representative, Summary: p.Summary,
		Baselines: p.Baselines, TippingPoint: p.TippingPoint, Stop: p.Stop}
}

// allPassed says that n checks passed.
func allPassed(n int) string {
	if n == 1 {
		return "its one check passed"
	}
	return fmt.Sprintf("all %s checks passed", num(float64(n)))
}

// checksWere says which checks had the status: "the frozen-clock check
// was inconclusive", "2 checks were inconclusive: a, b".
func checksWere(list []string, status string) string {
	if len(list) == 1 {
		return fmt.Sprintf("the %s check was %s", list[0], status)
	}
	return fmt.Sprintf("%s were %s: %s", plural(len(list), "check"), status, names(list))
}

// names lists check names, cut at ten.
func names(list []string) string {
	n, more := cut(len(list))
	out := slices.Clone(list[:n])
	if more != "" {
		out = append(out, more)
	}
	return strings.Join(out, ", ")
}

// joinReasons joins the parts of a reason: "a", "a, and b". A part that
// lists names after a colon comes last, so that the list ends the line.
func joinReasons(parts []string) string {
	if len(parts) == 1 {
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + ", and " + parts[len(parts)-1]
}

// A change is what a report says to change first: in words, with the
// measured fix it comes from when there is one, and the rest of the advice
// after it.
type change struct {
	// First is what to change first, in words, or "" when there is
	// nothing to change.
	First string
	// Fix is the measured fix First comes from, or that does what First
	// says, or nil.
	Fix *Fix
	// Lead introduces Fix when First is not the fix itself but a change
	// to the policy's own code, and is empty otherwise.
	Lead string
	// Sentence is the fix in one sentence with its figures, as the advice
	// says it, or "" without Fix.
	Sentence string
	// Rest is the rest of the advice, in order.
	Rest []string
}

// whatToChange returns what r says to change first, and the rest. The
// first is r.Fixes[0] when the advice begins with that measured fix; the
// remedy of the policy's own code, with r.Fixes[0] as the built-in that
// does it, when the advice begins so (see Advise); else r.Advice[0]. The sentence that Advise writes for the first fix is left
// out of Rest, since First already says it. raw is the report as given and
// r the same report as shown (see shown): the sentences are matched on raw
// and taken from r.
func whatToChange(raw, r Report) change {
	var ch change
	if len(r.Fixes) > 0 && len(raw.Advice) > 1 && raw.Advice[1] == builtinSentence(raw.Fixes[0]) && raw.Fixes[0].Spec != "" {
		// The policy's own code first, then the built-in that does it.
		ch.First, ch.Fix, ch.Lead = r.Advice[0], &r.Fixes[0], "The built-in strategy that does that passes:"
		ch.Sentence = r.Advice[1]
		ch.Rest = r.Advice[2:]
		return ch
	}
	if len(r.Fixes) > 0 && len(raw.Advice) > 0 && raw.Advice[0] == fixSentence(raw.Fixes[0], true) {
		ch.Fix = &r.Fixes[0]
		ch.First = upperFirst(fixWords(r.Fixes[0]))
		said := fixSentence(raw.Fixes[0], true)
		for i, a := range r.Advice {
			if i < len(raw.Advice) && raw.Advice[i] == said {
				ch.Sentence = a
				continue
			}
			ch.Rest = append(ch.Rest, a)
		}
		return ch
	}
	if len(r.Advice) > 0 {
		ch.First, ch.Rest = r.Advice[0], r.Advice[1:]
	}
	return ch
}

// fixWords says what a fix changes, without the changed spec that
// Fix.Change ends with when it has one: "raise the base from 10s to 50s".
func fixWords(f Fix) string {
	if f.Spec != "" {
		if words, ok := strings.CutSuffix(f.Change, ": "+f.Spec); ok && words != "" {
			return words
		}
	}
	return f.Change
}

// fixPolicy names the policy a fix makes: its spec, or how it scales the
// policy's delays.
func fixPolicy(f Fix) string {
	if f.Spec != "" {
		return f.Spec
	}
	if f.Scale != 0 {
		return "every delay × " + num(round3(f.Scale))
	}
	return ""
}

// fixFigures says what the replay of a fix measured, one phrase each:
// "peak ratio 0.546 [0.543, 0.55], threshold 0.6", "every device served
// after 179.5 s [179.3, 179.7]", "passes every check". threshold is the
// scenario's, or 0 when the report has no replay.
func fixFigures(f Fix, threshold float64) []string {
	var out []string
	if f.PeakRatio != (sim.Estimate{}) || f.AllServed != (sim.Estimate{}) {
		ratio := "peak ratio " + interval(f.PeakRatio, "")
		if threshold > 0 {
			ratio += ", threshold " + num(threshold)
		}
		out = append(out, ratio, "every device served after "+interval(f.AllServed, "s"))
	}
	if f.Checked {
		out = append(out, "passes every check")
	}
	return out
}

// fixRuns says how many runs the replay of the fix f of the replay p made:
// "20 runs", or "6 of at most 20 runs" for a replay of the default runs
// that stopped early.
func fixRuns(p Replay, f Fix) string {
	most := p.Config.WithDefaults().Runs
	if f.Runs > 0 && f.Runs < most {
		return fmt.Sprintf("%d of at most %s", f.Runs, plural(most, "run"))
	}
	return plural(most, "run")
}

// threshold returns the threshold of r's replay, or 0 when it has none.
func threshold(r Report) float64 {
	if r.Replay == nil {
		return 0
	}
	return r.Replay.Scenario.WithDefaults().Threshold
}

// statusRank orders the statuses for a reader: failures (and a status
// that is not one of jitterkit's) first, then inconclusive checks and
// warnings, then passes and skipped checks.
func statusRank(s verdict.Status) int {
	switch s {
	case verdict.Inconclusive:
		return 1
	case verdict.Warn:
		return 2
	case verdict.Pass:
		return 3
	case verdict.Skipped:
		return 4
	}
	return 0
}

// findingsFirst splits the checks into those a reader must look at (a
// failure, an inconclusive check, a warning), most serious first, and the
// rest (passed and skipped), each group in the order the checks ran.
func findingsFirst(cs []properties.Result) (findings, rest []properties.Result) {
	sorted := slices.Clone(cs)
	slices.SortStableFunc(sorted, func(a, b properties.Result) int { return cmp.Compare(statusRank(a.Status), statusRank(b.Status)) })
	i := slices.IndexFunc(sorted, func(c properties.Result) bool { return statusRank(c.Status) >= statusRank(verdict.Pass) })
	if i < 0 {
		return sorted, nil
	}
	return sorted[:i], sorted[i:]
}

// checkCounts says how many checks had each status, most serious first:
// "3 failed, 1 inconclusive, 4 passed".
func checkCounts(cs []properties.Result) string {
	counts := map[int]int{}
	for _, c := range cs {
		counts[statusRank(c.Status)]++
	}
	var parts []string
	for rank, word := range []string{"failed", "inconclusive", "warned", "passed", "skipped"} {
		if n := counts[rank]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %s", num(float64(n)), word))
		}
	}
	return strings.Join(parts, ", ")
}
