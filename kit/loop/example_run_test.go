package loop_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/properties"
)

// TestExample runs the package example's test body, so that the example
// stays true.
func TestExample(t *testing.T) { checkRetry(t) }

// TestExampleFactory runs the Factory example's test body: the loop seeded
// from the clock fails frozen-clock.
func TestExampleFactory(t *testing.T) {
	out := verdicts(t)
	for _, r := range out.Results {
		if r.Name == properties.NameFrozenClock {
			assert.Equal(t, verdict.Fail, r.Status, "frozen-clock: %s", r.Detail)
		}
	}
}
