package reports

import (
	"fmt"
	"strings"

	"github.com/jitterkit/jitterkit/sim"
)

// scenarioLine describes a scenario, after its defaults, in one line, as
// every report and comparison heads a replay: its kind and fleet (fleet,
// or its clients when fleet is ""), the server (a storm has none, but
// obeys a Retry-After hint), the outage and the window, what is not the
// kind's default (the spread of the first attempts, the horizon, a storm's
// retries), the timers of the periodic kinds, then tail:
//
//	outage: 400 clients, accept rate 50/s, down 2s, window 1s, 3 runs, threshold 0.6
//	outage: 400 clients, accept rate 50/s, token bucket with burst 50, down 2s, window 1s, …
//	periodic: 400 clients, accept rate 50/s, window 1s, period 1m, Retry-After 1s, …
func scenarioLine(s sim.Scenario, fleet string, tail ...string) string {
	s = s.WithDefaults()
	if fleet == "" {
		fleet = plural(s.Clients, "client")
	}
	parts := []string{fleet}
	if s.Kind != sim.Storm {
		parts = append(parts, "accept rate "+perSecond(s.AcceptRate))
		if s.Server == sim.TokenBucket {
			parts = append(parts, "token bucket with burst "+num(s.Burst))
		}
	}
	if s.Down > 0 {
		parts = append(parts, "down "+duration(s.Down))
	}
	parts = append(parts, "window "+duration(s.Window))
	// A start spread, a horizon or a storm's retries of the user's own
	// change what the peak means: they are named when they are not the
	// kind's default.
	def := sim.Scenario{Kind: s.Kind, Clients: s.Clients, AcceptRate: s.AcceptRate, Down: s.Down, Window: s.Window, Period: s.Period}.WithDefaults()
	if s.StartSpread != def.StartSpread {
		parts = append(parts, "first attempts spread over "+duration(s.StartSpread))
	}
	if s.Horizon != def.Horizon {
		parts = append(parts, "horizon "+duration(s.Horizon))
	}
	if s.Kind == sim.Storm && s.Retries != def.Retries {
		parts = append(parts, fmt.Sprintf("%s retries each", num(float64(s.Retries))))
	}
	if s.Kind == sim.Periodic || s.Kind == sim.PeriodicAligned {
		parts = append(parts, "period "+duration(s.Period))
		if s.TimerOffset == sim.OffsetPolicy {
			parts = append(parts, "timer offsets from the policy")
		}
	}
	if s.Server == sim.RetryAfter {
		parts = append(parts, "Retry-After "+duration(s.RetryAfter))
	}
	parts = append(parts, tail...)
	return string(s.Kind) + ": " + strings.Join(parts, ", ")
}
