// Package fleets draws random configurations of a replay, the same on
// every machine (a policy, a scenario and a replay's configuration), and
// checks the digest of what the kit makes of them: for the tests that
// compare what it returns before and after a change that must keep it.
package fleets

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/jitterkit/jitterkit/internal/prose"
	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/sim"
	"github.com/jitterkit/jitterkit/testdata/kittest"
)

// A Fleet is one random configuration of a replay.
type Fleet struct {
	// Spec is the policy as drawn, and Policy the spec it parses to.
	Spec   string
	Policy kit.Spec
	// Scenario and Config are the replay's.
	Scenario sim.Scenario
	Config   sim.Config
}

// Random returns the i-th random configuration: a built-in policy, a
// scenario of a kind drawn, with some of its parameters drawn and the rest
// left to their defaults, and a replay of a few runs, some with the
// stopping rule, a collapse bound or a tipping point. Policies are seeded
// from the device, or with a constant: never from the clock, so the same
// i replays the same figures on any machine.
func Random(i uint64) Fleet {
	r := rand.New(rand.NewPCG(0x6a69747465726b69, i))
	pick := func(xs ...time.Duration) time.Duration { return xs[r.IntN(len(xs))] }
	strategy := []string{"none", "full", "equal", "decorrelated"}[r.IntN(4)]
	base := pick(10*time.Millisecond, 100*time.Millisecond, time.Second, 5*time.Second)
	capacity := base * time.Duration([]int{2, 10, 60}[r.IntN(3)])
	spec := fmt.Sprintf("%s:base=%s,cap=%s", strategy, prose.FormatDuration(base), prose.FormatDuration(capacity))
	if r.IntN(6) == 0 {
		spec += ",seed=constant"
	}
	sp, err := kit.ParseSpec(spec)
	if err != nil {
		panic(fmt.Sprintf("configuration %d: %s: %v", i, spec, err))
	}
	// The kinds the recorded digests were drawn from, listed rather than
	// taken from sim.Kinds, so that a new kind leaves them as they are.
	kinds := []sim.Kind{sim.Outage, sim.LongOutage, sim.Storm, sim.Periodic, sim.PeriodicAligned, sim.Overload, sim.Reconnect, sim.Contention}
	s := sim.Scenario{Kind: kinds[r.IntN(len(kinds))]}
	maybe := func() bool { return r.IntN(2) == 0 }
	switch s.Kind {
	case sim.Outage, sim.LongOutage, sim.Storm, sim.Periodic, sim.PeriodicAligned:
		s.Clients = 20 + r.IntN(600)
		if maybe() {
			s.AcceptRate = float64(5 + r.IntN(200))
		}
		servers := sim.Servers()
		s.Server = servers[r.IntN(len(servers))]
		if s.Server == sim.TokenBucket && maybe() {
			s.Burst = float64(1 + r.IntN(300))
		}
		if s.Server == sim.RetryAfter && maybe() {
			s.RetryAfter = pick(100*time.Millisecond, time.Second, 3*time.Second)
		}
		if s.Kind == sim.Outage && maybe() {
			s.Down = pick(500*time.Millisecond, 5*time.Second, 30*time.Second)
		}
		if s.Kind == sim.LongOutage {
			s.Down = pick(10*time.Minute, time.Hour)
		}
		if s.Kind == sim.Storm {
			s.Retries = 1 + r.IntN(12)
		}
		if s.Kind == sim.Periodic || s.Kind == sim.PeriodicAligned {
			s.Period = pick(10*time.Second, time.Minute)
			s.TimerOffset = sim.Offsets()[r.IntN(2)]
		}
		if maybe() {
			s.Window = pick(20*time.Millisecond, 100*time.Millisecond, time.Second, 2*time.Second)
		}
		if maybe() {
			s.StartSpread = pick(time.Millisecond, 100*time.Millisecond, 2*time.Second)
		}
	case sim.Overload:
		s.Clients = 50 + r.IntN(300)
		s.Rate = float64(20 + r.IntN(100))
		s.Retries = r.IntN(5)
		s.Timeout = pick(0, 500*time.Millisecond, 2*time.Second)
		s.Dip = []float64{0, 0.05, 0.5}[r.IntN(3)]
		s.DipFor = pick(0, time.Second, 3*time.Second, 10*time.Second)
		if r.IntN(4) == 0 {
			s.QueueLimit = 10 + r.IntN(200)
		}
		s.DropExpired = r.IntN(4) == 0
		s.Budget = budget(r)
	case sim.Reconnect:
		s.Clients = 100 + r.IntN(1500)
		s.Down = pick(0, time.Second, 10*time.Second)
		s.OnDrop = []sim.DropRule{"", sim.DropReset, sim.DropResetJitter, sim.DropContinue}[r.IntN(4)]
		s.RefuseCold = r.IntN(4) == 0 && s.OnDrop == ""
		s.Budget = budget(r)
	case sim.Contention:
		s.Clients = 10 + r.IntN(150)
	}
	cfg := sim.Config{Runs: 3 + r.IntN(3), Seed: 1 + r.Uint64N(1000)}
	switch {
	case !s.Kind.ServerModel() && r.IntN(5) == 0:
		cfg.Runs = 0 // the stopping rule's batches
	case s.Kind.Recovers() && r.IntN(8) == 0:
		cfg.Runs, cfg.CollapseBound = 0, 0.1 // 20 runs, then 40
	case s.Kind == sim.Overload && r.IntN(8) == 0:
		cfg.TippingPoint = true
	}
	return Fleet{Spec: spec, Policy: sp, Scenario: s, Config: cfg}
}

// budget draws a budget for a server model: none half the time,
// else a kind with its defaults and a scope.
func budget(r *rand.Rand) sim.Budget {
	kinds := []string{"finagle", "envoy", "grpc", "aws", "aws2026", "adaptive", "breaker"}
	if r.IntN(2) == 0 {
		return sim.Budget{}
	}
	b, err := sim.ParseBudget(kinds[r.IntN(len(kinds))])
	if err != nil {
		panic(err)
	}
	b.Scope = sim.BudgetScopes()[r.IntN(2)]
	return b
}

// count is the -digest.n flag of every test binary that checks a digest.
var count = flag.Int("digest.n", 0, "replay `N` random configurations in a digest test (0: the test's own count)")

// Digest replays the first n random configurations, n being -digest.n
// when set, else short under go test -short and full otherwise, and
// compares the SHA-256 of what each returns with the digest recorded for
// that count in testdata/DIR/N.sha256 (-update records it). Each
// configuration's line names it; a replay that fails adds its error's
// text, and one that succeeds whatever write writes of its Result. A
// change that must keep the replays and what is made of them keeps every
// digest: record a large -digest.n before the change and run it after.
func Digest(t *testing.T, dir string, short, full int, write func(w io.Writer, f Fleet, res sim.Result) error) {
	t.Helper()
	n := *count
	switch {
	case n > 0:
	case testing.Short():
		n = short
	default:
		n = full
	}
	h := sha256.New()
	for i := range n {
		f := Random(uint64(i))
		fmt.Fprintf(h, "%d %s %s\n", i, f.Spec, f.Scenario.Kind)
		res, err := sim.Replay(context.Background(), f.Policy.Factory(), f.Scenario, f.Config)
		if err != nil {
			fmt.Fprintf(h, "error: %v\n", err)
			continue
		}
		if err := write(h, f, res); err != nil {
			t.Fatalf("configuration %d (%s, %s): %v", i, f.Spec, f.Scenario.Kind, err)
		}
	}
	got := hex.EncodeToString(h.Sum(nil)) + "\n"
	kittest.Golden(t, filepath.Join("testdata", dir, strconv.Itoa(n)+".sha256"), []byte(got))
}
