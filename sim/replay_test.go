package sim

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/testdata/kittest"
)

// traceIDs returns n ids in the style of a recorded trace.
func traceIDs(n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("sn-%04d-%c", (i*7919)%10000, 'a'+i%26)
	}
	return ids
}

// TestReplayIDs replays a fixed fleet: every run makes the policies of
// exactly the given ids, device i as IDs[i], and Clients defaults to
// their number.
func TestReplayIDs(t *testing.T) {
	ids := traceIDs(50)
	for _, kind := range fleetKinds {
		t.Run(string(kind), func(t *testing.T) {
			var mu sync.Mutex
			var made []string
			f := func(d kit.Device) kit.Policy {
				mu.Lock()
				made = append(made, d.ID)
				mu.Unlock()
				return kit.Spec{Strategy: kit.Full}.Factory()(d)
			}
			r, err := Replay(context.Background(), f, Scenario{Kind: kind, IDs: ids, Period: periodOf(kind)}, Config{Runs: 3, Seed: 8, Workers: 2})
			require.NoError(t, err)
			assert.Equal(t, 50, r.Scenario.Clients, "Clients after defaults")
			want := slices.Concat(ids, ids, ids)
			slices.Sort(want)
			slices.Sort(made)
			assert.Equal(t, want, made, "the ids the policies were made with, over three runs")
		})
	}
}

// TestReplayIDsError checks that a failing device of a fixed fleet is
// named by its own id, in every kind, and that Validate refuses ids that
// do not make a fleet.
func TestReplayIDsError(t *testing.T) {
	ids := traceIDs(40)
	bad := ids[17]
	for _, kind := range fleetKinds {
		t.Run(string(kind), func(t *testing.T) {
			f := func(d kit.Device) kit.Policy {
				calls := 0
				return kittest.PolicyFunc(func() (time.Duration, error) {
					calls++
					if d.ID == bad && calls == 2 {
						return -time.Second, nil
					}
					return time.Second, nil
				})
			}
			s := Scenario{Kind: kind, IDs: ids, AcceptRate: 1e-9, Period: periodOf(kind)}
			_, err := Replay(context.Background(), f, s, Config{Runs: 3, Seed: 5})
			var de *DeviceError
			require.ErrorAs(t, err, &de)
			assert.EqualError(t, err, "sim: run 0 (seed 5): device "+bad+": delay before attempt 3: delay -1s is negative")
		})
	}
	assert.EqualError(t, Scenario{IDs: ids, Clients: 30}.Validate(nil, Config{}), "sim: clients 30 but 40 ids: leave clients zero when the ids set the fleet")
	assert.EqualError(t, Scenario{IDs: []string{"a", "", "c"}}.Validate(nil, Config{}), "sim: IDs[1] is empty")
	assert.NoError(t, Scenario{IDs: ids, Clients: 40}.Validate(nil, Config{}))
}

// TestReplayIDsHung checks that a policy of a fixed fleet that never
// returns is named by its own id too.
func TestReplayIDsHung(t *testing.T) {
	defer func(g time.Duration) { stuckGrace = g }(stuckGrace)
	stuckGrace = 50 * time.Millisecond
	ids := traceIDs(40)
	release := make(chan struct{})
	defer close(release)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := func(d kit.Device) kit.Policy {
		return kittest.PolicyFunc(func() (time.Duration, error) {
			if d.ID == ids[9] {
				cancel()
				<-release
			}
			return time.Second, nil
		})
	}
	_, err := Replay(ctx, f, Scenario{IDs: ids, AcceptRate: 1}, Config{Runs: 1, Seed: 2})
	assert.EqualError(t, err, "sim: run 0 (seed 2): device "+ids[9]+": delay before attempt 2: did not return within 50ms of the replay being stopped (context canceled)")
}

// TestReplayErrorDoesNotDependOnWorkers makes runs 2, 5 and 7 fail, run 2
// late in its run and the others at once, and holds run 2's failure back
// until run 5 has failed whenever both run together: the replay names run
// 2, word for word, with 1, 2 or 8 runs replayed at once.
func TestReplayErrorDoesNotDependOnWorkers(t *testing.T) {
	const seed = 12
	s := Scenario{Clients: 2000, AcceptRate: 10}
	var want string
	for _, workers := range []int{1, 2, 8} {
		t.Run(fmt.Sprint("workers=", workers), func(t *testing.T) {
			var started5 atomic.Bool
			failed5 := make(chan struct{})
			id2, id5, id7 := deviceID(runSeed(seed, 2), 1900), deviceID(runSeed(seed, 5), 0), deviceID(runSeed(seed, 7), 3)
			f := func(d kit.Device) kit.Policy {
				switch d.ID {
				case id5:
					started5.Store(true)
					close(failed5)
					panic("run 5 fails at once")
				case id7:
					panic("run 7 fails at once")
				}
				calls := 0
				return kittest.PolicyFunc(func() (time.Duration, error) {
					calls++
					if d.ID == id2 && calls == 3 {
						if started5.Load() {
							<-failed5
						}
						return 0, errUnreachable
					}
					return time.Duration(calls) * 100 * time.Millisecond, nil
				})
			}
			_, err := Replay(context.Background(), f, s, Config{Runs: 10, Seed: seed, Workers: workers})
			var de *DeviceError
			require.ErrorAs(t, err, &de)
			assert.Equal(t, 2, de.Run, "the run named")
			assert.Equal(t, id2, de.Device, "the device named")
			if want == "" {
				want = err.Error()
			}
			assert.EqualError(t, err, want)
		})
	}
	assert.Equal(t, "sim: run 2 (seed "+fmt.Sprint(runSeed(seed, 2))+"): device "+deviceID(runSeed(seed, 2), 1900)+": delay before attempt 4: the program stopped answering", want)
}

// TestReplayCancelledRunsAbove checks that once a run fails, the runs
// above it that are under way stop rather than run to their end.
func TestReplayCancelledRunsAbove(t *testing.T) {
	const seed = 3
	var calls atomic.Int64
	id := deviceID(runSeed(seed, 0), 0)
	f := func(d kit.Device) kit.Policy {
		if d.ID == id {
			return kittest.PolicyFunc(func() (time.Duration, error) { return 0, errUnreachable })
		}
		return kittest.PolicyFunc(func() (time.Duration, error) { calls.Add(1); return time.Millisecond, nil })
	}
	_, err := Replay(context.Background(), f, Scenario{Clients: 5000, AcceptRate: 1e-9, MaxAttempts: 1_000_000}, Config{Runs: 8, Seed: seed, Workers: 4})
	require.True(t, errors.Is(err, errUnreachable), "Replay() error = %v; want run 0's", err)
	// Each of the other runs would ask for 5,000 devices' million delays.
	assert.Less(t, calls.Load(), int64(1e9))
}
