package sim

import (
	"context"
	"errors"
	"math"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/testdata/kittest"
)

// badAt returns a factory whose device number dev answers its n-th call of
// Next with bad(n), and whose other devices wait a second each time.
func badAt(seed uint64, dev, n int, bad func() (time.Duration, error)) kit.Factory {
	id := deviceID(seed, dev)
	return func(d kit.Device) kit.Policy {
		calls := 0
		return kittest.PolicyFunc(func() (time.Duration, error) {
			calls++
			if d.ID == id && calls == n {
				return bad()
			}
			return time.Second, nil
		})
	}
}

var errUnreachable = errors.New("the program stopped answering")

// TestHostilePolicies replays policies that panic, return bad delays or
// fail, in every kind, and checks that the replay returns a *DeviceError
// naming the run, the device and the attempt, word for word, instead of
// crashing.
func TestHostilePolicies(t *testing.T) {
	const seed = 5
	id := deviceID(seed, 17)
	for _, c := range []struct {
		name   string
		f      kit.Factory
		cause  StopCause
		defect bool
		want   string
	}{
		{"panic", badAt(seed, 17, 3, func() (time.Duration, error) { panic("boom") }), StopPanic, true,
			"sim: run 0 (seed 5): device " + id + ": delay before attempt 4: the policy panicked: boom"},
		{"negative delay", badAt(seed, 17, 2, func() (time.Duration, error) { return -time.Second, nil }), StopBadDelay, true,
			"sim: run 0 (seed 5): device " + id + ": delay before attempt 3: delay -1s is negative"},
		{"NaN delay", badAt(seed, 17, 1, func() (time.Duration, error) { return 0, &kit.DelayError{Seconds: math.NaN()} }), StopBadDelay, true,
			"sim: run 0 (seed 5): device " + id + ": delay before attempt 2: delay NaN s is not a duration"},
		{"source error", badAt(seed, 17, 2, func() (time.Duration, error) { return 0, errUnreachable }), StopSourceError, false,
			"sim: run 0 (seed 5): device " + id + ": delay before attempt 3: the program stopped answering"},
		{"factory panic", func(d kit.Device) kit.Policy {
			if d.ID == id {
				panic("no policy for you")
			}
			return kit.FromFunc(func(int) time.Duration { return time.Second })
		}, StopPanic, true, "sim: run 0 (seed 5): device " + id + ": making its policy: the factory panicked: no policy for you"},
		{"nil policy", func(d kit.Device) kit.Policy {
			if d.ID == id {
				return nil
			}
			return kit.FromFunc(func(int) time.Duration { return time.Second })
		}, StopSourceError, false, "sim: run 0 (seed 5): device " + id + ": making its policy: the factory returned a nil policy"},
	} {
		for _, kind := range fleetKinds {
			t.Run(c.name+"/"+string(kind), func(t *testing.T) {
				s := Scenario{Kind: kind, Clients: 40, AcceptRate: 1, Period: periodOf(kind)}
				if kind == PeriodicAligned || kind == Periodic {
					// A rejected firing retries: make every firing
					// rejected so that device 17 reaches its n-th delay.
					s.AcceptRate = 1e-9
				}
				_, err := Replay(context.Background(), c.f, s, Config{Runs: 3, Seed: seed, Workers: 1})
				var de *DeviceError
				require.ErrorAs(t, err, &de, "Replay()")
				assert.EqualError(t, err, c.want, "Replay()")
				assert.Equal(t, c.cause, de.Cause, "the cause")
				assert.Equal(t, c.defect, de.PolicyDefect(), "PolicyDefect()")
				if c.cause == StopSourceError && c.name == "source error" {
					assert.ErrorIs(t, err, errUnreachable, "the source's error")
				}
			})
		}
	}
}

// TestReplayCancel cancels a replay from inside a policy, after 5,000
// delays of a 200,000-delay run, and checks that it stops promptly with an
// error that says where.
func TestReplayCancel(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	var calls atomic.Int64
	stop := errors.New("interrupted")
	f := func(kit.Device) kit.Policy {
		return kit.FromFunc(func(int) time.Duration {
			if calls.Add(1) == 5000 {
				cancel(stop)
			}
			return time.Duration(calls.Load()%7+1) * 100 * time.Millisecond
		})
	}
	s := Scenario{Clients: 20_000, AcceptRate: 50}
	_, err := Replay(ctx, f, s, Config{Runs: 1})
	require.ErrorIs(t, err, stop, "Replay() wraps the cancellation's cause")
	assert.Regexp(t, `^sim: run 0 \(seed 0\) stopped at simulated second `, err.Error(), "Replay() says where it stopped")
	assert.LessOrEqual(t, calls.Load(), int64(200_000), "the delays the policies were asked; want the replay stopped soon after 5,000")

	done, cancelDone := context.WithCancel(context.Background())
	cancelDone()
	_, err = Replay(done, kit.Spec{Strategy: kit.Full}.Factory(), Scenario{}, Config{})
	assert.ErrorIs(t, err, context.Canceled, "Replay(a done context)")
}

// TestHungPolicy replays a policy that never returns for one device, and a
// factory that never returns for one device, and stops the replay once
// that call has begun: Replay must return with a *DeviceError naming the
// device and the attempt, word for word, however slow the machine.
func TestHungPolicy(t *testing.T) {
	defer func(g time.Duration) { stuckGrace = g }(stuckGrace)
	stuckGrace = 100 * time.Millisecond
	const seed = 3
	id := deviceID(seed, 17)
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	for _, c := range []struct {
		name string
		f    func(entered chan<- struct{}) kit.Factory
		want string
	}{
		{"policy", func(entered chan<- struct{}) kit.Factory {
			return badAt(seed, 17, 3, func() (time.Duration, error) { close(entered); <-release; return time.Second, nil })
		}, "sim: run 0 (seed 3): device " + id + ": delay before attempt 4: did not return within 100ms of the replay being stopped (context canceled)"},
		{"factory", func(entered chan<- struct{}) kit.Factory {
			return func(d kit.Device) kit.Policy {
				if d.ID == id {
					close(entered)
					<-release
				}
				return kit.FromFunc(func(int) time.Duration { return time.Second })
			}
		}, "sim: run 0 (seed 3): device " + id + ": making its policy: did not return within 100ms of the replay being stopped (context canceled)"},
	} {
		for _, kind := range []Kind{Outage, Storm} {
			t.Run(c.name+"/"+string(kind), func(t *testing.T) {
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				entered := make(chan struct{})
				go func() { <-entered; cancel() }()
				_, err := Replay(ctx, c.f(entered), Scenario{Kind: kind, Clients: 40, AcceptRate: 1}, Config{Runs: 1, Seed: seed})
				var de *DeviceError
				require.ErrorAs(t, err, &de, "Replay()")
				require.Equal(t, StopHung, de.Cause, "the cause of %v", err)
				require.True(t, de.PolicyDefect(), "PolicyDefect() of %v", err)
				assert.EqualError(t, err, c.want, "Replay()")
			})
		}
	}
}

// TestCallTimeout replays the policy and the factory of TestHungPolicy with
// a context that is never done: a watch of CallTimeout must name the call
// that does not return, with its device and attempt, word for word. The
// other devices' calls take microseconds, but a loaded machine can hold a
// thread off its core for a tenth of a second in one of them: the timeout
// is a second, ten times that, and the four replays wait for it side by
// side.
func TestCallTimeout(t *testing.T) {
	const seed = 3
	id := deviceID(seed, 17)
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	for _, c := range []struct {
		name string
		f    kit.Factory
		want string
	}{
		{"policy", badAt(seed, 17, 3, func() (time.Duration, error) { <-release; return time.Second, nil }),
			"sim: run 0 (seed 3): device " + id + ": delay before attempt 4: did not return within 1s"},
		{"factory", func(d kit.Device) kit.Policy {
			if d.ID == id {
				<-release
			}
			return kit.FromFunc(func(int) time.Duration { return time.Second })
		}, "sim: run 0 (seed 3): device " + id + ": making its policy: did not return within 1s"},
	} {
		for _, kind := range []Kind{Outage, Storm} {
			t.Run(c.name+"/"+string(kind), func(t *testing.T) {
				t.Parallel()
				s := Scenario{Kind: kind, Clients: 40, AcceptRate: 1}
				_, err := Replay(context.Background(), c.f, s, Config{Runs: 1, Seed: seed, CallTimeout: time.Second})
				var de *DeviceError
				require.ErrorAs(t, err, &de, "Replay()")
				require.Equal(t, StopHung, de.Cause, "the cause of %v", err)
				assert.EqualError(t, err, c.want, "Replay()")
			})
		}
	}
}

// TestGoexitInPolicy replays a policy whose Next ends its goroutine, as a
// t.FailNow inside a policy would: Replay must return the policy's error
// naming the device and the attempt, not a replay stopped without a cause.
func TestGoexitInPolicy(t *testing.T) {
	const seed = 3
	id := deviceID(seed, 17)
	for _, kind := range []Kind{Outage, Storm} {
		t.Run(string(kind), func(t *testing.T) {
			f := badAt(seed, 17, 3, func() (time.Duration, error) { runtime.Goexit(); return 0, nil })
			_, err := Replay(context.Background(), f, Scenario{Kind: kind, Clients: 40, AcceptRate: 1}, Config{Runs: 3, Seed: seed})
			var de *DeviceError
			require.ErrorAs(t, err, &de, "Replay()")
			assert.True(t, de.PolicyDefect(), "PolicyDefect() of %v", err)
			assert.EqualError(t, err, "sim: run 0 (seed 3): device "+id+": delay before attempt 4: "+errGoexit.Error(), "Replay()")
		})
	}
}

// periodOf returns the timer period the tests give a scenario of kind:
// 10s for the periodic kinds, none for the others, which fire no timers.
func periodOf(kind Kind) time.Duration {
	if kind.Periodic() {
		return 10 * time.Second
	}
	return 0
}
