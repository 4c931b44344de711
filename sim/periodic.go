package sim

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

func (periodicModel) defaults(s Scenario) Scenario {
	def(&s.Period, DefaultPeriod)
	def(&s.Horizon, 5*s.Period)
	return fleetDefaults(s, DefaultStartSpread)
}

func (m periodicModel) validate(s Scenario) error { return validateFleet(s, m, nil) }

// memory counts, beyond a fleet device, its timer and the instants of its
// served firings.
func (m periodicModel) memory(s Scenario) int64 {
	return fleetRunBytes(s, deviceBytes+calendarBytes+policyBytes+periodicBytes+8*(m.firings(s)-1))
}

func (m periodicModel) arrivals(s Scenario) int64 { return int64(s.MaxAttempts) + m.firings(s) }

func (periodicModel) firings(s Scenario) int64 { return int64(s.Horizon/s.Period) + 1 }
