package reports_test

import (
	"bytes"
	"html"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/reports"
	"github.com/jitterkit/jitterkit/sim"
)

// TestBudgetSentence checks that every format of an overload's report
// names its retry budget and who holds it in the one sentence of
// sim.Budget.Describe, whatever the verdict, and that a replay without a
// budget names none.
func TestBudgetSentence(t *testing.T) {
	writers := map[string]func(io.Writer, reports.Report) error{
		"text": reports.WriteText, "markdown": reports.WriteMarkdown, "html": reports.WriteHTML, "junit": reports.WriteJUnit,
	}
	for _, tc := range []struct {
		name   string
		budget sim.Budget
	}{
		{"finagle-fleet", sim.Budget{Kind: sim.Finagle, Scope: sim.ScopeFleet}},
		{"breaker-device", sim.Budget{Kind: sim.Breaker}},
		{"none", sim.Budget{}},
	} {
		s := sim.Scenario{Kind: sim.Overload, Budget: tc.budget}
		r := seriesReport(t, s)
		sentence := tc.budget.Describe(s.WithDefaults().Clients)
		for format, write := range writers {
			t.Run(tc.name+"/"+format, func(t *testing.T) {
				var b bytes.Buffer
				require.NoError(t, write(&b, r))
				out := html.UnescapeString(b.String())
				if tc.budget.Kind == sim.NoBudget {
					assert.NotContains(t, out, "budget of its own", "a report without a budget")
					assert.NotContains(t, out, "share one budget", "a report without a budget")
					return
				}
				if format == "markdown" {
					out = unescapeMarkdown(out)
				}
				assert.Contains(t, out, sentence, "the report names the budget and its scope")
			})
		}
	}
}

// unescapeMarkdown undoes what report.md escapes in text.
func unescapeMarkdown(s string) string {
	var b []byte
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b = append(b, s[i])
	}
	return string(b)
}
