package sim

import (
	"encoding/json"
	"math"
	"time"
)

// seconds converts a time in seconds, as the JSON holds it, to a
// duration, rounded to the nanosecond.
func seconds(s float64) time.Duration { return time.Duration(math.Round(s * 1e9)) }

// UnmarshalJSON reads a scenario as MarshalJSON writes it, times in
// seconds; a key that is missing leaves its field zero.
func (s *Scenario) UnmarshalJSON(b []byte) error {
	var j scenarioJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*s = Scenario{
		Kind:        j.Kind,
		Server:      j.Server,
		Clients:     j.Clients,
		AcceptRate:  j.AcceptRate,
		Burst:       j.Burst,
		Down:        seconds(j.DownS),
		Window:      seconds(j.WindowS),
		StartSpread: seconds(j.StartSpreadS),
		Horizon:     seconds(j.HorizonS),
		RetryAfter:  seconds(j.RetryAfterS),
		Retries:     j.Retries,
		Period:      seconds(j.PeriodS),
		TimerOffset: j.TimerOffset,
		Threshold:   j.Threshold,
		MaxAttempts: j.MaxAttempts,
	}
	return nil
}

// UnmarshalJSON reads a configuration as MarshalJSON writes it.
func (c *Config) UnmarshalJSON(b []byte) error {
	var j configJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*c = Config{Runs: j.Runs, Seed: j.Seed, Level: j.Level, Resamples: j.Resamples,
		Thresholds: Thresholds{MaxGaveUp: j.Thresholds.MaxGaveUp, MaxPending: j.Thresholds.MaxPending}}
	return nil
}

// UnmarshalJSON reads a run as MarshalJSON writes it, times in seconds.
func (r *Run) UnmarshalJSON(b []byte) error {
	var j runJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*r = Run{
		Seed:                  j.Seed,
		AllServed:             seconds(j.AllServedS),
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
		P50:                   seconds(j.P50ServedS),
		P99:                   seconds(j.P99ServedS),
		Arrivals:              j.Arrivals,
		RetryArrivals:         j.RetryArrivals,
	}
	return nil
}
