package sim

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestJSONTimesInRange reads times in seconds back as durations, and
// refuses one that a time.Duration cannot hold rather than let it wrap.
func TestJSONTimesInRange(t *testing.T) {
	var s Scenario
	require.NoError(t, json.Unmarshal([]byte(`{"down_s": 2.5, "horizon_s": 9.2e9}`), &s))
	assert.Equal(t, 2500*time.Millisecond, s.Down)
	assert.Equal(t, time.Duration(9.2e18), s.Horizon)

	for _, tt := range []struct {
		name string
		into any
		data string
		want string
	}{
		{"scenario", &Scenario{}, `{"down_s": 1e10}`, "sim: down_s of 1e+10s is out of range of time.Duration"},
		{"scenario, negative", &Scenario{}, `{"period_s": -1e10}`, "sim: period_s of -1e+10s is out of range of time.Duration"},
		{"run", &Run{}, `{"all_served_s": 1e300}`, "sim: all_served_s of 1e+300s is out of range of time.Duration"},
		{"run, p99", &Run{}, `{"p99_served_s": 9.3e9}`, "sim: p99_served_s of 9.3e+09s is out of range of time.Duration"},
	} {
		assert.EqualError(t, json.Unmarshal([]byte(tt.data), tt.into), tt.want, tt.name)
	}
}
