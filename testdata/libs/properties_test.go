package libs

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	retryavast "github.com/avast/retry-go/v4"
	backoffv4 "github.com/cenkalti/backoff/v4"
	backoffv5 "github.com/cenkalti/backoff/v5"
	"github.com/hashicorp/go-retryablehttp"
	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/properties"
	retry "github.com/sethvargo/go-retry"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Each library below is checked as it is configured by default, through
// the kit adapters or, where the library has no delay method of its own,
// by recording what its retry loop waits.

// retryablehttpPolicy asks a go-retryablehttp Backoff for the waits its
// client makes: attempt numbers 0 to RetryMax−1, with no response.
type retryablehttpPolicy struct {
	c *retryablehttp.Client
	i int
}

func (p *retryablehttpPolicy) Next() (time.Duration, error) {
	if p.i >= p.c.RetryMax {
		return 0, kit.ErrStop
	}
	d := p.c.Backoff(p.c.RetryWaitMin, p.c.RetryWaitMax, p.i, (*http.Response)(nil))
	p.i++
	return d, nil
}

// retryablehttpFactory returns the policy of a default client with the
// given backoff.
func retryablehttpFactory(backoff retryablehttp.Backoff) kit.Factory {
	return func(kit.Device) kit.Policy {
		c := retryablehttp.NewClient()
		if backoff != nil {
			c.Backoff = backoff
		}
		return &retryablehttpPolicy{c: c}
	}
}

// recordingTimer is an avast/retry-go Timer that records each wait and
// returns at once.
type recordingTimer struct{ waits []time.Duration }

func (r *recordingTimer) After(d time.Duration) <-chan time.Time {
	r.waits = append(r.waits, d)
	c := make(chan time.Time, 1)
	c <- time.Time{}
	return c
}

// avastDefault returns the waits of retry.Do with its default options for
// an operation that always fails.
func avastDefault(kit.Device) kit.Policy {
	timer := &recordingTimer{}
	_ = retryavast.Do(func() error { return errors.New("unavailable") }, retryavast.WithTimer(timer))
	return kit.FromSlice(timer.waits)
}

// sethvargoCapped is go-retry's CappedDuration around WithJitterPercent
// around NewExponential.
func sethvargoCapped(kit.Device) kit.Policy {
	return kit.FromNext(retry.WithCappedDuration(10*time.Second,
		retry.WithJitterPercent(10, retry.NewExponential(100*time.Millisecond))))
}

func cenkaltiV4(kit.Device) kit.Policy { return kit.FromNextBackOff(backoffv4.NewExponentialBackOff()) }
func cenkaltiV5(kit.Device) kit.Policy { return kit.FromNextBackOff(backoffv5.NewExponentialBackOff()) }

func statusOf(out properties.Outcome, name string) properties.Result {
	for _, r := range out.Results {
		if r.Name == name {
			return r
		}
	}
	return properties.Result{}
}

func logFigures(t *testing.T, out properties.Outcome) {
	t.Helper()
	for _, r := range out.Results {
		t.Logf("%-15s %-4s figure %-10.4g threshold %-10.4g %s", r.Name, r.Status, r.Figure, r.Threshold, r.Detail)
	}
}

func TestLibrariesThatMustFail(t *testing.T) {
	tests := []struct {
		name string
		f    kit.Factory
		fail []string
	}{
		// min·2ⁿ, no jitter: 1s 2s 4s 8s for every device.
		// Without jitter the frozen clock has no spread to collapse:
		// frozen-clock is inconclusive and spread is the finding.
		{"go-retryablehttp DefaultBackoff", retryablehttpFactory(nil), []string{properties.NameSpread}},
		// Uniform ±10% until the cap, then exactly the cap.
		{"sethvargo CappedDuration(WithJitterPercent(NewExponential))", sethvargoCapped, []string{properties.NameCapPhase}},
		// 100ms·2ⁿ + U(0, 100ms): the added jitter vanishes against the window.
		{"avast retry-go default delay", avastDefault, []string{properties.NameCapPhase}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := properties.RunFrozen(t, tt.f, properties.Config{})
			require.NoError(t, err)
			logFigures(t, out)
			assert.Equal(t, verdict.Fail, out.Status(), "Status()")
			for _, name := range tt.fail {
				r := statusOf(out, name)
				assert.Equal(t, verdict.Fail, r.Status, "%s: %s", name, r.Detail)
			}
		})
	}
}

// go-retryablehttp's LinearJitterBackoff seeds a generator from the wall
// clock's nanoseconds on every call. With the clock running its delays
// spread; inside the frozen clock every device draws the same one.
func TestLinearJitterBackoffUnderTheFrozenClock(t *testing.T) {
	f := retryablehttpFactory(retryablehttp.LinearJitterBackoff)
	frozen, err := properties.RunFrozen(t, f, properties.Config{})
	require.NoError(t, err)
	logFigures(t, frozen)
	r := statusOf(frozen, properties.NameFrozenClock)
	assert.Equal(t, verdict.Fail, r.Status, "frozen-clock: %s", r.Detail)
	assert.Equal(t, verdict.Fail, frozen.Status(), "Status()")
	running, err := properties.Run(context.Background(), f, properties.Config{})
	require.NoError(t, err)
	r = statusOf(running, properties.NameSpread)
	assert.Equal(t, verdict.Pass, r.Status, "spread with the clock running (only the frozen clock shows the bug): %s", r.Detail)
}

// cenkalti/backoff's defaults (500ms, ×1.5, ±50%, at most 60s) pass; both
// versions draw from the package's shared generator, so a device's delays
// cannot be replayed from its id: a warning, not a failure.
func TestCenkaltiDefaultsPass(t *testing.T) {
	for _, tt := range []struct {
		name string
		f    kit.Factory
	}{{"cenkalti/backoff v4", cenkaltiV4}, {"cenkalti/backoff v5", cenkaltiV5}} {
		t.Run(tt.name, func(t *testing.T) {
			out, err := properties.RunFrozen(t, tt.f, properties.Config{Cap: 90 * time.Second})
			require.NoError(t, err)
			logFigures(t, out)
			for _, r := range out.Results {
				want := verdict.Pass
				if r.Name == properties.NameReproducibility {
					want = verdict.Warn
				}
				assert.Equal(t, want, r.Status, "%s: %s", r.Name, r.Detail)
			}
		})
	}
}

// Check, the go test entry point, passes them as a user would call it.
func TestCheckCenkaltiV5(t *testing.T) {
	properties.Check(t, cenkaltiV5, properties.Config{Cap: 90 * time.Second})
}
