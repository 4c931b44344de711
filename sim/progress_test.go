package sim

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/kit"
)

// A progress records what a replay reports to it.
type progress struct {
	mu    sync.Mutex
	parts []int64
}

func (p *progress) add(n int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.parts = append(p.parts, n)
}

func (p *progress) total() (sum int64) {
	for _, n := range p.parts {
		sum += n
	}
	return sum
}

// Every model reports a run's devices in parts as the run goes, adding up
// to the devices of every run of every fleet (the policy's and its
// baselines', replayed or kept), and nothing for the tipping point's
// search.
func TestProgress(t *testing.T) {
	tests := []struct {
		s     Scenario
		f     kit.Factory
		parts int  // at least, in one run
		more  bool // replay three runs too, with what a replay makes beside them
	}{
		{Scenario{Kind: Outage, Clients: 2000, AcceptRate: 20}, nil, 20, true},
		{Scenario{Kind: LongOutage, Clients: 500, AcceptRate: 20}, nil, 20, false},
		{Scenario{Kind: Storm, Clients: 20000}, nil, 4, false},
		{Scenario{Kind: Periodic, Clients: 500, AcceptRate: 20}, nil, 20, false},
		{Scenario{Kind: Overload, Horizon: 2 * time.Minute}, nil, 20, true},
		{Scenario{Kind: Reconnect, Clients: 500}, nil, 20, false},
		{Scenario{Kind: Contention, Clients: 1000}, nil, 4, true},
		{Scenario{Kind: Outage, Clients: 2000, AcceptRate: 20}, general(kit.Spec{Strategy: kit.Full}.Factory()), 20, false},
	}
	for _, tt := range tests {
		f := tt.f
		if f == nil {
			f = kit.Spec{Strategy: kit.Full}.Factory()
		}
		s := tt.s.WithDefaults()
		one := &progress{}
		_, err := Replay(WithProgress(t.Context(), one.add), f, tt.s, Config{Runs: 1, Resamples: 10})
		require.NoError(t, err, s.Kind)
		fleets := int64(s.Fleets())
		assert.Equal(t, int64(s.Clients)*fleets, one.total(), "%s: one run of each fleet reports its devices", s.Kind)
		assert.GreaterOrEqual(t, len(one.parts), tt.parts, "%s: in parts, as the run goes", s.Kind)
		if !tt.more {
			continue
		}
		three := &progress{}
		cfg := Config{Runs: 3, Resamples: 10, Workers: 2, TippingPoint: s.Kind.model().tips()}
		_, err = Replay(WithProgress(t.Context(), three.add), f, tt.s, cfg)
		require.NoError(t, err, s.Kind)
		assert.Equal(t, 3*int64(s.Clients)*fleets, three.total(), "%s: three runs of each fleet, and nothing for the tipping point", s.Kind)
	}
}

// A replay without progress asked reports nothing, and Over reports the
// runs it replays.
func TestProgressOfOver(t *testing.T) {
	p := &progress{}
	_, err := Over(WithProgress(t.Context(), p.add), kit.Spec{Strategy: kit.Full}.Factory(), Scenario{Clients: 1000, AcceptRate: 20}, Config{Runs: 4}, 0.6, 1, 4)
	require.NoError(t, err)
	assert.Equal(t, int64(3*1000), p.total())
	assert.Nil(t, progressOf(withoutProgress(WithProgress(context.Background(), p.add))))
	assert.Nil(t, progressOf(context.Background()))
}

// A replay's fleets are the policy's and its model's baselines.
func TestFleets(t *testing.T) {
	for kind, want := range map[Kind]int{Outage: 1, Storm: 1, Periodic: 1, Reconnect: 1, Overload: 2, Contention: 6} {
		assert.Equal(t, want, Scenario{Kind: kind}.WithDefaults().Fleets(), kind)
	}
}
