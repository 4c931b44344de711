package sim

import (
	"context"
	"io"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/kit"
)

// FuzzReplay draws every field of a Scenario and a Config, tiny, huge,
// zero and negative values included, and a policy from kit.Spec. Validate
// must refuse with the package's prefix or accept; an accepted replay,
// with its fleet, runs and horizon cut down so that one case stays fast,
// must not panic, must return no error (the policies never fail and the
// context is never done), must fit its memory limit by the estimate, and
// every figure of its result must be finite, down to the report's
// threshold line (Threshold × AcceptRate × Window) and the JSON.
//
//	go test -fuzz=FuzzReplay -fuzztime=60s ./sim
func FuzzReplay(f *testing.F) {
	type seed struct {
		kind, server                                               uint8
		clients                                                    int64
		rate, burst                                                float64
		down, window, spread, horizon, retryAfter, retries, period int64
		threshold                                                  float64
		maxAttempts, memoryLimit                                   int64
		ids                                                        uint16
		runs, workers                                              int64
		level                                                      float64
		resamples                                                  int64
		repOnly                                                    bool
		replaySeed                                                 uint64
		strategy, seedKind                                         uint8
		base, capacity                                             int64
		multiplier                                                 float64
	}
	outage := seed{clients: 400, rate: 50, threshold: 0.6, runs: 3, base: int64(100 * time.Millisecond), capacity: int64(10 * time.Second)}
	for _, s := range []func(s *seed){
		func(s *seed) {}, // the default outage
		// The hostile review: an accept rate of 1e-200 reached a panic
		// of gonum's Quantile, and a threshold of 1e307 an infinite
		// threshold line in the report.
		func(s *seed) { s.rate = 1e-200 },
		func(s *seed) { s.threshold = 1e307 },
		// A month in 10ms windows for one client; 400ms in 1ns windows;
		// one client over a million runs.
		func(s *seed) {
			s.clients, s.down, s.horizon, s.window, s.strategy = 1, int64(maxHorizon), int64(maxHorizon), int64(10*time.Millisecond), 0
			s.base, s.capacity = int64(300*time.Second), int64(300*time.Second)
		},
		func(s *seed) { s.strategy, s.window, s.horizon = 1, 1, int64(400*time.Millisecond) },
		func(s *seed) { s.clients, s.runs = 1, 1_000_000 },
		// A fixed fleet, kept to its representative run's histograms.
		func(s *seed) { s.ids, s.repOnly, s.runs = 40, true, 7 },
		// Periods and spreads that overflow a time.Duration when added.
		func(s *seed) { s.kind, s.period = 4, math.MaxInt64 },
		func(s *seed) { s.kind, s.spread = 2, math.MaxInt64 },
		// Everything negative or not a number.
		func(s *seed) {
			s.clients, s.rate, s.burst, s.down, s.window, s.spread, s.horizon = -1, math.NaN(), -1, -5, -1, -1, -1
			s.retryAfter, s.retries, s.period, s.threshold, s.maxAttempts, s.memoryLimit = -1, -1, -1, math.Inf(1), -1, -1
			s.runs, s.workers, s.level, s.resamples = -1, -1, math.NaN(), -1
		},
		// Tiny and huge.
		func(s *seed) {
			s.kind, s.server, s.rate, s.burst, s.window, s.horizon = 3, 1, 1e-9, 1e300, 1, 1000
			s.period, s.maxAttempts, s.level, s.multiplier = 1, math.MaxInt64, 1e-300, 1e6
		},
		func(s *seed) { s.server, s.rate, s.retryAfter, s.threshold, s.memoryLimit = 2, 1e12, 1, 1e12, 1 },
	} {
		c := outage
		s(&c)
		f.Add(c.kind, c.server, c.clients, c.rate, c.burst, c.down, c.window, c.spread, c.horizon, c.retryAfter, c.retries, c.period,
			c.threshold, c.maxAttempts, c.memoryLimit, c.ids, c.runs, c.workers, c.level, c.resamples, c.repOnly, c.replaySeed,
			c.strategy, c.seedKind, c.base, c.capacity, c.multiplier)
	}
	f.Fuzz(func(t *testing.T, kind, server uint8, clients int64, rate, burst float64,
		down, window, spread, horizon, retryAfter, retries, period int64,
		threshold float64, maxAttempts, memoryLimit int64, ids uint16,
		runs, workers int64, level float64, resamples int64, repOnly bool, replaySeed uint64,
		strategy, seedKind uint8, base, capacity int64, multiplier float64) {
		s := Scenario{
			Kind: Kind(pick(kind, append(Kinds(), "", "flood"))), Server: Server(pick(server, append(Servers(), "", "queue"))),
			Clients: int(clients), AcceptRate: rate, Burst: burst,
			Down: time.Duration(down), Window: time.Duration(window), StartSpread: time.Duration(spread),
			Horizon: time.Duration(horizon), RetryAfter: time.Duration(retryAfter), Retries: int(retries),
			Period: time.Duration(period), Threshold: threshold, MaxAttempts: int(maxAttempts), MemoryLimit: memoryLimit,
		}
		if ids > 0 {
			s.IDs = traceIDs(int(ids % 512))
		}
		cfg := Config{Runs: int(runs), Workers: int(workers), Level: level, Resamples: int(resamples), RepresentativeOnly: repOnly, Seed: replaySeed}
		if err := s.Validate(nil, cfg); err != nil {
			require.True(t, strings.HasPrefix(err.Error(), "sim: "), "Validate() = %q; want the prefix sim: ", err)
		}

		// Cut the replay down: at most 64 devices, 4 runs, 10 minutes,
		// 100,000 windows, 1,000 periods, 200 attempts or retries, 100
		// resamples, 4 workers.
		if s.Clients > 64 || s.Clients < 0 {
			s.Clients = int(uint64(clients) % 65)
		}
		if len(s.IDs) > 0 {
			s.IDs, s.Clients = s.IDs[:min(len(s.IDs), 64)], 0
		}
		s.Horizon = min(s.Horizon, 10*time.Minute)
		if s.Horizon > 0 && s.Window > 0 && s.Horizon/s.Window > 100_000 {
			s.Window = s.Horizon / 100_000
		}
		if s.Horizon == 0 && s.Window > 0 && s.Window < 10*time.Millisecond {
			s.Window = 10 * time.Millisecond // a default horizon is an hour or more
		}
		if s.Period > 0 && s.Period < 10*time.Millisecond {
			s.Period = 10 * time.Millisecond
		}
		s.StartSpread = min(s.StartSpread, 10*time.Minute)
		s.Down = min(s.Down, time.Hour)
		s.MaxAttempts, s.Retries = min(s.MaxAttempts, 200), min(s.Retries, 200)
		if s.MaxAttempts == 0 {
			s.MaxAttempts = 200
		}
		cfg.Runs, cfg.Workers, cfg.Resamples = min(cfg.Runs, 4), min(cfg.Workers, 4), min(cfg.Resamples, 100)
		if cfg.Runs == 0 {
			cfg.Runs = 4
		}
		if cfg.Resamples == 0 {
			cfg.Resamples = 100
		}
		spec := kit.Spec{
			Strategy: kit.Strategy(pick(strategy, kit.Strategies())),
			Base:     time.Duration(base), Cap: time.Duration(capacity), Multiplier: multiplier,
			Seed: kit.Seed(pick(seedKind, []kit.Seed{kit.SeedDevice, kit.SeedClock, kit.SeedConstant})),
		}
		if spec.Validate() != nil {
			spec = kit.Spec{Strategy: spec.Strategy}
		}
		if s.Validate(spec.Factory(), cfg) != nil {
			return
		}
		res, err := Replay(context.Background(), spec.Factory(), s, cfg)
		require.NoError(t, err, "Replay(%s, %+v, %+v)", spec, s, cfg)

		d := s.WithDefaults()
		require.LessOrEqual(t, s.Memory(spec.Factory(), cfg), d.MemoryLimit, "the estimate of an accepted replay")
		finite(t, "threshold × budget", d.Threshold*d.windowBudget())
		for name, e := range res.Summary {
			finite(t, string(name)+" median", e.Median)
			finite(t, string(name)+" low", e.Low)
			finite(t, string(name)+" high", e.High)
		}
		for _, run := range res.Runs {
			finite(t, "peak ratio", run.PeakRatio)
			require.GreaterOrEqual(t, run.PeakRatio, 0.0)
			require.GreaterOrEqual(t, run.PeakRetryArrivals, 0)
			require.LessOrEqual(t, run.PeakRetryArrivals, run.BusiestWindowArrivals)
			require.LessOrEqual(t, run.BusiestWindowArrivals, run.Attempts)
		}
		rep := res.Runs[res.Representative]
		require.NotNil(t, rep.Arrivals, "the representative run's histogram")
		_ = res.Status()
		_ = res.Detail()
		require.NoError(t, res.WriteJSON(io.Discard, spec.String()))
	})
}

// pick returns xs[i mod len(xs)].
func pick[T any](i uint8, xs []T) T { return xs[int(i)%len(xs)] }

func finite(t *testing.T, name string, x float64) {
	t.Helper()
	require.False(t, math.IsNaN(x) || math.IsInf(x, 0), "%s = %v; want a finite number", name, x)
}
