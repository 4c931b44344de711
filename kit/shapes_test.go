package kit

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The shapes of real libraries' backoffs that the adapters take as they are.

// waitBackoff is k8s.io/apimachinery's wait.Backoff without jitter: Step
// returns Duration and multiplies it by Factor while Steps last, and keeps
// returning the last Duration once they run out.
type waitBackoff struct {
	Duration time.Duration
	Factor   float64
	Steps    int
}

func (b *waitBackoff) Step() time.Duration {
	if b.Steps < 1 {
		return b.Duration
	}
	b.Steps--
	d := b.Duration
	b.Duration = time.Duration(float64(b.Duration) * b.Factor)
	return d
}

func TestFromStepNeverStops(t *testing.T) {
	b := &waitBackoff{Duration: 10 * time.Millisecond, Factor: 5, Steps: 3}
	got, err := Delays(FromStep(b), 6)
	require.NoError(t, err)
	ms := time.Millisecond
	assert.Equal(t, []time.Duration{10 * ms, 50 * ms, 250 * ms, 1250 * ms, 1250 * ms, 1250 * ms}, got,
		"Step keeps returning the last duration once Steps run out; the policy does not stop")
}

func TestFromStepLimitedAtSteps(t *testing.T) {
	// wait.ExponentialBackoff stops after Steps calls: Limit stops the
	// policy there.
	b := &waitBackoff{Duration: 10 * time.Millisecond, Factor: 5, Steps: 3}
	got, err := Delays(Limit(FromStep(b), b.Steps), 10)
	require.NoError(t, err)
	assert.Equal(t, []time.Duration{10 * time.Millisecond, 50 * time.Millisecond, 250 * time.Millisecond}, got)
}

func TestFromIndexCountsFromZero(t *testing.T) {
	var asked []int
	p := FromIndex(func(i int) time.Duration {
		asked = append(asked, i)
		return time.Second << i
	})
	got, err := Delays(p, 4)
	require.NoError(t, err)
	assert.Equal(t, []int{0, 1, 2, 3}, asked, "FromIndex asks for 0 before the first retry")
	assert.Equal(t, []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second}, got)

	// FromFunc, for comparison, asks for 1 first.
	var first int
	FromFunc(func(n int) time.Duration { first = n; return 0 }).Next()
	assert.Equal(t, 1, first, "FromFunc asks for attempt 1 first")
}

// counting is a policy that counts the calls to Next.
type counting struct{ calls int }

func (c *counting) Next() (time.Duration, error) {
	c.calls++
	return time.Duration(c.calls) * time.Second, nil
}

func TestLimit(t *testing.T) {
	c := &counting{}
	p := Limit(c, 2)
	for i, want := range []time.Duration{time.Second, 2 * time.Second} {
		d, err := p.Next()
		require.NoError(t, err, "Next %d", i+1)
		assert.Equal(t, want, d, "Next %d", i+1)
	}
	for range 3 {
		d, err := p.Next()
		assert.ErrorIs(t, err, ErrStop)
		assert.Zero(t, d)
	}
	assert.Equal(t, 2, c.calls, "Limit asks the policy no more once it has stopped it")

	got, err := Delays(Limit(FromSlice([]time.Duration{time.Second}), 5), 10)
	require.NoError(t, err)
	assert.Equal(t, []time.Duration{time.Second}, got, "a policy that stops before the limit stops through it")

	got, err = Delays(Limit(&failing{}, 5), 10)
	assert.EqualError(t, err, "program stopped answering", "a source failure passes through Limit")
	assert.Equal(t, []time.Duration{time.Second, 2 * time.Second}, got)

	d, err := Limit(&counting{}, 0).Next()
	assert.ErrorIs(t, err, ErrStop, "Limit 0 stops at once")
	assert.Zero(t, d)

	assert.PanicsWithValue(t, "kit: Limit of -1 delays", func() { Limit(&counting{}, -1) })
}

// clocked is a FakeClocked policy.
type clocked struct {
	counting
	start time.Time
}

func (c *clocked) ClockStart() time.Time { return c.start }

func TestLimitKeepsTheFakeClock(t *testing.T) {
	boot := time.Date(2026, 3, 1, 4, 0, 0, 0, time.UTC)
	p := Limit(&clocked{start: boot}, 1)
	c, ok := p.(FakeClocked)
	require.True(t, ok, "Limit of a FakeClocked policy is %T, not FakeClocked", p)
	assert.Equal(t, boot, c.ClockStart())
	_, err := Delays(p, 3)
	require.NoError(t, err)

	_, ok = Limit(&counting{}, 1).(FakeClocked)
	assert.False(t, ok, "Limit of a policy without a fake clock claims one")
}

func TestFromBackoffDelayReturnsTheLibrarysError(t *testing.T) {
	// An error of BackoffDelay is the library failing: a source failure,
	// not a stop, on every call that fails.
	p := FromBackoffDelay(&fakeDelayer{max: 2}, errors.New("throttled"))
	got, err := Delays(p, 10)
	assert.Equal(t, []time.Duration{time.Second, 2 * time.Second}, got)
	require.Error(t, err)
	assert.NotErrorIs(t, err, ErrStop)
	assert.EqualError(t, err, "BackoffDelay(3): failed to read random value")
	_, err = p.Next()
	assert.EqualError(t, err, "BackoffDelay(4): failed to read random value")
}
