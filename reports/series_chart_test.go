package reports_test

import (
	"bytes"
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/reports"
	"github.com/jitterkit/jitterkit/sim"
	"github.com/jitterkit/jitterkit/testdata/kittest"
)

// seriesRuns are the replications of the time-series tests: few, since
// each run of a server model is a few seconds of simulated traffic per
// device, and one chart draws one of them.
var seriesRuns = sim.Config{Runs: 3, Seed: 1}

// maxSeriesSVG bounds the time-series chart's SVG, whatever the horizon:
// it is inlined in a page a reviewer opens.
const maxSeriesSVG = 64 << 10

// seriesReport replays s with full jitter (base 1s, cap 30s) and returns
// its report.
func seriesReport(t *testing.T, s sim.Scenario) reports.Report {
	t.Helper()
	spec, err := kit.ParseSpec("full:base=1s,cap=30s")
	require.NoError(t, err)
	res, err := sim.Replay(context.Background(), spec.Factory(), s, seriesRuns)
	require.NoError(t, err, "replaying %s", s.Kind)
	var r reports.Report
	r.Policy = reports.Policy{Name: spec.String(), Spec: spec.String(), Source: kit.SourceSpec}
	r.AddReplay(res)
	return r
}

// seriesPage returns the HTML page of the report of s (see seriesReport).
func seriesPage(t *testing.T, s sim.Scenario) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, reports.WriteHTML(&b, seriesReport(t, s)))
	return b.String()
}

var chartFigure = regexp.MustCompile(`(?s)<figure class="chart" id="([a-z-]+)">\s*(<svg.*?</svg>)\s*<figcaption>(.*?)</figcaption>`)

// figureOf returns the SVG and the caption of the chart of page with the
// given id, and fails t when there is none.
func figureOf(t *testing.T, page, id string) (svg, caption string) {
	t.Helper()
	for _, m := range chartFigure.FindAllStringSubmatch(page, -1) {
		if m[1] == id {
			return m[2], m[3]
		}
	}
	t.Fatalf("the page has no chart %q", id)
	return "", ""
}

// TestSeriesChart replays each server model that recovers, and checks that
// its HTML report draws the representative run as a time series in place
// of the arrival histogram: labelled for screen readers, with its units,
// its trigger, its recovery or the lack of one, the lower panel named for
// the kind, and every number finite, in an SVG of bounded size.
func TestSeriesChart(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    sim.Scenario
		want []string // in the SVG
	}{
		{"overload", sim.Scenario{Kind: sim.Overload},
			[]string{"never recovered within the 5m horizon", "dip to 10% for 5s at 30s", "timed out", "server capacity (jobs/s)", "jobs in the system"}},
		{"overload-queue-limit", sim.Scenario{Kind: sim.Overload, QueueLimit: 50},
			[]string{"recovered 5s after the dip", "recovered at 40s", "timed out or rejected", "queue limit (50 jobs)"}},
		{"overload-ramp", sim.Scenario{Kind: sim.Overload, Ramp: 10 * time.Second, DropExpired: true},
			[]string{"ramp back (10s)", "timed out or dropped"}},
		{"reconnect", sim.Scenario{Kind: sim.Reconnect},
			[]string{"broker down (first 5s)", "reconnects sent", "connects refused or dropped", "broker capacity (handshakes/s)", "sessions open"}},
		{"overload-hour", sim.Scenario{Kind: sim.Overload, QueueLimit: 50, Horizon: time.Hour},
			[]string{"in 20s bins", "recovered at 40s"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			page := seriesPage(t, tc.s)
			assert.NotContains(t, page, `id="histogram-chart"`, "a server model's page draws the arrival histogram")
			svg, caption := figureOf(t, page, "series-chart")
			t.Logf("%s: SVG of %d bytes", tc.name, len(svg))
			assert.Less(t, len(svg), maxSeriesSVG, "the time-series chart's SVG, in bytes")
			assert.Regexp(t, `^<svg role="img" aria-label="Time series of run \d of 3: `, svg, "the chart's label for screen readers")
			for _, s := range append([]string{"attempts and outcomes per second", "time since the start of the run (s)"}, tc.want...) {
				assert.Contains(t, svg, s, "the time-series chart's text")
			}
			for _, s := range []string{"NaN", "Inf"} {
				assert.NotContains(t, svg, s, "a number of the chart")
			}
			assert.Contains(t, caption, "The replay is judged on recovery", "the chart's caption")
			assert.Contains(t, page, "The run in bold is the one the time-series chart draws.")
		})
	}
}

// TestSeriesChartContention checks that a contention, which has no time
// series and is not judged on its arrivals, draws no replay chart, and
// that its runs table names none.
func TestSeriesChartContention(t *testing.T) {
	page := seriesPage(t, sim.Scenario{Kind: sim.Contention, Clients: 20})
	for _, s := range []string{`id="series-chart"`, `id="histogram-chart"`, "The run in bold is the one"} {
		assert.NotContains(t, page, s, "a contention's page")
	}
	assert.Contains(t, page, `id="runs-table"`, "a contention's page lists its runs")
}

// TestSeriesChartGolden holds the time-series chart of a short overload
// that recovers, with its caption, as a golden file: a change to what the
// chart draws shows in review as a diff of its SVG.
func TestSeriesChartGolden(t *testing.T) {
	page := seriesPage(t, sim.Scenario{Kind: sim.Overload, QueueLimit: 50, Horizon: time.Minute})
	svg, caption := figureOf(t, page, "series-chart")
	kittest.Golden(t, filepath.Join("testdata", "overload-series.svg"), []byte(svg+"\n<!-- "+strings.ReplaceAll(caption, "--", "- -")+" -->\n"))
}

// TestSeriesChartBudget replays overloads with a budget and checks that
// the time-series chart adds the budget's panel: its value axis in the
// budget's own terms, its line named with who holds it, what it stopped,
// and the instant retries are allowed again or the caption's word that
// they never are; and that an overload without a budget has no such
// panel.
func TestSeriesChartBudget(t *testing.T) {
	for _, tc := range []struct {
		name   string
		budget sim.Budget
		want   []string // in the SVG
		never  []string // not in the SVG
		again  bool     // whether the run marks retries allowed again
	}{
		{"none", sim.Budget{}, nil,
			[]string{"retries available", "breaker state", "retries allowed again", "the budget refused", "rejected at the client", "one budget for the fleet"}, false},
		{"finagle-fleet", sim.Budget{Kind: sim.Finagle, Scope: sim.ScopeFleet},
			[]string{"retries available", "retries the Finagle budget allows (one budget for the fleet)", "retries the budget refused (", "retries allowed again at "},
			[]string{"rejected at the client", "breaker state"}, true},
		{"grpc-device", sim.Budget{Kind: sim.GRPC},
			[]string{">tokens<", "gRPC retry tokens (mean over the 200 devices)", "retries the budget refused ("}, nil, true},
		{"breaker-fleet", sim.Budget{Kind: sim.Breaker, Scope: sim.ScopeFleet},
			[]string{"breaker state", ">closed<", ">half-open<", ">open<", "attempts it rejected at the client (", "circuit breaker&#39;s state (one budget for the fleet)"},
			[]string{"retries the budget refused", "retries allowed again at "}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			page := seriesPage(t, sim.Scenario{Kind: sim.Overload, Budget: tc.budget})
			svg, caption := figureOf(t, page, "series-chart")
			assert.Less(t, len(svg), maxSeriesSVG, "the time-series chart's SVG, in bytes")
			for _, s := range tc.want {
				assert.Contains(t, svg, s, "the time-series chart's text")
			}
			for _, s := range tc.never {
				assert.NotContains(t, svg, s, "the time-series chart's text")
			}
			for _, s := range []string{"NaN", "Inf"} {
				assert.NotContains(t, svg, s, "a number of the chart")
			}
			if tc.budget.Kind == sim.NoBudget {
				assert.NotContains(t, caption, "bottom panel", "the caption of an overload without a budget")
				assert.Contains(t, caption, "The lower panel is the jobs", "the caption of an overload without a budget")
				return
			}
			assert.Contains(t, caption, "The middle panel is the jobs", "the chart's caption")
			assert.Contains(t, caption, "The bottom panel is its level at each whole second", "the chart's caption")
			assert.Regexp(t, `in this run it refused [\d,]+ retr(y|ies) and rejected [\d,]+ attempts? at the client`, caption, "the chart's caption")
			if tc.again {
				assert.Regexp(t, `From \d+s on it refuses no retry and rejects no attempt to the run&#39;s end`, caption, "the chart's caption")
			} else {
				assert.Contains(t, caption, "Retries are never allowed again within the run", "the caption of a chart with no mark")
			}
		})
	}
}

// seriesMarkdown returns report.md of the report of s (see seriesReport).
func seriesMarkdown(t *testing.T, s sim.Scenario) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, reports.WriteMarkdown(&b, seriesReport(t, s)))
	return b.String()
}

// TestMarkdownServerModel checks that report.md of a server model says
// what it judges: an overload's or a reconnect's recovery windows, with
// no threshold line, and a contention's figures with no word of a peak
// ratio it does not report.
func TestMarkdownServerModel(t *testing.T) {
	for _, tc := range []struct {
		name      string
		s         sim.Scenario
		want, not []string
	}{
		{"overload", sim.Scenario{Kind: sim.Overload, QueueLimit: 50},
			[]string{"## Recovery windows", "| Windows | Failures | Successes | Most failures among the outcomes of a window |", "| 35s–40s (1 window) |", "The replay is judged on recovery, not on the peak ratio: from 35s on, in 5s windows",
				"recovered 5s after the dip.", "accept budget of 100, reported, not judged"},
			[]string{"threshold", "## Arrivals per window", "mermaid"}},
		{"reconnect", sim.Scenario{Kind: sim.Reconnect},
			[]string{"## Recovery windows", "from 5s on, in 5s windows", "reported, not judged"},
			[]string{"threshold", "## Arrivals per window"}},
		{"contention", sim.Scenario{Kind: sim.Contention, Clients: 20},
			[]string{"| writes (the work) |"},
			[]string{"peak ratio", "accept budget", "busiest window", "## Recovery windows", "## Arrivals per window"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md := seriesMarkdown(t, tc.s)
			for _, s := range tc.want {
				assert.Contains(t, md, s, "report.md")
			}
			for _, s := range tc.not {
				assert.NotContains(t, md, s, "report.md")
			}
		})
	}
}
