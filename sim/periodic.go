package sim

import (
	"fmt"
	"strings"
)

// periodicModel is the model of Periodic and, aligned, of
// PeriodicAligned: each device fires a timer every Period, and a rejected
// firing is retried on the device's policy.
type periodicModel struct {
	fleetModel
	aligned bool
}

func (m periodicModel) kind() Kind {
	if m.aligned {
		return PeriodicAligned
	}
	return Periodic
}

func (periodicModel) timers() bool { return true }

// periodicLabels are what the periodic kinds call the figures that name
// devices: their servings are firings, and a device gives up a firing.
var periodicLabels = map[Figure]string{
	AllServed:         "last firing served, from t=0",
	PeakRetryArrivals: "peak re-sends of rejected firings per window",
	PeakRatio:         "peak ratio (re-sends / accept budget)",
	Served:            "firings served",
	GaveUp:            "devices that missed a firing",
}

func (periodicModel) label(f Figure) string { return periodicLabels[f] }

func (periodicModel) defaults(s Scenario) Scenario {
	def(&s.Period, defaultPeriod)
	def(&s.Horizon, 5*s.Period)
	return fleetDefaults(s, defaultStartSpread)
}

func (m periodicModel) validate(s Scenario) error { return validateFleet(s, m, nil) }

// memory counts, beyond a fleet device, its timer and the instants of its
// served firings.
func (m periodicModel) memory(s Scenario) int64 {
	return fleetRunBytes(s, deviceBytes+calendarBytes+policyBytes+periodicBytes+8*(m.firings(s)-1))
}

func (m periodicModel) arrivals(s Scenario) int64 { return int64(s.MaxAttempts) + m.firings(s) }

func (periodicModel) firings(s Scenario) int64 { return int64(s.Horizon/s.Period) + 1 }

// outcome writes when the last firing was served, the attempts, the
// firings served and missed, the devices that missed one, and those
// still retrying.
func (periodicModel) outcome(r Result, b *strings.Builder) {
	sum := r.Summary
	if served := sum[Served].Median; served != 0 {
		fmt.Fprintf(b, "; last firing served after %.1fs", sum[AllServed].Median)
	}
	writeAttempts(r, b)
	fmt.Fprintf(b, "; %s firings served", count(sum[Served].Median))
	if m := sum[FiringsMissed].Median; m > 0 {
		fmt.Fprintf(b, ", %s missed", count(m))
	}
	if g := sum[GaveUp].Median; g > 0 {
		fmt.Fprintf(b, "; %s of %s devices missed a firing", count(g), count(float64(r.Scenario.Clients)))
	}
	writePending(r, b)
}
