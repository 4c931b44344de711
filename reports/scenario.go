package reports

import (
	"strings"

	"github.com/jitterkit/jitterkit/sim"
)

// scenarioLine describes a scenario in one line, as every report and
// comparison heads a replay: its kind and fleet (fleet, or its clients
// when fleet is ""), what the scenario's model says of it (see
// [sim.Scenario.Describe]), then tail:
//
//	outage: 400 clients, accept rate 50/s, down 2s, window 1s, 3 runs, threshold 0.6
//	outage: 400 clients, accept rate 50/s, token bucket with burst 50, down 2s, window 1s, …
//	periodic: 400 clients, accept rate 50/s, window 1s, period 1m, Retry-After 1s, …
func scenarioLine(s sim.Scenario, fleet string, tail ...string) string {
	s = s.WithDefaults()
	if fleet == "" {
		fleet = plural(s.Clients, "client")
	}
	parts := append([]string{fleet}, s.Describe()...)
	return string(s.Kind) + ": " + strings.Join(append(parts, tail...), ", ")
}
