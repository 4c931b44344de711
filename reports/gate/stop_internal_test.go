package gate

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/sim"
)

// TestReplaysKeyOfDefaultRuns tells a replay of the default runs, which
// stops once its verdict is decided, from one of as many runs set, whose
// configurations write the same JSON.
func TestReplaysKeyOfDefaultRuns(t *testing.T) {
	r := &replays{}
	spec := kit.Spec{Strategy: kit.Full}
	def := r.key(spec, sim.Scenario{}, sim.Config{})
	set := r.key(spec, sim.Scenario{}, sim.Config{Runs: defaultRuns})
	assert.NotEmpty(t, def)
	assert.NotEqual(t, def, set, "the keys of the default runs and of %d runs set", defaultRuns)
	assert.Equal(t, set, r.key(spec, sim.Scenario{}, sim.Config{Runs: defaultRuns}), "the keys of one configuration")
}

// defaultRuns is the most runs a replay takes when Config.Runs is zero.
var defaultRuns = sim.Config{}.WithDefaults().Runs
