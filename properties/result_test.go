package properties_test

import (
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/properties"
)

// TestResultJSON writes a result with a counterexample in the shape of
// report.json's checks, delays in seconds, and reads it back whole, but
// for SameSequence and Window, which only shape the message.
func TestResultJSON(t *testing.T) {
	r := properties.Result{
		Name: properties.NameSpread, Why: "why", Status: verdict.Fail, Detail: "detail",
		Figure: 0, Threshold: 0.1, Unit: properties.UnitCV, Want: "≥",
		Counterexample: &properties.Counterexample{
			Attempt: 2,
			Devices: []properties.DeviceDelays{
				{ID: "dev-000000", Delays: []time.Duration{100 * time.Millisecond, time.Nanosecond, 90 * 24 * time.Hour}},
				{ID: "dev-000001", Err: "Next panicked"},
			},
			Others: 998, Seed: 7, Replay: "Config.Seed = 7",
		},
		Cause: properties.NoJitter, Remedy: properties.NoJitter.Remedy(),
	}
	b, err := json.Marshal(r)
	require.NoError(t, err)
	assert.JSONEq(t, `{"name": "spread", "why": "why", "status": "fail", "detail": "detail",
		"figure": 0, "threshold": 0.1, "unit": "CV", "want": "≥",
		"counterexample": {"attempt": 2, "devices": [
			{"id": "dev-000000", "delays_s": [0.1, 1e-9, 7776000]},
			{"id": "dev-000001", "delays_s": [], "err": "Next panicked"}],
			"others": 998, "seed": 7, "replay": "Config.Seed = 7"},
		"cause": "no-jitter", "remedy": `+quote(t, r.Remedy)+`}`, string(b))

	var got properties.Result
	require.NoError(t, json.Unmarshal(b, &got))
	assert.Equal(t, r, got, "the result read back")

	r.Counterexample.SameSequence, r.Counterexample.Window = true, time.Second
	b2, err := json.Marshal(r)
	require.NoError(t, err)
	assert.Equal(t, string(b), string(b2), "SameSequence and Window are not written")
}

// TestDeviceDelaysJSONRange reads back the longest delays and refuses one
// that a time.Duration cannot hold.
func TestDeviceDelaysJSONRange(t *testing.T) {
	var d properties.DeviceDelays
	err := json.Unmarshal([]byte(`{"id": "dev-7", "delays_s": [1, 1e10]}`), &d)
	assert.EqualError(t, err, `properties: device "dev-7": delay 1 of 1e+10s is out of range of time.Duration`)

	b, err := json.Marshal(properties.DeviceDelays{ID: "dev-7", Delays: []time.Duration{math.MaxInt64, math.MinInt64}})
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &d), "the longest delays, read back")
	assert.Equal(t, []time.Duration{math.MaxInt64, math.MinInt64}, d.Delays, "the longest delays, read back")
}

// quote returns s as a JSON string.
func quote(t *testing.T, s string) string {
	t.Helper()
	b, err := json.Marshal(s)
	require.NoError(t, err)
	return string(b)
}
