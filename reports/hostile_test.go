package reports_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/properties"
	"github.com/jitterkit/jitterkit/reports"
	"github.com/jitterkit/jitterkit/sim"
)

// hostileStrings are strings a trace, a program or a config file can put
// into a report: each class of control character, invalid UTF-8, the
// invisible formatting characters, a forged line, and a huge id.
var hostileStrings = []struct {
	name string
	s    string
}{
	{"NUL", "dev-\x00-1"},
	{"BEL and BS", "dev\a\b-1"},
	{"ESC sequences", "\x1b[2J\x1b[31mdev-1\x1b]0;pwned\a\x1b[0m"},
	{"tab", "dev\t1\tPASS"},
	{"CR", "dev-1\rPASS  all good"},
	{"VT and FF", "dev\v1\f"},
	{"other C0", "\x01\x02\x03\x1c\x1d\x1e\x1f"},
	{"DEL", "dev\x7f-1"},
	{"C1", "dev\u0085\u0090\u009b31m\u009d0;x\u009c-1"},
	{"invalid UTF-8", "dev-\xff\xfe\xc3(\xed\xa0\x80-1"},
	{"right-to-left override", "dev-1\u202egnp.exe"},
	{"bidi isolates, zero widths, BOM", "\u2066dev\u2069\u200b\u200d\ufeff\u2028\u2029\U000e0041"},
	{"forged PASS line", "dev-1\nPASS  spread  0.577  0.1  fine\n| **PASS** | x | 1 | 1 | y |\n</failure></testcase><testcase name=\"forged\">"},
	{"markup", `<script>alert(1)</script>]]><![CDATA[ "> | ` + "`"},
	{"1 MB id", strings.Repeat("dev-", 1<<18)},
}

// spoil puts s into every string of r that comes from outside the kit:
// the policy, the scenario's name, the checks' names and texts, the
// devices, the replay's detail, the comparison's policies and the advice.
func spoil(r *reports.Report, s string) {
	r.Verdict = verdict.Status(s)
	r.Policy = reports.Policy{Name: s, Spec: s, Command: s, Source: kit.Source(s)}
	r.Replay.Scenario.Kind = sim.Kind(s)
	r.KitVersion = s
	for i := range r.Checks {
		c := &r.Checks[i]
		c.Name, c.Why, c.Detail = s, s, s
		if x := c.Counterexample; x != nil {
			x.Replay = s
			for j := range x.Devices {
				x.Devices[j].ID, x.Devices[j].Err = s, s
			}
		}
	}
	r.Replay.Detail = s
	for k := range r.Comparisons {
		c := &r.Comparisons[k]
		c.Figure = sim.Figure(s)
		c.Scenario.Kind = sim.Kind(s)
		for i := range c.Policies {
			c.Policies[i] = s
		}
	}
	for i := range r.Advice {
		r.Advice[i] = s
	}
}

// TestHostileStrings renders reports whose every string is hostile, in
// every format: no control or invisible character and no invalid UTF-8
// reaches the output, each output has the lines of the same report with
// harmless strings, stays well-formed, and stays small.
func TestHostileStrings(t *testing.T) {
	render := func(t *testing.T, write func(io.Writer, reports.Report) error, s string) string {
		r := failingReport()
		spoil(&r, s)
		var b bytes.Buffer
		require.NoError(t, write(&b, r))
		return b.String()
	}
	for _, w := range writers {
		benign := render(t, w.write, "benign")
		for _, h := range hostileStrings {
			t.Run(w.ext+"/"+h.name, func(t *testing.T) {
				got := render(t, w.write, h.s)
				assertNothingHidden(t, got, w.ext == "html")
				assert.Equal(t, strings.Count(benign, "\n"), strings.Count(got, "\n"), "lines of the output")
				assert.Less(t, len(got), len(benign)+256<<10, "bytes of the output")
				switch w.ext {
				case "json":
					checkJSON(t, got, h.s)
				case "md":
					checkMarkdownTables(t, got)
				case "html":
					assert.Equal(t, elements(t, benign), elements(t, got), "elements of the page")
				case "junit.xml":
					checkJUnit(t, got)
				case "txt":
					for _, line := range strings.Split(got, "\n") {
						assert.False(t, strings.HasPrefix(line, "PASS"), "a line starts with PASS: %q", line)
					}
				}
			})
		}
	}
}

// assertNothingHidden fails if out holds invalid UTF-8 or a character that
// is not graphic, other than the line breaks (and, in HTML, the tabs) of
// the format itself.
func assertNothingHidden(t *testing.T, out string, tabs bool) {
	t.Helper()
	require.True(t, utf8.ValidString(out), "the output is not valid UTF-8")
	for i, r := range out {
		if r == '\n' || tabs && r == '\t' || unicode.IsGraphic(r) {
			continue
		}
		// Not require.True for every rune: its bookkeeping would
		// dominate a loop over megabytes of output.
		start := max(0, i-40)
		require.Failf(t, "a hidden character in the output", "the output holds %U at byte %d: …%q…", r, i, out[start:min(len(out), i+40)])
	}
}

// checkJSON reads report.json back: every string is the original, cut
// with its marker when long, and invalid UTF-8 read as U+FFFD.
func checkJSON(t *testing.T, out, s string) {
	t.Helper()
	var r reports.Report
	require.NoError(t, json.Unmarshal([]byte(out), &r))
	want := perByte(s)
	// Every check's name is s too: the checks with a counterexample are
	// read by what they hold, not by name.
	var shown []properties.Result
	for _, c := range r.Checks {
		if c.Counterexample != nil {
			shown = append(shown, c)
		}
	}
	require.NotEmpty(t, shown, "checks with a counterexample")
	if len(s) > 4096 {
		for _, c := range shown {
			assert.True(t, strings.HasSuffix(c.Counterexample.Devices[0].ID, "more)"), "a long id is cut with a marker")
		}
		assert.True(t, strings.HasPrefix(s, strings.TrimSuffix(r.Policy.Name, "…(1.0 MB more)")), "the cut name is the start of the original")
		return
	}
	got := []string{r.Policy.Name, r.Policy.Command, r.Advice[0]}
	for _, c := range shown {
		got = append(got, c.Counterexample.Devices[0].ID, c.Detail)
	}
	for _, g := range got {
		assert.Equal(t, want, g)
	}
}

// perByte replaces each byte of s that is not valid UTF-8 with U+FFFD, as
// JSON reads it back.
func perByte(s string) string {
	var b strings.Builder
	for _, r := range s {
		b.WriteRune(r)
	}
	return b.String()
}

// checkMarkdownTables checks that every row of every table has the
// columns of its header.
func checkMarkdownTables(t *testing.T, out string) {
	t.Helper()
	columns := -1
	tables := 0
	for _, line := range strings.Split(out, "\n") {
		if !strings.HasPrefix(line, "|") {
			columns = -1
			continue
		}
		n := cells(line)
		if columns < 0 {
			columns = n
			tables++
			continue
		}
		assert.Equal(t, columns, n, "cells of the row %q", line)
	}
	assert.Equal(t, 3, tables, "tables in report.md")
}

// cells counts the cells of a Markdown table row: its bars that no
// backslash escapes, less one.
func cells(row string) int {
	bars := 0
	for i := 0; i < len(row); i++ {
		switch row[i] {
		case '\\':
			i++
		case '|':
			bars++
		}
	}
	return bars - 1
}

// elements counts the elements of an HTML page by name, as encoding/xml
// reads HTML (not strict, with HTML's void elements and entities). It
// fails if the page does not parse.
func elements(t *testing.T, page string) map[string]int {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(page))
	d.Strict = false
	d.AutoClose = xml.HTMLAutoClose
	d.Entity = xml.HTMLEntity
	count := map[string]int{}
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			return count
		}
		require.NoError(t, err)
		if e, ok := tok.(xml.StartElement); ok {
			count[e.Name.Local]++
		}
	}
}

// checkJUnit reads junit.xml: it parses, and holds the test cases of the
// report, no more.
func checkJUnit(t *testing.T, out string) {
	t.Helper()
	var doc struct {
		Suite struct {
			Properties []struct {
				Name string `xml:"name,attr"`
			} `xml:"properties>property"`
			Cases []struct {
				Name string `xml:"name,attr"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	require.NoError(t, xml.Unmarshal([]byte(out), &doc))
	assert.Len(t, doc.Suite.Cases, 7, "test cases")
	assert.Len(t, doc.Suite.Properties, 6, "properties")
}
