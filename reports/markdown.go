package reports

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/sim"
)

// WriteMarkdown writes r as Markdown for a pull request or a design
// document: the verdict, the checks with their counterexamples, the replay's
// figures, the comparison with other policies, and what to change. Strings
// from r are escaped, so an id or a command cannot break a table.
func WriteMarkdown(w io.Writer, r Report) error {
	return write(w, r, renderMarkdown)
}

func renderMarkdown(r Report) ([]byte, error) {
	r = shown(r)
	var b bytes.Buffer
	name := r.Policy.Name
	if name == "" {
		name = policyLine(Policy{Spec: r.Policy.Spec, Command: r.Policy.Command})
	}
	fmt.Fprintf(&b, "# jitterkit: %s for %s\n\n", mdText(upper(r.Verdict)), mdText(name))
	fmt.Fprintf(&b, "- **Verdict:** %s\n", mdText(upper(r.Verdict)))
	fmt.Fprintf(&b, "- **Policy:** %s\n", mdText(policyLine(r.Policy)))
	if r.Policy.Command != "" {
		fmt.Fprintf(&b, "- **Command:** %s\n", mdCode(r.Policy.Command))
	}
	if p := r.Replay; p != nil {
		fmt.Fprintf(&b, "- **Scenario:** %s\n", mdText(scenarioLine(p.Scenario, p.Config.Runs)))
	}
	fmt.Fprintf(&b, "- **Seed:** %d · jitterkit %s · schema %s\n", r.Seed, mdText(r.KitVersion), mdText(r.Schema))

	if len(r.Checks) > 0 {
		fmt.Fprintf(&b, "\n## Checks\n\n")
		fmt.Fprintf(&b, "| Status | Check | Figure | Threshold | Detail |\n|---|---|--:|--:|---|\n")
		for _, c := range r.Checks {
			f, th := checkFigures(c)
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", mdStatus(c.Status), mdText(c.Name),
				mdText(f), mdText(th), mdText(c.Detail))
		}
		for _, c := range r.Checks {
			x := c.Counterexample
			if x == nil || !c.Status.Finding() {
				continue
			}
			fmt.Fprintf(&b, "\n**%s**, counterexample: %s\n\n", mdText(c.Name), counterexampleHead(x))
			n, more := cut(len(x.Devices))
			for _, d := range x.Devices[:n] {
				fmt.Fprintf(&b, "- %s: %s\n", mdCode(d.ID), mdText(delayList(d)))
			}
			if more != "" {
				fmt.Fprintf(&b, "- %s\n", more)
			}
			if x.Replay != "" {
				fmt.Fprintf(&b, "\nReplay: %s\n", mdCode(x.Replay))
			}
		}
	}

	if p := r.Replay; p != nil {
		fmt.Fprintf(&b, "\n## Replay\n\n%s: %s\n\n", mdStatus(p.Status), mdText(p.Detail))
		if x := p.Stopped; x != nil {
			fmt.Fprintf(&b, "Counterexample: %s\n\n", counterexampleHead(x))
			for _, d := range x.Devices {
				fmt.Fprintf(&b, "- %s: %s\n", mdCode(d.ID), mdText(delayList(d)))
			}
			if x.Replay != "" {
				fmt.Fprintf(&b, "\nReplay: %s\n", mdCode(x.Replay))
			}
		} else {
			fmt.Fprintf(&b, "| Figure | Median | %s |\n|---|--:|--:|\n", upperFirst(intervalHeading(p.Config.Level)))
			for _, f := range summaryFigures(p.Summary) {
				fmt.Fprintf(&b, "| %s | %s | [%s, %s] |\n", f.label, withUnit(num(f.iv.Median), f.unit), num(f.iv.Low), num(f.iv.High))
			}
			fmt.Fprintf(&b, "\n%s (%s). The busiest window counts first attempts too; the peak ratio is the peak of retry arrivals over the window's accept budget of %s.\n",
				plural(len(p.Runs), "run"), seedList(p.Runs), num(p.Budget()))
		}
	}

	for _, c := range r.Comparisons {
		if len(c.Rows) == 0 {
			continue
		}
		label, unit := figureLabel(c.Figure)
		fmt.Fprintf(&b, "\n## Comparison\n\n%s, median [interval], on %s.\n\n", upperFirst(withUnit(label, unitWord(unit))), mdText(scenarioLine(c.Scenario, c.Config.Runs)))
		fmt.Fprintf(&b, "| Clients |")
		for _, p := range c.Policies {
			fmt.Fprintf(&b, " %s |", mdText(p))
		}
		fmt.Fprintf(&b, "\n|--:|%s\n", strings.Repeat("--:|", len(c.Policies)))
		for _, row := range c.Rows {
			fmt.Fprintf(&b, "| %s |", num(float64(row.Clients)))
			for _, iv := range row.Cells {
				fmt.Fprintf(&b, " %s |", interval(iv, ""))
			}
			fmt.Fprintf(&b, "\n")
		}
	}

	fmt.Fprintf(&b, "\n## What to change\n\n")
	if len(r.Advice) == 0 {
		fmt.Fprintf(&b, "%s.\n", upperFirst(nothingToChange(r)))
	}
	for _, a := range r.Advice {
		fmt.Fprintf(&b, "- %s\n", mdText(a))
	}
	return b.Bytes(), nil
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
