package sim

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestModelScenarioJSON reads back every field of the server models'
// scenarios, a stall and clients that never retry included: the same
// bytes again, and the same scenario after defaults.
func TestModelScenarioJSON(t *testing.T) {
	for _, s := range []Scenario{
		{Kind: Overload},
		{Kind: Overload, Dip: DipStall, Retries: NoRetries, Ramp: 3 * time.Second, QueueLimit: 40, DropExpired: true,
			Rate: 30, AcceptRate: 50, RTT: 20 * time.Millisecond, Timeout: 1500 * time.Millisecond, DipFor: 7 * time.Second, DipAt: 12 * time.Second, Horizon: time.Minute},
		{Kind: Overload, Dip: 0.25},
		{Kind: Reconnect},
		{Kind: Reconnect, OnDrop: DropContinue, RefuseCold: true, CPU: 900, Handshake: 3, WarmUp: 1, ColdDrop: 250 * time.Millisecond, RTT: time.Millisecond, Down: 3 * time.Second},
		{Kind: Contention},
		{Kind: Contention, Latency: 3 * time.Millisecond, LatencySD: 500 * time.Microsecond},
	} {
		b, err := json.Marshal(s)
		require.NoError(t, err)
		var back Scenario
		require.NoError(t, json.Unmarshal(b, &back), "%s", b)
		again, err := json.Marshal(back)
		require.NoError(t, err)
		assert.Equal(t, string(b), string(again), "the JSON read back")
		want := s.WithDefaults()
		want.MemoryLimit = 0 // not in the JSON
		got := back.WithDefaults()
		got.MemoryLimit = 0
		assert.Equal(t, want, got, "%s", b)
	}
}
