package loop_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/loop"
	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/properties"
)

// numbered returns n ids, dev-000001 on.
func numbered(n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("dev-%06d", i+1)
	}
	return ids
}

// jittered is the loop of the package example, with a generator of the
// device's own, made in loops.
func jittered(d kit.Device) loop.Loop {
	rng := deviceRNG(d.ID)
	return func(ctx context.Context, op func(context.Context) error) error { return retry(ctx, rng, op) }
}

// checkResult returns the result of the check named name.
func checkResult(t *testing.T, out properties.Outcome, name string) properties.Result {
	t.Helper()
	for _, r := range out.Results {
		if r.Name == name {
			return r
		}
	}
	require.Failf(t, "no such result", "no %s in the outcome", name)
	return properties.Result{}
}

// TestEveryDeviceHasAPolicyOfItsOwn checks the adapter's fleet: each
// device's policy is its own, so the checks find no shared instance, and
// neither do they when loops returns one Loop to every device: its state
// (here a generator of one seed, which puts the devices in lockstep, as
// spread says) lives in each device's call of it.
func TestEveryDeviceHasAPolicyOfItsOwn(t *testing.T) {
	oneLoop := func(ctx context.Context, op func(context.Context) error) error {
		return retry(ctx, deviceRNG("every device"), op)
	}
	for _, tt := range []struct {
		name  string
		loops func(kit.Device) loop.Loop
	}{
		{"a loop made for each device", jittered},
		{"one loop for every device", each(oneLoop)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := loop.Factory(t, tt.loops, loop.Config{})
			out, err := properties.Run(context.Background(), f, properties.Config{IDs: numbered(200), Cap: 10 * time.Second, Thresholds: properties.Thresholds{MinDevices: 100}})
			require.NoError(t, err)
			assert.False(t, out.Shared, "Outcome.Shared")
			b := checkResult(t, out, properties.NameBounds)
			assert.Equal(t, verdict.Pass, b.Status, "bounds: %s", b.Detail)
		})
	}
}

// TestOneObservedPolicyForEveryDevice gates a factory with the defect of
// one instance for the whole fleet, built on the adapter: one device's
// observed loop, returned to every device. The checks fail it at the
// second device, naming both, in go test's RunFrozen as in Run.
func TestOneObservedPolicyForEveryDevice(t *testing.T) {
	one := loop.Factory(t, jittered, loop.Config{})(kit.Device{ID: "dev-000001"})
	f := func(kit.Device) kit.Policy { return one }
	cfg := properties.Config{IDs: numbered(200), Cap: 10 * time.Second, Thresholds: properties.Thresholds{MinDevices: 100}}
	for _, tt := range []struct {
		name string
		run  func(*testing.T) (properties.Outcome, error)
	}{
		{"Run", func(*testing.T) (properties.Outcome, error) { return properties.Run(context.Background(), f, cfg) }},
		{"RunFrozen", func(t *testing.T) (properties.Outcome, error) { return properties.RunFrozen(t, f, cfg) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, err := tt.run(t)
			require.NoError(t, err)
			assert.True(t, out.Shared, "Outcome.Shared")
			b := checkResult(t, out, properties.NameBounds)
			assert.Equal(t, verdict.Fail, b.Status)
			assert.Contains(t, b.Detail, `the factory returned the same policy for "dev-000001" and "dev-000002": a fleet runs one instance per device; make a new policy in each call`)
		})
	}
}

// TestStateOutsideTheLoopIsShared observes loops that share one generator,
// made outside loops: each device's policy is its own, so no check can
// tell the instances apart, but the devices draw one stream of delays, and
// a device made again draws others: reproducibility finds it.
func TestStateOutsideTheLoopIsShared(t *testing.T) {
	rng := deviceRNG("the fleet")
	loops := func(kit.Device) loop.Loop {
		return func(ctx context.Context, op func(context.Context) error) error { return retry(ctx, rng, op) }
	}
	f := loop.Factory(t, loops, loop.Config{})
	out, err := properties.Run(context.Background(), f, properties.Config{IDs: numbered(200), Cap: 10 * time.Second, Thresholds: properties.Thresholds{MinDevices: 100}})
	require.NoError(t, err)
	assert.False(t, out.Shared, "Outcome.Shared: every device's policy is its own")
	r := checkResult(t, out, properties.NameReproducibility)
	assert.Equal(t, verdict.Warn, r.Status, "reproducibility: %s", r.Detail)
}
