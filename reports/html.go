package reports

import (
	"bytes"
	_ "embed"
	"html/template"
	"io"
	"strings"

	"github.com/jitterkit/jitterkit/kit/verdict"
)

//go:embed report.html.tmpl
var htmlSource string

var htmlTemplate = template.Must(template.New("report.html").
	Funcs(template.FuncMap{"upper": upper}).
	Parse(htmlSource))

// WriteHTML writes r as one self-contained HTML page: the verdict, the
// checks with their counterexamples, the replay's figures with its arrival
// histogram, the spread of the early delays, the comparison, and what to
// change. The charts are inline SVG drawn by gonum.org/v1/plot; the page
// loads nothing else. Every string from r is escaped.
func WriteHTML(w io.Writer, r Report) error {
	return write(w, r, renderHTML)
}

// The view of a report that the template reads: every number formatted and
// every chart drawn. The charts are the only trusted HTML; plot escapes the
// text it draws.
type (
	htmlView struct {
		R           Report
		Name        string
		Nothing     string
		Policy      string
		Scenario    string
		Checks      []htmlCheck
		Replay      *htmlReplay
		Spread      template.HTML
		Comparisons []*htmlComparison
	}
	htmlCheck struct {
		Name, Why, Detail string
		Status            verdict.Status
		Figure, Threshold string
		Counterexample    *htmlCounterexample
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
		Seed    uint64
		Figures []htmlFigure
		Runs    [][]string
		Chart   template.HTML
	}
	htmlFigure     struct{ Label, Median, Interval string }
	htmlComparison struct {
		Title, Scenario string
		Policies        []string
		Rows            [][]string
		Chart           template.HTML
	}
)

// htmlCounterexampleOf formats a counterexample's devices for the page.
func htmlCounterexampleOf(x *Counterexample) *htmlCounterexample {
	n, more := cut(len(x.Devices))
	hx := &htmlCounterexample{Head: counterexampleHead(x), More: more, Replay: x.Replay}
	for _, d := range x.Devices[:n] {
		var delays []string
		m, dmore := cut(len(d.DelaysS))
		for _, s := range d.DelaysS[:m] {
			delays = append(delays, delay(s))
		}
		if dmore != "" {
			delays = append(delays, dmore)
		}
		hx.Devices = append(hx.Devices, htmlDevice{ID: d.ID, Delays: strings.Join(delays, ", "), Err: d.Err})
	}
	return hx
}

func renderHTML(r Report) ([]byte, error) {
	raw := r
	r = shown(r)
	v := htmlView{R: r, Name: r.Policy.Name, Nothing: upperFirst(nothingToChange(r)) + ".", Policy: policyLine(r.Policy)}
	if p := r.Replay; p != nil {
		v.Scenario = scenarioLine(p.Scenario, p.Config.Runs)
	}
	if v.Name == "" {
		v.Name = policyLine(Policy{Spec: r.Policy.Spec, Command: r.Policy.Command})
	}
	for _, c := range r.Checks {
		hc := htmlCheck{Name: c.Name, Why: c.Why, Detail: c.Detail, Status: c.Status}
		hc.Figure, hc.Threshold = checkFigures(c)
		if x := c.Counterexample; x != nil {
			hc.Counterexample = htmlCounterexampleOf(x)
		}
		v.Checks = append(v.Checks, hc)
	}
	if p := r.Replay; p != nil {
		hr := &htmlReplay{Status: p.Status, Detail: p.Detail, Level: upperFirst(intervalHeading(p.Config.WithDefaults().Level))}
		if x := p.Stopped; x != nil {
			hr.Stopped = htmlCounterexampleOf(x)
		}
		for _, f := range summaryFigures(p.Summary) {
			if p.Stopped != nil {
				break
			}
			hr.Figures = append(hr.Figures, htmlFigure{
				Label:    f.label,
				Median:   withUnit(num(f.iv.Median), f.unit),
				Interval: "[" + num(f.iv.Low) + ", " + num(f.iv.High) + "]",
			})
		}
		for _, run := range p.Runs {
			hr.Runs = append(hr.Runs, []string{
				num(float64(run.Seed)), num(run.AllServed.Seconds()), num(float64(run.BusiestWindowArrivals)),
				num(float64(run.PeakRetryArrivals)), num(run.PeakRatio), num(float64(run.Attempts)),
				num(float64(run.Served)), num(float64(run.GaveUp)), num(run.P50.Seconds()), num(run.P99.Seconds()),
			})
		}
		if arrivals, _ := p.Histogram(); arrivals != nil {
			hr.Seed = p.Runs[p.Representative].Seed
			chart, err := histogramChart(p)
			if err != nil {
				return nil, err
			}
			hr.Chart = template.HTML(chart)
		}
		v.Replay = hr
	}
	if len(r.EarlyDelays) > 0 {
		chart, err := spreadChart(r.EarlyDelays)
		if err != nil {
			return nil, err
		}
		v.Spread = template.HTML(chart)
	}
	for i, c := range r.Comparisons {
		if len(c.Rows) == 0 || len(c.Policies) == 0 {
			continue
		}
		label, unit := figureLabel(c.Figure)
		hc := &htmlComparison{Title: upperFirst(withUnit(label, unitWord(unit))), Scenario: comparisonScenario(c), Policies: c.Policies}
		for _, row := range c.Rows {
			cells := []string{num(float64(row.Clients))}
			for _, iv := range row.Cells {
				cells = append(cells, interval(iv, ""))
			}
			hc.Rows = append(hc.Rows, cells)
		}
		chart, err := comparisonChart(&raw.Comparisons[i])
		if err != nil {
			return nil, err
		}
		hc.Chart = template.HTML(chart)
		v.Comparisons = append(v.Comparisons, hc)
	}
	var b bytes.Buffer
	if err := htmlTemplate.Execute(&b, v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
