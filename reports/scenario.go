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
	if line := modelLine(s); line != nil {
		parts = append(parts, line...)
		parts = append(parts, tail...)
		return string(s.Kind) + ": " + strings.Join(parts, ", ")
	}
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

// modelLine describes a server model's scenario after its fleet, or
// returns nil for the other kinds:
//
//	overload: 200 clients, 70 requests/s into 100 jobs/s, timeout 1s, 3 retries, a dip to 10% for 5s at 30s, horizon 5m, …
func modelLine(s sim.Scenario) []string {
	var parts []string
	switch s.Kind {
	case sim.Overload:
		parts = append(parts, fmt.Sprintf("%s requests/s into %s jobs/s", num(s.Rate), num(s.AcceptRate)), "timeout "+duration(s.Timeout))
		if s.Retries == sim.NoRetries {
			parts = append(parts, "no retries")
		} else {
			parts = append(parts, strings.Replace(plural(s.Retries, "retrie"), "1 retrie", "1 retry", 1))
		}
		dip := "a dip to " + num(100*max(s.Dip, 0)) + "%"
		if s.Dip == sim.DipStall {
			dip = "a stall"
		}
		dip += " for " + duration(s.DipFor) + " at " + duration(s.DipAt)
		if s.Ramp > 0 {
			dip += ", back over " + duration(s.Ramp)
		}
		parts = append(parts, dip)
		if s.QueueLimit > 0 {
			parts = append(parts, fmt.Sprintf("queue limit %s", num(float64(s.QueueLimit))))
		}
		if s.DropExpired {
			parts = append(parts, "expired work dropped")
		}
		if s.Budget.Kind != sim.NoBudget {
			parts = append(parts, fmt.Sprintf("budget %s held by %s", s.Budget, map[sim.BudgetScope]string{sim.ScopeDevice: "each device", sim.ScopeFleet: "the fleet"}[s.Budget.Scope]))
		}
		parts = append(parts, "round trip "+duration(s.RTT))
	case sim.Reconnect:
		parts = append(parts, "down "+duration(s.Down), fmt.Sprintf("%s CPU units/s, handshakes of %s, warm-up %s", num(s.CPU), num(s.Handshake), num(s.WarmUp)))
		if s.RefuseCold {
			parts = append(parts, "refuses until warm")
		} else {
			parts = append(parts, "drops cold sessions after "+duration(s.ColdDrop), "on a drop: "+string(s.OnDrop))
		}
		if s.Budget.Kind != sim.NoBudget {
			parts = append(parts, fmt.Sprintf("budget %s held by %s", s.Budget, map[sim.BudgetScope]string{sim.ScopeDevice: "each device", sim.ScopeFleet: "the fleet"}[s.Budget.Scope]))
		}
		parts = append(parts, "round trip "+duration(s.RTT))
	case sim.Contention:
		parts = append(parts, fmt.Sprintf("one row, network |N(%s, %s)|", duration(s.Latency), duration(s.LatencySD)))
	default:
		return nil
	}
	return append(parts, "horizon "+duration(s.Horizon))
}
