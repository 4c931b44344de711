package kit

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/testdata/kittest"
)

// fakeBackOff is a cenkalti/backoff-style BackOff that plays delays in
// order, with -1 meaning Stop, and counts its resets.
type fakeBackOff struct {
	delays []time.Duration
	next   int
	resets int
}

func (b *fakeBackOff) NextBackOff() time.Duration {
	if b.next == len(b.delays) {
		return -1
	}
	d := b.delays[b.next]
	b.next++
	return d
}

func (b *fakeBackOff) Reset() { b.next, b.resets = 0, b.resets+1 }

// fakeNexter is a sethvargo/go-retry-style Backoff that stops after its
// delays.
type fakeNexter struct{ delays []time.Duration }

func (b *fakeNexter) Next() (time.Duration, bool) {
	if len(b.delays) == 0 {
		return 0, true
	}
	d := b.delays[0]
	b.delays = b.delays[1:]
	return d, false
}

// fakeDelayer is an aws-sdk-go-v2-style backoff: the delay is attempt
// seconds, and it fails past max, as the SDK's backoff fails when its random
// source breaks. It records what it was asked.
type fakeDelayer struct {
	max      int
	attempts []int
	errs     []error
}

func (b *fakeDelayer) BackoffDelay(attempt int, err error) (time.Duration, error) {
	b.attempts = append(b.attempts, attempt)
	b.errs = append(b.errs, err)
	if attempt > b.max {
		return 0, errors.New("failed to read random value")
	}
	return time.Duration(attempt) * time.Second, nil
}

func TestAdapters(t *testing.T) {
	s := time.Second
	tests := []struct {
		name string
		p    func() Policy
		n    int
		want []time.Duration
	}{
		{"FromNextBackOff stops at -1", func() Policy {
			return FromNextBackOff(&fakeBackOff{delays: []time.Duration{s, 2 * s, 0}})
		}, 10, []time.Duration{s, 2 * s, 0}},
		{"FromNextBackOff resets first", func() Policy {
			b := &fakeBackOff{delays: []time.Duration{s, 2 * s}}
			b.NextBackOff()
			b.NextBackOff()
			return FromNextBackOff(b)
		}, 10, []time.Duration{s, 2 * s}},
		{"FromNextBackOff passes other negatives", func() Policy {
			return FromNextBackOff(&fakeBackOff{delays: []time.Duration{-2 * s, s}})
		}, 10, []time.Duration{-2 * s, s}},
		{"FromNext stops on true", func() Policy {
			return FromNext(&fakeNexter{delays: []time.Duration{3 * s, s}})
		}, 10, []time.Duration{3 * s, s}},
		{"FromBackoffDelay counts from 1", func() Policy {
			return FromBackoffDelay(&fakeDelayer{max: 100}, errors.New("timeout"))
		}, 3, []time.Duration{s, 2 * s, 3 * s}},
		{"FromFunc counts from 1 and never stops", func() Policy {
			return FromFunc(func(attempt int) time.Duration { return time.Duration(attempt*attempt) * time.Millisecond })
		}, 5, []time.Duration{time.Millisecond, 4 * time.Millisecond, 9 * time.Millisecond, 16 * time.Millisecond, 25 * time.Millisecond}},
		{"FromIndex counts from 0 and never stops", func() Policy {
			return FromIndex(func(i int) time.Duration { return time.Duration(i) * s })
		}, 4, []time.Duration{0, s, 2 * s, 3 * s}},
		{"FromDelayFunc calls f for each delay and never stops", func() Policy {
			next := time.Duration(0)
			return FromDelayFunc(func() time.Duration { next += s; return next })
		}, 4, []time.Duration{s, 2 * s, 3 * s, 4 * s}},
		{"FromDelayFunc through Limit", func() Policy {
			return Limit(FromDelayFunc(func() time.Duration { return s }), 2)
		}, 10, []time.Duration{s, s}},
		{"FromSlice plays the slice then stops", func() Policy {
			return FromSlice([]time.Duration{s, -s, 0})
		}, 10, []time.Duration{s, -s, 0}},
		{"FromSlice of nothing stops at once", func() Policy { return FromSlice(nil) }, 10, []time.Duration{}},
		{"Delays reads at most n", func() Policy { return FromSlice([]time.Duration{s, s, s}) }, 2, []time.Duration{s, s}},
		{"Delays of 0", func() Policy { return FromSlice([]time.Duration{s}) }, 0, []time.Duration{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Delays(tt.p(), tt.n)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got, "Delays(p, %d)", tt.n)
		})
	}
}

func TestAdaptersKeepStopping(t *testing.T) {
	// Once stopped, a policy says so on every later call.
	for name, p := range map[string]Policy{
		"FromNextBackOff": FromNextBackOff(&fakeBackOff{}),
		"FromNext":        FromNext(&fakeNexter{}),
		"FromSlice":       FromSlice(nil),
	} {
		for i := range 3 {
			d, err := p.Next()
			assert.ErrorIs(t, err, ErrStop, "%s: call %d of Next", name, i+1)
			assert.Zero(t, d, "%s: call %d of Next", name, i+1)
		}
	}
}

func TestFromNextBackOffResets(t *testing.T) {
	b := &fakeBackOff{delays: []time.Duration{time.Second}}
	FromNextBackOff(b)
	assert.Equal(t, 1, b.resets, "FromNextBackOff resets the BackOff once")
}

func TestFromBackoffDelayAsksWithTheError(t *testing.T) {
	cause := errors.New("connection refused")
	b := &fakeDelayer{max: 100}
	Delays(FromBackoffDelay(b, cause), 3)
	assert.Equal(t, []int{1, 2, 3}, b.attempts, "the attempts BackoffDelay was asked for")
	for i, err := range b.errs {
		assert.Same(t, cause, err, "the error of BackoffDelay call %d", i+1)
	}
}

func TestFromSliceLeavesTheSliceAlone(t *testing.T) {
	delays := []time.Duration{time.Second, 2 * time.Second}
	a, _ := Delays(FromSlice(delays), 5)
	b, _ := Delays(FromSlice(delays), 5)
	assert.Equal(t, delays, a, "the first of two policies from one slice")
	assert.Equal(t, delays, b, "the second of two policies from one slice")
}

// failing is a policy whose source breaks after two delays.
type failing struct{ n int }

func (p *failing) Next() (time.Duration, error) {
	p.n++
	if p.n > 2 {
		return 0, errors.New("program stopped answering")
	}
	return time.Duration(p.n) * time.Second, nil
}

func TestDelaysReturnsWhatItReadAndTheError(t *testing.T) {
	got, err := Delays(&failing{}, 5)
	assert.Equal(t, []time.Duration{time.Second, 2 * time.Second}, got, "the delays read before the failure")
	assert.EqualError(t, err, "program stopped answering", "the source's error")
}

func TestSeconds(t *testing.T) {
	tests := []struct {
		s       float64
		want    time.Duration
		wantErr bool
	}{
		{0, 0, false},
		{0.25, 250 * time.Millisecond, false},
		{1.5, 1500 * time.Millisecond, false},
		{300, 5 * time.Minute, false},
		{1e-9, 1, false},
		{1.4e-9, 1, false},
		{1.6e-9, 2, false},
		{-0.5, -500 * time.Millisecond, false},
		{-3600, -time.Hour, false},
		{9.2e9, 9_200_000_000 * time.Second, false},
		{math.NaN(), 0, true},
		{math.Inf(1), 0, true},
		{math.Inf(-1), 0, true},
		{1e300, 0, true},
		{-1e300, 0, true},
		{9.3e9, 0, true}, // beyond 292 years
		{math.MaxInt64 / 1e9, 0, true},
	}
	for _, tt := range tests {
		got, err := Seconds(tt.s)
		if tt.wantErr {
			var de *DelayError
			if assert.ErrorAs(t, err, &de, "Seconds(%v) = %v", tt.s, got) {
				assert.True(t, kittest.SameFloats([]float64{tt.s}, []float64{de.Seconds}),
					"Seconds(%v): the *DelayError holds %v; want %v", tt.s, de.Seconds, tt.s)
			}
			continue
		}
		assert.NoError(t, err, "Seconds(%v)", tt.s)
		assert.Equal(t, tt.want, got, "Seconds(%v)", tt.s)
	}
}

func TestDelayErrorMessage(t *testing.T) {
	for s, want := range map[float64]string{
		math.NaN():   "delay NaN s is not a duration",
		math.Inf(1):  "delay +Inf s is not a duration",
		math.Inf(-1): "delay -Inf s is not a duration",
		1e300:        "delay 1e+300 s is not a duration",
	} {
		_, err := Seconds(s)
		assert.EqualError(t, err, want, "Seconds(%v)", s)
	}
}
