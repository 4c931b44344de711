package loop_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/loop"
	"github.com/jitterkit/jitterkit/testdata/kittest"
)

const ms = time.Millisecond

// sleepy is the loop of a device that retries for ever, sleeping the given
// delays in turn, and ignores its context.
func sleepy(delays ...time.Duration) loop.Loop {
	return func(ctx context.Context, op func(context.Context) error) error {
		for i := 0; ; i++ {
			if op(ctx) == nil {
				return nil
			}
			time.Sleep(delays[i%len(delays)])
		}
	}
}

// polite is the loop of a device that tries at most attempts times,
// waiting d between tries or until its context is cancelled.
func polite(attempts int, d time.Duration) loop.Loop {
	return func(ctx context.Context, op func(context.Context) error) error {
		var err error
		for i := range attempts {
			if i > 0 {
				select {
				case <-ctx.Done():
					return ctx.Err()
				case <-time.After(d):
				}
			}
			if err = op(ctx); err == nil {
				return nil
			}
		}
		return err
	}
}

func each(l loop.Loop) func(kit.Device) loop.Loop {
	return func(kit.Device) loop.Loop { return l }
}

func TestDelaysAreWhatTheLoopWaits(t *testing.T) {
	f := loop.Factory(t, each(sleepy(100*ms, 250*ms, 3*time.Second)), loop.Config{MaxDelays: 5})
	got, err := kit.Delays(f(kit.Device{ID: "dev-1"}), 5)
	require.NoError(t, err)
	assert.Equal(t, []time.Duration{100 * ms, 250 * ms, 3 * time.Second, 100 * ms, 250 * ms}, got)
}

func TestALoopThatGivesUpStops(t *testing.T) {
	f := loop.Factory(t, each(polite(4, time.Second)), loop.Config{})
	p := f(kit.Device{ID: "dev-1"})
	got, err := kit.Delays(p, 10)
	require.NoError(t, err, "a loop that returns on its own stops with kit.ErrStop")
	assert.Equal(t, []time.Duration{time.Second, time.Second, time.Second}, got)
	_, err = p.Next()
	assert.ErrorIs(t, err, kit.ErrStop)
}

func TestTheLimitCancelsTheLoop(t *testing.T) {
	f := loop.Factory(t, each(polite(1000, time.Second)), loop.Config{MaxDelays: 3})
	p := f(kit.Device{ID: "dev-1"})
	got, err := kit.Delays(p, 3)
	require.NoError(t, err)
	assert.Equal(t, []time.Duration{time.Second, time.Second, time.Second}, got)
	_, err = p.Next()
	assert.EqualError(t, err, "loop: reached the limit of 3 delays (loop.Config.MaxDelays) without giving up; raise MaxDelays to read more")
	assert.NotErrorIs(t, err, kit.ErrStop, "a loop stopped by the limit had not given up")
}

func TestALoopThatIgnoresItsContextIsEnded(t *testing.T) {
	var calls atomic.Int64
	counted := func(ctx context.Context, op func(context.Context) error) error {
		for {
			calls.Add(1)
			op(ctx) // the error, even the context's, makes no difference
			time.Sleep(time.Second)
		}
	}
	f := loop.Factory(t, each(counted), loop.Config{MaxDelays: 4})
	got, err := kit.Delays(f(kit.Device{ID: "dev-1"}), 10)
	assert.Len(t, got, 4)
	assert.EqualError(t, err, "loop: reached the limit of 4 delays (loop.Config.MaxDelays) without giving up; raise MaxDelays to read more; it called op again after its context was cancelled, and was ended with runtime.Goexit")
	assert.Equal(t, int64(6), calls.Load(), "op is called 5 times, and the 6th call ends the loop's goroutine")
}

func TestALoopThatNeverWaitsGivesZeros(t *testing.T) {
	busy := func(ctx context.Context, op func(context.Context) error) error {
		for op(ctx) != nil {
		}
		return nil
	}
	f := loop.Factory(t, each(busy), loop.Config{MaxDelays: 3})
	got, _ := kit.Delays(f(kit.Device{ID: "dev-1"}), 3)
	assert.Equal(t, []time.Duration{0, 0, 0}, got)
}

func TestTheClockStartsAtBoot(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]time.Time{}
	record := func(d kit.Device) loop.Loop {
		mu.Lock()
		seen[d.ID] = time.Now()
		mu.Unlock()
		return polite(2, time.Second)
	}
	f := loop.Factory(t, record, loop.Config{})
	relay := time.Date(2026, 3, 1, 4, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		id         string
		boot, want time.Time
	}{
		{"at the relay", relay, relay},
		{"with a fraction", relay.Add(1007 * ms), relay.Add(1007 * ms)},
		{"zero boot", time.Time{}, time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)},
		{"before 2000", time.Date(1990, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)},
	} {
		p := f(kit.Device{ID: tt.id, Boot: tt.boot})
		c, ok := p.(kit.FakeClocked)
		require.True(t, ok, "%s: the policy is %T; want kit.FakeClocked", tt.id, p)
		assert.True(t, c.ClockStart().Equal(tt.want), "%s: ClockStart() = %v; want %v", tt.id, c.ClockStart(), tt.want)
		assert.True(t, seen[tt.id].Equal(tt.want), "%s: time.Now() when the loop was made = %v; want %v", tt.id, seen[tt.id], tt.want)
	}
}

func TestDevicesBootedTogetherShareTheClock(t *testing.T) {
	seeded := func(kit.Device) loop.Loop {
		rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 0))
		return sleepy(time.Duration(rng.Int64N(int64(time.Second))) + 1)
	}
	f := loop.Factory(t, seeded, loop.Config{MaxDelays: 1})
	relay := time.Date(2026, 3, 1, 4, 0, 0, 0, time.UTC)
	a, _ := kit.Delays(f(kit.Device{ID: "a", Boot: relay}), 1)
	b, _ := kit.Delays(f(kit.Device{ID: "b", Boot: relay}), 1)
	c, _ := kit.Delays(f(kit.Device{ID: "c", Boot: relay.Add(time.Second)}), 1)
	assert.Equal(t, a, b, "devices booted at one instant draw from one seed")
	assert.NotEqual(t, a, c, "devices booted a second apart draw from different seeds")
}

func TestADeadlockIsTheDevicesError(t *testing.T) {
	stuck := func(ctx context.Context, op func(context.Context) error) error {
		op(ctx)
		time.Sleep(time.Second)
		op(ctx)
		select {} // waits for ever on nothing
	}
	f := loop.Factory(t, each(stuck), loop.Config{})
	got, err := kit.Delays(f(kit.Device{ID: "dev-1"}), 5)
	assert.Equal(t, []time.Duration{time.Second}, got)
	assert.EqualError(t, err, "loop: blocked for ever after 2 calls of op: every goroutine of its bubble waits on something only the bubble could deliver, and no timer is set (deadlock: all goroutines in bubble are blocked)")
}

func TestAPanicIsTheDevicesError(t *testing.T) {
	boom := func(ctx context.Context, op func(context.Context) error) error {
		op(ctx)
		time.Sleep(time.Second)
		op(ctx)
		panic("boom")
	}
	f := loop.Factory(t, each(boom), loop.Config{})
	got, err := kit.Delays(f(kit.Device{ID: "dev-1"}), 5)
	assert.Equal(t, []time.Duration{time.Second}, got)
	assert.EqualError(t, err, "loop: panicked after 2 calls of op: boom")

	f = loop.Factory(t, func(kit.Device) loop.Loop { panic("no loop") }, loop.Config{})
	_, err = f(kit.Device{ID: "dev-1"}).Next()
	assert.EqualError(t, err, "loop: panicked after 0 calls of op: no loop", "a panic while the loop is made")
}

func TestALoopThatNeverCallsOp(t *testing.T) {
	lazy := func(context.Context, func(context.Context) error) error { return errors.New("misconfigured") }
	f := loop.Factory(t, each(lazy), loop.Config{})
	_, err := f(kit.Device{ID: "dev-1"}).Next()
	assert.EqualError(t, err, "loop: returned without calling op: misconfigured")

	f = loop.Factory(t, func(kit.Device) loop.Loop { return nil }, loop.Config{})
	_, err = f(kit.Device{ID: "dev-1"}).Next()
	assert.EqualError(t, err, "loop: the loops function returned a nil Loop")
}

func TestAGoexitIsTheDevicesError(t *testing.T) {
	quits := func(ctx context.Context, op func(context.Context) error) error {
		op(ctx)
		runtime.Goexit()
		return nil
	}
	f := loop.Factory(t, each(quits), loop.Config{})
	_, err := f(kit.Device{ID: "dev-1"}).Next()
	assert.EqualError(t, err, "loop: its goroutine exited without returning after 1 calls of op (runtime.Goexit, as t.FailNow calls it)")
}

// stuck returns a loop that calls op twice and then waits on never, a
// channel made outside its bubble: a loop the fake clock cannot move. The
// test never closes never: a hung loop's bubble runs on the test's T, and
// one that ended after the test would end a subtest of a test that is over,
// which the race detector reports.
func stuck(never <-chan struct{}) loop.Loop {
	return func(ctx context.Context, op func(context.Context) error) error {
		op(ctx)
		time.Sleep(time.Second)
		op(ctx)
		<-never
		return nil
	}
}

func TestAHangIsReportedAndLeftBehind(t *testing.T) {
	never := make(chan struct{})
	var mu sync.Mutex
	var made []string // the devices whose loops were made
	loops := func(d kit.Device) loop.Loop {
		mu.Lock()
		made = append(made, d.ID)
		mu.Unlock()
		return stuck(never)
	}
	// A second of real time for what takes microseconds: the hangs are
	// found by the timeout however loaded the machine. The three devices
	// hang side by side, so the test waits one timeout, not three.
	f := loop.Factory(t, loops, loop.Config{Timeout: time.Second})
	ids := []string{"dev-1", "dev-2", "dev-3"}
	var wg sync.WaitGroup
	for _, id := range ids {
		wg.Go(func() {
			got, err := kit.Delays(f(kit.Device{ID: id}), 5)
			assert.Equal(t, []time.Duration{time.Second}, got, "%s: the delays before the hang", id)
			assert.EqualError(t, err, "loop: hung: did not finish within 1s of real time (loop.Config.Timeout), after 2 calls of op: it spins without waiting, or waits on something outside its bubble (real I/O, a goroutine, channel or lock made outside it); its goroutines are left behind", id)
		})
	}
	wg.Wait()
	// Three hangs: the factory observes no more, and does not even make
	// the next device's loop.
	_, err := f(kit.Device{ID: "dev-4"}).Next()
	require.Error(t, err)
	assert.Regexp(t, `^loop: not observed: the loops of 3 devices hung before this one \("dev-[123]", "dev-[123]", "dev-[123]"\); a loop that hangs three times hangs again$`, err.Error())
	mu.Lock()
	defer mu.Unlock()
	assert.ElementsMatch(t, ids, made, "the devices whose loops were made: not dev-4, after three hangs")
}

func TestDevicesAreObservedConcurrently(t *testing.T) {
	f := loop.Factory(t, func(d kit.Device) loop.Loop {
		n := len(d.ID)
		return polite(5, time.Duration(n)*time.Second)
	}, loop.Config{})
	var wg sync.WaitGroup
	got := make([][]time.Duration, 16)
	for i := range got {
		wg.Go(func() {
			got[i], _ = kit.Delays(f(kit.Device{ID: strings.Repeat("x", i+1)}), 10)
		})
	}
	wg.Wait()
	for i, g := range got {
		d := time.Duration(i+1) * time.Second
		assert.Equal(t, []time.Duration{d, d, d, d}, g, "device %d", i)
	}
}

func TestAPolicyMadeInsideABubble(t *testing.T) {
	f := loop.Factory(t, each(polite(3, time.Second)), loop.Config{})
	synctest.Test(t, func(t *testing.T) {
		p := f(kit.Device{ID: "dev-1"})
		_, err := p.Next()
		assert.EqualError(t, err, "loop: cannot run inside a testing/synctest bubble: each device's loop runs in a bubble of its own, and bubbles do not nest; make the policies (call properties.Check) outside synctest.Test")
		_, clocked := p.(kit.FakeClocked)
		assert.False(t, clocked, "a policy whose loop never ran claims a fake clock")
	})
}

// TestFactoryInsideABubble runs itself again in a process of its own, where
// it calls Factory inside a bubble: the test must fail at once, saying why.
func TestFactoryInsideABubble(t *testing.T) {
	if kittest.InChild(t) {
		synctest.Test(t, func(t *testing.T) {
			loop.Factory(t, each(polite(3, time.Second)), loop.Config{})
			t.Log("Factory returned")
		})
		return
	}
	out, failed := kittest.RunChild(t)
	require.True(t, failed, "the test that calls Factory inside a bubble passed:\n%s", out)
	assert.Contains(t, out, "loop: Factory cannot run inside a testing/synctest bubble")
	assert.NotContains(t, out, "Factory returned")
}

func TestFactoryRefusesABadConfig(t *testing.T) {
	for name, cfg := range map[string]loop.Config{
		"negative MaxDelays": {MaxDelays: -1},
		"negative Timeout":   {Timeout: -time.Second},
	} {
		t.Run(name, func(t *testing.T) {
			if kittest.InChild(t) {
				loop.Factory(t, each(polite(3, time.Second)), cfg)
				return
			}
			out, failed := kittest.RunChild(t)
			require.True(t, failed, "%s:\n%s", name, out)
			want := map[string]string{
				"negative MaxDelays": "loop: MaxDelays -1 is negative",
				"negative Timeout":   "loop: Timeout -1s is negative",
			}[name]
			assert.Contains(t, out, want)
		})
	}
}

// TestTheTestWaitsForTheBubbles runs a loop that returns leaving a
// goroutine on a read from a pipe, which the bubble waits for and which is
// not durably blocked: it ends when the pipe's other end, outside the
// bubble, is closed as the test ends. The test that made the policy
// must not end before the bubble has: testing/synctest writes to its T
// when the bubble returns.
func TestTheTestWaitsForTheBubbles(t *testing.T) {
	var over atomic.Bool
	t.Run("fleet", func(t *testing.T) {
		r, w, err := os.Pipe()
		require.NoError(t, err)
		leaves := func(ctx context.Context, op func(context.Context) error) error {
			go func() {
				_, _ = r.Read(make([]byte, 1))
				r.Close()
				over.Store(true)
			}()
			return op(ctx)
		}
		f := loop.Factory(t, each(leaves), loop.Config{})
		t.Cleanup(func() { w.Close() }) // before the factory's own cleanups
		_, err = kit.Delays(f(kit.Device{ID: "dev-1"}), 1)
		require.NoError(t, err)
		assert.False(t, over.Load(), "the leftover goroutine ended before the test")
	})
	assert.True(t, over.Load(), "the test ended before the bubble of its device")
}
