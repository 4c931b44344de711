package reports

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/properties"
)

//go:embed report.html.tmpl
var htmlSource string

// htmlTemplate is parsed the first time a report is written as HTML, so
// that a program that writes none does not pay for it when it starts.
var htmlTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report.html").
		Funcs(template.FuncMap{"upper": upper}).
		Parse(htmlSource))
})

// HTML is report.html, the report with charts for a design review: see
// [WriteHTML].
const HTML Format = "report.html"

var _ = register(format{file: HTML, position: 30, render: renderHTML, written: func(head []byte) bool {
	return bytes.HasPrefix(head, []byte("<!DOCTYPE html>\n")) && bytes.Contains(head, []byte("<title>jitterkit "))
}})

// WriteHTML writes r as one self-contained HTML page for a reader in a
// hurry. The first screen holds the verdict, its reason in one line and
// what to change first, with the measured figures of the fix when the gate
// found one. The evidence follows: the findings before the checks that
// passed, the replay with its arrival histogram (a server model's with
// its representative run's time series), the comparison, the
// spread of the early delays, every run, and a glossary of the terms. The
// charts are inline SVG drawn by gonum.org/v1/plot; the page loads nothing
// else. Every string from r is escaped.
func WriteHTML(w io.Writer, r Report) error {
	return write(w, r, renderHTML)
}

// The view of a report that the template reads: every number formatted and
// every chart drawn. The charts are the only trusted HTML; plot escapes the
// text it draws.
type (
	htmlView struct {
		R        Report
		Name     string
		Policy   string
		Scenario string
		// Budget says what retry budget the replay gives its clients
		// and who holds it, when it gives one.
		Budget   string
		Reason   string
		Change   htmlChange
		Counts   string
		Findings []htmlCheck
		Passed   []htmlCheck
		// PassedCounts says how many of Passed passed and were skipped.
		PassedCounts string
		Replay       *htmlReplay
		Spread       template.HTML
		Comparisons  []*htmlComparison
		Glossary     []htmlTerm
	}
	htmlChange struct {
		// Nothing is set when there is nothing to change; First is empty
		// when nothing was judged.
		Nothing       bool
		First, Policy string
		// Lead introduces the fix's policy when First is a change to the
		// policy's own code.
		Lead     string
		Figures  []string
		Measured string
		Rest     []string
	}
	htmlCheck struct {
		Name, Why, Detail, Cause string
		Status                   verdict.Status
		Figure, Threshold        string
		Counterexample           *htmlCounterexample
	}
	htmlCounterexample struct {
		Head, More, Replay string
		Devices            []htmlDevice
	}
	htmlDevice struct{ ID, Delays, Err string }
	htmlReplay struct {
		Stopped *htmlCounterexample
		Status  verdict.Status
		Detail  string
		Level   string
		// Stop says how many runs a replay of the default runs made, and
		// why no more.
		Stop    string
		Figures []htmlFigure
		// RunHeads head the runs table's columns, which runCells fills.
		RunHeads []string
		Runs     []htmlRun
		Chart    template.HTML
		// ChartID is the chart's element id: histogram-chart for the
		// arrival histogram, series-chart for a server model's time
		// series.
		ChartID string
		Caption string
	}
	htmlFigure struct{ Label, Median, Interval string }
	htmlRun    struct {
		Charted bool
		Cells   []string
	}
	htmlComparison struct {
		Title, Scenario string
		Policies        []string
		Rows            [][]string
		Chart           template.HTML
		Caption         string
	}
	htmlTerm struct{ Term, Definition string }
)

// htmlCounterexampleOf formats a counterexample's devices for the page.
func htmlCounterexampleOf(x *properties.Counterexample) *htmlCounterexample {
	n, more := cut(len(x.Devices))
	hx := &htmlCounterexample{Head: counterexampleHead(x), More: more, Replay: x.Replay}
	for _, d := range x.Devices[:n] {
		var delays []string
		m, dmore := cut(len(d.Delays))
		for _, x := range d.Delays[:m] {
			delays = append(delays, kit.FormatApprox(x))
		}
		if dmore != "" {
			delays = append(delays, dmore)
		}
		hx.Devices = append(hx.Devices, htmlDevice{ID: d.ID, Delays: strings.Join(delays, ", "), Err: d.Err})
	}
	return hx
}

// htmlChecks formats checks for the page.
func htmlChecks(cs []properties.Result) []htmlCheck {
	var out []htmlCheck
	for _, c := range cs {
		hc := htmlCheck{Name: c.Name, Why: c.Why, Detail: c.Detail, Cause: string(c.Cause), Status: c.Status}
		hc.Figure, hc.Threshold = checkFigures(c)
		if x := c.Counterexample; x != nil {
			hc.Counterexample = htmlCounterexampleOf(x)
		}
		out = append(out, hc)
	}
	return out
}

func renderHTML(r Report) ([]byte, error) {
	raw := r
	r = shown(r)
	v := htmlView{R: r, Name: r.Policy.Name, Policy: policyLine(r.Policy), Reason: upperFirst(verdictReason(r)) + "."}
	if p := r.Replay; p != nil {
		v.Scenario, v.Budget = replayLine(p), budgetLine(p)
	}
	if v.Name == "" {
		v.Name = policyLine(Policy{Spec: r.Policy.Spec, Command: r.Policy.Command})
	}

	ch := whatToChange(raw, r)
	v.Change = htmlChange{First: ch.First, Rest: ch.Rest}
	if ch.First == "" && (len(r.Checks) > 0 || r.Replay != nil) {
		v.Change.Nothing, v.Change.First = true, upperFirst(nothingToChange(r))+"."
	}
	if f := ch.Fix; f != nil {
		v.Change.Lead = ch.Lead
		v.Change.Policy = fixPolicy(*f)
		v.Change.Figures = fixFigures(*f, threshold(r))
		if len(v.Change.Figures) > 0 && r.Replay != nil {
			v.Change.Measured = fmt.Sprintf("Replayed on the same scenario, %s.", fixRuns(*r.Replay, *f))
		}
	}

	findings, passed := findingsFirst(r.Checks)
	v.Counts = checkCounts(r.Checks)
	v.Findings, v.Passed = htmlChecks(findings), htmlChecks(passed)
	v.PassedCounts = checkCounts(passed)

	if p := r.Replay; p != nil {
		hr, err := htmlReplayOf(p)
		if err != nil {
			return nil, err
		}
		v.Replay = hr
	}
	if len(r.EarlyDelays) > 0 {
		chart, err := spreadChart(r.EarlyDelays)
		if err != nil {
			return nil, err
		}
		if chart != nil {
			v.Spread = template.HTML(chart)
		}
	}
	for i, c := range r.Comparisons {
		if len(c.Rows) == 0 || len(c.Policies) == 0 {
			continue
		}
		label, unit := figureLabel(c.Figure)
		hc := &htmlComparison{Title: upperFirst(withUnit(label, unitWord(unit))), Scenario: comparisonScenario(c), Policies: c.Policies}
		for _, row := range c.Rows {
			cells := []string{row.label()}
			for j := range row.Cells {
				cells = append(cells, rowCell(c, row, j))
			}
			hc.Rows = append(hc.Rows, cells)
		}
		chart, err := comparisonChart(&raw.Comparisons[i])
		if err != nil {
			return nil, err
		}
		hc.Chart = template.HTML(chart)
		hc.Caption = strings.TrimSpace(c.Note + " " + comparisonCaption(&raw.Comparisons[i]))
		v.Comparisons = append(v.Comparisons, hc)
	}
	v.Glossary = glossary(r)

	var b bytes.Buffer
	if err := htmlTemplate().Execute(&b, v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// htmlReplayOf formats the replay for the page: its figures with their
// units, every run, and its chart with its caption: the arrival
// histogram, or a server model's time series (none for a Contention).
func htmlReplayOf(p *Replay) (*htmlReplay, error) {
	hr := &htmlReplay{Status: p.Status, Detail: p.Detail, Level: upperFirst(intervalHeading(p.Config.WithDefaults().Level)), Stop: stopLine(p)}
	if x := p.Stopped; x != nil {
		hr.Stopped = htmlCounterexampleOf(x)
		return hr, nil
	}
	for _, f := range summaryFigures(p) {
		hr.Figures = append(hr.Figures, htmlFigure{
			Label:    f.label,
			Median:   f.median(),
			Interval: f.bounds(true),
		})
	}
	s := p.Scenario.WithDefaults()
	hr.RunHeads = append([]string{"Run", "Seed"}, s.Kind.RunHeads()...)
	for i, run := range p.Runs {
		hr.Runs = append(hr.Runs, htmlRun{Charted: i == p.Representative, Cells: append([]string{num(float64(i + 1)), strconv.FormatUint(run.Seed, 10)}, s.RunCells(run)...)})
	}
	switch arrivals, _ := p.Histogram(); {
	case p.Scenario.Kind.ServerModel():
		// A server model is judged on recovery, not on the arrival
		// histogram: its chart is the run's time series, when it has one
		// (a Contention has none).
		chart, err := seriesChart(p)
		if err != nil {
			return nil, err
		}
		if chart != nil {
			hr.Chart, hr.ChartID = template.HTML(chart), "series-chart"
			hr.Caption = seriesCaption(p)
		}
	case arrivals != nil:
		chart, err := histogramChart(p)
		if err != nil {
			return nil, err
		}
		hr.Chart, hr.ChartID = template.HTML(chart), "histogram-chart"
		hr.Caption = histogramCaption(p)
	}
	return hr, nil
}

// seriesCaption says what the time-series chart draws: which run, in what
// bins, what the areas, the lines, the shading and the lower panel are,
// and how the run's recovery is judged.
func seriesCaption(p *Replay) string {
	s := p.Scenario.WithDefaults()
	run := p.Runs[p.Representative]
	c := s.SeriesChart()
	w := seriesBin(len(run.Series.FirstSent))
	var b strings.Builder
	fmt.Fprintf(&b, "Run %d of %d (seed %d), the median run by recovery, ", p.Representative+1, len(p.Runs), run.Seed)
	if w == 1 {
		b.WriteString("second by second: ")
	} else {
		fmt.Fprintf(&b, "in %s bins, each the mean per second over its seconds: ", seconds(float64(w)))
	}
	fmt.Fprintf(&b, "the areas stack the %s (orange) on the %s (blue); the solid lines are what the clients learned: %s (green) and %s (red); the dashed line is the %s. The grey band is the trigger: %s",
		c.Retries, c.First, c.Successes, c.Failures, c.Capacity, c.Trigger)
	if c.Ramp != "" {
		fmt.Fprintf(&b, ", then the lighter %s", c.Ramp)
	}
	middle := "lower"
	if c.Budgeted && len(run.Series.Budget) > 0 {
		middle = "middle"
	}
	fmt.Fprintf(&b, ". The %s panel is the %s at each whole second", middle, c.Jobs)
	if s.QueueLimit > 0 {
		fmt.Fprintf(&b, ", against the queue limit of %s", num(float64(s.QueueLimit)))
	}
	if ser := run.Series; c.Budgeted && len(ser.Budget) > 0 {
		bw := budgetWordsOf(s)
		fmt.Fprintf(&b, ". %s The bottom panel is its level at each whole second, the %s (%s", s.Budget.Describe(s.Clients), bw.level, bw.whose)
		if bw.states != nil {
			fmt.Fprintf(&b, "; %s", strings.Join(bw.states, ", "))
		}
		b.WriteString(")")
		nRefused, nThrottled := sumInts(ser.Refused), sumInts(ser.Throttled)
		retries := num(float64(nRefused)) + " retries"
		if nRefused == 1 {
			retries = "1 retry"
		}
		fmt.Fprintf(&b, "; in this run it refused %s and rejected %s at the client", retries, plural(nThrottled, "attempt"))
		if nRefused+nThrottled > 0 {
			b.WriteString(", drawn with the traffic above")
		}
		switch at, stopped, ok := retriesAllowedAgain(ser, int(math.Ceil(c.From))); {
		case ok:
			fmt.Fprintf(&b, ". From %s on it refuses no retry and rejects no attempt to the run's end: retries are allowed again, the dash-dotted line", seconds(float64(at)))
		case stopped:
			b.WriteString(". Retries are never allowed again within the run: the budget still refuses retries or rejects attempts in its last second")
		default:
			fmt.Fprintf(&b, ". From the trigger's start at %s on it stopped no attempt, so no instant marks retries allowed again", seconds(c.From))
		}
	}
	fmt.Fprintf(&b, ". The replay is judged on recovery: from %s on, in 5s windows, the service has recovered from the first window from which every window's failures are at most 1%% of the outcomes learned in it (its failures and successes). This run %s",
		seconds(s.RecoveryFrom().Seconds()), recoveryPhrase(s, run))
	if run.Recovered {
		fmt.Fprintf(&b, ", at %s, the dotted line", seconds((s.RecoveryFrom() + run.RecoveredAfter).Seconds()))
	}
	b.WriteString(".")
	return b.String()
}

// histogramCaption says what the arrival chart draws: which run, what the
// bars and lines are, where the value axis is cut, and how the verdict is
// reached from it.
func histogramCaption(p *Replay) string {
	s := p.Scenario.WithDefaults()
	arrivals, retries := p.Histogram()
	budget := p.Budget()
	limit := s.Threshold * budget
	top, cut := histogramScale(arrivals, retries, budget, limit)
	var b strings.Builder
	fmt.Fprintf(&b, "Run %d of %d (seed %d), in %s windows: each bar is a window's arrivals, the retries below and the first attempts above them.",
		p.Representative+1, len(p.Runs), p.Runs[p.Representative].Seed, seconds(s.Window.Seconds()))
	if cut {
		fmt.Fprintf(&b, " The value axis stops at %s, so that the retries, the accept budget and the threshold stay readable; a bar that reaches higher is cut, with its value written beside it.", num(math.Round(top)))
	}
	if budget > 0 {
		fmt.Fprintf(&b, " The server accepts up to %s requests in each window while it is up; the replay passes when the median over the runs of the peak of retries stays within the threshold, %s × %s = %s.",
			num(budget), num(s.Threshold), num(budget), num(limit))
	}
	return b.String()
}

// comparisonCaption says what the comparison chart draws.
func comparisonCaption(c *Comparison) string {
	level := intervalHeading(c.Config.WithDefaults().Level)
	s := fmt.Sprintf("Each dot is a policy's median over %s, and the bar through it, capped at both ends, spans the %s of that median; a narrow interval shows as caps beside the dot.",
		cellRuns(*c), level)
	if t := thresholdPhrase(c); t != "" {
		s += fmt.Sprintf(" The dashed line is the threshold, %s: a dot is red when the median is over it, amber when only its interval reaches over, and green when all of it is within.", t)
	}
	return s
}

// glossary defines the terms the page uses, with the report's own
// figures where it has them, and each check by why it matters.
func glossary(r Report) []htmlTerm {
	terms := []htmlTerm{
		{"pass, fail, warn, skipped", "A check or replay passes when the property held on all the evidence it asked for and fails when it broke, with a counterexample. A warning is a real finding that fails only when asked to. A skipped check does not apply to the policy's source."},
		{"inconclusive", "The check or the replay could not gather the evidence it needs: a deadline, a source that failed, too few devices. It is never a pass, and it gives no advice, since there is no finding to act on."},
		{"delay n", "The wait a device draws before its retry n, which is its attempt n + 1. Delays count from 1 everywhere in this report, in the counterexamples and in the charts."},
		{"CV", "The coefficient of variation of the devices' delays: their standard deviation over their mean. 0 means every device waits alike; the wider the jitter, the larger it is."},
	}
	if p := r.Replay; p != nil {
		for _, t := range p.result().Terms() {
			terms = append(terms, htmlTerm{t[0], t[1]})
		}
		terms = append(terms, htmlTerm{"interval", fmt.Sprintf("The %s of a median over the runs: the range that would hold the median of many more runs, at that confidence.", intervalHeading(p.Config.WithDefaults().Level))})
	}
	for _, c := range r.Checks {
		if c.Why != "" {
			terms = append(terms, htmlTerm{c.Name, upperFirst(c.Why)})
		}
	}
	return terms
}
