package reports_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/properties"
	"github.com/jitterkit/jitterkit/reports"
	"github.com/jitterkit/jitterkit/sim"
)

// TestJSONRoundTrip reads report.json back: it holds the whole report, with
// the schema set.
func TestJSONRoundTrip(t *testing.T) {
	r := failingReport()
	var b bytes.Buffer
	require.NoError(t, reports.WriteJSON(&b, r))
	var got reports.Report
	require.NoError(t, json.Unmarshal(b.Bytes(), &got))
	r.Schema = "jitterkit.report/v2"
	assert.Equal(t, r, got, "report.json read back")
	var raw map[string]any
	require.NoError(t, json.Unmarshal(b.Bytes(), &raw))
	assert.Subset(t, slices.Collect(maps.Keys(raw)), []string{"schema", "verdict", "policy", "kit_version", "seed", "checks", "replay", "comparisons", "early_delays", "advice"},
		"the keys of report.json")
	assert.Equal(t, "jitterkit.report/v2", raw["schema"], `report.json "schema"`)
}

// TestJSONRoundTripStopped reads back the report of a replay that a
// device stopped: the stopped device's counterexample beside the checks'.
func TestJSONRoundTripStopped(t *testing.T) {
	r := failingReport()
	r.AddStopped(r.Replay.Scenario, r.Replay.Config, &sim.DeviceError{Run: 3, Seed: 42, Device: "dev-000017", Attempt: 3,
		Cause: sim.StopBadDelay, Err: errors.New("delay -1s is negative")}, "jitterkit replay --seed 1")
	var b bytes.Buffer
	require.NoError(t, reports.WriteJSON(&b, r))
	var got reports.Report
	require.NoError(t, json.Unmarshal(b.Bytes(), &got))
	r.Schema = "jitterkit.report/v2"
	r.Replay.Scenario.MemoryLimit = 0 // a setting of the machine, which sim's JSON leaves out
	assert.Equal(t, r, got, "report.json read back")

	var raw struct {
		Replay struct{ Stopped json.RawMessage }
	}
	require.NoError(t, json.Unmarshal(b.Bytes(), &raw))
	assert.JSONEq(t, `{"attempt": 2, "devices": [{"id": "dev-000017", "delays_s": [], "err": "delay -1s is negative"}],
		"seed": 42, "replay": "jitterkit replay --seed 1"}`, string(raw.Replay.Stopped), `report.json "replay"."stopped"`)
}

// TestNotFinite refuses, in every format, a report holding a number JSON
// cannot hold, and names where it is.
func TestNotFinite(t *testing.T) {
	tests := []struct {
		name  string
		spoil func(*reports.Report)
		want  string
	}{
		{"a figure", func(r *reports.Report) { checkNamed(t, r, properties.NameFrozenClock).Figure = math.NaN() }, `checks[2] (frozen-clock): value 0 is NaN`},
		{"a summary", func(r *reports.Report) {
			e := r.Replay.Summary[sim.PeakRatio]
			e.High = math.Inf(-1)
			r.Replay.Summary[sim.PeakRatio] = e
		}, `replay.summary.peak_ratio: value 2 is -Inf`},
		{"an early delay", func(r *reports.Report) { r.EarlyDelays[2].DelaysS[999] = math.NaN() }, `early_delays[2]: value 999 is NaN`},
		{"a comparison", func(r *reports.Report) { r.Comparisons[0].Rows[1].Cells = r.Comparisons[0].Rows[1].Cells[:3] }, `comparisons[0].rows[1]: 3 cells for 4 policies`},
	}
	for _, tt := range tests {
		for _, w := range writers {
			t.Run(tt.name+"/"+w.ext, func(t *testing.T) {
				r := failingReport()
				tt.spoil(&r)
				var b bytes.Buffer
				err := w.write(&b, r)
				require.ErrorContains(t, err, tt.want)
				assert.Zero(t, b.Len(), "bytes written of a report it refused")
			})
		}
	}
}

// TestJUnit lists one test case per check and one for the replay, with a
// failure for each failed one and the warning as output.
func TestJUnit(t *testing.T) {
	type testcase struct {
		Name    string `xml:"name,attr"`
		Failure *struct {
			Message string `xml:"message,attr"`
			Text    string `xml:",chardata"`
		} `xml:"failure"`
		SystemOut string `xml:"system-out"`
	}
	var doc struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suite    struct {
			Cases []testcase `xml:"testcase"`
		} `xml:"testsuite"`
	}
	r := failingReport()
	checkNamed(t, &r, properties.NameReproducibility).Status = verdict.Warn
	spreadCheck := checkNamed(t, &r, properties.NameSpread)
	spreadCheck.Counterexample.Devices[0].ID = "dev-\x00]]>-000000"
	spreadCheck.Detail += " \x00]]>"
	var b bytes.Buffer
	require.NoError(t, reports.WriteJUnit(&b, r))
	require.NoError(t, xml.Unmarshal(b.Bytes(), &doc), "junit.xml does not parse:\n%s", b.String())
	require.Equal(t, 7, doc.Tests, "junit.xml: tests")
	require.Equal(t, 4, doc.Failures, "junit.xml: failures")
	require.Len(t, doc.Suite.Cases, 7, "junit.xml: test cases")
	want := map[string]string{"spread": "fail", "clusters": "fail", "frozen-clock": "pass", "reproducibility": "warn",
		"cap-phase": "fail", "bounds": "pass", "replay outage": "fail"}
	for _, c := range doc.Suite.Cases {
		got := "pass"
		switch {
		case c.Failure != nil:
			got = "fail"
		case strings.HasPrefix(c.SystemOut, "warning: "):
			got = "warn"
		}
		assert.Equal(t, want[c.Name], got, "test case %q", c.Name)
	}
	cases := map[string]testcase{}
	for _, c := range doc.Suite.Cases {
		cases[c.Name] = c
	}
	spread := cases[properties.NameSpread].Failure
	remedy := properties.NoJitter.Remedy()
	assert.Equal(t, spreadCheck.Detail[:len(spreadCheck.Detail)-len(" \x00]]>")]+` \x00]]>; what to change: `+remedy, spread.Message,
		"spread's failure message: the detail, the NUL shown as \\x00 and the ]]> kept, then the remedy")
	for _, s := range []string{"1000 of 1000 devices", " \\x00]]>\n", `"dev-\x00]]>-000000": 100ms 200ms 400ms`, "replay: jitterkit check",
		"cause: no-jitter\nwhat to change: " + remedy} {
		assert.Contains(t, spread.Text, s, "spread's failure text")
	}
	replay := cases["replay outage"].Failure
	assert.True(t, strings.HasPrefix(replay.Message, "peak ratio 24.00 [24.00, 24.00] > threshold 0.6"), "the replay's failure message %q: the peak ratio against the threshold first", replay.Message)
	first := "what to change first: Use full jitter and raise the base from 100ms to 30s and the cap from 10s to 30s: full:base=30s,cap=30s (replayed on the same scenario, its peak ratio is "
	assert.Contains(t, replay.Message, "; "+first, "the replay's failure message: the measured fix")
	assert.Contains(t, replay.Text, "\n"+first, "the replay's failure text: the measured fix")
	assert.Contains(t, replay.Text, "\nalso: "+remedy, "the replay's failure text: the rest of the advice")
}

// TestMarkdownEscapes keeps a hostile id and policy name from breaking the
// tables or adding markup.
func TestMarkdownEscapes(t *testing.T) {
	r := failingReport()
	r.Policy.Name = "a|b <b>bold</b> [x](http://e)"
	spread := checkNamed(t, &r, properties.NameSpread)
	spread.Detail = "got | want\nsecond line"
	spread.Counterexample.Devices[0].ID = "dev|`1`"
	var b bytes.Buffer
	require.NoError(t, reports.WriteMarkdown(&b, r))
	md := b.String()
	for _, bad := range []string{"<b>", "[x](", "got | want", "\nsecond line"} {
		assert.NotContains(t, md, bad, "report.md holds %q unescaped", bad)
	}
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "| **") {
			assert.Equal(t, 6, strings.Count(line, "|")-strings.Count(line, `\|`), "bars of a check row, which has five cells: %s", line)
		}
	}
	assert.Contains(t, md, "- `` dev\\|`1` ``: 100ms 200ms 400ms", "report.md lacks the counterexample line")
}

// TestTextVerdictFirst puts the verdict on the first line and its reason on
// the second, then the checks,
// the replay and what to change, in that order.
func TestTextVerdictFirst(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, reports.WriteText(&b, failingReport()))
	text := b.String()
	first, _, _ := strings.Cut(text, "\n")
	assert.Equal(t, "FAIL  none:base=100ms,cap=10s (spec)", first, "first line: the verdict and the policy")
	last := -1
	for _, section := range []string{
		"\n      the replay's peak ratio 24 on the default fleet is over the 0.6 threshold, and 3 checks failed: spread, clusters, cap-phase\n",
		"\nchecks\n", "\nreplay  FAIL", "\ncomparison\n", "\nwhat to change\n  - Use full jitter",
	} {
		i := strings.Index(text, section)
		assert.Greater(t, i, last, "where section %q is, after the previous one", section)
		last = i
	}
}

// TestLastServedWhenNotAllServed names the time of the last device served
// as such when some devices of an outage were never served, and gives the
// times of serving no value when none was.
func TestLastServedWhenNotAllServed(t *testing.T) {
	est := func(x float64) sim.Estimate { return sim.Estimate{Median: x, Low: x, High: x} }
	for _, tt := range []struct {
		served float64
		want   string
	}{{10, "all served, from t=0"}, {7, "last served, from t=0"}, {0, "– (none served)"}} {
		r := reports.Report{Verdict: verdict.Fail, Replay: &reports.Replay{Status: verdict.Fail,
			Scenario: sim.Scenario{Clients: 10, AcceptRate: 5},
			Summary:  map[sim.Figure]sim.Estimate{sim.Served: est(tt.served), sim.AllServed: est(40), sim.PeakRatio: est(2)}}}
		var b bytes.Buffer
		require.NoError(t, reports.WriteText(&b, r))
		assert.Contains(t, b.String(), tt.want, "%v of 10 served", tt.served)
	}
}
