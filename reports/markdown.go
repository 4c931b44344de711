package reports

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/properties"
	"github.com/jitterkit/jitterkit/sim"
)

// Markdown is report.md, the report for a pull request or a design
// document: see [WriteMarkdown].
const Markdown Format = "report.md"

var _ = register(format{file: Markdown, position: 20, render: renderMarkdown, written: func(head []byte) bool {
	return bytes.HasPrefix(head, []byte("# jitterkit: "))
}})

// WriteMarkdown writes r as Markdown for a pull request comment or a design
// document, in the order a reviewer reads it: the verdict and its reason
// in one line, what to change (the measured fix first), the checks with
// the findings first and their counterexamples, the arrival histogram of
// the replay as a Mermaid chart, the replay's figures, the comparison with
// other policies, and where the report comes from. Strings from r are
// escaped, so an id or a command cannot break a table.
func WriteMarkdown(w io.Writer, r Report) error {
	return write(w, r, renderMarkdown)
}

func renderMarkdown(r Report) ([]byte, error) {
	raw := r
	r = shown(r)
	var b bytes.Buffer
	name := r.Policy.Name
	if name == "" {
		name = policyLine(Policy{Spec: r.Policy.Spec, Command: r.Policy.Command})
	}
	fmt.Fprintf(&b, "# jitterkit: %s for %s\n\n", mdText(upper(r.Verdict)), mdText(name))
	fmt.Fprintf(&b, "%s: %s.\n", mdStatus(r.Verdict), mdText(verdictReason(r)))
	mdChange(&b, raw, r)
	mdChecks(&b, r.Checks)
	if p := r.Replay; p != nil {
		mdReplay(&b, p)
	}
	mdComparisons(&b, raw, r)
	mdSources(&b, r)
	return b.Bytes(), nil
}

// mdChange writes what to change: first, with the measured fix it comes
// from, and the rest of the advice.
func mdChange(b *bytes.Buffer, raw, r Report) {
	ch := whatToChange(raw, r)
	switch {
	case ch.First == "" && len(r.Checks) == 0 && r.Replay == nil:
		// Nothing was judged, as the reason says: nothing to change.
	case ch.First == "":
		fmt.Fprintf(b, "\n## What to change\n\n%s.\n", mdText(upperFirst(nothingToChange(r))))
	case ch.Fix != nil:
		fmt.Fprintf(b, "\n## What to change first\n\n**%s**", mdText(ch.First))
		p := fixPolicy(*ch.Fix)
		switch {
		case ch.Lead != "":
			fmt.Fprintf(b, "\n\n%s %s", mdText(ch.Lead), mdCode(p))
		case p != "":
			fmt.Fprintf(b, ": %s", mdCode(p))
		}
		fmt.Fprintf(b, "\n")
		if figures := fixFigures(*ch.Fix, threshold(r)); len(figures) > 0 {
			fmt.Fprintf(b, "\n")
			for _, f := range figures {
				fmt.Fprintf(b, "- %s\n", mdText(f))
			}
			if r.Replay != nil {
				fmt.Fprintf(b, "\nReplayed on the same scenario, %s.\n", fixRuns(*r.Replay, *ch.Fix))
			}
		}
	default:
		fmt.Fprintf(b, "\n## What to change first\n\n%s\n", mdText(ch.First))
	}
	if len(ch.Rest) > 0 {
		fmt.Fprintf(b, "\nAlso:\n\n")
		for _, a := range ch.Rest {
			fmt.Fprintf(b, "- %s\n", mdText(a))
		}
	}
}

// mdChecks writes the checks' table, findings first, and each finding's
// counterexample.
func mdChecks(b *bytes.Buffer, checks []properties.Result) {
	if len(checks) == 0 {
		return
	}
	findings, rest := findingsFirst(checks)
	fmt.Fprintf(b, "\n## Checks: %s\n\n", checkCounts(checks))
	fmt.Fprintf(b, "| Status | Check | Figure | Threshold | Detail |\n|---|---|--:|--:|---|\n")
	for _, c := range append(findings, rest...) {
		f, th := checkFigures(c)
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n", mdStatus(c.Status), mdText(c.Name),
			mdText(f), mdText(th), mdText(c.Detail))
	}
	for _, c := range findings {
		x := c.Counterexample
		if x == nil || !c.Status.Finding() {
			continue
		}
		fmt.Fprintf(b, "\n**%s**, counterexample: %s\n\n", mdText(c.Name), counterexampleHead(x))
		n, more := cut(len(x.Devices))
		for _, d := range x.Devices[:n] {
			fmt.Fprintf(b, "- %s: %s\n", mdCode(d.ID), mdText(delayList(d)))
		}
		if more != "" {
			fmt.Fprintf(b, "- %s\n", more)
		}
		if x.Replay != "" {
			fmt.Fprintf(b, "\nReplay: %s\n", mdCode(x.Replay))
		}
	}
}

// mdReplay writes the replay: its chart or its recovery windows, its
// verdict, and its figures or the counterexample that stopped it.
func mdReplay(b *bytes.Buffer, p *Replay) {
	switch {
	case p.Scenario.Kind.Recovers():
		if table := recoveryWindows(p); table != "" {
			fmt.Fprintf(b, "\n## Recovery windows\n\n%s", table)
		}
	case p.Scenario.Kind.ServerModel():
		// A contention is judged on its work and its clients, which
		// the figures hold: it has no chart.
	default:
		if chart := mermaidArrivals(p); chart != "" {
			fmt.Fprintf(b, "\n## Arrivals per window\n\n%s", chart)
		}
	}
	fmt.Fprintf(b, "\n## Replay\n\n%s: %s\n\n", mdStatus(p.Status), mdText(p.Detail))
	if x := p.Stopped; x != nil {
		fmt.Fprintf(b, "Counterexample: %s\n\n", counterexampleHead(x))
		for _, d := range x.Devices {
			fmt.Fprintf(b, "- %s: %s\n", mdCode(d.ID), mdText(delayList(d)))
		}
		if x.Replay != "" {
			fmt.Fprintf(b, "\nReplay: %s\n", mdCode(x.Replay))
		}
	} else {
		fmt.Fprintf(b, "| Figure | Median | %s |\n|---|--:|--:|\n", upperFirst(intervalHeading(p.Config.WithDefaults().Level)))
		for _, f := range summaryFigures(p) {
			fmt.Fprintf(b, "| %s | %s | %s |\n", f.label, f.median(), f.bounds(true))
		}
		fmt.Fprintf(b, "\n%s (%s).", plural(len(p.Runs), "run"), seedList(p.Runs))
		if line := stopLine(p); line != "" {
			fmt.Fprintf(b, " %s", mdText(line))
		}
		switch k := p.Scenario.Kind; {
		case k.Recovers():
			fmt.Fprintf(b, " The busiest window counts first attempts too; the peak ratio is the peak of retry arrivals over the window's accept budget of %s, reported, not judged: the replay is judged on recovery.", num(p.Budget()))
		case !k.ServerModel():
			fmt.Fprintf(b, " The busiest window counts first attempts too; the peak ratio is the peak of retry arrivals over the window's accept budget of %s.", num(p.Budget()))
		}
		fmt.Fprintf(b, "\n")
	}
}

// mdComparisons writes a table for each comparison with other policies.
func mdComparisons(b *bytes.Buffer, raw, r Report) {
	for i, c := range r.Comparisons {
		if len(c.Rows) == 0 {
			continue
		}
		label, unit := figureLabel(c.Figure)
		fmt.Fprintf(b, "\n## Comparison\n\n%s, median [interval], on %s.\n\n", upperFirst(withUnit(label, unitWord(unit))), mdText(comparisonScenario(c)))
		fmt.Fprintf(b, "| Clients |")
		for _, p := range c.Policies {
			fmt.Fprintf(b, " %s |", mdText(p))
		}
		fmt.Fprintf(b, "\n|--:|%s\n", strings.Repeat("--:|", len(c.Policies)))
		for _, row := range c.Rows {
			fmt.Fprintf(b, "| %s |", mdText(row.label()))
			for j := range row.Cells {
				fmt.Fprintf(b, " %s |", rowCell(c, row, j))
			}
			fmt.Fprintf(b, "\n")
		}
		if t := thresholdPhrase(&raw.Comparisons[i]); t != "" {
			fmt.Fprintf(b, "\nThe threshold is %s.\n", t)
		}
		if c.Note != "" {
			fmt.Fprintf(b, "\n%s\n", mdText(c.Note))
		}
	}
}

// mdSources writes where the report comes from: the policy, its command,
// the scenario and budget replayed, the seed and the versions.
func mdSources(b *bytes.Buffer, r Report) {
	fmt.Fprintf(b, "\n---\n\n")
	fmt.Fprintf(b, "- **Policy:** %s\n", mdText(policyLine(r.Policy)))
	if r.Policy.Command != "" {
		fmt.Fprintf(b, "- **Command:** %s\n", mdCode(r.Policy.Command))
	}
	if p := r.Replay; p != nil {
		fmt.Fprintf(b, "- **Scenario:** %s\n", mdText(replayLine(p)))
		if line := budgetLine(p); line != "" {
			fmt.Fprintf(b, "- **Budget:** %s\n", mdText(line))
		}
	}
	fmt.Fprintf(b, "- **Seed:** %d · jitterkit %s · schema %s\n", r.Seed, mdText(r.KitVersion), mdText(r.Schema))
}

// mermaidBins is the most bars the Mermaid chart of arrivals draws:
// windows are joined into steps beyond it, so that its labels stay
// legible.
const mermaidBins = 24

// mermaidArrivals draws the retry arrivals of the replay's representative
// run as a Mermaid xychart, which GitHub and GitLab render from a code
// block: a bar per step of windows, the most retries in one window of the
// step, and the accept budget and the threshold as lines. The first
// attempts are left out: the policy does not choose them, and they would
// set the scale. It returns "" when the replay has no histogram.
func mermaidArrivals(p *Replay) string {
	arrivals, retries := p.Histogram()
	if len(arrivals) == 0 {
		return ""
	}
	s := p.Scenario.WithDefaults()
	w := s.Window.Seconds()
	if w <= 0 {
		w = 1
	}
	budget := p.Budget()
	limit := s.Threshold * budget
	step := (len(arrivals) + mermaidBins - 1) / mermaidBins
	var xs, bars, budgets, limits []string
	var peak float64
	for i := 0; i < len(arrivals); i += step {
		most := 0
		for _, n := range retries[min(i, len(retries)):min(i+step, len(retries))] {
			most = max(most, n)
		}
		peak = max(peak, float64(most))
		xs = append(xs, strconv.FormatFloat(round3(float64(i)*w), 'f', -1, 64))
		bars = append(bars, strconv.Itoa(most))
		budgets = append(budgets, strconv.FormatFloat(budget, 'f', -1, 64))
		limits = append(limits, strconv.FormatFloat(limit, 'f', -1, 64))
	}
	top, _ := histogramScale(nil, retries, budget, limit)
	var b strings.Builder
	title := fmt.Sprintf("Retries per %s window, run %d of %d", seconds(w), p.Representative+1, len(p.Runs))
	if step > 1 {
		title = fmt.Sprintf("Most retries in one %s window per %s, run %d of %d", seconds(w), seconds(round3(float64(step)*w)), p.Representative+1, len(p.Runs))
	}
	fmt.Fprintf(&b, "```mermaid\nxychart-beta\n")
	fmt.Fprintf(&b, "    title \"%s\"\n", title)
	fmt.Fprintf(&b, "    x-axis \"time since the failure (s)\" [%s]\n", strings.Join(xs, ", "))
	fmt.Fprintf(&b, "    y-axis \"retries per %s window\" 0 --> %s\n", seconds(w), strconv.FormatFloat(top, 'f', -1, 64))
	fmt.Fprintf(&b, "    bar [%s]\n", strings.Join(bars, ", "))
	if budget > 0 {
		fmt.Fprintf(&b, "    line [%s]\n", strings.Join(budgets, ", "))
		fmt.Fprintf(&b, "    line [%s]\n", strings.Join(limits, ", "))
	}
	fmt.Fprintf(&b, "```\n\n")
	fmt.Fprintf(&b, "The bars are the retries of run %d (seed %d)", p.Representative+1, p.Runs[p.Representative].Seed)
	if step > 1 {
		fmt.Fprintf(&b, ", each bar the most in one %s window within its %s", seconds(w), seconds(round3(float64(step)*w)))
	}
	fmt.Fprintf(&b, ", up to %s; the first attempts are left out.", num(peak))
	if budget > 0 {
		upper, lower := fmt.Sprintf("the accept budget, %s", num(budget)), fmt.Sprintf("the threshold, %s × budget = %s", num(s.Threshold), num(limit))
		if limit > budget {
			upper, lower = lower, upper
		}
		fmt.Fprintf(&b, " The upper line is %s, the lower %s.", upper, lower)
	}
	fmt.Fprintf(&b, "\n")
	return b.String()
}

// recoveryWindows tabulates the recovery windows of the replay's
// representative run, as the server models judge them (see
// [sim.Scenario.RecoveryWindows]): from the instant recovery is judged
// from, rounded up to a whole second, whole windows of 5s up to the
// horizon, each with the failures and successes its clients learned in
// it, and the failures' share of those outcomes, at most 100%.
// Consecutive windows on the same side of 1% share a row, and the rows
// are cut at ten. A sentence says how the replay is judged and what the
// run did. It returns "" when the run has no series or no whole window
// follows the trigger.
func recoveryWindows(p *Replay) string {
	if p.Representative < 0 || p.Representative >= len(p.Runs) {
		return ""
	}
	run := p.Runs[p.Representative]
	s := p.Scenario.WithDefaults()
	windows := s.RecoveryWindows(run.Series)
	if len(windows) == 0 {
		return ""
	}
	type span struct {
		from, to          int // windows
		failed, succeeded int
		worst             float64 // the largest share of failures in a window
		within            bool
	}
	var spans []span
	for w, win := range windows {
		within := win.Within()
		if k := len(spans) - 1; k >= 0 && spans[k].within == within {
			spans[k].to, spans[k].failed, spans[k].succeeded = w, spans[k].failed+win.Failures, spans[k].succeeded+win.Successes
			spans[k].worst = max(spans[k].worst, win.Share())
			continue
		}
		spans = append(spans, span{from: w, to: w, failed: win.Failures, succeeded: win.Successes, worst: win.Share(), within: within})
	}
	first, width := windows[0].From, windows[0].To-windows[0].From
	var b strings.Builder
	fmt.Fprintf(&b, "| Windows | Failures | Successes | Most failures among the outcomes of a window | Each window within 1%%? |\n|---|--:|--:|--:|---|\n")
	shown, more := cut(len(spans))
	for _, sp := range spans[:shown] {
		count := plural(sp.to-sp.from+1, "window")
		yes := "no"
		if sp.within {
			yes = "yes"
		}
		fmt.Fprintf(&b, "| %s–%s (%s) | %s | %s | %s%% | %s |\n", seconds(float64(windows[sp.from].From)), seconds(float64(windows[sp.to].To)), count,
			num(float64(sp.failed)), num(float64(sp.succeeded)), num(round3(100*sp.worst)), yes)
	}
	if more != "" {
		fmt.Fprintf(&b, "| %s | | | | |\n", more)
	}
	fmt.Fprintf(&b, "\nThe replay is judged on recovery, not on the peak ratio: from %s on, in %ds windows, the service has recovered from the first window from which every window's failures are at most 1%% of the outcomes learned in it (its failures and successes, counted when the client learns them), provided some client succeeded in them. Run %d (seed %d), the median run by recovery, %s.\n",
		seconds(float64(first)), width, p.Representative+1, run.Seed, recoveryPhrase(s, run))
	return b.String()
}

// mdStatus writes a status in bold capitals.
func mdStatus(s verdict.Status) string {
	return "**" + mdText(upper(s)) + "**"
}

// mdText escapes s for Markdown text and table cells: the characters that
// start markup, and the table's bars. s is shown as Visible shows it, so it
// holds no line break; one is made a space all the same.
func mdText(s string) string {
	return mdEscaper.Replace(s)
}

var mdEscaper = strings.NewReplacer(
	`\`, `\\`, "|", `\|`, "<", `\<`, ">", `\>`, "*", `\*`, "_", `\_`,
	"`", "\\`", "[", `\[`, "]", `\]`, "#", `\#`, "\r\n", " ", "\n", " ", "\r", " ",
)

// mdCode writes s as a code span, fenced with more backticks than it holds.
func mdCode(s string) string {
	s = strings.NewReplacer("|", `\|`, "\r\n", " ", "\n", " ", "\r", " ").Replace(s)
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// seedList lists the runs' seeds, cut at ten: "seeds 1, 2, 3".
func seedList(runs []sim.Run) string {
	n, more := cut(len(runs))
	var seeds []string
	for _, r := range runs[:n] {
		seeds = append(seeds, fmt.Sprint(r.Seed))
	}
	if more != "" {
		seeds = append(seeds, more)
	}
	if len(runs) == 1 {
		return "seed " + seeds[0]
	}
	return "seeds " + strings.Join(seeds, ", ")
}
