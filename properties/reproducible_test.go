package properties

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
)

// partlyShared seeds every device from its id but those whose id hashes
// to 0 modulo every, which draw from one shared generator: a policy of
// which about 1/every of the devices cannot be replayed.
func partlyShared(every uint64) kit.Factory {
	own, shared := jittered(perDevice, fullJitter), sharedGenerator()
	return func(d kit.Device) kit.Policy {
		if kit.HashID(d.ID)%every == 0 {
			return shared(d)
		}
		return own(d)
	}
}

// resultOf returns the result of the check named name.
func resultOf(t *testing.T, out Outcome, name string) Result {
	t.Helper()
	for _, r := range out.Results {
		if r.Name == name {
			return r
		}
	}
	require.Failf(t, "no result", "no %s among the results", name)
	return Result{}
}

// TestReproducibilityIsAShare holds reproducibility to its share of the
// devices made again: a few devices that differ pass, with the first of
// them named; a fifth that differ warn at every seed.
func TestReproducibilityIsAShare(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		t.Run(fmt.Sprintf("seed-%d", seed), func(t *testing.T) {
			few := resultOf(t, mustRun(t, context.Background(), partlyShared(100), Config{Seed: seed}), NameReproducibility)
			assert.Equal(t, verdict.Pass, few.Status, few.Detail)
			if few.Figure < 1 {
				assert.Regexp(t, `^\d+ of 100 sequences of the first 3 delays were the same when made again in this process, at least 95%; \d+ differ: the first 3 delays of "`, few.Detail)
				assert.NotNil(t, few.Counterexample, "the device that differs")
			}
			many := resultOf(t, mustRun(t, context.Background(), partlyShared(5), Config{Seed: seed}), NameReproducibility)
			assert.Equal(t, verdict.Warn, many.Status, many.Detail)
			assert.Regexp(t, `sequences differ\); want the same delays for the same id in at least 95% of them$`, many.Detail)
		})
	}
}

// TestReproducibilityChances computes the chances MinReproducible's
// comment states from the binomial distribution they come from.
func TestReproducibilityChances(t *testing.T) {
	tolerated := 1 - DefaultThresholds().MinReproducible
	warns := func(n int, q float64) float64 {
		return 1 - distuv.Binomial{N: float64(n), P: q}.CDF(tolerated*float64(n)+1e-9)
	}
	assert.InEpsilon(t, 5.4e-4, warns(100, 0.01), 0.02, "q = 1%%, 100 devices")
	assert.InEpsilon(t, 0.016, warns(100, 0.02), 0.05, "q = 2%%, 100 devices")
	assert.InEpsilon(t, 1.9e-5, 1-warns(100, 0.2), 0.05, "q = 20%%, 100 devices")
	assert.InEpsilon(t, 6.9e-6, warns(200, 0.01), 0.02, "q = 1%%, 200 devices")
	flip := func(q float64) float64 { p := warns(100, q); return 2 * p * (1 - p) }
	for _, q := range []float64{0.011, 0.15} {
		assert.Greater(t, flip(q), 1e-3, "q = %v, within the edge of the share", q)
	}
	for _, q := range []float64{0.009, 0.17} {
		assert.Less(t, flip(q), 1e-3, "q = %v, outside the edge of the share", q)
	}
}

// TestMinReproducibleOutOfRange refuses a share that is not one.
func TestMinReproducibleOutOfRange(t *testing.T) {
	for _, v := range []float64{-0.5, 1.01} {
		err := Config{Thresholds: Thresholds{MinReproducible: v}}.Validate()
		assert.EqualError(t, err, fmt.Sprintf("properties: MinReproducible %v is not in (0, 1]", v))
	}
	assert.NoError(t, Config{Thresholds: Thresholds{MinReproducible: 1}}.Validate(), "every device, as a caller may require")
}
