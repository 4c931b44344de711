package reports_test

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/properties"
	"github.com/jitterkit/jitterkit/reports"
	"github.com/jitterkit/jitterkit/sim"
)

// hostile puts markup into every string of a report that a user or a policy
// provides.
func hostile(t testing.TB) reports.Report {
	const (
		script = `<script>alert(1)</script>`
		img    = `"><img src=x onerror=alert(2)>`
	)
	r := failingReport()
	r.Policy = reports.Policy{Name: img, Spec: img + "spec", Command: `sh -c '` + script + `'`, Source: kit.Source(script)}
	r.Replay.Scenario.Kind = sim.Kind(script)
	r.KitVersion = img
	spread := checkNamed(t, &r, properties.NameSpread)
	spread.Name = script
	spread.Why = img
	spread.Detail = script
	spread.Counterexample.Devices[0].ID = script
	spread.Counterexample.Devices[1].ID = img
	spread.Counterexample.Devices[1].Err = script
	spread.Counterexample.Replay = img
	r.Replay.Detail = script
	r.Comparisons[0].Policies[0] = script
	r.Comparisons[0].Policies[1] = img
	r.Comparisons[0].Scenario.Kind = sim.Kind(img)
	r.Advice = append(r.Advice, script, img)
	return r
}

var tagName = regexp.MustCompile(`<([a-zA-Z][a-zA-Z0-9-]*)`)

// allowed are the elements the template and the charts make.
var allowed = func() map[string]bool {
	m := map[string]bool{}
	for _, tag := range strings.Fields(`html head meta title style body main header section nav a div h1 h2 p span code
		table thead tbody tr th td strong br details summary ul li dl dt dd figure figcaption svg g path text`) {
		m[tag] = true
	}
	return m
}()

// TestHTMLEscapes renders a report whose ids, names and commands hold
// markup: the page must hold only the elements the template and the charts
// make, and the strings as text.
func TestHTMLEscapes(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, reports.WriteHTML(&b, hostile(t)))
	page := b.String()
	for _, m := range tagName.FindAllStringSubmatch(page, -1) {
		assert.True(t, allowed[strings.ToLower(m[1])], "report.html holds a <%s> element", m[1])
	}
	for _, s := range []string{"onerror=alert(2)>", "<script", "<img"} {
		assert.NotContains(t, page, s, "report.html holds %q unescaped", s)
	}
	// The strings are there, as text: in the page, and in the rows of the
	// comparison chart, which plot writes.
	for _, s := range []string{
		"&lt;script&gt;alert(1)&lt;/script&gt;",
		"&#34;&gt;&lt;img src=x onerror=alert(2)&gt;",
		">&lt;script&gt;alert(1)&lt;/script&gt;, 400 clients</text>",
	} {
		assert.Contains(t, page, s, "report.html lacks the escaped text")
	}
}

// FuzzHTMLEscapes renders reports whose device id, policy name and command
// are arbitrary strings: the page must never hold an element the template
// and the charts do not make.
func FuzzHTMLEscapes(f *testing.F) {
	for _, s := range []string{
		`<script>alert(1)</script>`, `"><img src=x onerror=alert(2)>`, `</text><script>x</script>`,
		`<svg onload=alert(3)>`, `<!--`, `]]><a href="javascript:x">`, "\x00<\xff>",
	} {
		f.Add(s, s, s)
	}
	f.Fuzz(func(t *testing.T, id, name, command string) {
		r := reports.Report{
			Verdict: verdict.Fail,
			Policy:  reports.Policy{Name: name, Command: command, Source: "exec"},
			Checks: []properties.Result{{Name: name, Status: verdict.Fail, Detail: id,
				Counterexample: &properties.Counterexample{Devices: []properties.DeviceDelays{{ID: id, Delays: []time.Duration{time.Second}, Err: command}}}}},
			Comparisons: []reports.Comparison{{Figure: sim.PeakRatio, Policies: []string{name},
				Rows: []reports.ComparisonRow{{Clients: 10, Cells: []sim.Estimate{{Median: 1, Low: 0.5, High: 2}}}}}},
			Advice: []string{id},
		}
		var b bytes.Buffer
		require.NoError(t, reports.WriteHTML(&b, r))
		for _, m := range tagName.FindAllStringSubmatch(b.String(), -1) {
			require.True(t, allowed[strings.ToLower(m[1])], "id %q, name %q, command %q: the page holds a <%s> element", id, name, command, m[1])
		}
	})
}
