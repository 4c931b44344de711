package reports

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/jitterkit/jitterkit/properties"
)

// A check's figure and threshold print with enough digits that the
// printed comparison reads as the real one: three digits would show a
// pass as "1% < 1%", or a failure as "1 ≤ 1".
func TestCheckFiguresReadAsTheyCompare(t *testing.T) {
	tests := []struct {
		name    string
		c       properties.Result
		fig, th string
	}{
		{"a share just under", properties.Result{Figure: 0.0099996, Threshold: 0.01, Unit: "of the fleet", Want: "<"}, "0.99996% of the fleet", "< 1%"},
		{"a ratio just over", properties.Result{Figure: 1.0004, Threshold: 1, Unit: "× chance in one window", Want: "≤"}, "1.0004 × chance in one window", "≤ 1"},
		{"a p-value just under", properties.Result{Figure: 0.00099949, Threshold: 0.001, Unit: "p", Want: "≥"}, "p 0.000999", "≥ 0.001"},
		{"three digits suffice", properties.Result{Figure: 0.581, Threshold: 0.05, Unit: "CV", Want: "≥"}, "CV 0.581", "≥ 0.05"},
	}
	for _, tt := range tests {
		fig, th := checkFigures(tt.c)
		assert.Equal(t, tt.fig, fig, "%s: figure", tt.name)
		assert.Equal(t, tt.th, th, "%s: threshold", tt.name)
	}
}
