package libs

import (
	"net/http"
	"testing"
	"time"

	"github.com/hashicorp/go-retryablehttp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/jitterkit/jitterkit/kit"
)

// go-retryablehttp's client asks its Backoff for index i = 0, 1, ... before
// each retry and stops after RetryMax retries: FromIndex and Limit take that
// shape as it is, and give what the hand-written retryablehttpPolicy gives.
func TestRetryablehttpThroughFromIndexAndLimit(t *testing.T) {
	c := retryablehttp.NewClient()
	adapted := kit.Limit(kit.FromIndex(func(i int) time.Duration {
		return c.Backoff(c.RetryWaitMin, c.RetryWaitMax, i, (*http.Response)(nil))
	}), c.RetryMax)
	got, err := kit.Delays(adapted, 10)
	require.NoError(t, err)
	byHand, err := kit.Delays(&retryablehttpPolicy{c: c}, 10)
	require.NoError(t, err)
	assert.Equal(t, byHand, got)
	assert.Equal(t, []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second}, got,
		"DefaultBackoff: RetryWaitMin·2^i for the 4 retries of RetryMax")
}

// k8s.io/apimachinery's wait.Backoff hands out its delays in two shapes:
// Step, which moves the Backoff on, and DelayFunc, a func() time.Duration
// that keeps its own place and leaves the Backoff as it was, so that one
// Backoff value gives every device a schedule of its own. FromDelayFunc
// takes the second as it is and gives what FromStep gives from the first:
// Duration·Factorⁿ for Steps delays or until Cap, then the last for ever.
func TestWaitBackoffThroughFromDelayFunc(t *testing.T) {
	b := wait.Backoff{Duration: 10 * time.Millisecond, Factor: 5, Steps: 4, Cap: time.Second}
	got, err := kit.Delays(kit.FromDelayFunc(b.DelayFunc()), 6)
	require.NoError(t, err)
	assert.Equal(t, []time.Duration{10 * time.Millisecond, 50 * time.Millisecond, 250 * time.Millisecond, time.Second, time.Second, time.Second}, got,
		"10ms·5ⁿ, capped at 1s after the third delay")
	again, err := kit.Delays(kit.FromDelayFunc(b.DelayFunc()), 6)
	require.NoError(t, err)
	assert.Equal(t, got, again, "a second DelayFunc of the same Backoff starts again")
	stepped := b
	byStep, err := kit.Delays(kit.FromStep(&stepped), 6)
	require.NoError(t, err)
	assert.Equal(t, byStep, got, "FromStep of the same Backoff")
}
