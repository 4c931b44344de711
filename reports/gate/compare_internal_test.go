package gate

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/sim"
)

// TestBuiltins holds the built-in strategies a comparison replays to the
// defaults Compare documents, and to a spec's own backoff.
func TestBuiltins(t *testing.T) {
	spec := kit.Spec{Strategy: kit.Decorrelated, Base: 15 * time.Second, Cap: 5 * time.Minute}
	tests := []struct {
		spec *kit.Spec
		kind sim.Kind
		cap  time.Duration
		want string
	}{
		{nil, sim.Outage, 0, "base=100ms,cap=10s"},
		{nil, sim.Storm, 0, "base=1s,cap=30s"},
		{nil, sim.Outage, time.Minute, "base=100ms,cap=1m"},
		{&spec, sim.Outage, 0, "base=15s,cap=5m"},
	}
	for _, tt := range tests {
		var got []string
		for _, s := range builtins(tt.spec, tt.kind, tt.cap) {
			got = append(got, s.String())
		}
		want := []string{"none:" + tt.want, "full:" + tt.want, "equal:" + tt.want, "decorrelated:" + tt.want}
		assert.Equal(t, want, got)
	}
}
