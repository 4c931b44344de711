package sim

import (
	"fmt"
	"strings"
)

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
		def(&s.Down, defaultLongDown)
		def(&s.Horizon, s.Down+defaultHorizon)
	}
	def(&s.Down, defaultDown)
	return fleetDefaults(s, defaultStartSpread)
}

func (m outageModel) validate(s Scenario) error {
	return validateFleet(s, m, func(s Scenario) error {
		if s.Horizon <= s.Down {
			return invalid("horizon %v ends before the server is back, %v down: no device could be served", s.Horizon, s.Down)
		}
		return nil
	})
}

// judgesGaveUp is true: a device of an outage that gives up is one the
// service never served.
func (outageModel) judgesGaveUp() bool { return true }

// outcome writes when the last device, or all, was served, the
// attempts, the devices served and those that gave up, and those still
// retrying.
func (outageModel) outcome(r Result, b *strings.Builder) {
	sum := r.Summary
	switch served := sum[Served].Median; {
	case served == 0:
	case served < float64(r.Scenario.Clients):
		fmt.Fprintf(b, "; last served after %.1fs", sum[AllServed].Median)
	default:
		fmt.Fprintf(b, "; all served after %.1fs", sum[AllServed].Median)
	}
	writeAttempts(r, b)
	writeServed(r, b)
	writePending(r, b)
}

// ServedNone reports whether no run of an outage replay r served a
// device: its times of serving then have no value. It is false in the
// other kinds.
func (r Result) ServedNone() bool {
	s := r.Scenario.WithDefaults()
	_, outage := s.Kind.model().(outageModel)
	return outage && s.Clients > 0 && r.Summary[Served].High == 0
}

// LeftUnserved reports whether the median run of an outage replay r left
// devices unserved: its time of serving every device is then the last
// one's. It is false in the other kinds.
func (r Result) LeftUnserved() bool {
	s := r.Scenario.WithDefaults()
	_, outage := s.Kind.model().(outageModel)
	return outage && r.Summary[Served].Median < float64(s.Clients)
}
