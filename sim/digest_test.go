package sim

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/internal/prose"
	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/testdata/kittest"
)

// digestCount is how many random configurations TestFiguresDigest
// replays; 0 is the suite's count.
var digestCount = flag.Int("digest.n", 0, "replay `N` random configurations in TestFiguresDigest (0: 60, or 20 under -short)")

// TestFiguresDigest replays random configurations of every kind, server,
// budget and built-in strategy, and compares the SHA-256 of everything
// they return (each Result as JSON, or the error's text) with the digest
// recorded for that many configurations in testdata/digest/N.sha256. A
// change that keeps the package's behaviour, such as a refactor of its
// engines, keeps every digest: go test -run 'TestFiguresDigest$'
// -digest.n 3000 checks it over thousands of configurations, once
// -update has recorded that count's digest before the change.
func TestFiguresDigest(t *testing.T) {
	n := *digestCount
	switch {
	case n > 0:
	case testing.Short():
		n = 20
	default:
		n = 60
	}
	h := sha256.New()
	for i := range n {
		f, s, cfg, spec := digestConfig(uint64(i))
		fmt.Fprintf(h, "%d %s %s\n", i, spec, s.Kind)
		res, err := Replay(context.Background(), f, s, cfg)
		if err != nil {
			fmt.Fprintf(h, "error: %v\n", err)
			continue
		}
		b, err := json.Marshal(res)
		require.NoError(t, err, "configuration %d", i)
		h.Write(b)
		h.Write([]byte{'\n'})
	}
	got := hex.EncodeToString(h.Sum(nil)) + "\n"
	kittest.Golden(t, filepath.Join("testdata", "digest", strconv.Itoa(n)+".sha256"), []byte(got))
}

// digestConfig returns the i-th random configuration: a built-in policy,
// a scenario of a kind drawn with some of its parameters drawn and the
// rest left to their defaults, and a replay of a few runs. Policies are
// seeded from the device, or with a constant: never from the clock.
func digestConfig(i uint64) (kit.Factory, Scenario, Config, string) {
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
	kinds := Kinds()
	s := Scenario{Kind: kinds[r.IntN(len(kinds))]}
	maybe := func() bool { return r.IntN(2) == 0 }
	switch s.Kind {
	case Outage, LongOutage, Storm, Periodic, PeriodicAligned:
		s.Clients = 20 + r.IntN(600)
		if maybe() {
			s.AcceptRate = float64(5 + r.IntN(200))
		}
		servers := Servers()
		s.Server = servers[r.IntN(len(servers))]
		if s.Server == TokenBucket && maybe() {
			s.Burst = float64(1 + r.IntN(300))
		}
		if s.Server == RetryAfter && maybe() {
			s.RetryAfter = pick(100*time.Millisecond, time.Second, 3*time.Second)
		}
		if s.Kind == Outage && maybe() {
			s.Down = pick(500*time.Millisecond, 5*time.Second, 30*time.Second)
		}
		if s.Kind == LongOutage {
			s.Down = pick(10*time.Minute, time.Hour)
		}
		if s.Kind == Storm {
			s.Retries = 1 + r.IntN(12)
		}
		if s.Kind.periodic() {
			s.Period = pick(10*time.Second, time.Minute)
			s.TimerOffset = Offsets()[r.IntN(2)]
		}
		if maybe() {
			s.Window = pick(20*time.Millisecond, 100*time.Millisecond, time.Second, 2*time.Second)
		}
		if maybe() {
			s.StartSpread = pick(time.Millisecond, 100*time.Millisecond, 2*time.Second)
		}
	case Overload:
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
		s.Budget = digestBudget(r)
	case Reconnect:
		s.Clients = 100 + r.IntN(1500)
		s.Down = pick(0, time.Second, 10*time.Second)
		s.OnDrop = []DropRule{"", DropReset, DropResetJitter, DropContinue}[r.IntN(4)]
		s.RefuseCold = r.IntN(4) == 0 && s.OnDrop == ""
		s.Budget = digestBudget(r)
	case Contention:
		s.Clients = 10 + r.IntN(150)
	}
	cfg := Config{Runs: 3 + r.IntN(3), Seed: 1 + r.Uint64N(1000)}
	switch {
	case !s.Kind.ServerModel() && r.IntN(5) == 0:
		cfg.Runs = 0 // the stopping rule's batches
	case s.Kind.Recovers() && r.IntN(8) == 0:
		cfg.Runs, cfg.CollapseBound = 0, 0.1 // 20 runs, then 40
	case s.Kind == Overload && r.IntN(8) == 0:
		cfg.TippingPoint = true
	}
	return sp.Factory(), s, cfg, spec
}

// digestBudget draws a budget for a server model: none half the time,
// else a kind with its defaults and a scope.
func digestBudget(r *rand.Rand) Budget {
	kinds := []string{"finagle", "envoy", "grpc", "aws", "aws2026", "adaptive", "breaker"}
	if r.IntN(2) == 0 {
		return Budget{}
	}
	b, err := ParseBudget(kinds[r.IntN(len(kinds))])
	if err != nil {
		panic(err)
	}
	b.Scope = BudgetScopes()[r.IntN(2)]
	return b
}
