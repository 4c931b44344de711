package sim

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/testdata/kittest"
)

// TestModelScenarioJSON reads back every field of the server models'
// scenarios, a stall and clients that never retry included: the same
// bytes again, and the same scenario after defaults.
func TestModelScenarioJSON(t *testing.T) {
	for _, s := range []Scenario{
		{Kind: Overload},
		{Kind: Overload, Dip: DipStall, Retries: NoRetries, Ramp: 3 * time.Second, QueueLimit: 40, DropExpired: true,
			Rate: 30, AcceptRate: 50, RTT: 20 * time.Millisecond, Timeout: 1500 * time.Millisecond, DipFor: 7 * time.Second, DipAt: 12 * time.Second, Horizon: time.Minute},
		{Kind: Overload, Dip: 0.25},
		{Kind: Reconnect},
		{Kind: Reconnect, OnDrop: DropContinue, RefuseCold: true, CPU: 900, Handshake: 3, WarmUp: 1, ColdDrop: 250 * time.Millisecond, RTT: time.Millisecond, Down: 3 * time.Second},
		{Kind: Contention},
		{Kind: Contention, Latency: 3 * time.Millisecond, LatencySD: 500 * time.Microsecond},
	} {
		b, err := json.Marshal(s)
		require.NoError(t, err)
		var back Scenario
		require.NoError(t, json.Unmarshal(b, &back), "%s", b)
		again, err := json.Marshal(back)
		require.NoError(t, err)
		assert.Equal(t, string(b), string(again), "the JSON read back")
		want := s.WithDefaults()
		want.MemoryLimit = 0 // not in the JSON
		got := back.WithDefaults()
		got.MemoryLimit = 0
		assert.Equal(t, want, got, "%s", b)
	}
}

// modelReplays are small replays of each server model, with their
// baselines, a tipping point, a stall and clients that never retry.
var modelReplays = []struct {
	name string
	s    Scenario
	cfg  Config
}{
	{"overload", Scenario{Kind: Overload, Clients: 20, Rate: 7, AcceptRate: 10, DipAt: 10 * time.Second, DipFor: time.Second, Horizon: 40 * time.Second},
		Config{Runs: 3, Seed: 11, Resamples: 200, TippingPoint: true}},
	{"overload stalled, no retries", Scenario{Kind: Overload, Clients: 20, Rate: 7, AcceptRate: 10, Dip: DipStall, Retries: NoRetries, Ramp: 2 * time.Second, QueueLimit: 5, DropExpired: true, DipAt: 10 * time.Second, DipFor: 4 * time.Second, Horizon: 40 * time.Second},
		Config{Runs: 3, Seed: 11, Resamples: 200}},
	{"reconnect", Scenario{Kind: Reconnect, Clients: 50, CPU: 200, Handshake: 10, WarmUp: 100, Down: 2 * time.Second, Horizon: 30 * time.Second},
		Config{Runs: 3, Seed: 11, Resamples: 200}},
	{"reconnect refusing cold", Scenario{Kind: Reconnect, Clients: 50, CPU: 200, Handshake: 10, WarmUp: 100, RefuseCold: true, Down: 2 * time.Second, Horizon: 30 * time.Second},
		Config{Runs: 3, Seed: 11, Resamples: 200}},
	{"contention", Scenario{Kind: Contention, Clients: 10, Latency: 5 * time.Millisecond},
		Config{Runs: 3, Seed: 11, Resamples: 200}},
}

// readResult reads a replay's JSON back as a Result, as a reader of
// jitterkit replay --json sees it: the status and the detail are not read
// but judged again from what is.
func readResult(t *testing.T, b []byte) Result {
	t.Helper()
	var j resultJSON
	require.NoError(t, json.Unmarshal(b, &j))
	require.Equal(t, replaySchema, j.Schema)
	return Result{Scenario: j.Scenario, Config: j.Config, Runs: j.Runs, Summary: j.Summary, Policy: j.Policy,
		Baselines: j.Baselines, TippingPoint: j.TippingPoint}
}

// TestModelReplayJSONRoundTrip reads back the JSON of a real replay of each
// server model and writes it again: the same bytes, and the same runs,
// baselines and tipping point, times to the nanosecond.
func TestModelReplayJSONRoundTrip(t *testing.T) {
	spec := kit.Spec{Strategy: kit.Full, Base: 100 * time.Millisecond, Cap: 2 * time.Second}
	keys := map[string]bool{} // of the runs, over every replay
	for _, c := range modelReplays {
		t.Run(c.name, func(t *testing.T) {
			res, err := Replay(context.Background(), spec.Factory(), c.s, c.cfg)
			require.NoError(t, err)
			var b bytes.Buffer
			require.NoError(t, res.WriteJSON(&b, spec.String()))
			var raw struct{ Runs []map[string]any }
			require.NoError(t, json.Unmarshal(b.Bytes(), &raw))
			for _, r := range raw.Runs {
				for k := range r {
					keys[k] = true
				}
			}

			back := readResult(t, b.Bytes())
			var again bytes.Buffer
			require.NoError(t, back.WriteJSON(&again, back.Policy))
			assert.Equal(t, b.String(), again.String(), "the JSON read back and written again")

			assert.Equal(t, res.Runs, back.Runs, "runs")
			assert.Equal(t, res.Baselines, back.Baselines, "baselines")
			assert.Equal(t, res.TippingPoint, back.TippingPoint, "tipping point")
			assert.Equal(t, res.Config.TippingPoint, back.Config.TippingPoint, "config's tipping point")
			assert.Equal(t, res.Status(), back.Status(), "status")
			assert.Equal(t, res.Detail(), back.Detail(), "detail")
			series := 0
			for _, r := range back.Runs {
				if r.Series != nil {
					series++
				}
			}
			if c.s.Kind.Recovers() {
				assert.Equal(t, 1, series, "runs with a series: the representative's")
			}
		})
	}
	// Each of the models' keys was read back from some run.
	for _, k := range []string{"recovered", "recovered_after_s", "amplification", "amplification_from_trigger",
		"goodput_after_trigger", "timeouts", "rejections", "jobs_at_end", "sessions_accepted", "sessions_dropped",
		"connects_refused", "warm_at_s", "warm", "reads", "series"} {
		assert.True(t, keys[k], "no run of the replays wrote %q", k)
	}
}

// TestWriteJSONGoldenOverload pins the JSON of a small overload replay,
// byte for byte, with its baseline and tipping point. Rewrite with
// go test ./sim -run WriteJSONGoldenOverload -update.
func TestWriteJSONGoldenOverload(t *testing.T) {
	spec := kit.Spec{Strategy: kit.Full, Base: 100 * time.Millisecond, Cap: 2 * time.Second}
	c := modelReplays[0]
	r, err := Replay(context.Background(), spec.Factory(), c.s, c.cfg)
	require.NoError(t, err)
	var got bytes.Buffer
	require.NoError(t, r.WriteJSON(&got, spec.String()))
	kittest.Golden(t, filepath.Join("testdata", "replay-overload.json"), got.Bytes())
}

// TestModelJSONTimesInRange refuses, naming the key, each time of the
// server models that a time.Duration cannot hold.
func TestModelJSONTimesInRange(t *testing.T) {
	for _, tt := range []struct {
		into any
		data string
		want string
	}{
		{&Run{}, `{"recovered_after_s": 1e300}`, "sim: recovered_after_s of 1e+300s is out of range of time.Duration"},
		{&Run{}, `{"warm_at_s": -1e10}`, "sim: warm_at_s of -1e+10s is out of range of time.Duration"},
		{&Scenario{}, `{"kind": "overload", "rtt_s": 1e10}`, "sim: rtt_s of 1e+10s is out of range of time.Duration"},
		{&Scenario{}, `{"timeout_s": 1e10}`, "sim: timeout_s of 1e+10s is out of range of time.Duration"},
		{&Scenario{}, `{"dip_for_s": 1e10}`, "sim: dip_for_s of 1e+10s is out of range of time.Duration"},
		{&Scenario{}, `{"dip_at_s": 1e10}`, "sim: dip_at_s of 1e+10s is out of range of time.Duration"},
		{&Scenario{}, `{"ramp_s": 1e10}`, "sim: ramp_s of 1e+10s is out of range of time.Duration"},
		{&Scenario{}, `{"cold_drop_s": 1e10}`, "sim: cold_drop_s of 1e+10s is out of range of time.Duration"},
		{&Scenario{}, `{"latency_s": 1e10}`, "sim: latency_s of 1e+10s is out of range of time.Duration"},
		{&Scenario{}, `{"latency_sd_s": 1e10}`, "sim: latency_sd_s of 1e+10s is out of range of time.Duration"},
		{&TippingPoint{}, `{"dip_s": 1e10}`, "sim: dip_s of 1e+10s is out of range of time.Duration"},
		{&TippingPoint{}, `{"baseline_dip_s": 1e10}`, "sim: baseline_dip_s of 1e+10s is out of range of time.Duration"},
		{&TippingPoint{}, `{"longest_s": 1e10}`, "sim: longest_s of 1e+10s is out of range of time.Duration"},
	} {
		assert.EqualError(t, json.Unmarshal([]byte(tt.data), tt.into), tt.want, tt.data)
	}
	// The first out of range is the one named, as in the fleet's times.
	var r Run
	assert.EqualError(t, json.Unmarshal([]byte(`{"all_served_s": 1e300, "recovered_after_s": 1e300}`), &r),
		"sim: all_served_s of 1e+300s is out of range of time.Duration")
}

// TestModelScenarioWithDefaultsReplays replays each server model's
// scenario after its defaults again: the defaults of the fleet kinds'
// fields, which the models refuse, are not filled in.
func TestModelScenarioWithDefaultsReplays(t *testing.T) {
	for _, k := range []Kind{Overload, Reconnect, Contention} {
		d := Scenario{Kind: k}.WithDefaults()
		require.NoError(t, d.Validate(nil, Config{}), "%s after defaults", k)
		assert.Equal(t, d, d.WithDefaults(), "%s: WithDefaults is idempotent", k)
	}
}
