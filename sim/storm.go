package sim

import (
	"strings"
	"time"
)

// stormModel is the model of Storm: every device fails at once and keeps
// failing for Retries retries, whatever the server, and the replay counts
// arrivals alone.
type stormModel struct{ fleetModel }

func (stormModel) kind() Kind { return Storm }

// arrivalsOnly is true: a storm's devices fail whatever the server.
func (stormModel) arrivalsOnly() bool { return true }

func (stormModel) compared() comparison {
	return comparison{headlines: []Figure{PeakRetryArrivals}, base: time.Second, cap: 30 * time.Second}
}

func (stormModel) defaults(s Scenario) Scenario {
	def(&s.Window, defaultStormWindow)
	return fleetDefaults(s, 0)
}

func (stormModel) takes(field string) bool {
	return field == "retries" || fleetModel{}.takes(field)
}

func (m stormModel) validate(s Scenario) error { return validateFleet(s, m, nil) }

// parts are none but the devices: a storm judges arrivals alone, whatever
// the accept rate, and has no outage unless one is given.
func (stormModel) parts(s, d Scenario) []FleetPart { return nil }

// memory counts no state of the devices: a storm makes one policy at a
// time, garbage as soon as it is used.
func (stormModel) memory(s Scenario) int64 { return fleetRunBytes(s, 0) }

func (stormModel) arrivals(s Scenario) int64 { return int64(s.Retries) + 1 }

// span is the horizon or the start spread, whichever is longer: a storm's
// first attempts are counted wherever they fall.
func (stormModel) span(s Scenario) time.Duration { return max(s.Horizon, s.StartSpread) }

// outcome writes the attempts alone: nothing is served in a storm.
func (stormModel) outcome(r Result, b *strings.Builder) { writeAttempts(r, b) }
