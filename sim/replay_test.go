package sim

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/kit"
)

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
			id2, id5, id7 := DeviceID(RunSeed(seed, 2), 1900), DeviceID(RunSeed(seed, 5), 0), DeviceID(RunSeed(seed, 7), 3)
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
				return policyFunc(func() (time.Duration, error) {
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
	assert.Equal(t, "sim: run 2 (seed "+fmt.Sprint(RunSeed(seed, 2))+"): device "+DeviceID(RunSeed(seed, 2), 1900)+": delay before attempt 4: the program stopped answering", want)
}

// TestReplayCancelledRunsAbove checks that once a run fails, the runs
// above it that are under way stop rather than run to their end.
func TestReplayCancelledRunsAbove(t *testing.T) {
	const seed = 3
	var calls atomic.Int64
	id := DeviceID(RunSeed(seed, 0), 0)
	f := func(d kit.Device) kit.Policy {
		if d.ID == id {
			return policyFunc(func() (time.Duration, error) { return 0, errUnreachable })
		}
		return policyFunc(func() (time.Duration, error) { calls.Add(1); return time.Millisecond, nil })
	}
	_, err := Replay(context.Background(), f, Scenario{Clients: 5000, AcceptRate: 1e-9, MaxAttempts: 1_000_000}, Config{Runs: 8, Seed: seed, Workers: 4})
	require.True(t, errors.Is(err, errUnreachable), "Replay() error = %v; want run 0's", err)
	// Each of the other runs would ask for 5,000 devices' million delays.
	assert.Less(t, calls.Load(), int64(1e9))
}
