package loop_test

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/loop"
	"github.com/jitterkit/jitterkit/properties"
)

// clockRetry is a shipped retry loop with the mistake the frozen-clock
// check exists for: it seeds its jitter from the clock when it starts, so
// devices powered on by one relay draw the same delays.
func clockRetry(ctx context.Context, op func(context.Context) error) error {
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 0))
	for window := time.Second; ; window = min(2*window, time.Minute) {
		if err := op(ctx); err == nil || ctx.Err() != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(rng.Int64N(int64(window)))):
		}
	}
}

// verdicts is the body of a test that looks at the verdicts themselves
// rather than failing: RunFrozen leaves t alone. Each device's clock starts
// at its boot instant, so the devices the suite boots together draw one
// sequence, and frozen-clock fails, where the same devices booted a second
// apart spread.
func verdicts(t *testing.T) properties.Outcome {
	f := loop.Factory(t, func(kit.Device) loop.Loop { return clockRetry }, loop.Config{})
	out, err := properties.RunFrozen(t, f, properties.Config{Cap: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range out.Results {
		t.Logf("%s: %s: %s", r.Name, r.Status, r.Detail)
	}
	return out
}

// Factory observes a loop that waits on timers and its context; the suite's
// verdicts on it are those of any other policy. The example is a test's
// body, verdicts; it runs under go test as TestExampleFactory.
func ExampleFactory() {}
