package reports

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/properties"
)

// JUnit is junit.xml, the report for CI systems: see [WriteJUnit].
const JUnit Format = "junit.xml"

var _ = register(format{file: JUnit, position: 40, render: renderJUnit, written: func(head []byte) bool {
	return bytes.HasPrefix(head, []byte(xml.Header)) && bytes.Contains(head, []byte(`<testsuites name="jitterkit"`))
}})

// WriteJUnit writes r as JUnit XML, so that CI systems list the checks: one
// test case per check and one for the replay. A failed check or replay is a
// failure carrying its detail and counterexample, and what to change in
// its message: a check's remedy for its root cause, and for the replay
// what to change first (the measured fix, when the gate found one). An
// inconclusive check is an error (the evidence was not gathered) and a
// skipped one is skipped, each with its reason; a warning passes and
// carries its detail and remedy as output.
// The suite's properties hold the policy, scenario and seed. Every string
// from r is shown as [Visible] shows it, so the file holds only characters
// XML allows, and an id cannot close an element or open another.
func WriteJUnit(w io.Writer, r Report) error {
	return write(w, r, renderJUnit)
}

type (
	junitSuites struct {
		XMLName  xml.Name     `xml:"testsuites"`
		Name     string       `xml:"name,attr"`
		Tests    int          `xml:"tests,attr"`
		Failures int          `xml:"failures,attr"`
		Errors   int          `xml:"errors,attr"`
		Suites   []junitSuite `xml:"testsuite"`
	}
	junitSuite struct {
		Name       string          `xml:"name,attr"`
		Tests      int             `xml:"tests,attr"`
		Failures   int             `xml:"failures,attr"`
		Errors     int             `xml:"errors,attr"`
		Skipped    int             `xml:"skipped,attr"`
		Properties []junitProperty `xml:"properties>property"`
		Cases      []junitCase     `xml:"testcase"`
	}
	junitProperty struct {
		Name  string `xml:"name,attr"`
		Value string `xml:"value,attr"`
	}
	junitCase struct {
		Name      string        `xml:"name,attr"`
		Classname string        `xml:"classname,attr"`
		Failure   *junitFailure `xml:"failure,omitempty"`
		Error     *junitFailure `xml:"error,omitempty"`
		Skipped   *junitSkipped `xml:"skipped,omitempty"`
		SystemOut *junitText    `xml:"system-out,omitempty"`
	}
	junitFailure struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Text    string `xml:",cdata"`
	}
	junitSkipped struct {
		Message string `xml:"message,attr"`
	}
	junitText struct {
		Text string `xml:",cdata"`
	}
)

func renderJUnit(r Report) ([]byte, error) {
	raw := r
	r = shown(r)
	suite := junitSuiteOf(r)
	for _, c := range r.Checks {
		suite.Cases = append(suite.Cases, junitCheck(c))
	}
	if p := r.Replay; p != nil {
		suite.Cases = append(suite.Cases, junitReplay(raw, r, p))
	}
	suite.Tests = len(suite.Cases)
	for _, tc := range suite.Cases {
		switch {
		case tc.Failure != nil:
			suite.Failures++
		case tc.Error != nil:
			suite.Errors++
		case tc.Skipped != nil:
			suite.Skipped++
		}
	}
	doc := junitSuites{Name: "jitterkit", Tests: suite.Tests, Failures: suite.Failures, Errors: suite.Errors, Suites: []junitSuite{suite}}
	var b bytes.Buffer
	b.WriteString(xml.Header)
	enc := xml.NewEncoder(&b)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	b.WriteString("\n")
	return b.Bytes(), nil
}

// junitSuiteOf returns the suite of r, with its properties and no cases
// yet.
func junitSuiteOf(r Report) junitSuite {
	suite := junitSuite{
		Name: "jitterkit " + policyLine(r.Policy),
		Properties: []junitProperty{
			{"policy", policyLine(r.Policy)},
		},
	}
	if p := r.Replay; p != nil {
		suite.Properties = append(suite.Properties, junitProperty{"scenario", replayLine(p)})
		if line := budgetLine(p); line != "" {
			suite.Properties = append(suite.Properties, junitProperty{"budget", line})
		}
	}
	suite.Properties = append(suite.Properties,
		junitProperty{"seed", fmt.Sprint(r.Seed)},
		junitProperty{"kit_version", r.KitVersion},
		junitProperty{"verdict", string(r.Verdict)},
	)
	if r.Policy.Command != "" {
		suite.Properties = append(suite.Properties, junitProperty{"command", r.Policy.Command})
	}
	return suite
}

// junitCheck returns the test case of a check: a failure, an error for an
// inconclusive check, skipped, or its warning on the standard output.
func junitCheck(c properties.Result) junitCase {
	tc := junitCase{Name: c.Name, Classname: "jitterkit.check"}
	f, th := checkFigures(c)
	text := fmt.Sprintf("%s\nfigure %s, threshold %s\nwhy: %s", c.Detail, f, th, c.Why)
	message := c.Detail
	if c.Status.Finding() && c.Remedy != "" {
		if c.Cause != "" {
			text += "\ncause: " + string(c.Cause)
		}
		text += "\nwhat to change: " + c.Remedy
		message += "; what to change: " + c.Remedy
	}
	if x := c.Counterexample; x != nil {
		var lines []string
		n, more := cut(len(x.Devices))
		for _, d := range x.Devices[:n] {
			lines = append(lines, "  "+deviceLine(d))
		}
		if more != "" {
			lines = append(lines, "  "+more)
		}
		text += "\ncounterexample: " + counterexampleHead(x) + "\n" + strings.Join(lines, "\n")
		if x.Replay != "" {
			text += "\nreplay: " + x.Replay
		}
	}
	switch c.Status {
	case verdict.Fail:
		tc.Failure = &junitFailure{Message: message, Type: "fail", Text: text}
	case verdict.Inconclusive:
		tc.Error = &junitFailure{Message: c.Detail, Type: "inconclusive", Text: text}
	case verdict.Skipped:
		tc.Skipped = &junitSkipped{Message: c.Detail}
	case verdict.Warn:
		tc.SystemOut = &junitText{"warning: " + text}
	}
	return tc
}

// junitReplay returns the test case of the replay p of r, raw before
// shown, with what to change first when it failed.
func junitReplay(raw, r Report, p *Replay) junitCase {
	tc := junitCase{Name: "replay " + string(p.Scenario.WithDefaults().Kind), Classname: "jitterkit.replay"}
	var first string
	var rest []string
	if p.Status == verdict.Fail {
		first, rest = junitChange(raw, r)
	}
	message := p.Detail
	if first != "" {
		message += "; what to change first: " + first
	}
	var lines []string
	lines = append(lines, p.Detail, replayLine(p))
	if line := budgetLine(p); line != "" {
		lines = append(lines, line)
	}
	if x := p.Stopped; x != nil {
		lines = append(lines, "counterexample: "+counterexampleHead(x))
		for _, d := range x.Devices {
			lines = append(lines, "  "+deviceLine(d))
		}
		if x.Replay != "" {
			lines = append(lines, "replay: "+x.Replay)
		}
	} else {
		for _, f := range summaryFigures(p) {
			lines = append(lines, fmt.Sprintf("%s: %s", f.label, f.value()))
		}
		if line := stopLine(p); line != "" {
			lines = append(lines, line)
		}
	}
	if first != "" {
		lines = append(lines, "what to change first: "+first)
		for _, a := range rest {
			lines = append(lines, "also: "+a)
		}
	}
	text := strings.Join(lines, "\n")
	switch p.Status {
	case verdict.Fail:
		tc.Failure = &junitFailure{Message: message, Type: "fail", Text: text}
	case verdict.Inconclusive:
		tc.Error = &junitFailure{Message: p.Detail, Type: "inconclusive", Text: text}
	default:
		tc.SystemOut = &junitText{text}
	}
	return tc
}

// junitChange returns what to change first, as one sentence with the
// measured figures of the fix when the gate found one, and the rest of the
// advice; "" when there is nothing to change.
func junitChange(raw, r Report) (first string, rest []string) {
	ch := whatToChange(raw, r)
	first = ch.First
	switch {
	case ch.Fix != nil && ch.Lead != "":
		first = ch.First + " " + ch.Sentence
	case ch.Fix != nil:
		first = ch.Sentence
	}
	return first, ch.Rest
}
