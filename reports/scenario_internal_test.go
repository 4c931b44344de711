package reports

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jitterkit/jitterkit/sim"
	"github.com/jitterkit/jitterkit/testdata/kittest"
	"github.com/stretchr/testify/require"
)

// TestScenarioLinesGolden writes the one line that heads a replay and a
// comparison for every kind on every server, and for what a user sets
// beside the kind's defaults: the golden file shows each server named
// (a token bucket with its burst, a Retry-After hint), a storm without one,
// and the periodic kinds with their timers.
func TestScenarioLinesGolden(t *testing.T) {
	type scenario struct {
		name string
		s    sim.Scenario
	}
	var cases []scenario
	for _, k := range sim.Kinds() {
		for _, server := range sim.Servers() {
			if k.Recovers() || k == sim.Contention {
				// The server models are servers of their own.
				if server == sim.PerSecond {
					cases = append(cases, scenario{string(k), sim.Scenario{Kind: k}})
				}
				continue
			}
			cases = append(cases, scenario{fmt.Sprintf("%s on %s", k, server), sim.Scenario{Kind: k, Server: server}})
		}
	}
	cases = append(cases,
		scenario{"a token bucket's burst of the user's own", sim.Scenario{Server: sim.TokenBucket, AcceptRate: 2500, Burst: 100}},
		scenario{"a hint of the user's own", sim.Scenario{Server: sim.RetryAfter, RetryAfter: 30 * time.Second}},
		scenario{"a start spread of the user's own", sim.Scenario{Kind: sim.Storm, StartSpread: 10 * time.Second}},
		scenario{"a horizon of the user's own", sim.Scenario{Horizon: 30 * time.Minute}},
		scenario{"a storm's retries of the user's own", sim.Scenario{Kind: sim.Storm, Retries: 1000}},
		scenario{"timer offsets from the policy", sim.Scenario{Kind: sim.Periodic, Period: 30 * time.Second, TimerOffset: sim.OffsetPolicy}},
		scenario{"an overload with a ramp, a stall and the server-side fixes", sim.Scenario{Kind: sim.Overload, Dip: sim.DipStall, Ramp: 30 * time.Second, QueueLimit: 50, DropExpired: true, Retries: sim.NoRetries}},
		scenario{"a broker that refuses until warm", sim.Scenario{Kind: sim.Reconnect, RefuseCold: true}},
		scenario{"a large fleet in a long outage", sim.Scenario{Kind: sim.LongOutage, Clients: 1_000_000, AcceptRate: 125_000, Window: 100 * time.Millisecond}},
	)
	var b strings.Builder
	for _, c := range cases {
		require.NoError(t, c.s.Validate(nil, sim.Config{}), c.name)
		p := &Replay{Scenario: c.s, Config: sim.Config{Runs: 3}}
		cmp := Comparison{Scenario: c.s, Config: sim.Config{Runs: 5, Seed: 1}, Rows: []ComparisonRow{{Clients: 1000}, {Clients: 10_000}}}
		fmt.Fprintf(&b, "%s\n  replay:     %s\n  comparison: %s\n", c.name, replayLine(p), comparisonScenario(cmp))
	}
	kittest.Golden(t, "testdata/scenario-lines.txt", []byte(b.String()))
}
