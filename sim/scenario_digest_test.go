package sim

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/testdata/kittest"
)

// randomScenario draws a scenario of any kind whose fields are each left
// zero half the time and otherwise drawn from values around their
// defaults and limits, valid or not, so that defaults, refusals and the
// memory plan meet every kind with every field.
func randomScenario(r *rand.Rand) (Scenario, Config) {
	pick := func(vs ...any) any { return vs[r.IntN(len(vs))] }
	maybe := func() bool { return r.IntN(2) == 0 }
	dur := func(vs ...time.Duration) time.Duration {
		if maybe() {
			return 0
		}
		return vs[r.IntN(len(vs))]
	}
	num := func(vs ...float64) float64 {
		if maybe() {
			return 0
		}
		return vs[r.IntN(len(vs))]
	}
	count := func(vs ...int) int {
		if maybe() {
			return 0
		}
		return vs[r.IntN(len(vs))]
	}
	// The kinds the recorded digests were drawn from, listed rather than
	// taken from Kinds, so that a new kind leaves them as they are.
	kinds := []Kind{Outage, LongOutage, Storm, Periodic, PeriodicAligned, Overload, Reconnect, Contention, "", "bogus"}
	s := Scenario{Kind: kinds[r.IntN(len(kinds))]}
	if r.IntN(4) == 0 {
		s.Server = pick(PerSecond, TokenBucket, RetryAfter, Server("nope")).(Server)
	}
	s.Clients = count(1, 7, 200, 2000, 100_000, -3)
	if r.IntN(8) == 0 {
		s.IDs = []string{"a", "b", "c"}
		if r.IntN(4) == 0 {
			s.IDs[1] = ""
		}
	}
	s.AcceptRate = num(0.5, 10, 50, 100, 200, 1e13, -1)
	s.Burst = num(0.5, 1, 30)
	s.Down = dur(time.Second, 5*time.Second, time.Hour, 2*time.Hour, -time.Second)
	s.Window = dur(time.Millisecond, 20*time.Millisecond, time.Second, 10*time.Minute, -time.Second)
	s.StartSpread = dur(time.Millisecond, time.Second, 2*time.Hour, -time.Second)
	s.Horizon = dur(time.Second, time.Minute, 300*time.Second, time.Hour, 40*24*time.Hour, -time.Second)
	s.RetryAfter = dur(time.Second, 3*time.Second)
	s.Retries = count(1, 3, 10, NoRetries, 200_000, -5)
	s.Period = dur(time.Millisecond, time.Second, time.Minute, time.Hour, -time.Minute)
	if r.IntN(4) == 0 {
		s.TimerOffset = pick(OffsetScenario, OffsetPolicy, Offset("x")).(Offset)
	}
	s.Threshold = num(0.3, defaultThreshold, 2, -1)
	s.MaxAttempts = count(1, 5, 10_000, 2_000_000_000, -1)
	s.MemoryLimit = int64(count(1<<20, 64<<20, 1<<30))
	s.Rate = num(1, 70, 150, 1e-4)
	s.RTT = dur(time.Millisecond, 10*time.Millisecond, 2*time.Second)
	s.Timeout = dur(5*time.Millisecond, time.Second, -time.Second)
	s.Dip = num(0.1, 0.5, DipStall, 2)
	s.DipFor = dur(time.Second, 5*time.Second, -time.Second)
	s.DipAt = dur(10*time.Second, 30*time.Second, 290*time.Second)
	s.Ramp = dur(2*time.Second, 10*time.Second)
	s.QueueLimit = count(10, 1000, -1)
	s.DropExpired = r.IntN(6) == 0
	if r.IntN(6) == 0 {
		s.OnDrop = pick(DropReset, DropResetJitter, DropContinue, DropRule("y")).(DropRule)
	}
	s.RefuseCold = r.IntN(6) == 0
	s.CPU = num(100, 2000, 5, 1.5)
	s.Handshake = num(1, 10, 50)
	s.WarmUp = num(0, 100, 4000)
	s.ColdDrop = dur(10*time.Millisecond, time.Second, 400*time.Second)
	s.Latency = dur(time.Millisecond, 10*time.Millisecond, time.Hour)
	s.LatencySD = dur(time.Millisecond, 5*time.Millisecond)
	if r.IntN(4) == 0 {
		b, err := ParseBudget(pick("token:ratio=0.1", "finagle", "adaptive", "breaker", "concurrency:4", "bogus").(string))
		if err == nil {
			s.Budget = b
			if maybe() {
				s.Budget.Scope = pick(ScopeDevice, ScopeFleet).(BudgetScope)
			}
		}
	}
	if r.IntN(8) != 0 {
		keepFields(&s)
	}
	cfg := Config{Runs: count(1, 3, 20, 1000), Workers: count(1, 2, 8)}
	cfg.RepresentativeOnly = r.IntN(3) == 0
	cfg.TippingPoint = r.IntN(10) == 0
	if r.IntN(10) == 0 {
		cfg.CollapseBound = 0.1
	}
	return s, cfg
}

// keepFields zeroes the fields of s that its kind does not take, so that
// most drawn scenarios reach the checks of their own kind's values.
func keepFields(s *Scenario) {
	kind := s.Kind
	fleet := kind == "" || kind == Outage || kind == LongOutage || kind == Storm || kind == Periodic || kind == PeriodicAligned
	clear := func(keep bool, fields ...any) {
		if keep {
			return
		}
		for _, f := range fields {
			switch p := f.(type) {
			case *time.Duration:
				*p = 0
			case *float64:
				*p = 0
			case *int:
				*p = 0
			case *bool:
				*p = false
			case *Server:
				*p = ""
			case *Offset:
				*p = ""
			case *DropRule:
				*p = ""
			case *Budget:
				*p = Budget{}
			}
		}
	}
	clear(kind == Overload, &s.Rate, &s.Timeout, &s.Dip, &s.DipFor, &s.DipAt, &s.Ramp, &s.QueueLimit, &s.DropExpired)
	clear(kind == Overload || kind == Reconnect, &s.RTT, &s.Budget)
	clear(kind == Reconnect, &s.OnDrop, &s.RefuseCold, &s.CPU, &s.Handshake, &s.WarmUp, &s.ColdDrop)
	clear(kind == Contention, &s.Latency, &s.LatencySD)
	clear(fleet, &s.Burst, &s.RetryAfter, &s.Server, &s.Window, &s.Period, &s.TimerOffset, &s.Threshold)
	clear(fleet || kind == Reconnect, &s.Down, &s.StartSpread, &s.MaxAttempts)
	clear(kind != Contention, &s.AcceptRate)
	clear(kind == Storm || kind == Overload, &s.Retries)
	clear(kind == Periodic || kind == PeriodicAligned, &s.Period)
	if s.Server != TokenBucket {
		s.Burst = 0
	}
	if s.Server != RetryAfter {
		s.RetryAfter = 0
	}
}

// The defaults, refusals, described parts and memory plans of thousands
// of random scenarios hash to a recorded digest: a change to how a kind
// defaults, validates or plans shows here, whatever the replay makes of
// it.
func TestScenarioDigest(t *testing.T) {
	n := 20_000
	if testing.Short() {
		n = 2_000
	}
	h := sha256.New()
	spec, err := kit.ParseSpec("full:base=1s,cap=30s")
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		r := rand.New(rand.NewPCG(uint64(i), 7))
		s, cfg := randomScenario(r)
		d := s.WithDefaults()
		fmt.Fprintf(h, "%d %+v\n", i, d)
		fmt.Fprintf(h, "parts %v\n", s.DefaultedParts())
		fmt.Fprintf(h, "fields %v\n", s.modelFieldsApply())
		err := s.Validate(spec.Factory(), cfg)
		fmt.Fprintf(h, "valid %v\n", err)
		if err == nil {
			fmt.Fprintf(h, "memory %d %d\n", s.Memory(spec.Factory(), cfg), s.Memory(nil, cfg))
			b := d.budget(spec.Factory(), cfg.WithDefaults())
			fmt.Fprintf(h, "budget %d %d %d %d\n", b.workers, b.need, b.perRun, b.kept)
			if js, err := d.MarshalJSON(); err == nil {
				h.Write(js)
			}
		}
	}
	got := hex.EncodeToString(h.Sum(nil)) + "\n"
	kittest.Golden(t, filepath.Join("testdata", "scenario-digest", strconv.Itoa(n)+".sha256"), []byte(got))
}
