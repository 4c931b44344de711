package sim

// outageModel is the model of Outage and, long, of LongOutage: the fleet
// fails together at t0 against a server down for its first Down seconds.
type outageModel struct {
	fleetModel
	long bool
}

func (m outageModel) kind() Kind {
	if m.long {
		return LongOutage
	}
	return Outage
}

func (m outageModel) defaults(s Scenario) Scenario {
	if m.long {
		def(&s.Down, DefaultLongDown)
		def(&s.Horizon, s.Down+DefaultHorizon)
	}
	def(&s.Down, DefaultDown)
	return fleetDefaults(s, DefaultStartSpread)
}

func (m outageModel) validate(s Scenario) error {
	return validateFleet(s, m, func(s Scenario) error {
		if s.Horizon <= s.Down {
			return invalid("horizon %v ends before the server is back, %v down: no device could be served", s.Horizon, s.Down)
		}
		return nil
	})
}
