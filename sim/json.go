package sim

import (
	"encoding/json"
	"fmt"
	"math"
	"time"
)

// A secondsReader converts the times in seconds of one JSON object to
// durations, rounded to the nanosecond, and keeps the first time that a
// time.Duration cannot hold, so that a hand-edited file is refused rather
// than read as a duration that wrapped around.
type secondsReader struct{ err error }

// at returns s seconds, the value of key, as a duration.
func (r *secondsReader) at(key string, s float64) time.Duration {
	ns := math.Round(s * 1e9)
	if !(ns >= math.MinInt64 && ns < math.MaxInt64) {
		if r.err == nil {
			r.err = fmt.Errorf("sim: %s of %gs is out of range of time.Duration", key, s)
		}
		return 0
	}
	return time.Duration(ns)
}

// UnmarshalJSON reads a scenario as MarshalJSON writes it, times in
// seconds; a key that is missing leaves its field zero. A "dip" of 0 is a
// stall (DipStall), as MarshalJSON writes one.
func (s *Scenario) UnmarshalJSON(b []byte) error {
	var j scenarioJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	var dip float64
	if j.Dip != nil {
		dip = *j.Dip
		if dip == 0 {
			dip = DipStall
		}
	}
	var budget Budget
	if j.Budget != "" {
		var err error
		if budget, err = ParseBudget(j.Budget); err != nil {
			return err
		}
	}
	budget.Scope = j.BudgetScope
	var sec secondsReader
	*s = Scenario{
		Kind:        j.Kind,
		Server:      j.Server,
		Clients:     j.Clients,
		AcceptRate:  j.AcceptRate,
		Burst:       j.Burst,
		Down:        sec.at("down_s", j.DownS),
		Window:      sec.at("window_s", j.WindowS),
		StartSpread: sec.at("start_spread_s", j.StartSpreadS),
		Horizon:     sec.at("horizon_s", j.HorizonS),
		RetryAfter:  sec.at("retry_after_s", j.RetryAfterS),
		Retries:     j.Retries,
		Period:      sec.at("period_s", j.PeriodS),
		TimerOffset: j.TimerOffset,
		Threshold:   j.Threshold,
		MaxAttempts: j.MaxAttempts,
		Rate:        j.Rate,
		RTT:         sec.at("rtt_s", j.RTTS),
		Timeout:     sec.at("timeout_s", j.TimeoutS),
		Dip:         dip,
		DipFor:      sec.at("dip_for_s", j.DipForS),
		DipAt:       sec.at("dip_at_s", j.DipAtS),
		Ramp:        sec.at("ramp_s", j.RampS),
		QueueLimit:  j.QueueLimit,
		DropExpired: j.DropExpired,
		OnDrop:      j.OnDrop,
		RefuseCold:  j.RefuseCold,
		CPU:         j.CPU,
		Handshake:   j.Handshake,
		WarmUp:      j.WarmUp,
		ColdDrop:    sec.at("cold_drop_s", j.ColdDropS),
		Latency:     sec.at("latency_s", j.LatencyS),
		LatencySD:   sec.at("latency_sd_s", j.LatencySDS),
		Budget:      budget,
	}
	return sec.err
}

// UnmarshalJSON reads a configuration as MarshalJSON writes it.
func (c *Config) UnmarshalJSON(b []byte) error {
	var j configJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*c = Config{Runs: j.Runs, Seed: j.Seed, Level: j.Level, Resamples: j.Resamples,
		Thresholds:   Thresholds{MaxGaveUp: j.Thresholds.MaxGaveUp, MaxPending: j.Thresholds.MaxPending},
		TippingPoint: j.TippingPoint, CollapseBound: j.CollapseBound, FailWarnings: j.FailWarnings, AllowWideWindow: j.AllowWideWindow}
	return nil
}

// UnmarshalJSON reads a run as MarshalJSON writes it, times in seconds.
func (r *Run) UnmarshalJSON(b []byte) error {
	var j runJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	var sec secondsReader
	*r = Run{
		Seed:                  j.Seed,
		AllServed:             sec.at("all_served_s", j.AllServedS),
		BusiestWindowArrivals: j.BusiestWindowArrivals,
		PeakRetryArrivals:     j.PeakRetryArrivals,
		PeakRatio:             j.PeakRatio,
		Attempts:              j.Attempts,
		Served:                j.Served,
		GaveUp:                j.GaveUp,
		AttemptLimited:        j.AttemptLimited,
		Pending:               j.Pending,
		PeakFirings:           j.PeakFirings,
		TimerLoadRatio:        j.TimerLoadRatio,
		FiringsMissed:         j.FiringsMissed,
		PeakRetryArrivals1s:   j.PeakRetryArrivals1s,
		PeakRatio1s:           j.PeakRatio1s,
		P50:                   sec.at("p50_served_s", j.P50ServedS),
		P99:                   sec.at("p99_served_s", j.P99ServedS),
		Arrivals:              j.Arrivals,
		RetryArrivals:         j.RetryArrivals,

		Recovered:                j.Recovered,
		RecoveredAfter:           sec.at("recovered_after_s", j.RecoveredAfterS),
		Amplification:            j.Amplification,
		AmplificationFromTrigger: j.AmplificationFromTrigger,
		Goodput:                  j.Goodput,
		Timeouts:                 j.Timeouts,
		Rejections:               j.Rejections,
		JobsAtEnd:                j.JobsAtEnd,
		Accepted:                 j.Accepted,
		Dropped:                  j.Dropped,
		Refused:                  j.Refused,
		BudgetRefused:            j.BudgetRefused,
		BudgetThrottled:          j.BudgetThrottled,
		WarmAt:                   sec.at("warm_at_s", j.WarmAtS),
		Warm:                     j.Warm,
		Reads:                    j.Reads,
		Series:                   j.Series,
	}
	return sec.err
}

// MarshalJSON writes the tipping point in seconds: "dip_s",
// "baseline_dip_s" and "longest_s". A dip of 0 is none up to the longest
// (see [TippingPoint]), and is written as 0.
func (p TippingPoint) MarshalJSON() ([]byte, error) {
	return marshal(tippingPointJSON{DipS: p.Dip.Seconds(), BaselineDipS: p.BaselineDip.Seconds(), LongestS: p.Longest.Seconds()})
}

// UnmarshalJSON reads a tipping point as MarshalJSON writes it.
func (p *TippingPoint) UnmarshalJSON(b []byte) error {
	var j tippingPointJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	var sec secondsReader
	*p = TippingPoint{
		Dip:         sec.at("dip_s", j.DipS),
		BaselineDip: sec.at("baseline_dip_s", j.BaselineDipS),
		Longest:     sec.at("longest_s", j.LongestS),
	}
	return sec.err
}

type tippingPointJSON struct {
	DipS         float64 `json:"dip_s"`
	BaselineDipS float64 `json:"baseline_dip_s"`
	LongestS     float64 `json:"longest_s"`
}
