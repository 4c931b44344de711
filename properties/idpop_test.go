package properties

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
)

// whole returns the policy, seeded per device, that waits one of the first
// n whole seconds at random before every retry.
func whole(n int) kit.Factory {
	return jittered(perDevice, func(rng *rand.Rand, _ int) time.Duration {
		return time.Duration(1+rng.IntN(n)) * time.Second
	})
}

// TestIDPopulationsInLockstep holds id-populations to what it can judge.
// Chance is estimated from the population, so a fleet whose devices all
// share their first delays makes chance expect every population rapid
// draws to share them too: no population can fail, and the check is not
// judged rather than passed. The bound is that of the check itself: the 64
// ids of the largest population, all sharing their first 3 delays, make
// 2016 identical pairs, and chance must allow fewer. Delays of two values
// (chance of sharing three: 1/8) leave it 2016/8·10 and more, above the
// 2016; four values (1/64) leave it about 400, and the check is judged.
func TestIDPopulationsInLockstep(t *testing.T) {
	tests := []struct {
		name   string
		f      kit.Factory
		status verdict.Status
		detail string
	}{
		{"no jitter", spec(t, "none"), verdict.Inconclusive,
			"not judged: all 1000 devices share their first 3 delays, [100ms 200ms 400ms], so chance, estimated from them, expects the ids rapid draws to share them as well: no population can share more than chance; spread and clusters judge a fleet in lockstep"},
		{"a constant seed", spec(t, "full:seed=constant"), verdict.Inconclusive,
			"not judged: all 1000 devices share their first 3 delays, [71.99ms 42.6ms 239.7ms], so chance"},
		{"a clock seed", spec(t, "full:seed=clock"), verdict.Inconclusive, "not judged: all 1000 devices share their first 3 delays"},
		{"two whole seconds", whole(2), verdict.Inconclusive,
			"not judged: 141 of 1000 devices share their first 3 delays, [2s 2s 2s], and chance, estimated from the population, expects 254 identical pairs among 64 ids and allows 2805, more than the 2016 there are: the delays take too few values for any population rapid draws to share more than chance"},
		{"four whole seconds", whole(4), verdict.Pass, "100 populations of up to 64 ids of every shape drawn by rapid: no group sharing their first 3 delays beyond chance"},
		{"full jitter", spec(t, "full"), verdict.Pass, "100 populations of up to 64 ids"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := mustRun(t, context.Background(), tt.f, Config{})
			r := resultNamed(t, out, NameIDPopulations)
			require.Equal(t, NameIDPopulations, r.Name)
			assert.Equal(t, tt.status, r.Status, r.Detail)
			assert.Contains(t, r.Detail, tt.detail)
			assert.Empty(t, r.Cause, "a check not judged has no cause")
		})
	}
}
