package sim

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/kit"
)

// observedScenarios are a scenario of every kind and server whose devices
// both fail and are served, each small enough to replay in milliseconds.
func observedScenarios() map[string]Scenario {
	out := map[string]Scenario{}
	for _, kind := range fleetKinds {
		out[string(kind)] = Scenario{Kind: kind, Clients: 40, AcceptRate: 5, Period: periodOf(kind), Horizon: 2 * time.Minute, MaxAttempts: 8}
	}
	out["outage/token-bucket"] = Scenario{Server: TokenBucket, Clients: 40, AcceptRate: 5, Burst: 3, Horizon: 2 * time.Minute}
	out["outage/retry-after"] = Scenario{Server: RetryAfter, RetryAfter: 3 * time.Second, Clients: 40, AcceptRate: 5, Horizon: 2 * time.Minute}
	out["long-outage"] = Scenario{Kind: LongOutage, Clients: 40, AcceptRate: 5, Down: 30 * time.Second, Horizon: 2 * time.Minute}
	out[string(Overload)] = Scenario{Kind: Overload}
	out[string(Reconnect)] = Scenario{Kind: Reconnect}
	out[string(Contention)] = Scenario{Kind: Contention}
	return out
}

// A contract is a kit.Observer that checks the calls a replay makes of
// it against the kit.Observer contract: before each Next, the last
// Observe reported a failure. Its delays are 100ms·2ⁿ, capped at 3s.
type contract struct {
	mu         *sync.Mutex
	violations *[]string
	counts     map[kit.Outcome]int
	id         string
	last       kit.Outcome // the last outcome observed, 0 before any
	nexts      int
}

func (p *contract) Next() (time.Duration, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.last == 0 || p.last == kit.Success {
		*p.violations = append(*p.violations, fmt.Sprintf("%s: Next %d after %v", p.id, p.nexts+1, p.last))
	}
	p.last = -1 // a second Next needs a failure observed again
	p.nexts++
	return min(100*time.Millisecond<<min(p.nexts-1, 10), 3*time.Second), nil
}

func (p *contract) Observe(o kit.Outcome) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.counts[o]++
	p.last = o
}

// TestEveryReplayTellsTheOutcomes replays an Observer in every kind and
// server: every delay it is asked for follows a failure it was told of,
// and it is told of successes and failures both (a storm serves nobody).
func TestEveryReplayTellsTheOutcomes(t *testing.T) {
	for name, s := range observedScenarios() {
		t.Run(name, func(t *testing.T) {
			var mu sync.Mutex
			var violations []string
			counts := map[kit.Outcome]int{}
			f := func(d kit.Device) kit.Policy {
				return &contract{mu: &mu, violations: &violations, counts: counts, id: d.ID}
			}
			res, err := Replay(context.Background(), f, s, Config{Runs: 1, Seed: 3, Workers: 1})
			require.NoError(t, err)
			assert.Empty(t, violations, "calls against the kit.Observer contract")
			failures := counts[kit.Rejection] + counts[kit.Timeout] + counts[kit.Drop]
			assert.Positive(t, failures, "failures observed: %v", counts)
			if s.Kind != Storm {
				assert.Positive(t, counts[kit.Success], "successes observed: %v", counts)
			}
			if s.Kind == "" || s.Kind == Outage || s.Kind == LongOutage || s.Kind.Periodic() {
				assert.Equal(t, res.Runs[0].Attempts, failures+counts[kit.Success], "every attempt observed once: %v", counts)
			}
		})
	}
}

// A resetting policy starts over on each success it is told of: in a
// periodic kind, each firing's retries start from the first delay, and
// the replay differs from the same policy never told.
func TestPeriodicReplaysAReset(t *testing.T) {
	spec := kit.Spec{Strategy: kit.None, Base: time.Second, Cap: 8 * time.Second, Reset: kit.ResetOnSuccess}
	never := spec
	never.Reset = kit.ResetNever
	s := Scenario{Kind: Periodic, Clients: 200, AcceptRate: 10, Period: 10 * time.Second, Horizon: 10 * time.Minute}
	cfg := Config{Runs: 1, Seed: 1, Workers: 1}
	reset, err := Replay(context.Background(), general(spec.Factory()), s, cfg)
	require.NoError(t, err)
	fast, err := Replay(context.Background(), spec.Factory(), s, cfg)
	require.NoError(t, err)
	kept, err := Replay(context.Background(), general(never.Factory()), s, cfg)
	require.NoError(t, err)
	assert.Equal(t, reset.Runs, fast.Runs, "the engine's compact state resets as the policy does")
	assert.NotEqual(t, kept.Runs[0].Attempts, reset.Runs[0].Attempts, "a reset on each success changes the retries")
}

// faultyObserver is a policy whose Observe does fault at its at-th call;
// it waits a second before each retry.
type faultyObserver struct {
	n, at int
	fault func(p kit.Policy)
}

func (p *faultyObserver) Next() (time.Duration, error) { return time.Second, nil }

func (p *faultyObserver) Observe(kit.Outcome) {
	if p.n++; p.n == p.at {
		p.fault(p)
	}
}

// TestReplayNamesAnObserveThatFails replays, in every kind and server, a
// fleet whose policies' second Observe panics, never returns, or ends its
// goroutine: the replay stops with a DeviceError that names the device,
// the attempt and the call, never crashing or hanging.
func TestReplayNamesAnObserveThatFails(t *testing.T) {
	block := make(chan struct{})
	t.Cleanup(func() { close(block) })
	cases := []struct {
		name  string
		fault func(kit.Policy)
		cause StopCause
		want  string
	}{
		{"panics", func(kit.Policy) { panic("boom") }, StopPanic, `: delay before attempt \d+: .*the policy's Observe\((rejection|success|timeout|drop)\) panicked: boom$`},
		{"blocks", func(kit.Policy) { <-block }, StopHung, `: delay before attempt \d+: the policy's Observe\((rejection|success|timeout|drop)\) did not return within 1s$`},
		{"ends its goroutine", func(kit.Policy) { runtime.Goexit() }, StopPanic, `: delay before attempt \d+: the policy's Observe\((rejection|success|timeout|drop)\) ended its goroutine instead of returning \(runtime.Goexit, which t.FailNow and t.SkipNow call\)$`},
	}
	for name, s := range observedScenarios() {
		for _, c := range cases {
			t.Run(name+"/"+c.name, func(t *testing.T) {
				f := func(kit.Device) kit.Policy { return &faultyObserver{at: 2, fault: c.fault} }
				_, err := Replay(context.Background(), f, s, Config{Runs: 2, Seed: 5, Workers: 1, CallTimeout: time.Second})
				var de *DeviceError
				require.ErrorAs(t, err, &de, "Replay()")
				assert.Regexp(t, `^sim: run 0 \(seed 5\): device [^ ]+`+c.want, err.Error())
				assert.Equal(t, c.cause, de.Cause, "the cause")
				assert.True(t, de.PolicyDefect(), "PolicyDefect()")
			})
		}
	}
}

// An Observe that asks its own policy for a delay takes one the replay
// never sees: the replay goes on, with the delays left.
func TestReplayOfAnObserveThatCallsNext(t *testing.T) {
	for name, s := range observedScenarios() {
		t.Run(name, func(t *testing.T) {
			f := func(kit.Device) kit.Policy {
				return &faultyObserver{at: 1, fault: func(p kit.Policy) { p.(*faultyObserver).n = 0; p.Next() }}
			}
			_, err := Replay(context.Background(), f, s, Config{Runs: 1, Seed: 5, Workers: 1, CallTimeout: time.Minute})
			require.NoError(t, err)
		})
	}
}
