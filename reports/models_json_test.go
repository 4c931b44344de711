package reports_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
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

// TestModelReportNotFinite refuses a report whose server model's figures
// hold a number JSON cannot hold, and names where it is.
func TestModelReportNotFinite(t *testing.T) {
	spec := kit.Spec{Strategy: kit.Full, Base: 100 * time.Millisecond, Cap: 2 * time.Second}
	s := sim.Scenario{Kind: sim.Overload, Clients: 20, Rate: 7, AcceptRate: 10, DipAt: 10 * time.Second, DipFor: time.Second, Horizon: 40 * time.Second}
	cfg := sim.Config{Runs: 3, Seed: 5, Resamples: 200}
	res, err := sim.Replay(context.Background(), spec.Factory(), s, cfg)
	require.NoError(t, err)
	for _, tt := range []struct {
		name  string
		spoil func(*reports.Replay)
		want  string
	}{
		{"a run's goodput", func(p *reports.Replay) { p.Runs[2].Goodput = math.NaN() }, "replay.runs[2]: value 3 is NaN"},
		{"a series' capacity", func(p *reports.Replay) { p.Runs[p.Representative].Series.Capacity[4] = math.Inf(1) },
			fmt.Sprintf("replay.runs[%d].series.capacity: value 4 is +Inf", res.Representative)},
		{"a baseline", func(p *reports.Replay) { p.Baselines[0].Summary[sim.Goodput] = sim.Estimate{Median: math.NaN()} },
			"replay.baselines[0].summary.goodput_after_trigger: value 0 is NaN"},
		{"the rate", func(p *reports.Replay) { p.Scenario.Rate = math.Inf(-1) }, "replay.scenario: value 3 is -Inf"},
	} {
		// A fresh replay each time: the runs and series are shared.
		res, err := sim.Replay(context.Background(), spec.Factory(), s, cfg)
		require.NoError(t, err)
		var r reports.Report
		r.AddReplay(res)
		tt.spoil(r.Replay)
		var b bytes.Buffer
		err = reports.WriteJSON(&b, r)
		if assert.Error(t, err, tt.name) {
			assert.Contains(t, err.Error(), tt.want, tt.name)
		}
		assert.Zero(t, b.Len(), "%s: bytes written", tt.name)
	}
}
