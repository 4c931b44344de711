package libs

import (
	"testing"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/properties"
	"github.com/jitterkit/jitterkit/sim"
)

// The README's quick start, as a user pastes it.

// readmeFactory is the policy under test: one instance per device. Its delays
// reach MaxInterval·(1+RandomizationFactor) = 90s, the cap to declare.
func readmeFactory(d kit.Device) kit.Policy {
	return kit.FromNextBackOff(backoff.NewExponentialBackOff())
}

func TestReadmeRetryPolicySpreads(t *testing.T) {
	properties.Check(t, readmeFactory, properties.Config{Cap: 90 * time.Second})
}

func TestReadmeRetryPolicySurvivesAnOutage(t *testing.T) {
	sim.Check(t, readmeFactory, sim.Scenario{Clients: 1000, AcceptRate: 2000, Down: 30 * time.Second}, sim.Config{})
}
