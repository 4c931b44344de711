package reports_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/reports"
	"github.com/jitterkit/jitterkit/sim"
)

// TestModelReportJSONRoundTrip reads back the report.json of a real replay
// of each server model and writes it again: the same bytes, and the same
// runs (the representative's series included), baselines and tipping
// point, which report.json holds in seconds.
func TestModelReportJSONRoundTrip(t *testing.T) {
	spec := kit.Spec{Strategy: kit.Full, Base: 100 * time.Millisecond, Cap: 2 * time.Second}
	for _, c := range []struct {
		name string
		s    sim.Scenario
		cfg  sim.Config
	}{
		{"overload", sim.Scenario{Kind: sim.Overload, Clients: 20, Rate: 7, AcceptRate: 10, Dip: sim.DipStall, Ramp: time.Second, DipAt: 10 * time.Second, DipFor: time.Second, Horizon: 40 * time.Second},
			sim.Config{Runs: 3, Seed: 5, Resamples: 200, TippingPoint: true}},
		{"reconnect", sim.Scenario{Kind: sim.Reconnect, Clients: 50, CPU: 200, Handshake: 10, WarmUp: 100, Down: 2 * time.Second, Horizon: 30 * time.Second},
			sim.Config{Runs: 3, Seed: 5, Resamples: 200}},
		{"contention", sim.Scenario{Kind: sim.Contention, Clients: 10},
			sim.Config{Runs: 3, Seed: 5, Resamples: 200}},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := sim.Replay(context.Background(), spec.Factory(), c.s, c.cfg)
			require.NoError(t, err)
			r := reports.Report{Verdict: res.Status(), Policy: reports.Policy{Name: "full", Spec: spec.String(), Source: kit.SourceSpec}, Seed: c.cfg.Seed}
			r.AddReplay(res)
			var b bytes.Buffer
			require.NoError(t, reports.WriteJSON(&b, r))

			var got reports.Report
			require.NoError(t, json.Unmarshal(b.Bytes(), &got))
			var again bytes.Buffer
			require.NoError(t, reports.WriteJSON(&again, got))
			assert.Equal(t, b.String(), again.String(), "report.json read back and written again")
			assert.Equal(t, r.Replay.Runs, got.Replay.Runs, "runs")
			assert.Equal(t, r.Replay.Baselines, got.Replay.Baselines, "baselines")
			assert.Equal(t, r.Replay.TippingPoint, got.Replay.TippingPoint, "tipping point")
			assert.Equal(t, r.Replay.Config.TippingPoint, got.Replay.Config.TippingPoint, "config's tipping point")

			var raw struct {
				Replay struct {
					TippingPoint json.RawMessage `json:"tipping_point"`
				}
			}
			require.NoError(t, json.Unmarshal(b.Bytes(), &raw))
			if tp := res.TippingPoint; tp != nil {
				assert.JSONEq(t, fmt.Sprintf(`{"dip_s": %v, "baseline_dip_s": %v, "longest_s": %v}`, tp.Dip.Seconds(), tp.BaselineDip.Seconds(), tp.Longest.Seconds()),
					string(raw.Replay.TippingPoint), `report.json "replay"."tipping_point"`)
			} else {
				assert.Empty(t, raw.Replay.TippingPoint, `report.json "replay"."tipping_point" when none was searched`)
			}
		})
	}
}

// TestModelReportJSONOutOfRange refuses a report.json whose run holds a
// time of the server models that a time.Duration cannot hold, naming the
// key, rather than read a duration that wrapped around.
func TestModelReportJSONOutOfRange(t *testing.T) {
	for _, tt := range []struct{ data, want string }{
		{`{"schema": "jitterkit.report/v2", "replay": {"runs": [{"seed": 1, "recovered_after_s": 1e300}]}}`,
			"sim: recovered_after_s of 1e+300s is out of range of time.Duration"},
		{`{"schema": "jitterkit.report/v2", "replay": {"scenario": {"kind": "overload", "dip_for_s": 1e300}}}`,
			"sim: dip_for_s of 1e+300s is out of range of time.Duration"},
		{`{"schema": "jitterkit.report/v2", "replay": {"tipping_point": {"dip_s": 2, "baseline_dip_s": 1e300, "longest_s": 25}}}`,
			"sim: baseline_dip_s of 1e+300s is out of range of time.Duration"},
	} {
		var r reports.Report
		assert.EqualError(t, json.Unmarshal([]byte(tt.data), &r), tt.want, tt.data)
	}
}
