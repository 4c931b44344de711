package libs

import (
	"errors"
	"math"
	"slices"
	"testing"
	"time"

	backoffv4 "github.com/cenkalti/backoff/v4"
	backoffv5 "github.com/cenkalti/backoff/v5"
	"github.com/jitterkit/jitterkit/kit"
	retry "github.com/sethvargo/go-retry"
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
		if d < lo || d > hi {
			t.Errorf("%s: delay %d = %v; want in [%v, %v], interval %v ± %v%%", name, i+1, d, lo, hi, intervals[i], factor*100)
		}
	}
}

// stoppedClock is a backoff Clock that reads a fixed instant plus however
// long the device has slept.
type stoppedClock struct{ now time.Time }

func (c *stoppedClock) Now() time.Time { return c.now }

func TestBackoffV4Defaults(t *testing.T) {
	clock := &stoppedClock{now: time.Date(2026, 3, 1, 4, 0, 0, 0, time.UTC)}
	b := backoffv4.NewExponentialBackOff(backoffv4.WithClockProvider(clock))
	if b.InitialInterval != 500*time.Millisecond || b.Multiplier != 1.5 || b.RandomizationFactor != 0.5 || b.MaxInterval != time.Minute {
		t.Fatalf("backoff v4 defaults = %v, ×%v, ±%v, max %v; want the documented 500ms, ×1.5, ±0.5, max 1m",
			b.InitialInterval, b.Multiplier, b.RandomizationFactor, b.MaxInterval)
	}
	got, err := kit.Delays(kit.FromNextBackOff(b), 30)
	if err != nil || len(got) != 30 {
		t.Fatalf("Delays = %d delays, %v; want 30 (the clock does not move, so MaxElapsedTime never passes)", len(got), err)
	}
	checkRandomized(t, "backoff v4 defaults", got, intervals(500*time.Millisecond, time.Minute, 1.5, 30), 0.5)
}

func TestBackoffV4WithoutRandomization(t *testing.T) {
	b := backoffv4.NewExponentialBackOff(
		backoffv4.WithRandomizationFactor(0),
		backoffv4.WithMaxInterval(10*time.Second),
		backoffv4.WithMaxElapsedTime(0),
	)
	got, err := kit.Delays(kit.FromNextBackOff(b), 12)
	want := intervals(500*time.Millisecond, 10*time.Second, 1.5, 12)
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("backoff v4 without randomization: Delays = %v, %v; want %v", got, err, want)
	}
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
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, d)
		clock.now = clock.now.Add(d)
	}
	want := intervals(500*time.Millisecond, time.Minute, 1.5, 5)
	if !slices.Equal(got, want) {
		t.Errorf("backoff v4 with MaxElapsedTime 10s: delays %v, then ErrStop; want %v, then ErrStop", got, want)
	}
}

func TestBackoffV4WithMaxRetriesStops(t *testing.T) {
	inner := backoffv4.NewExponentialBackOff(backoffv4.WithRandomizationFactor(0), backoffv4.WithMaxElapsedTime(0))
	b := backoffv4.WithMaxRetries(inner, 3)
	b.NextBackOff() // used before: the adapter resets it
	got, err := kit.Delays(kit.FromNextBackOff(b), 10)
	if want := intervals(500*time.Millisecond, time.Minute, 1.5, 3); err != nil || !slices.Equal(got, want) {
		t.Errorf("backoff v4 WithMaxRetries 3: Delays = %v, %v; want %v, then ErrStop", got, err, want)
	}
}

func TestBackoffV5Defaults(t *testing.T) {
	// v5 moved MaxElapsedTime to Retry's options: the BackOff itself never
	// stops, so neither does its policy.
	b := backoffv5.NewExponentialBackOff()
	if b.InitialInterval != 500*time.Millisecond || b.Multiplier != 1.5 || b.RandomizationFactor != 0.5 || b.MaxInterval != time.Minute {
		t.Fatalf("backoff v5 defaults = %v, ×%v, ±%v, max %v; want the documented 500ms, ×1.5, ±0.5, max 1m",
			b.InitialInterval, b.Multiplier, b.RandomizationFactor, b.MaxInterval)
	}
	got, err := kit.Delays(kit.FromNextBackOff(b), 100)
	if err != nil || len(got) != 100 {
		t.Fatalf("Delays = %d delays, %v; want 100, as v5's BackOff never stops", len(got), err)
	}
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
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("backoff v5 without randomization: Delays = %v, %v; want %v", got, err, want)
	}
}

func TestBackoffStopBackOffStops(t *testing.T) {
	for name, b := range map[string]kit.NextBackOffer{
		"v4 StopBackOff": &backoffv4.StopBackOff{},
		"v5 StopBackOff": &backoffv5.StopBackOff{},
	} {
		if d, err := kit.FromNextBackOff(b).Next(); !errors.Is(err, kit.ErrStop) {
			t.Errorf("%s: Next = %v, %v; want ErrStop", name, d, err)
		}
	}
}

func TestBackoffJitterIsNotReproducible(t *testing.T) {
	// cenkalti/backoff draws its jitter from math/rand's global generator:
	// the same device gets different delays each time its policy is made,
	// which the kit's reproducibility check reports.
	a, _ := kit.Delays(kit.FromNextBackOff(backoffv5.NewExponentialBackOff()), 10)
	b, _ := kit.Delays(kit.FromNextBackOff(backoffv5.NewExponentialBackOff()), 10)
	if slices.Equal(a, b) {
		t.Errorf("two backoff v5 policies drew the same 10 delays %v; want the global generator's different draws", a)
	}
}

func TestGoRetryExponential(t *testing.T) {
	// NewExponential doubles from base: base, 2·base, 4·base, ...
	got, err := kit.Delays(kit.FromNext(retry.NewExponential(250*time.Millisecond)), 8)
	want := []time.Duration{250 * time.Millisecond, 500 * time.Millisecond, time.Second, 2 * time.Second,
		4 * time.Second, 8 * time.Second, 16 * time.Second, 32 * time.Second}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("go-retry NewExponential(250ms): Delays = %v, %v; want %v", got, err, want)
	}

	// "Once it overflows, the function constantly returns the maximum
	// time.Duration."
	long, err := kit.Delays(kit.FromNext(retry.NewExponential(time.Second)), 80)
	if err != nil || len(long) != 80 || long[79] != math.MaxInt64 {
		t.Errorf("go-retry NewExponential(1s): delay 80 = %v (%d delays, %v); want the maximum Duration", long[len(long)-1], len(long), err)
	}
}

func TestGoRetryWithMaxRetriesStops(t *testing.T) {
	b := retry.WithMaxRetries(3, retry.WithCappedDuration(3*time.Second, retry.NewExponential(time.Second)))
	got, err := kit.Delays(kit.FromNext(b), 10)
	if want := []time.Duration{time.Second, 2 * time.Second, 3 * time.Second}; err != nil || !slices.Equal(got, want) {
		t.Errorf("go-retry WithMaxRetries(3, capped 3s): Delays = %v, %v; want %v, then ErrStop", got, err, want)
	}
}

func TestGoRetryFullJitter(t *testing.T) {
	// WithFullJitter returns a value in [0, the wrapped backoff's value).
	b := retry.WithFullJitter(retry.WithCappedDuration(time.Minute, retry.NewExponential(time.Second)))
	got, err := kit.Delays(kit.FromNext(b), 20)
	if err != nil || len(got) != 20 {
		t.Fatalf("Delays = %d delays, %v; want 20", len(got), err)
	}
	for n, d := range got {
		w := min(time.Minute, time.Second<<n)
		if d < 0 || d >= w {
			t.Errorf("go-retry full jitter: delay %d = %v; want in [0, %v)", n+1, d, w)
		}
	}
}
