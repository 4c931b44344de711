package gate

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/jitterkit/jitterkit/sim"
)

// TestReplyBudget checks that the replies kept for reuse, counted twice
// for the garbage collector's room, fit beside the largest replay of the
// policy within the memory limit, and take at most a quarter of it.
func TestReplyBudget(t *testing.T) {
	fleet := sim.Scenario{Clients: 50_000, AcceptRate: 3000, Down: time.Minute}
	holds := Config{}.ReplayConfig()
	holds.Runs = holdsRuns(defaultRuns)
	full := fleet.WithDefaults().Memory(nil, holds) // at the default limit, every worker
	tests := []struct {
		name  string
		limit int64 // 0 for the default
		steps Step
		some  bool // whether there is room for any reply
	}{
		{name: "the default limit", some: true},
		{name: "a little more than the replay of a fix", limit: full + 10<<20, some: true},
		{name: "less than one run of the replay of a fix", limit: 4 << 20},
		{name: "the gate's own replay without a fix", limit: full, steps: Checks | Replay, some: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := fleet
			s.MemoryLimit = tt.limit
			g := &gate{cfg: Config{Steps: tt.steps, Scenario: s}.withDefaults()}
			got := g.replyBudget()
			if !tt.some {
				assert.LessOrEqual(t, got, int64(0), "replyBudget()")
				return
			}
			d := s.WithDefaults()
			cfg := holds
			if tt.steps&Fix == 0 && tt.steps != 0 {
				cfg = g.cfg.ReplayConfig()
			}
			assert.Positive(t, got, "replyBudget()")
			assert.LessOrEqual(t, got, d.MemoryLimit/4, "replyBudget(): at most a quarter of the limit")
			assert.LessOrEqual(t, d.Memory(nil, cfg)+2*got, d.MemoryLimit, "the largest replay and the replies kept, twice")
		})
	}
}
