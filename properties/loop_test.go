package properties_test

import (
	"context"
	"hash/fnv"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/loop"
	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/properties"
	"github.com/jitterkit/jitterkit/testdata/kittest"
)

// The loop adapter's policies through the suite: a shipped retry loop that
// sleeps full jitter, seeded from the clock or from the device id.

// fullJitterLoop is a device's retry loop: full jitter over a window of
// 100ms doubling to a cap of 10s, drawn from rng, slept with time.Sleep.
func fullJitterLoop(rng *rand.Rand) loop.Loop {
	return func(ctx context.Context, op func(context.Context) error) error {
		for n := 0; ; n++ {
			if op(ctx) == nil {
				return nil
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
			w := 10 * time.Second
			if n < 7 {
				w = min(w, 100*time.Millisecond<<n)
			}
			time.Sleep(time.Duration(rng.Int64N(int64(w))))
		}
	}
}

// clockSeededLoop seeds the device's generator from the clock when the
// device starts, the mistake frozen-clock exists to catch.
func clockSeededLoop(kit.Device) loop.Loop {
	return fullJitterLoop(rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 0)))
}

// idSeededLoop seeds the device's generator from a hash of its id.
func idSeededLoop(d kit.Device) loop.Loop {
	h := fnv.New64a()
	h.Write([]byte(d.ID))
	s := h.Sum64()
	return fullJitterLoop(rand.New(rand.NewPCG(s, s^0x9e3779b97f4a7c15)))
}

// claim is the strategy the loops follow, for conformance.
var claim = kit.Spec{Strategy: kit.Full, Base: 100 * time.Millisecond, Cap: 10 * time.Second}

func loopConfig() properties.Config {
	c := claim
	return properties.Config{Cap: claim.Cap, Claim: &c}
}

func result(t *testing.T, out properties.Outcome, name string) properties.Result {
	t.Helper()
	for _, r := range out.Results {
		if r.Name == name {
			return r
		}
	}
	require.Failf(t, "no such result", "no %s in the outcome", name)
	return properties.Result{}
}

func TestLoopSeededFromTheClockFailsFrozenClock(t *testing.T) {
	f := loop.Factory(t, clockSeededLoop, loop.Config{})
	runs := map[string]func() (properties.Outcome, error){
		"RunFrozen": func() (properties.Outcome, error) { return properties.RunFrozen(t, f, loopConfig()) },
		"Run":       func() (properties.Outcome, error) { return properties.Run(t.Context(), f, loopConfig()) },
	}
	for name, run := range runs {
		out, err := run()
		require.NoError(t, err, name)
		require.NoError(t, out.Err, name)
		r := result(t, out, properties.NameFrozenClock)
		assert.Equal(t, verdict.Fail, r.Status, "%s: frozen-clock: %s", name, r.Detail)
		assert.Contains(t, r.Detail, "each under a fake clock of its own started at its boot instant (kit.FakeClocked)", name)
		assert.Contains(t, r.Detail, "booted a second apart, the same devices spread", name)
		assert.Equal(t, verdict.Fail, result(t, out, properties.NameSpread).Status, "%s: spread", name)
		assert.Equal(t, verdict.Fail, out.Status(), name)
	}
}

func TestLoopSeededFromTheIDPassesEveryCheck(t *testing.T) {
	f := loop.Factory(t, idSeededLoop, loop.Config{})
	out, err := properties.RunFrozen(t, f, loopConfig())
	require.NoError(t, err)
	require.NoError(t, out.Err)
	for _, r := range out.Results {
		assert.Equal(t, verdict.Pass, r.Status, "%s: %s", r.Name, r.Detail)
	}
	assert.Contains(t, result(t, out, properties.NameFrozenClock).Detail, "(kit.FakeClocked)")
}

// Check, the go test entry point, passes the id-seeded loop as a user
// calls it.
func TestCheckPassesALoopSeededFromTheID(t *testing.T) {
	properties.Check(t, loop.Factory(t, idSeededLoop, loop.Config{}), loopConfig())
}

func TestCheckFailsALoopSeededFromTheClock(t *testing.T) {
	if kittest.InChild(t) {
		properties.Check(t, loop.Factory(t, clockSeededLoop, loop.Config{}), loopConfig())
		return
	}
	out, failed := kittest.RunChild(t)
	require.True(t, failed, "Check passed a loop seeded from the clock:\n%s", out)
	assert.Contains(t, out, "--- FAIL: TestCheckFailsALoopSeededFromTheClock/frozen-clock")
	assert.Contains(t, out, "each under a fake clock of its own started at its boot instant (kit.FakeClocked)")
	assert.Contains(t, out, "--- FAIL: TestCheckFailsALoopSeededFromTheClock/spread")
	assert.Contains(t, out, "--- PASS: TestCheckFailsALoopSeededFromTheClock/bounds")
}

// Inside a test's own bubble the adapter cannot run: every device's policy
// says so, and no check passes on evidence it did not gather.
func TestLoopInsideTheCallersBubble(t *testing.T) {
	f := loop.Factory(t, idSeededLoop, loop.Config{})
	synctest.Test(t, func(t *testing.T) {
		out, err := properties.RunFrozen(t, f, loopConfig())
		require.NoError(t, err)
		require.Error(t, out.Err)
		assert.Contains(t, out.Err.Error(), `device "`)
		assert.Contains(t, out.Err.Error(), "loop: cannot run inside a testing/synctest bubble")
		for _, r := range out.Results {
			if r.Name == properties.NameBounds {
				// bounds holds the delays read to their bounds and
				// finds none to fault; the source failure in
				// Outcome.Err is what fails Check.
				continue
			}
			assert.NotEqual(t, verdict.Pass, r.Status, "%s passed on no evidence: %s", r.Name, r.Detail)
		}
		assert.Equal(t, verdict.Inconclusive, out.Status())
	})
}

func TestCheckInsideTheCallersBubble(t *testing.T) {
	if kittest.InChild(t) {
		f := loop.Factory(t, idSeededLoop, loop.Config{})
		synctest.Test(t, func(t *testing.T) {
			properties.Check(t, f, loopConfig())
		})
		return
	}
	out, failed := kittest.RunChild(t)
	require.True(t, failed, "Check passed inside a bubble:\n%s", out)
	assert.Contains(t, out, "loop: cannot run inside a testing/synctest bubble: each device's loop runs in a bubble of its own, and bubbles do not nest")
}

func TestLoopBootedBeforeItsClockCanStart(t *testing.T) {
	f := loop.Factory(t, idSeededLoop, loop.Config{})
	cfg := loopConfig()
	cfg.Boot = time.Date(1999, 12, 31, 23, 0, 0, 0, time.UTC)
	out, err := properties.RunFrozen(t, f, cfg)
	require.NoError(t, err)
	r := result(t, out, properties.NameFrozenClock)
	assert.Equal(t, verdict.Inconclusive, r.Status)
	assert.Equal(t, "the policy's own fake clock (kit.FakeClocked) started at 2000-01-01T00:00:00Z, not at the boot instant 1999-12-31T23:00:00Z, so devices booted apart would not start apart: set Config.Boot to 2000-01-01T00:00:00Z or later", r.Detail)
	assert.False(t, strings.Contains(r.Detail, "\n"))
}
