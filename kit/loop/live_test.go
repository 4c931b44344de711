package loop_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/loop"
)

// reconnecting is a device's reconnect loop as a user writes it: it backs
// off 1s, 2s, 4s, then 8s after each failed connect, and after a connect
// that succeeds it resets its attempt counter and, once the session is
// over, connects again at once.
func reconnecting(ctx context.Context, op func(context.Context) error) error {
	attempt := 0
	for ctx.Err() == nil {
		if err := op(ctx); err == nil {
			attempt = 0
			continue
		}
		select {
		case <-ctx.Done():
		case <-time.After(min(time.Second<<attempt, 8*time.Second)):
		}
		attempt++
	}
	return ctx.Err()
}

// drive drives p as a replay does under the kit.Observer contract: it
// observes each outcome and, after each failure, reads the next delay. It
// returns the delays, and the error Next returned that ended them.
func drive(t *testing.T, p kit.Policy, outcomes []kit.Outcome) ([]time.Duration, error) {
	t.Helper()
	o, ok := p.(kit.Observer)
	require.True(t, ok, "the policy is a %T; want a kit.Observer", p)
	var out []time.Duration
	for _, oc := range outcomes {
		o.Observe(oc)
		if oc == kit.Success {
			continue
		}
		d, err := o.Next()
		if err != nil {
			return out, err
		}
		out = append(out, d)
	}
	return out, nil
}

func TestALiveLoopLearnsEachOutcome(t *testing.T) {
	const (
		rej     = kit.Rejection
		timeout = kit.Timeout
		drop    = kit.Drop
		ok      = kit.Success
	)
	s := time.Second
	tests := []struct {
		name     string
		outcomes []kit.Outcome
		want     []time.Duration
	}{
		{"every attempt fails", []kit.Outcome{rej, timeout, drop, rej, rej, timeout}, []time.Duration{s, 2 * s, 4 * s, 8 * s, 8 * s, 8 * s}},
		{"a success resets the backoff", []kit.Outcome{rej, timeout, rej, ok, rej, drop}, []time.Duration{s, 2 * s, 4 * s, s, 2 * s}},
		{"the first attempt succeeds", []kit.Outcome{ok, rej, rej}, []time.Duration{s, 2 * s}},
		{"successes in a row", []kit.Outcome{rej, rej, ok, ok, ok, timeout, rej}, []time.Duration{s, 2 * s, s, 2 * s}},
	}
	f := loop.Factory(t, each(reconnecting), loop.Config{})
	for _, tt := range tests {
		got, err := drive(t, f(kit.Device{ID: "dev-1"}), tt.outcomes)
		require.NoError(t, err, "%s: %v", tt.name, tt.outcomes)
		assert.Equal(t, tt.want, got, "%s: delays observing %v", tt.name, tt.outcomes)
	}
}

func TestALiveLoopSeesTheOutcomesAsErrors(t *testing.T) {
	var mu sync.Mutex
	var seen []error
	recording := func(ctx context.Context, op func(context.Context) error) error {
		for {
			err := op(ctx)
			mu.Lock()
			seen = append(seen, err)
			mu.Unlock()
			if ctx.Err() != nil {
				return err
			}
			time.Sleep(time.Second)
		}
	}
	f := loop.Factory(t, each(recording), loop.Config{MaxDelays: 10})
	p := f(kit.Device{ID: "dev-1"}).(kit.Observer)
	mu.Lock()
	seen = nil // the batch observation's
	mu.Unlock()
	for _, o := range []kit.Outcome{kit.Timeout, kit.Rejection, kit.Drop, kit.Success} {
		p.Observe(o)
	}
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, seen, 4, "op's errors, one for each outcome observed")
	for i, want := range []error{loop.ErrTimeout, loop.ErrRejected, loop.ErrDropped} {
		assert.ErrorIs(t, seen[i], want, "op's error %d", i)
	}
	assert.NoError(t, seen[3], "op's error for a success")
	assert.NotErrorIs(t, seen[0], context.DeadlineExceeded, "a timeout leaves the loop's context alone")
}

func TestALiveLoopGivesTheBatchDelays(t *testing.T) {
	const limit = 5
	sleeps := each(sleepy(100*ms, 250*ms, 3*time.Second))
	f := loop.Factory(t, sleeps, loop.Config{MaxDelays: limit})
	batch := f(kit.Device{ID: "dev-1"})
	want, err := kit.Delays(batch, limit)
	require.NoError(t, err)
	_, wantEnd := batch.Next()
	require.Error(t, wantEnd, "the batch observation past the limit")

	outcomes := make([]kit.Outcome, limit+1)
	for i := range outcomes {
		outcomes[i] = kit.Timeout
	}
	got, err := drive(t, f(kit.Device{ID: "dev-1"}), outcomes)
	assert.Equal(t, want, got, "the delays of a live run whose every attempt fails")
	assert.EqualError(t, err, wantEnd.Error(), "the end of a live run past the limit")

	// A policy that goes live after delays were read from the batch takes
	// up where they left off.
	p := f(kit.Device{ID: "dev-1"})
	first, err := kit.Delays(p, 2)
	require.NoError(t, err)
	rest, err := drive(t, p, outcomes[:3])
	require.NoError(t, err)
	assert.Equal(t, want, append(first, rest...), "two delays read, then three observed")

	// A Next without an Observe before it counts the attempt as failed.
	p = f(kit.Device{ID: "dev-1"})
	mixed, err := drive(t, p, outcomes[:1])
	require.NoError(t, err)
	more, err := kit.Delays(p, limit-1)
	require.NoError(t, err)
	assert.Equal(t, want, append(mixed, more...), "one delay observed, then four read")
}

// The observation rejects every call of op, so a reader that reports a
// rejection before each delay, as the property checks do, reads the
// delays the observation recorded, without a live run; the first other
// outcome starts one, which takes up where the rejections left off.
func TestRejectionsAloneReadTheObservation(t *testing.T) {
	var runs atomic.Int64
	var mu sync.Mutex
	var seen []error
	recording := func(ctx context.Context, op func(context.Context) error) error {
		for i := 0; ; i++ {
			err := op(ctx)
			mu.Lock()
			seen = append(seen, err)
			mu.Unlock()
			if ctx.Err() != nil || err == nil {
				return err
			}
			time.Sleep(time.Duration(i+1) * time.Second)
		}
	}
	f := loop.Factory(t, func(kit.Device) loop.Loop { runs.Add(1); return recording }, loop.Config{MaxDelays: 6})
	p := f(kit.Device{ID: "dev-1"})
	got, err := drive(t, p, []kit.Outcome{kit.Rejection, kit.Rejection, kit.Rejection})
	require.NoError(t, err)
	assert.Equal(t, []time.Duration{time.Second, 2 * time.Second, 3 * time.Second}, got)
	assert.Equal(t, int64(1), runs.Load(), "the loop ran once, when its policy was made")
	mu.Lock()
	for i, err := range seen[:6] {
		assert.ErrorIs(t, err, loop.ErrRejected, "the observation's call %d of op", i+1)
	}
	mu.Unlock()

	got, err = drive(t, p, []kit.Outcome{kit.Timeout, kit.Rejection})
	require.NoError(t, err)
	assert.Equal(t, []time.Duration{4 * time.Second, 5 * time.Second}, got, "the live run goes on from the fourth call")
	assert.Equal(t, int64(2), runs.Load(), "a timeout ran the loop again, live")
}

func TestALiveLoopThatReturnsStops(t *testing.T) {
	f := loop.Factory(t, each(polite(10, time.Second)), loop.Config{})
	p := f(kit.Device{ID: "dev-1"})
	got, err := drive(t, p, []kit.Outcome{kit.Rejection, kit.Rejection, kit.Success, kit.Rejection})
	assert.Equal(t, []time.Duration{time.Second, time.Second}, got)
	assert.ErrorIs(t, err, kit.ErrStop, "a loop that returned after a success, asked after a later failure")
}

func TestTheEndOfTheTestEndsALiveLoop(t *testing.T) {
	var ended atomic.Value // what the loop returned
	watched := func(ctx context.Context, op func(context.Context) error) error {
		err := reconnecting(ctx, op)
		ended.Store(err)
		return err
	}
	t.Run("replay", func(t *testing.T) {
		f := loop.Factory(t, each(watched), loop.Config{})
		p := f(kit.Device{ID: "dev-1"})
		ended.Store(errors.New("not yet"))
		got, err := drive(t, p, []kit.Outcome{kit.Rejection, kit.Timeout})
		require.NoError(t, err)
		assert.Equal(t, []time.Duration{time.Second, 2 * time.Second}, got)
		// The loop now waits in op for the third attempt's outcome.
	})
	assert.ErrorIs(t, ended.Load().(error), context.Canceled, "what the loop left waiting in op returned once its test ended")
}

func TestALiveLoopThatHangs(t *testing.T) {
	never := make(chan struct{}) // never closed: see stuck
	hangs := func(ctx context.Context, op func(context.Context) error) error {
		for op(ctx) != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			time.Sleep(time.Second)
		}
		<-never
		return nil
	}
	f := loop.Factory(t, each(hangs), loop.Config{Timeout: time.Second})
	got, err := drive(t, f(kit.Device{ID: "dev-1"}), []kit.Outcome{kit.Rejection, kit.Success, kit.Rejection})
	assert.Equal(t, []time.Duration{time.Second}, got)
	assert.EqualError(t, err, "loop: hung: did not finish within 1s of real time (loop.Config.Timeout), after 2 calls of op: it spins without waiting, or waits on something outside its bubble (real I/O, a goroutine, channel or lock made outside it); its goroutines are left behind")
}

func TestALiveLoopThatHoldsItsSessionForEver(t *testing.T) {
	holds := func(ctx context.Context, op func(context.Context) error) error {
		for op(ctx) != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			time.Sleep(time.Second)
		}
		<-ctx.Done() // the session, until the loop is stopped
		return nil
	}
	f := loop.Factory(t, each(holds), loop.Config{})
	got, err := drive(t, f(kit.Device{ID: "dev-1"}), []kit.Outcome{kit.Rejection, kit.Success, kit.Rejection})
	assert.Equal(t, []time.Duration{time.Second}, got)
	assert.EqualError(t, err, "loop: blocked for ever after 2 calls of op: every goroutine of its bubble waits on something only the bubble could deliver, and no timer is set (deadlock: all goroutines in bubble are blocked)")
}

// TestALiveLoopThatPanicsAfterASuccess runs itself again with
// LOOP_CASE=panic-after-success: a loop that panics once its op has
// succeeded, after which a replay reads no delay, fails its test with the
// panic.
func TestALiveLoopThatPanicsAfterASuccess(t *testing.T) {
	if os.Getenv("LOOP_CASE") == "panic-after-success" {
		panics := func(ctx context.Context, op func(context.Context) error) error {
			for op(ctx) != nil {
				time.Sleep(time.Second)
			}
			panic("the session handler is nil")
		}
		f := loop.Factory(t, each(panics), loop.Config{})
		_, _ = drive(t, f(kit.Device{ID: "dev-1"}), []kit.Outcome{kit.Rejection, kit.Success})
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestALiveLoopThatPanicsAfterASuccess$", "-test.v")
	cmd.Env = append(os.Environ(), "LOOP_CASE=panic-after-success")
	out, err := cmd.CombinedOutput()
	require.Error(t, err, "the test of the loop fails: %s", out)
	assert.Contains(t, string(out), `loop: device "dev-1": loop: panicked after 2 calls of op: the session handler is nil, once its op had succeeded`)
}
