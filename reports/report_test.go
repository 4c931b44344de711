package reports_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/reports"
	"github.com/jitterkit/jitterkit/sim"
)

// TestJSONRoundTrip reads report.json back: it holds the whole report, with
// the schema set.
func TestJSONRoundTrip(t *testing.T) {
	r := failingReport()
	var b bytes.Buffer
	if err := reports.WriteJSON(&b, r); err != nil {
		t.Fatal(err)
	}
	var got reports.Report
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	r.Schema = reports.Schema
	if !reflect.DeepEqual(got, r) {
		t.Errorf("report.json read back differs from the report")
	}
	var raw map[string]any
	if err := json.Unmarshal(b.Bytes(), &raw); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"schema", "verdict", "policy", "kit_version", "seed", "checks", "replay", "comparisons", "early_delays", "advice"} {
		if _, ok := raw[key]; !ok {
			t.Errorf("report.json has no %q", key)
		}
	}
	if raw["schema"] != "jitterkit.report/v2" {
		t.Errorf(`report.json "schema" = %v; want jitterkit.report/v2`, raw["schema"])
	}
}

// TestNotFinite refuses, in every format, a report holding a number JSON
// cannot hold, and names where it is.
func TestNotFinite(t *testing.T) {
	tests := []struct {
		name  string
		spoil func(*reports.Report)
		want  string
	}{
		{"a delay", func(r *reports.Report) { r.Checks[0].Counterexample.Devices[1].DelaysS[0] = math.Inf(1) },
			`checks[0] (spread): device "dev-000001": value 0 is +Inf`},
		{"a figure", func(r *reports.Report) { r.Checks[2].Figure = math.NaN() }, `checks[2] (frozen-clock): value 0 is NaN`},
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
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("error = %v; want one containing %q", err, tt.want)
				}
				if b.Len() != 0 {
					t.Errorf("wrote %d bytes of a report it refused; want none", b.Len())
				}
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
	r.Checks[3].Status = verdict.Warn
	r.Checks[0].Counterexample.Devices[0].ID = "dev-\x00]]>-000000"
	r.Checks[0].Detail += " \x00]]>"
	var b bytes.Buffer
	if err := reports.WriteJUnit(&b, r); err != nil {
		t.Fatal(err)
	}
	if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("junit.xml does not parse: %v\n%s", err, b.String())
	}
	if doc.Tests != 7 || doc.Failures != 4 || len(doc.Suite.Cases) != 7 {
		t.Fatalf("junit.xml: %d tests, %d failures, %d test cases; want 7, 4 and 7", doc.Tests, doc.Failures, len(doc.Suite.Cases))
	}
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
		if got != want[c.Name] {
			t.Errorf("test case %q is a %s; want %s", c.Name, got, want[c.Name])
		}
	}
	spread := doc.Suite.Cases[0].Failure
	if !strings.HasSuffix(spread.Message, ` \x00]]>`) {
		t.Errorf("spread's failure message = %q; want the NUL shown as \\x00 and the ]]> kept", spread.Message)
	}
	for _, s := range []string{"1000 of 1000 devices", " \\x00]]>\n", `"dev-\x00]]>-000000": 0.1s 0.2s 0.4s`, "replay: jitterkit check"} {
		if !strings.Contains(spread.Text, s) {
			t.Errorf("spread's failure text lacks %q:\n%s", s, spread.Text)
		}
	}
	if replay := doc.Suite.Cases[6].Failure; !strings.Contains(replay.Message, "peak ratio 24.00 [24.00, 24.00] > threshold 0.6") {
		t.Errorf("the replay's failure message = %q; want the peak ratio against the threshold", replay.Message)
	}
}

// TestMarkdownEscapes keeps a hostile id and policy name from breaking the
// tables or adding markup.
func TestMarkdownEscapes(t *testing.T) {
	r := failingReport()
	r.Policy.Name = "a|b <b>bold</b> [x](http://e)"
	r.Checks[0].Detail = "got | want\nsecond line"
	r.Checks[0].Counterexample.Devices[0].ID = "dev|`1`"
	var b bytes.Buffer
	if err := reports.WriteMarkdown(&b, r); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, bad := range []string{"<b>", "[x](", "got | want", "\nsecond line"} {
		if strings.Contains(md, bad) {
			t.Errorf("report.md holds %q unescaped", bad)
		}
	}
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "| **") && strings.Count(line, "|")-strings.Count(line, `\|`) != 6 {
			t.Errorf("check row does not have five cells: %s", line)
		}
	}
	if want := "- `` dev\\|`1` ``: 0.1s 0.2s 0.4s"; !strings.Contains(md, want) {
		t.Errorf("report.md lacks the counterexample line %q:\n%s", want, md)
	}
}

// TestTextVerdictFirst puts the verdict on the first line, then the checks,
// the replay and what to change, in that order.
func TestTextVerdictFirst(t *testing.T) {
	var b bytes.Buffer
	if err := reports.WriteText(&b, failingReport()); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	if first, _, _ := strings.Cut(text, "\n"); first != "FAIL  none:base=100ms,cap=10s (spec)" {
		t.Errorf("first line = %q; want the verdict and the policy", first)
	}
	last := -1
	for _, section := range []string{"\nchecks\n", "\nreplay  FAIL", "\ncomparison\n", "\nwhat to change\n  - Give each device its own jitter"} {
		i := strings.Index(text, section)
		if i <= last {
			t.Errorf("section %q at %d, not after the previous one at %d", section, i, last)
		}
		last = i
	}
}
