package loop_test

import (
	"context"
	"hash/fnv"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/loop"
	"github.com/jitterkit/jitterkit/properties"
)

// retry is the retry loop a device ships, as it is: it tries op until op
// succeeds or ctx is done, and sleeps full jitter between tries, over a
// window of 100ms doubling to 10s, drawn from rng.
func retry(ctx context.Context, rng *rand.Rand, op func(context.Context) error) error {
	window := 100 * time.Millisecond
	for {
		if err := op(ctx); err == nil || ctx.Err() != nil {
			return err
		}
		time.Sleep(time.Duration(rng.Int64N(int64(window))))
		window = min(2*window, 10*time.Second)
	}
}

// deviceRNG is the generator a device seeds from a hash of its id.
func deviceRNG(id string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(id))
	return rand.New(rand.NewPCG(h.Sum64(), 1))
}

// checkRetry is the body of a test of the shipped loop, such as
//
//	func TestRetrySpreads(t *testing.T) { checkRetry(t) }
//
// Each device runs retry under a fake clock of its own, and the suite
// judges the delays between its tries.
func checkRetry(t *testing.T) {
	f := loop.Factory(t, func(d kit.Device) loop.Loop {
		rng := deviceRNG(d.ID)
		return func(ctx context.Context, op func(context.Context) error) error {
			return retry(ctx, rng, op)
		}
	}, loop.Config{})
	properties.Check(t, f, properties.Config{Cap: 10 * time.Second})
}

// A test hands jitterkit the retry loop a device ships, unchanged, and the
// suite checks the fleet of devices running it. The adapter needs the
// test's *testing.T, so the example is a test's body, checkRetry; it runs
// under go test as TestExample.
func Example() {}
