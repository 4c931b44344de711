package libs

import (
	"errors"
	"math"
	"testing"
	"time"

	backoffv4 "github.com/cenkalti/backoff/v4"
	backoffv5 "github.com/cenkalti/backoff/v5"
	"github.com/jitterkit/jitterkit/kit"
	retry "github.com/sethvargo/go-retry"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The adapters must take a library's values as they are: compile-time
// proof that each library type satisfies the adapter's interface.
var (
	_ kit.NextBackOffer = (*backoffv4.ExponentialBackOff)(nil)
	_ kit.NextBackOffer = backoffv4.WithMaxRetries(&backoffv4.ZeroBackOff{}, 1)
	_ kit.NextBackOffer = (*backoffv5.ExponentialBackOff)(nil)
	_ kit.Nexter        = retry.NewExponential(time.Second)
)

// intervals returns the retry intervals cenkalti/backoff documents for its
// ExponentialBackOff: the first is initial, each next one the previous times
// multiplier, capped at max ("MaxInterval caps the RetryInterval").
func intervals(initial, max time.Duration, multiplier float64, n int) []time.Duration {
	out := make([]time.Duration, n)
	cur := initial
	for i := range out {
		out[i] = cur
		if float64(cur)*multiplier >= float64(max) {
			cur = max
		} else {
			cur = time.Duration(float64(cur) * multiplier)
		}
	}
	return out
}

// checkRandomized checks that each delay lies in
// interval·[1 - factor, 1 + factor], the range backoff documents.
func checkRandomized(t *testing.T, name string, got, intervals []time.Duration, factor float64) {
	t.Helper()
	for i, d := range got {
		lo := time.Duration(float64(intervals[i]) * (1 - factor))
		hi := time.Duration(float64(intervals[i]) * (1 + factor))
		assert.True(t, d >= lo && d <= hi, "%s: delay %d = %v; want in [%v, %v], interval %v ± %v%%", name, i+1, d, lo, hi, intervals[i], factor*100)
	}
}

// stoppedClock is a backoff Clock that reads a fixed instant plus however
// long the device has slept.
type stoppedClock struct{ now time.Time }

func (c *stoppedClock) Now() time.Time { return c.now }

func TestBackoffV4Defaults(t *testing.T) {
	clock := &stoppedClock{now: time.Date(2026, 3, 1, 4, 0, 0, 0, time.UTC)}
	b := backoffv4.NewExponentialBackOff(backoffv4.WithClockProvider(clock))
	require.Equal(t, 500*time.Millisecond, b.InitialInterval, "backoff v4's documented default InitialInterval")
	require.Equal(t, 1.5, b.Multiplier, "backoff v4's documented default Multiplier")
	require.Equal(t, 0.5, b.RandomizationFactor, "backoff v4's documented default RandomizationFactor")
	require.Equal(t, time.Minute, b.MaxInterval, "backoff v4's documented default MaxInterval")
	got, err := kit.Delays(kit.FromNextBackOff(b), 30)
	require.NoError(t, err, "Delays")
	require.Len(t, got, 30, "Delays (the clock does not move, so MaxElapsedTime never passes)")
	checkRandomized(t, "backoff v4 defaults", got, intervals(500*time.Millisecond, time.Minute, 1.5, 30), 0.5)
}

func TestBackoffV4WithoutRandomization(t *testing.T) {
	b := backoffv4.NewExponentialBackOff(
		backoffv4.WithRandomizationFactor(0),
		backoffv4.WithMaxInterval(10*time.Second),
		backoffv4.WithMaxElapsedTime(0),
	)
	got, err := kit.Delays(kit.FromNextBackOff(b), 12)
	assert.NoError(t, err, "backoff v4 without randomization: Delays")
	assert.Equal(t, intervals(500*time.Millisecond, 10*time.Second, 1.5, 12), got, "backoff v4 without randomization: Delays")
}

func TestBackoffV4MaxElapsedTimeStops(t *testing.T) {
	// The device sleeps each delay: NextBackOff stops once elapsed time plus
	// the next delay would pass MaxElapsedTime. With intervals 0.5, 0.75,
	// 1.125, 1.6875, 2.53125 s (6.59375 s in all), the next, 3.796875 s,
	// would end at 10.39 s > 10 s.
	clock := &stoppedClock{now: time.Date(2026, 3, 1, 4, 0, 0, 0, time.UTC)}
	b := backoffv4.NewExponentialBackOff(
		backoffv4.WithClockProvider(clock),
		backoffv4.WithRandomizationFactor(0),
		backoffv4.WithMaxElapsedTime(10*time.Second),
	)
	p := kit.FromNextBackOff(b)
	var got []time.Duration
	for range 20 {
		d, err := p.Next()
		if errors.Is(err, kit.ErrStop) {
			break
		}
		require.NoError(t, err)
		got = append(got, d)
		clock.now = clock.now.Add(d)
	}
	assert.Equal(t, intervals(500*time.Millisecond, time.Minute, 1.5, 5), got, "backoff v4 with MaxElapsedTime 10s: the delays before ErrStop")
}

func TestBackoffV4WithMaxRetriesStops(t *testing.T) {
	inner := backoffv4.NewExponentialBackOff(backoffv4.WithRandomizationFactor(0), backoffv4.WithMaxElapsedTime(0))
	b := backoffv4.WithMaxRetries(inner, 3)
	b.NextBackOff() // used before: the adapter resets it
	got, err := kit.Delays(kit.FromNextBackOff(b), 10)
	assert.NoError(t, err, "backoff v4 WithMaxRetries 3: Delays")
	assert.Equal(t, intervals(500*time.Millisecond, time.Minute, 1.5, 3), got, "backoff v4 WithMaxRetries 3: the delays before ErrStop")
}

func TestBackoffV5Defaults(t *testing.T) {
	// v5 moved MaxElapsedTime to Retry's options: the BackOff itself never
	// stops, so neither does its policy.
	b := backoffv5.NewExponentialBackOff()
	require.Equal(t, 500*time.Millisecond, b.InitialInterval, "backoff v5's documented default InitialInterval")
	require.Equal(t, 1.5, b.Multiplier, "backoff v5's documented default Multiplier")
	require.Equal(t, 0.5, b.RandomizationFactor, "backoff v5's documented default RandomizationFactor")
	require.Equal(t, time.Minute, b.MaxInterval, "backoff v5's documented default MaxInterval")
	got, err := kit.Delays(kit.FromNextBackOff(b), 100)
	require.NoError(t, err, "Delays")
	require.Len(t, got, 100, "Delays, as v5's BackOff never stops")
	checkRandomized(t, "backoff v5 defaults", got, intervals(500*time.Millisecond, time.Minute, 1.5, 100), 0.5)
}

func TestBackoffV5WithoutRandomization(t *testing.T) {
	b := &backoffv5.ExponentialBackOff{
		InitialInterval: 100 * time.Millisecond,
		Multiplier:      2,
		MaxInterval:     10 * time.Second,
	}
	b.NextBackOff()
	b.NextBackOff() // used before: the adapter resets it
	got, err := kit.Delays(kit.FromNextBackOff(b), 10)
	want := []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond,
		1600 * time.Millisecond, 3200 * time.Millisecond, 6400 * time.Millisecond, 10 * time.Second, 10 * time.Second, 10 * time.Second}
	assert.NoError(t, err, "backoff v5 without randomization: Delays")
	assert.Equal(t, want, got, "backoff v5 without randomization: Delays")
}

func TestBackoffStopBackOffStops(t *testing.T) {
	for name, b := range map[string]kit.NextBackOffer{
		"v4 StopBackOff": &backoffv4.StopBackOff{},
		"v5 StopBackOff": &backoffv5.StopBackOff{},
	} {
		d, err := kit.FromNextBackOff(b).Next()
		assert.ErrorIs(t, err, kit.ErrStop, "%s: Next = %v", name, d)
	}
}

func TestBackoffJitterIsNotReproducible(t *testing.T) {
	// cenkalti/backoff draws its jitter from math/rand's global generator:
	// the same device gets different delays each time its policy is made,
	// which the kit's reproducibility check reports.
	a, _ := kit.Delays(kit.FromNextBackOff(backoffv5.NewExponentialBackOff()), 10)
	b, _ := kit.Delays(kit.FromNextBackOff(backoffv5.NewExponentialBackOff()), 10)
	assert.NotEqual(t, a, b, "two backoff v5 policies drew the same 10 delays; want the global generator's different draws")
}

func TestGoRetryExponential(t *testing.T) {
	// NewExponential doubles from base: base, 2·base, 4·base, ...
	got, err := kit.Delays(kit.FromNext(retry.NewExponential(250*time.Millisecond)), 8)
	want := []time.Duration{250 * time.Millisecond, 500 * time.Millisecond, time.Second, 2 * time.Second,
		4 * time.Second, 8 * time.Second, 16 * time.Second, 32 * time.Second}
	assert.NoError(t, err, "go-retry NewExponential(250ms): Delays")
	assert.Equal(t, want, got, "go-retry NewExponential(250ms): Delays")

	// "Once it overflows, the function constantly returns the maximum
	// time.Duration."
	long, err := kit.Delays(kit.FromNext(retry.NewExponential(time.Second)), 80)
	assert.NoError(t, err, "go-retry NewExponential(1s): Delays")
	if assert.Len(t, long, 80, "go-retry NewExponential(1s): Delays") {
		assert.Equal(t, time.Duration(math.MaxInt64), long[79], "go-retry NewExponential(1s): delay 80, the maximum Duration")
	}
}

func TestGoRetryWithMaxRetriesStops(t *testing.T) {
	b := retry.WithMaxRetries(3, retry.WithCappedDuration(3*time.Second, retry.NewExponential(time.Second)))
	got, err := kit.Delays(kit.FromNext(b), 10)
	assert.NoError(t, err, "go-retry WithMaxRetries(3, capped 3s): Delays")
	assert.Equal(t, []time.Duration{time.Second, 2 * time.Second, 3 * time.Second}, got, "go-retry WithMaxRetries(3, capped 3s): the delays before ErrStop")
}

func TestGoRetryFullJitter(t *testing.T) {
	// WithFullJitter returns a value in [0, the wrapped backoff's value).
	b := retry.WithFullJitter(retry.WithCappedDuration(time.Minute, retry.NewExponential(time.Second)))
	got, err := kit.Delays(kit.FromNext(b), 20)
	require.NoError(t, err, "Delays")
	require.Len(t, got, 20, "Delays")
	for n, d := range got {
		w := min(time.Minute, time.Second<<n)
		assert.True(t, d >= 0 && d < w, "go-retry full jitter: delay %d = %v; want in [0, %v)", n+1, d, w)
	}
}
