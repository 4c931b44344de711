package properties

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
)

func TestGranularity(t *testing.T) {
	dev := func(ds ...time.Duration) device { return device{delays: ds} }
	tests := []struct {
		name string
		devs []device
		want time.Duration
	}{
		{"whole milliseconds", []device{dev(3*time.Millisecond, 250*time.Millisecond), dev(1001 * time.Millisecond)}, time.Millisecond},
		{"whole seconds", []device{dev(2*time.Second, 4*time.Second)}, time.Second},
		{"nanoseconds", []device{dev(3*time.Millisecond + 1)}, 0},
		{"all zero", []device{dev(0, 0)}, 0},
		{"beyond the attempts examined", []device{dev(time.Second, time.Second, 7)}, time.Second},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, granularity(tt.devs, 2), "%s: granularity", tt.name)
	}
}

// Delays stored in whole milliseconds conform to their strategy: without
// spreading them back over their millisecond, equal jitter's 50 steps over
// its first window move the KS statistic by about 0.01, which 20,000
// devices resolve (D = 0.015, p = 3·10⁻⁴ at this seed without the
// spreading), and which at 1000 devices piles the p-values of a conforming
// policy up near zero.
func TestConformanceOfRoundedDelays(t *testing.T) {
	for _, s := range []string{"full", "equal", "decorrelated"} {
		claim, _ := kit.ParseSpec(s)
		out := mustRun(t, context.Background(), roundedMS(claim.Factory()), Config{Claim: &claim, Seed: 3, Devices: 20000, Attempts: 1, CapAttempts: 1})
		r := resultNamed(t, out, NameConformance)
		assert.Equal(t, verdict.Pass, r.Status, "%s rounded to ms: conformance: %s", s, r.Detail)
		assert.GreaterOrEqual(t, r.Figure, 1e-3, "%s rounded to ms: conformance p: %s", s, r.Detail)
	}
}

// holds reports whether r's figure meets its threshold by r.Want.
func holds(r Result) bool {
	switch r.Want {
	case "≥":
		return r.Figure >= r.Threshold
	case "≤":
		return r.Figure <= r.Threshold
	case "<":
		return r.Figure < r.Threshold
	}
	return true
}

// A pass of conformance shows a figure that meets its own threshold: an
// unjittered claim's figure is the devices off its window, 0, not a
// p-value of 0 beside "≥ 1e-06".
func TestConformancePassMeetsItsThreshold(t *testing.T) {
	for _, s := range []string{"none:base=1s,cap=30s", "full", "equal", "decorrelated"} {
		claim, err := kit.ParseSpec(s)
		if !assert.NoError(t, err) {
			continue
		}
		out := mustRun(t, context.Background(), claim.Factory(), Config{Claim: &claim, Seed: 3, Devices: 1000})
		for _, r := range out.Results {
			if r.Status == verdict.Pass {
				assert.True(t, holds(r), "%s: %s passes with %v %s %s %v", s, r.Name, r.Figure, r.Unit, r.Want, r.Threshold)
			}
		}
		r := resultNamed(t, out, NameConformance)
		assert.Equal(t, verdict.Pass, r.Status, "%s: %s", s, r.Detail)
	}
}
