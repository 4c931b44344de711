package sim

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// TestServersTable checks the table of server models: Servers lists them
// in order, each has a description, a model it makes, and a name that
// validation accepts, and an unknown name has none of these.
func TestServersTable(t *testing.T) {
	assert.Equal(t, []Server{PerSecond, TokenBucket, RetryAfter}, Servers())
	assert.Equal(t, "per-second, token-bucket or retry-after", serverNames())
	for _, name := range Servers() {
		assert.NotEmpty(t, name.Description(), "Server(%q).Description()", name)
		assert.NotNil(t, newServer(Scenario{Server: name}.WithDefaults()), "newServer of %q", name)
		assert.NoError(t, Scenario{Server: name}.validateFields(), "a scenario with server %q", name)
	}
	assert.Empty(t, Server("queue").Description())
	assert.Nil(t, Server("queue").model())
}

// TestServerShortcuts checks that a server's shortcut for a second decides
// as accept does: asked about the same arrivals in time order, from the
// same state, accept accepts exactly the first quota of an acceptFirst
// second and none of a rejectEvery second.
func TestServerShortcuts(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := Scenario{
			Server:     rapid.SampledFrom(Servers()).Draw(t, "server"),
			AcceptRate: rapid.Float64Range(0.3, 200).Draw(t, "acceptRate"),
			Down:       time.Duration(rapid.Int64Range(0, 5e9).Draw(t, "down")),
		}.WithDefaults()
		srv := newServer(s)
		srv.reset()
		for sec := range int64(7) {
			arrivals := rapid.SliceOfN(rapid.Int64Range(0, nsPerSec-1), 0, 300).Draw(t, "arrivals")
			slices.Sort(arrivals)
			cut, quota := srv.second(sec)
			accepted := 0
			for _, at := range arrivals {
				if srv.accept(sec*nsPerSec + at) {
					accepted++
				}
			}
			switch cut {
			case rejectEvery:
				require.Zero(t, accepted, "second %d: accepted of %d arrivals under rejectEvery", sec, len(arrivals))
			case acceptFirst:
				require.Equal(t, min(int64(len(arrivals)), quota), int64(accepted), "second %d: accepted of %d arrivals under acceptFirst, quota %d", sec, len(arrivals), quota)
			}
		}
	})
}

// TestServerHint checks that the retry-after server alone gives a hint,
// the scenario's RetryAfter.
func TestServerHint(t *testing.T) {
	for _, name := range Servers() {
		d, ok := newServer(Scenario{Server: name, RetryAfter: 3 * time.Second}.WithDefaults()).hint()
		if name == RetryAfter {
			assert.True(t, ok, "hint of %q", name)
			assert.Equal(t, 3*time.Second, d, "hint of %q", name)
			continue
		}
		assert.False(t, ok, "hint of %q", name)
	}
}
