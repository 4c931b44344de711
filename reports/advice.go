package reports

import (
	"cmp"
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
// cause the failed checks found, once however many checks it fails; then
// what the replay found when no fix was found; and last the remedies of
// the warnings, so that advice on a failure always comes before advice on
// a warning. For a policy that is not a spec
// and fails a check, the remedy of its first root cause comes first, since
// it says what to change in the policy's own code, and the best fix second,
// as the built-in strategy that does that and passes (see builtinSentence).
// A check without a remedy (a report made by hand) is passed on with its
// detail. An inconclusive or skipped check is no finding and gets no
// advice. Advise returns nil when there is nothing to change.
func Advise(r Report) (advice []string) {
	add := func(format string, args ...any) {
		s := fmt.Sprintf(format, args...)
		for _, a := range advice {
			if a == s {
				return
			}
		}
		advice = append(advice, s)
	}
	// The remedies of the failed checks, each in the order the checks ran;
	// the remedies of the warnings come after every piece of advice on a
	// failure, the replay's included.
	remedies, warned := checkRemedies(r, verdict.Fail), checkRemedies(r, verdict.Warn)
	defer func() {
		for _, s := range warned {
			add("%s", s)
		}
	}()
	if p := r.Replay; p != nil && p.Stopped == nil && p.Status != verdict.Skipped && p.Scenario.WithDefaults().Kind.Periodic() {
		// Timers: what to change is their offsets and the re-sends of
		// rejected firings, never a base.
		for _, a := range timerAdvice(r, remedies) {
			add("%s", a)
		}
		return advice
	}
	if p := r.Replay; p != nil && p.Stopped == nil && p.Status != verdict.Skipped && p.Status != verdict.Inconclusive && p.Scenario.Kind.ServerModel() {
		for _, a := range modelAdvice(r, remedies) {
			add("%s", a)
		}
		for _, a := range skippedAdvice(r) {
			add("%s", a)
		}
		return advice
	}
	for _, a := range fixesAndRemedies(r, remedies) {
		add("%s", a)
	}
	if p := r.Replay; p != nil && p.Stopped != nil {
		// A replay stopped by the policy's defect: a panic, a bad delay,
		// a call that never returned.
		add("%s", properties.BadDelay.Remedy())
	}
	if p := r.Replay; p != nil && p.Stopped == nil && p.Status != verdict.Inconclusive && p.Status != verdict.Skipped {
		for _, a := range peakAdvice(r, p) {
			add("%s", a)
		}
	}
	return advice
}

// fixesAndRemedies returns the measured fixes of r and the remedies of its
// failed checks, in their order: the policy's own code's remedy first when
// it is not a spec (see ownCodeFirst), else the best fix first.
func fixesAndRemedies(r Report, remedies []string) []string {
	var out []string
	if !ownCodeFirst(r) {
		for i, f := range r.Fixes {
			out = append(out, fixSentence(f, i == 0))
		}
		return append(out, remedies...)
	}
	out = append(out, remedies[0])
	if len(r.Fixes) > 0 {
		out = append(out, builtinSentence(r.Fixes[0]))
	}
	out = append(out, remedies[1:]...)
	for i, f := range r.Fixes {
		if i > 0 {
			out = append(out, fixSentence(f, false))
		}
	}
	return out
}

// peakAdvice returns the advice on the replay p of r, judged on its peak
// ratio: how to spread a crowd no fix was found for, or to obey a hint; a
// window that averages a storm away; devices that gave up unserved.
func peakAdvice(r Report, p *Replay) []string {
	var out []string
	s := p.Scenario.WithDefaults()
	ratio := p.Summary[sim.PeakRatio].Median
	switch {
	case len(r.Fixes) > 0 || (p.Status != verdict.Fail && ratio <= s.Threshold):
	case ratio <= s.Threshold && sim.AveragedAway(s, p.Summary) != "":
		// The window, not the spread, hides the storm: said below.
	case s.Server == sim.RetryAfter:
		out = append(out, hintAdvice(s, ratio))
	default:
		out = append(out, crowdAdvice(s, ratio, r.FixesNotSearched))
	}
	if hidden := sim.AveragedAway(s, p.Summary); hidden != "" {
		out = append(out, fmt.Sprintf("%s; judge the replay in 1s windows.", upperFirst(hidden)))
	}
	if slices.Contains(p.result().Warnings(), sim.GaveUpUnserved) {
		out = append(out, fmt.Sprintf("Allow more retries or a longer horizon: %s devices gave up before they were served (median over the runs).", num(p.Summary[sim.GaveUp].Median)))
	}
	return out
}

// checkRemedies returns the remedies of the checks of r with the status
// st, in the order the checks ran. A check without a remedy is passed on
// with its detail, unless its cause has none: a generator the runtime
// seeds per process (properties.ProcessGenerator) leaves its user nothing
// to change, and its check states the finding.
func checkRemedies(r Report, st verdict.Status) []string {
	var out []string
	for _, c := range r.Checks {
		switch {
		case c.Status != st:
		case c.Remedy != "":
			out = append(out, c.Remedy)
		case c.Cause != "":
		default:
			out = append(out, fmt.Sprintf("Fix %q: %s.", c.Name, strings.TrimSuffix(c.Detail, ".")))
		}
	}
	return out
}

// ownCodeFirst reports whether the advice on r begins with what to change
// in the policy's own code: the policy is not a spec, so that a fix can
// only put a built-in strategy in its place, and it fails a check, whose
// remedy says what is wrong in it. A warning's remedy never comes first:
// the advice on every failure, the replay's included, comes before it.
func ownCodeFirst(r Report) bool {
	return r.Policy.Spec == "" && slices.ContainsFunc(r.Checks, func(c properties.Result) bool { return c.Status == verdict.Fail && c.Remedy != "" })
}

// builtinSentence says, after the remedy of a policy's own code, that the
// fix's built-in strategy does what the remedy asks and passes, what else
// its change says after the spec (such as the cap it needs), and what it
// was seen to do. A fix that scales the policy is said as fixSentence says
// it.
func builtinSentence(f Fix) string {
	if f.Spec == "" {
		return fixSentence(f, false)
	}
	more := ""
	if _, after, ok := strings.Cut(f.Change, f.Spec); ok {
		more = strings.Replace(after, ", which needs", ", but it needs", 1)
	}
	return fixSentence(Fix{Change: "the built-in " + f.Spec + " does that and passes" + more, PeakRatio: f.PeakRatio, AllServed: f.AllServed, Checked: f.Checked}, true)
}

// fixSentence says what a fix changes and what it was seen to do.
func fixSentence(f Fix, first bool) string {
	change := upperFirst(f.Change)
	if !first {
		change = "Or " + f.Change
	}
	var seen []string
	switch {
	case f.AllServed != (sim.Estimate{}):
		seen = append(seen, fmt.Sprintf("replayed on the same scenario, its peak ratio is %s and every device is served after %s",
			interval(f.PeakRatio, ""), seconds(f.AllServed.Median)))
	case f.PeakRatio != (sim.Estimate{}):
		// A storm serves nothing: its fixes have a peak and no time of
		// serving.
		seen = append(seen, fmt.Sprintf("replayed on the same scenario, its peak ratio is %s", interval(f.PeakRatio, "")))
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
// N/(T·R) seconds (see crowdSpan). It is a lower bound, not a fix: the
// waves of later retries add to the first. It ends with what the search
// for a change found, or that none was run.
func crowdAdvice(s sim.Scenario, ratio float64, notSearched bool) string {
	head := fmt.Sprintf("Spread the retries wider (peak ratio %s > %s)", num(ratio), num(s.Threshold))
	searched := "no change was found that passes"
	if notSearched {
		searched = "the search for a change was not run (--fix=false, or a gate without its Fix step)"
	}
	span, ok := crowdSpan(s)
	if !ok {
		if notSearched {
			return head + ": raise the base and the cap, or use more jitter; " + searched + "."
		}
		return head + ": raise the base and the cap, or use more jitter."
	}
	return fmt.Sprintf("%s: a wave of %s retries stays within %s of %s only when spread over %s at least, so the base must be longer than that, with the cap above it; %s.",
		head, num(float64(s.Clients)), num(s.Threshold), perSecond(s.AcceptRate), seconds(span), searched)
}

// crowdSpan returns N/(T·R), the least span in seconds, to a tenth, over
// which a wave of the scenario's N devices must spread to stay within the
// threshold T of R accepted a second, and false when the scenario has no
// such bound: a storm, where nothing is accepted, or no fleet or budget.
func crowdSpan(s sim.Scenario) (float64, bool) {
	if s.Kind.ArrivalsOnly() || s.Clients <= 0 || s.AcceptRate <= 0 || s.Threshold <= 0 {
		return 0, false
	}
	return math.Round(float64(s.Clients)/(s.Threshold*s.AcceptRate)*10) / 10, true
}

// hintAdvice says what to change when the server answers every rejection
// with a fixed Retry-After and the replay crowds it: the devices wait the
// hint instead of asking their policy, so the whole fleet retries in step
// one hint after another whatever its policy, and no change of the policy
// alone can pass. The hint itself must spread the fleet, over the span a
// wave needs (see crowdSpan).
func hintAdvice(s sim.Scenario, ratio float64) string {
	head := fmt.Sprintf("Spread the Retry-After (peak ratio %s > %s): the server's fixed Retry-After of %s decides when every device retries, whatever its policy, so no change of the policy alone can pass",
		num(ratio), num(s.Threshold), duration(s.RetryAfter))
	span, ok := crowdSpan(s)
	if !ok {
		return head + "; jitter the hint the server sends, or have the devices add a jittered delay of their own to it."
	}
	return fmt.Sprintf("%s; a wave of %s retries stays within %s of %s only when spread over %s at least, so jitter the hint the server sends over that span (a Retry-After of %s plus a random share of %s), or have the devices add a jittered delay of their own to it.",
		head, num(float64(s.Clients)), num(s.Threshold), perSecond(s.AcceptRate), seconds(span), duration(s.RetryAfter), seconds(span))
}

// timerAdvice says what to change on a periodic replay: first the timers'
// offsets when their own load crowds the server (the scenario's offsets,
// which no retry policy changes, or the policy's first delay under
// sim.OffsetPolicy); then the checks' remedies; then the measured fixes,
// said as the policy that times the re-sends of rejected firings, or,
// without one, how to spread the re-sends when their peak crowds the
// server; then the firings missed. An inconclusive replay, whose policy
// never re-sent, gets no advice on its re-sends.
//
// Timers spread evenly over the period P put N·W/P of the N devices'
// firings in each window W, a timer load of N/(P·R) against R accepted a
// second: no offset brings the load under the threshold T when that is
// over T, and only a longer period or a larger accept rate does.
func timerAdvice(r Report, remedies []string) []string {
	p := r.Replay
	s := p.Scenario.WithDefaults()
	var out []string
	load := p.Summary[sim.TimerLoadRatio].Median
	if load > s.Threshold {
		even := float64(s.Clients) / (s.Period.Seconds() * s.AcceptRate)
		head := fmt.Sprintf("The timers alone put up to %s firings in one %s window, a timer load of %s over the %s threshold",
			num(p.Summary[sim.PeakFirings].Median), duration(s.Window), num(load), num(s.Threshold))
		if load > 1 {
			head += ", more than the server accepts: the server rejects firings there whatever the re-sends do"
		}
		var what string
		switch {
		case even > s.Threshold:
			what = fmt.Sprintf("spread evenly over the %s period, %s timers would still load %s of the budget of %s: no offset and no retry policy can fix that; lengthen the period or raise the accept rate",
				duration(s.Period), num(float64(s.Clients)), num(even), perSecond(s.AcceptRate))
		case s.TimerOffset == sim.OffsetPolicy:
			what = fmt.Sprintf("spread the policy's first delay, each timer's offset, evenly over the %s period (a full-jitter draw up to the period), which would load about %s", duration(s.Period), num(even))
		case s.Kind == sim.PeriodicAligned:
			what = fmt.Sprintf("give each device its own offset within the %s period, such as a hash of its id, which would load about %s; no retry policy can fix aligned timers", duration(s.Period), num(even))
		default:
			what = fmt.Sprintf("no retry policy can fix that: spread the offsets more evenly over the %s period (evenly spread, the load is about %s), lengthen the period or raise the accept rate", duration(s.Period), num(even))
		}
		out = append(out, head+"; "+what+".")
	}
	out = append(out, remedies...)
	if p.Status == verdict.Inconclusive {
		return out
	}
	for i, f := range r.Fixes {
		lead := "Time the re-sends of rejected firings with "
		if s.TimerOffset == sim.OffsetPolicy {
			lead = "Time the timers' offsets and the re-sends with "
		}
		if i > 0 {
			lead = "Or with "
		}
		if name := fixPolicy(f); name != "" {
			out = append(out, fmt.Sprintf("%s%s, which passes on the same timers (its peak ratio is %s).", lead, name, interval(f.PeakRatio, "")))
		}
	}
	if ratio := p.Summary[sim.PeakRatio].Median; len(r.Fixes) == 0 && ratio > s.Threshold {
		out = append(out, fmt.Sprintf("Spread the re-sends of rejected firings wider (peak ratio %s > %s): the firings a busy window rejects come back together unless the policy's delays are jittered; use full or decorrelated jitter, with delays within the %s period, after which the next firing supersedes the re-send; %s.",
			num(ratio), num(s.Threshold), duration(s.Period), resendSearch(s, p.Summary)))
	}
	if g := p.Summary[sim.GaveUp].Median; g > 0 {
		out = append(out, fmt.Sprintf("%s of %s devices missed a firing (%s firings missed, median over the runs): their re-sends stopped, reached the attempt limit, or were superseded by the next firing; allow more re-sends, each within the %s period.",
			num(g), num(float64(s.Clients)), num(p.Summary[sim.FiringsMissed].Median), duration(s.Period)))
	}
	return out
}

// skippedAdvice says, for each change the search for a fix skipped, that
// it was not tried and why: the scenario refuses it.
func skippedAdvice(r Report) []string {
	var out []string
	for _, f := range r.FixesSkipped {
		name := f.Change
		if f.Server != "" {
			name += " (" + f.Server + ")"
		}
		out = append(out, fmt.Sprintf("Not tried: %s, since the scenario refuses it: %s.", name, strings.TrimSuffix(f.Reason, ".")))
	}
	return out
}

// resendSearch says what the search for a policy that times the re-sends
// found: none that passes, or, for timers of the scenario's offsets that
// alone exceed the server (see sim.TimersOverload), that none was searched
// for, since no policy passes them.
func resendSearch(s sim.Scenario, sum map[sim.Figure]sim.Estimate) string {
	if s.TimerOffset != sim.OffsetPolicy && sim.TimersOverload(s, sum) != "" {
		return "no retry policy passes while the timers alone exceed the server, so none was searched for"
	}
	return "no change was found that passes"
}

// modelAdvice says what to change on a server model's replay: what keeps
// the service down, then the server-side changes replayed that end it,
// the one that recovers soonest first (the fix belongs to the server, to
// the devices' reset rule or to a budget the fleet shares, not to the
// backoff), with where a shared budget lives said once, and the checks'
// remedies.
func modelAdvice(r Report, remedies []string) []string {
	p := r.Replay
	s := p.Scenario.WithDefaults()
	out := p.result().Findings(p.Status == verdict.Fail)
	for _, w := range []sim.Warning{sim.BudgetNeverBinds, sim.BudgetNoHeadroom} {
		if text := s.BudgetWarning(w); text != "" {
			out = append(out, text)
		}
	}
	out = append(out, serverFixSentences(r.Fixes)...)
	if len(r.Fixes) == 0 && p.Status == verdict.Fail && s.Kind.Recovers() && !r.FixesNotSearched {
		out = append(out, "None of the changes replayed ("+s.ServerChangesTried()+") recovers on this scenario: limit the retries the fleet makes as a whole, with a retry budget shared by every device (--budget KIND --budget-scope fleet), or give the server more capacity.")
	}
	if len(r.Fixes) == 0 && p.Status == verdict.Fail && r.FixesNotSearched {
		out = append(out, "The server-side changes were not replayed (--fix=false, or a gate without its Fix step).")
	}
	return append(out, remedies...)
}

// serverFixSentences says the server-side changes replayed that end the
// storm, the one that recovers soonest first; the budgets next in that
// order share one sentence, which says once where a budget the fleet
// shares lives.
func serverFixSentences(all []Fix) []string {
	var out []string
	fixes, placed := byRecovery(all), false
	for i := 0; i < len(fixes); {
		if fixes[i].Side != sim.SideBudget || fixes[i].Server == "" {
			out = append(out, serverFixSentence(fixes[i], i == 0))
			i++
			continue
		}
		// The budgets next in the order share one sentence, which says
		// once where a budget the fleet shares lives.
		j := i + 1
		for j < len(fixes) && fixes[j].Side == sim.SideBudget && fixes[j].Server != "" {
			j++
		}
		out = append(out, budgetSentence(fixes[i:j], i == 0, !placed))
		i, placed = j, true
	}
	return out
}

// fleetBudgetPlace says where a budget the whole fleet shares lives, as
// the gate's sentence of each such fix says it, in parentheses.
const fleetBudgetPlace = "a proxy or gateway in front of the server, or one client for every caller"

// byRecovery returns the fixes of a server model ordered by how soon the
// service recovers after the trigger with each (the median over its runs),
// then by when every device is served; a fix without the figure comes
// after those with it, and fixes that tie keep the gate's order.
func byRecovery(fixes []Fix) []Fix {
	key := func(f Fix) (float64, float64) {
		rec, all := math.Inf(1), math.Inf(1)
		if f.Recovery != nil {
			rec = f.Recovery.Median
		}
		if f.AllServed != (sim.Estimate{}) {
			all = f.AllServed.Median
		}
		return rec, all
	}
	out := slices.Clone(fixes)
	slices.SortStableFunc(out, func(a, b Fix) int {
		ra, aa := key(a)
		rb, ab := key(b)
		return cmp.Or(cmp.Compare(ra, rb), cmp.Compare(aa, ab))
	})
	return out
}

// budgetSentence says, in one sentence, that the budgets fs, which the
// fleet shares, each end the storm, with what each was seen to do, in
// their order; place says where such a budget lives, which the advice
// says once. Each budget is named as the gate's change names it ("put
// gRPC's retry throttling, with its defaults, ..."), else by its change.
func budgetSentence(fs []Fix, first, place bool) string {
	var b strings.Builder
	b.WriteString("Share a budget across the whole fleet, with its library's defaults, so that it bounds the retries the fleet makes as a whole")
	if !first {
		b.Reset()
		b.WriteString("Or share a budget across the whole fleet, with its library's defaults")
	}
	if place {
		b.WriteString(" (it lives in " + strings.Replace(fleetBudgetPlace, ", or one", ", or in one", 1) + "; a budget that each device holds bounds its own retries only)")
	}
	b.WriteString(": ")
	for i, f := range fs {
		name := f.Change
		if rest, ok := strings.CutPrefix(f.Change, "put "); ok {
			if n, _, ok := strings.Cut(rest, ", with its defaults"); ok {
				name = n
			}
		}
		if i > 0 {
			b.WriteString("; ")
		}
		seen := serverSeen(f)
		if i > 0 {
			// The first budget's figures say where they were seen.
			seen = strings.TrimPrefix(seen, "replayed on the same fleet, the service ")
		}
		fmt.Fprintf(&b, "%s (%s; %s)", name, f.Server, seen)
	}
	b.WriteString(".")
	return b.String()
}

// serverFixSentence says what a server model's fix changes, with its flags,
// and what it was seen to do.
func serverFixSentence(f Fix, first bool) string {
	change := upperFirst(f.Change)
	if !first {
		change = "Or " + f.Change
	}
	if f.Server == "" {
		return fixSentence(f, first)
	}
	seen := serverSeen(f)
	if f.Side == sim.SideServer {
		change = "On the server: " + f.Change
		if !first {
			change = "Or, on the server: " + f.Change
		}
	}
	return fmt.Sprintf("%s (%s; %s).", change, f.Server, seen)
}

// serverSeen says what a server model's fix was seen to do when replayed.
func serverSeen(f Fix) string {
	seen := "replayed on the same fleet"
	switch {
	case f.Recovery != nil:
		seen += fmt.Sprintf(", the service recovers %s after the trigger in %d of %d runs", seconds(f.Recovery.Median), f.Recovered, f.Runs)
	case f.AllServed != (sim.Estimate{}):
		seen += fmt.Sprintf(", every device is connected after %s", seconds(f.AllServed.Median))
	}
	return seen
}
