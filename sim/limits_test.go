package sim

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestValidateLimits refuses, word for word, the values that cannot make
// finite figures or that would overflow the engine's counters, naming the
// field and its range, and accepts the values at the limits.
func TestValidateLimits(t *testing.T) {
	for _, c := range []struct {
		name string
		s    Scenario
		cfg  Config
		want string
	}{
		{"accept rate 1e-200", Scenario{AcceptRate: 1e-200}, Config{}, "sim: accept rate 1e-200 per second is below 1e-9"},
		{"threshold 1e307", Scenario{Threshold: 1e307}, Config{}, "sim: threshold 1e+307 is beyond 1e12"},
		{"max attempts over 32 bits", Scenario{MaxAttempts: math.MaxInt64}, Config{}, "sim: max attempts 9223372036854775807 is beyond 1,000,000,000"},
		{"down of years", Scenario{Down: 5 * 365 * 24 * time.Hour}, Config{}, "sim: down 43800h0m0s is beyond the longest replay, 744h0m0s (31 days)"},
		{"window of years", Scenario{Window: math.MaxInt64}, Config{}, "sim: window 2562047h47m16.854775807s is beyond the longest replay, 744h0m0s (31 days)"},
		{"start spread of years", Scenario{Kind: Storm, StartSpread: math.MaxInt64}, Config{}, "sim: start spread 2562047h47m16.854775807s is beyond the longest replay, 744h0m0s (31 days)"},
		{"period of years", Scenario{Kind: PeriodicAligned, Period: math.MaxInt64}, Config{}, "sim: period 2562047h47m16.854775807s is beyond the longest replay, 744h0m0s (31 days)"},
		{"a period of a microsecond", Scenario{Kind: Periodic, Period: time.Microsecond, Horizon: time.Hour}, Config{},
			"sim: a 1µs period fires 3600000000 times over the 1h0m0s horizon, more than 1,000,000: use a longer period or a shorter horizon"},
		{"storm first attempts over a month in 1ms windows", Scenario{Kind: Storm, StartSpread: maxHorizon, Window: time.Millisecond}, Config{},
			"sim: 1ms windows over 744h0m0s make 2,678,400,000 windows, more than 10,000,000: use wider windows or a shorter horizon"},
		{"runs", Scenario{}, Config{Runs: 1_000_001}, "sim: runs 1000001 is more than 1,000,000"},
		// Scenarios whose figures would mean nothing: one window for the
		// whole replay, first attempts after it ends, a server that never
		// comes back within it.
		{"a window of the whole horizon", Scenario{Window: time.Hour}, Config{}, "sim: window 1h0m0s leaves fewer than 10 windows in the 1h0m0s horizon: use a narrower window or a longer horizon"},
		{"first attempts after the horizon", Scenario{StartSpread: 10 * time.Hour}, Config{}, "sim: start spread 10h0m0s is longer than the 1h0m0s horizon: devices would make their first attempt after the replay ends"},
		{"a horizon while the server is down", Scenario{Horizon: time.Second, Window: 10 * time.Millisecond}, Config{}, "sim: horizon 1s ends before the server is back, 2s down: no device could be served"},
		{"level", Scenario{}, Config{Level: math.NaN()}, "sim: confidence level NaN is not between 0 and 1"},
		{"resamples", Scenario{}, Config{Resamples: -2}, "sim: resamples -2 is not between 0 and 1,000,000"},
		{"workers", Scenario{}, Config{Workers: -1}, "sim: workers -1 is negative"},
		{"memory limit of a byte", Scenario{MemoryLimit: 1}, Config{Runs: 1},
			"sim: 1 run of 400 clients over 1h0m0s in 1s windows would need about 6.6 MiB, above the memory limit of 1 B: one run needs 2.5 MiB; replay fewer clients, over a shorter horizon or in wider windows, or raise the limit"},
	} {
		assert.EqualError(t, c.s.Validate(nil, c.cfg), c.want, c.name)
	}
	for _, s := range []Scenario{
		{AcceptRate: 1e-9, Threshold: 1e12, MaxAttempts: 1_000_000_000},
		{AcceptRate: 1e12, Window: maxHorizon / 10, Horizon: maxHorizon, Down: maxHorizon - time.Second, StartSpread: maxHorizon},
		{Kind: Periodic, Clients: 1, Period: time.Second, Horizon: 1_000_000 * time.Second},
		{Kind: Storm, StartSpread: maxHorizon, Window: time.Second},
		{Window: 360 * time.Microsecond},
	} {
		assert.NoError(t, s.Validate(nil, Config{Runs: 1}), "%+v", s)
	}
}
