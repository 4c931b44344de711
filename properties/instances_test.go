package properties

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/testdata/kittest"
)

// A factory that returns one policy to several devices is the policy's
// defect: on a fleet every device runs an instance of its own.

// numbered returns n ids, dev-000001 on.
func numbered(n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("dev-%06d", i+1)
	}
	return ids
}

// stepper is the delay method of a library's backoff that keeps its
// state behind a pointer, as k8s's wait.Backoff does.
type stepper struct{ n int }

func (s *stepper) Step() time.Duration {
	s.n++
	return time.Duration(s.n) * time.Second
}

// constant is a policy without state: its value is all it has.
type constant struct{ d time.Duration }

func (c constant) Next() (time.Duration, error) { return c.d, nil }

// empty is a policy of size zero, whose new values Go may place at one
// address.
type empty struct{}

func (*empty) Next() (time.Duration, error) { return time.Second, nil }

// sliced is a policy of a type that cannot be compared.
type sliced struct{ delays []time.Duration }

func (s sliced) Next() (time.Duration, error) { return s.delays[0], nil }

// counter is a policy whose state is behind its pointer.
type counter struct{ n int }

func (c *counter) Next() (time.Duration, error) {
	c.n++
	return time.Duration(c.n) * time.Second, nil
}

// boxed holds its state in an interface field, which may hold a value
// that cannot be compared.
type boxed struct{ state any }

func (boxed) Next() (time.Duration, error) { return time.Second, nil }

func TestOneInstanceSharedIsFound(t *testing.T) {
	constantSeed := kit.Spec{Strategy: kit.Full, Base: time.Second, Cap: 30 * time.Second, Seed: kit.SeedConstant}
	full := kit.Spec{Strategy: kit.Full, Base: time.Second, Cap: 30 * time.Second}.Factory()
	tests := []struct {
		name        string
		f           func() kit.Factory
		first, then string // the first pair of devices that share a policy
		shared      int    // devices given the policy of an earlier one
	}{
		{"one spec policy for every device", func() kit.Factory {
			one := constantSeed.Factory()(kit.Device{ID: "dev-000001"})
			return func(kit.Device) kit.Policy { return one }
		}, "dev-000001", "dev-000002", 999},
		{"one library backoff behind an adapter's value", func() kit.Factory {
			s := &stepper{}
			return func(kit.Device) kit.Policy { return kit.FromStep(s) }
		}, "dev-000001", "dev-000002", 999},
		{"a pool of three handed out in turn", func() kit.Factory {
			pool := []kit.Policy{full(kit.Device{ID: "a"}), full(kit.Device{ID: "b"}), full(kit.Device{ID: "c"})}
			n := 0
			return func(kit.Device) kit.Policy {
				n++
				return pool[(n-1)%len(pool)]
			}
		}, "dev-000001", "dev-000004", 333}, // the devices given the first's: the 4th, 7th, ... 1000th
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := mustRun(t, context.Background(), tt.f(), Config{IDs: numbered(1000)})
			b := resultNamed(t, out, NameBounds)
			require.Equal(t, verdict.Fail, b.Status, "bounds: %s", b.Detail)
			assert.True(t, out.Shared, "Outcome.Shared")
			assert.False(t, out.Hung, "Outcome.Hung")
			assert.NoError(t, out.Err, "a shared instance is the policy's defect, not its source's failure")
			want := fmt.Sprintf(`device %q: the factory returned the same policy for %q and %q: a fleet runs one instance per device; make a new policy in each call, and %d of 1000 devices in all; want a policy of its own for every device`,
				tt.then, tt.first, tt.then, tt.shared)
			assert.Equal(t, want, b.Detail, "bounds detail")
			assert.Equal(t, "devices sharing a policy", b.Unit, "bounds figure unit")
			require.NotNil(t, b.Counterexample)
			d := b.Counterexample.Devices[0]
			assert.Equal(t, tt.then, d.ID, "the first device shown")
			assert.Contains(t, d.Err, fmt.Sprintf("%q and %q", tt.first, tt.then), "the device's fault names both devices")
			assert.Empty(t, d.Delays, "a device given an earlier one's policy is not read")
			assert.Equal(t, SharedInstance, b.Cause, "bounds' cause")
			assert.Equal(t, SharedInstance.Remedy(), b.Remedy, "what to change")
			assert.Equal(t, verdict.Fail, out.Status())
		})
	}
}

// TestDistinctInstancesAreNotShared runs factories that make a policy of
// their own for each device, among them values that compare equal, and
// policies of types that cannot be compared: none is taken for a shared
// instance, and none panics.
func TestDistinctInstancesAreNotShared(t *testing.T) {
	spec := kit.Spec{Strategy: kit.Full, Base: time.Second, Cap: 30 * time.Second}.Factory()
	stateless := kittest.PolicyFunc(func() (time.Duration, error) { return time.Second, nil })
	tests := []struct {
		name string
		f    kit.Factory
	}{
		{"a spec's policies", spec},
		{"one equal value without state", func(kit.Device) kit.Policy { return constant{time.Second} }},
		{"new values of size zero", func(kit.Device) kit.Policy { return &empty{} }},
		{"one function", func(kit.Device) kit.Policy { return stateless }},
		{"values that cannot be compared", func(kit.Device) kit.Policy { return sliced{[]time.Duration{time.Second}} }},
		{"equal values holding what cannot be compared", func(kit.Device) kit.Policy { return boxed{[]int{1}} }},
		{"a library backoff of each device's own", func(kit.Device) kit.Policy { return kit.FromStep(&stepper{}) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := mustRun(t, context.Background(), tt.f, Config{IDs: numbered(200), Thresholds: Thresholds{MinDevices: 100}})
			assert.False(t, out.Shared, "Outcome.Shared")
			b := resultNamed(t, out, NameBounds)
			assert.NotContains(t, b.Detail, "same policy", "bounds")
		})
	}
}

func TestSamePolicy(t *testing.T) {
	s := &stepper{}
	p := &counter{}
	tests := []struct {
		name string
		a, b kit.Policy
		want bool
	}{
		{"one pointer", p, p, true},
		{"two pointers", p, &counter{}, false},
		{"adapter values holding one pointer", kit.FromStep(s), kit.FromStep(s), true},
		{"adapter values holding two", kit.FromStep(s), kit.FromStep(&stepper{}), false},
		{"equal values without a reference", constant{1}, constant{1}, false},
		{"pointers to values of size zero", &empty{}, &empty{}, false},
		{"values that cannot be compared", sliced{}, sliced{}, false},
		{"an interface field holding a slice", boxed{[]int{1}}, boxed{[]int{1}}, false},
		{"an interface field holding one pointer", boxed{s}, boxed{s}, true},
		{"different types", constant{1}, p, false},
		{"a typed nil pointer", (*counter)(nil), (*counter)(nil), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, samePolicy(tt.a, tt.b))
		})
	}
}

// resultNamed returns the result of the check named name.
func resultNamed(t testing.TB, out Outcome, name string) Result {
	t.Helper()
	for _, r := range out.Results {
		if r.Name == name {
			return r
		}
	}
	require.Failf(t, "no such result", "no %s in the outcome", name)
	return Result{}
}
