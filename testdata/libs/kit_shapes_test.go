package libs

import (
	"net/http"
	"testing"
	"time"

	"github.com/hashicorp/go-retryablehttp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
