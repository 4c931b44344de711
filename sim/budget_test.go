package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/kit"
)

func sec(x float64) int64 { return int64(x * 1e9) }

// TestFinagleBudget pins a deposit, a withdrawal, a refusal and the TTL
// expiring: a budget of 50% over 10s with a reserve of one retry.
func TestFinagleBudget(t *testing.T) {
	b := newBudgetState(Budget{Kind: Finagle, Percent: 0.5, MinPerSecond: 0.1, TTL: 10 * time.Second}, nil)
	assert.InDelta(t, 1, b.level(0), 1e-12, "the reserve: 0.1 a second for 10s")
	ok, _ := b.admit(0, false)
	require.True(t, ok)
	b.admit(sec(1), false)
	assert.InDelta(t, 2, b.level(sec(1)), 1e-12, "two requests deposit one retry")
	ok, _ = b.admit(sec(2), true)
	assert.True(t, ok, "a retry is always sent")
	assert.InDelta(t, 2, b.level(sec(2)), 1e-12, "and deposits nothing")

	ok, _ = b.retry(sec(2), kit.Timeout)
	assert.True(t, ok, "a withdrawal")
	ok, _ = b.retry(sec(3), kit.Timeout)
	assert.True(t, ok, "a second, of the reserve")
	assert.InDelta(t, 0, b.level(sec(3)), 1e-12)
	ok, _ = b.retry(sec(4), kit.Timeout)
	assert.False(t, ok, "a refusal: nothing left")

	// At 10s the first deposit expires, at 11s the second, at 12s and 13s
	// the withdrawals.
	assert.InDelta(t, -0.5, b.level(sec(10)), 1e-12)
	assert.InDelta(t, -1, b.level(sec(11)), 1e-12)
	ok, _ = b.retry(sec(11.5), kit.Timeout)
	assert.False(t, ok)
	assert.InDelta(t, 0, b.level(sec(12)), 1e-12)
	assert.InDelta(t, 1, b.level(sec(13)), 1e-12, "the reserve again, once all expired")
	ok, _ = b.retry(sec(13), kit.Timeout)
	assert.True(t, ok)
}

// TestEnvoyBudget pins the concurrency rule: retries under way below
// max(20% of the attempts in flight, 3).
func TestEnvoyBudget(t *testing.T) {
	b := newBudgetState(Budget{Kind: Envoy}.WithDefaults(), nil)
	for range 5 {
		b.admit(0, false)
	}
	for i := range 3 {
		ok, _ := b.retry(0, kit.Timeout)
		assert.True(t, ok, "retry %d within the minimum of 3", i+1)
	}
	ok, _ := b.retry(0, kit.Timeout)
	assert.False(t, ok, "a fourth under way: max(0.2×5, 3) = 3")
	b.abandon(0)
	ok, _ = b.retry(0, kit.Timeout)
	assert.True(t, ok, "a retry given back frees its place")
	for range 15 {
		b.admit(0, false)
	}
	ok, _ = b.retry(0, kit.Timeout)
	assert.True(t, ok, "20 in flight allow 4")
	ok, _ = b.retry(0, kit.Timeout)
	assert.False(t, ok, "and no fifth")
	b.admit(0, true) // a retry sent
	b.ended(0, kit.Timeout, true, 0)
	assert.InDelta(t, 1, b.level(0), 1e-12, "its end frees a place: 4 allowed, 3 under way")
}

// TestGRPCThrottling pins the tokens: 10, a failure takes 1, a success
// adds 0.1, retries only above 5.
func TestGRPCThrottling(t *testing.T) {
	b := newBudgetState(Budget{Kind: GRPC}.WithDefaults(), nil)
	for i := range 4 {
		b.ended(0, kit.Timeout, false, 0)
		ok, _ := b.retry(0, kit.Timeout)
		assert.True(t, ok, "after %d failures", i+1)
	}
	b.ended(0, kit.Rejection, false, 0)
	ok, _ := b.retry(0, kit.Rejection)
	assert.False(t, ok, "5 tokens are not above 5")
	b.ended(0, kit.Success, false, 0)
	assert.InDelta(t, 5.1, b.level(0), 1e-12)
	ok, _ = b.retry(0, kit.Timeout)
	assert.True(t, ok, "a success lifts it above half")
	for range 20 {
		b.ended(0, kit.Timeout, false, 0)
	}
	assert.Equal(t, 0.0, b.level(0), "never below 0")
	for range 200 {
		b.ended(0, kit.Success, false, 0)
	}
	assert.Equal(t, 10.0, b.level(0), "never above the most")
}

// TestAWSQuota pins the retry quota's costs and refunds, for the legacy and
// the newer costs.
func TestAWSQuota(t *testing.T) {
	b := newBudgetState(Budget{Kind: AWS}.WithDefaults(), nil)
	ok, paid := b.retry(0, kit.Timeout)
	require.True(t, ok)
	assert.Equal(t, 10.0, paid, "a timeout costs 10")
	_, paid = b.retry(0, kit.Rejection)
	assert.Equal(t, 5.0, paid, "any other failure 5")
	assert.Equal(t, 485.0, b.level(0))
	b.ended(0, kit.Success, true, 10)
	assert.Equal(t, 495.0, b.level(0), "a successful retry gives its cost back")
	b.ended(0, kit.Success, false, 0)
	assert.Equal(t, 496.0, b.level(0), "a first attempt's success adds 1")
	b.ended(0, kit.Timeout, true, 5)
	assert.Equal(t, 496.0, b.level(0), "a failed retry keeps its cost")
	for range 49 {
		b.retry(0, kit.Timeout)
	}
	assert.Equal(t, 6.0, b.level(0))
	ok, _ = b.retry(0, kit.Timeout)
	assert.False(t, ok, "6 tokens do not pay a timeout's 10")
	ok, _ = b.retry(0, kit.Rejection)
	assert.True(t, ok, "but pay a rejection's 5")
	b.abandon(5)
	assert.Equal(t, 6.0, b.level(0), "a retry not made is given back")

	n := newBudgetState(Budget{Kind: AWS2026}.WithDefaults(), nil)
	_, paid = n.retry(0, kit.Timeout)
	assert.Equal(t, 14.0, paid, "the newer cost of a timeout")
	_, paid = n.retry(0, kit.Rejection)
	assert.Equal(t, 5.0, paid, "and of throttling")
}

// TestAdaptiveThrottle pins the rejection probability and its window.
func TestAdaptiveThrottle(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	b := newBudgetState(Budget{Kind: Adaptive, Window: 10 * time.Second}.WithDefaults(), rng).(*adaptiveState)
	assert.Equal(t, 0.0, b.level(0), "no requests, no rejections")
	for range 10 {
		b.requests.add(0, 1)
	}
	assert.InDelta(t, 10.0/11, b.level(0), 1e-12, "10 requests, no accepts")
	for range 4 {
		b.ended(0, kit.Success, false, 0)
	}
	assert.InDelta(t, 2.0/11, b.level(0), 1e-12, "(10 − 2·4)/11")
	b.ended(0, kit.Timeout, false, 0)
	assert.InDelta(t, 2.0/11, b.level(0), 1e-12, "a timeout is no accept")
	for range 2 {
		b.ended(sec(1), kit.Success, false, 0)
	}
	assert.Equal(t, 0.0, b.level(sec(1)), "accepts enough: never below 0")
	assert.Equal(t, 0.0, b.level(sec(10)), "the first 10 requests expire, with 4 accepts")
	// Rejections are drawn: of 10,000 attempts at p, near p·10,000.
	c := newBudgetState(Budget{Kind: Adaptive}.WithDefaults(), rand.New(rand.NewPCG(3, 4))).(*adaptiveState)
	for range 99 {
		c.requests.add(0, 1)
	}
	rejected := 0
	for range 10_000 {
		if ok, _ := c.admit(0, false); !ok {
			rejected++
		}
		c.requests.n, c.requests.sum = 99, 99 // p stays 99/100
	}
	// Bin(10,000, 0.99): mean 9,900, sd 9.95; six of them either side.
	assert.InDelta(t, 9900, rejected, 60)
}

// TestBreakerStates pins the breaker's changes of state: closed to open
// on failures, open for its delay, half-open with its probes, and back.
func TestBreakerStates(t *testing.T) {
	b := newBudgetState(Budget{Kind: Breaker, FailureThreshold: 2, FailureCapacity: 3, Delay: 10 * time.Second, SuccessThreshold: 1, SuccessCapacity: 2}.WithDefaults(), nil)
	admit := func(at float64) (bool, float64) { return b.admit(sec(at), false) }
	ok, _ := admit(0)
	require.True(t, ok)
	b.ended(sec(1), kit.Timeout, false, 0)
	b.ended(sec(1), kit.Success, false, 0)
	assert.Equal(t, float64(breakerClosed), b.level(sec(1)), "1 failure of 2")
	b.ended(sec(2), kit.Rejection, false, 0)
	assert.Equal(t, float64(breakerOpen), b.level(sec(2)), "2 failures of the last 3")
	ok, _ = admit(5)
	assert.False(t, ok, "open: rejected at the client")
	b.ended(sec(5), kit.Success, false, 0)
	assert.Equal(t, float64(breakerOpen), b.level(sec(5)), "an attempt of the closed spell changes nothing")
	assert.Equal(t, float64(breakerHalfOpen), b.level(sec(12)), "half-open after the delay")
	ok1, p1 := admit(12)
	ok2, p2 := admit(12)
	ok3, _ := admit(12)
	assert.True(t, ok1 && ok2, "two probes")
	assert.False(t, ok3, "a third waits")
	b.ended(sec(13), kit.Timeout, false, p1)
	assert.Equal(t, float64(breakerHalfOpen), b.level(sec(13)), "one probe failed; one success of the two may still close it")
	b.ended(sec(13), kit.Timeout, false, p2)
	assert.Equal(t, float64(breakerOpen), b.level(sec(13)), "both failed: open again")
	ok, _ = admit(22)
	assert.False(t, ok, "open until 23s")
	_, p := admit(23)
	b.ended(sec(24), kit.Success, false, p1)
	assert.Equal(t, float64(breakerHalfOpen), b.level(sec(24)), "a probe of an earlier spell changes nothing")
	b.ended(sec(24), kit.Success, false, p)
	assert.Equal(t, float64(breakerClosed), b.level(sec(24)), "a probe's success closes it")
	ok, _ = admit(24)
	assert.True(t, ok)
	b.ended(sec(25), kit.Timeout, false, 0)
	assert.Equal(t, float64(breakerClosed), b.level(sec(25)), "the failures before it opened are forgotten")

	d := newBudgetState(Budget{Kind: Breaker}.WithDefaults(), nil)
	d.ended(0, kit.Timeout, false, 0)
	assert.Equal(t, float64(breakerOpen), d.level(0), "failsafe-go's defaults: open after one failure")
	assert.Equal(t, float64(breakerHalfOpen), d.level(sec(60)), "for a minute")
}

// TestBudgetScope replays the same two requests against a server that
// never answers, under gRPC's throttling held by each device and by the
// fleet: each device's tokens allow four retries of its own request; the
// fleet's, shared, two of each.
func TestBudgetScope(t *testing.T) {
	o := stalled(time.Minute, 0, 0)
	o.Devices, o.Retries = 2, 20
	f := kit.Spec{Strategy: kit.None, Base: time.Second, Cap: time.Second}.Factory()
	for _, c := range []struct {
		scope    BudgetScope
		attempts int
	}{
		{ScopeDevice, 10},
		{ScopeFleet, 6},
	} {
		t.Run(string(c.scope), func(t *testing.T) {
			o := o
			o.Budget = Budget{Kind: GRPC, Scope: c.scope}.WithDefaults()
			r := replayOverload(t, o, f)
			assert.Equal(t, c.attempts, r.Attempts, "attempts")
			assert.Equal(t, 2, r.Refused, "each request's last retry refused")
			assert.Equal(t, c.attempts, r.Timeouts)
		})
	}
}

// TestBudgetThrottledAttempts replays a breaker that opens on the first
// timeout: the request's retries are rejected at the client while it is
// open, and count as failures of the attempts made.
func TestBudgetThrottledAttempts(t *testing.T) {
	o := stalled(time.Minute, 0)
	o.Devices, o.Retries = 1, 3
	o.Budget = Budget{Kind: Breaker, Scope: ScopeFleet}.WithDefaults()
	r := replayOverload(t, o, kit.Spec{Strategy: kit.None, Base: time.Second, Cap: time.Second}.Factory())
	assert.Equal(t, 1, r.Attempts, "one attempt sent")
	// The attempt times out at 1s, which opens the breaker; its retries,
	// a second apart, are rejected at 2s, 3s and 4s.
	assert.Equal(t, 3, r.Throttled, "three retries rejected at the client")
	assert.Equal(t, 1, r.Exhausted)
	assert.Equal(t, []int{0, 0, 1, 1, 1, 0}, r.Series.Throttled[:6])
	assert.Equal(t, []int{1, 0, 1, 1, 1, 0}, r.Series.sent()[:6], "all four attempts made")
	assert.Equal(t, []int{0, 1, 1, 1, 1, 0}, r.Series.Failures[:6], "and failed")
}

// TestParseBudget reads specs and writes them back.
func TestParseBudget(t *testing.T) {
	for _, c := range []struct {
		spec string
		want Budget
		text string
	}{
		{"finagle", Budget{Kind: Finagle}, "finagle"},
		{"finagle:percent=10%,min=5,ttl=30s", Budget{Kind: Finagle, Percent: 0.1, MinPerSecond: 5, TTL: 30 * time.Second}, "finagle:percent=10%,min=5,ttl=30s"},
		{"envoy:min=10,percent=0.5", Budget{Kind: Envoy, Percent: 0.5, MinConcurrency: 10}, "envoy:percent=50%,min=10"},
		{"grpc:tokens=100,ratio=0.5", Budget{Kind: GRPC, MaxTokens: 100, TokenRatio: 0.5}, "grpc:tokens=100,ratio=0.5"},
		{"aws2026:throttle-cost=2", Budget{Kind: AWS2026, ThrottleCost: 2}, "aws2026:throttle-cost=2"},
		{"breaker:failures=5,of=10,delay=30s", Budget{Kind: Breaker, FailureThreshold: 5, FailureCapacity: 10, Delay: 30 * time.Second}, "breaker:failures=5,of=10,delay=30s"},
	} {
		t.Run(c.spec, func(t *testing.T) {
			b, err := ParseBudget(c.spec)
			require.NoError(t, err)
			assert.Equal(t, c.want, b)
			assert.Equal(t, c.text, b.String())
			back, err := ParseBudget(b.String())
			require.NoError(t, err)
			assert.Equal(t, b, back, "String reads back")
		})
	}
	for _, c := range []struct{ spec, err string }{
		{"hystrix", `unknown budget "hystrix" (want one of finagle, envoy, grpc, aws, aws2026, adaptive, breaker)`},
		{"finagle:tokens=5", "budget finagle: unknown key tokens (want percent, min, ttl)"},
		{"finagle:percent", `budget finagle: "percent": want key=value`},
		{"finagle:ttl=0s", `budget finagle: ttl: 0s is not positive`},
		{"grpc:tokens=-1", `budget grpc: tokens: "-1" is not a number of at least 1e-09`},
		{"breaker:failures=1.5", `budget breaker: failures: "1.5" is not a positive whole number`},
		{"aws:cost=5,cost=6", "budget aws: cost given more than once"},
	} {
		_, err := ParseBudget(c.spec)
		assert.EqualError(t, err, c.err, c.spec)
	}
}

// TestBudgetPercentRoundTrip writes every whole percentage from 1% to
// 1,000% so that it reads back as the same share.
func TestBudgetPercentRoundTrip(t *testing.T) {
	for p := 1; p <= 1000; p++ {
		for _, kind := range []BudgetKind{Finagle, Envoy} {
			b, err := ParseBudget(fmt.Sprintf("%s:percent=%d%%", kind, p))
			require.NoError(t, err)
			back, err := ParseBudget(b.String())
			require.NoError(t, err)
			require.Equal(t, b, back, "%d%%: %s", p, b)
			f := Budget{Kind: kind, Percent: float64(p) / 1000}
			back, err = ParseBudget(f.String())
			require.NoError(t, err)
			require.Equal(t, f, back, "a share of %v: %s", f.Percent, f)
		}
	}
}

// TestBudgetValidate refuses budgets out of range, naming the key.
func TestBudgetValidate(t *testing.T) {
	for _, c := range []struct {
		b   Budget
		err string
	}{
		{Budget{Kind: Envoy, Percent: 20}, "sim: budget: percent 20 is over 10 (1,000%): a share is written 20% or 0.2"},
		{Budget{Kind: Breaker, FailureThreshold: 5, FailureCapacity: 3}, "sim: budget: of 3 is fewer than failures 5: the breaker counts failures among the last of outcomes"},
		{Budget{Kind: Adaptive, K: 0.5}, "sim: budget: k 0.5 is not in [1, 1,000,000,000]"},
		{Budget{Kind: GRPC, TTL: time.Second}, "sim: budget: ttl is not a key of the grpc budget (want tokens, ratio)"},
		{Budget{Scope: ScopeFleet}, "sim: budget-scope fleet is set without a budget to hold (want a budget of one of finagle, envoy, grpc, aws, aws2026, adaptive, breaker)"},
		{Budget{Percent: 0.5}, "sim: budget: the fields of a budget are set but its kind is not (want one of finagle, envoy, grpc, aws, aws2026, adaptive, breaker)"},
		{Budget{Kind: Finagle, Scope: "cluster"}, `sim: budget-scope: unknown scope "cluster" (want device or fleet)`},
	} {
		assert.EqualError(t, c.b.WithDefaults().validate(), c.err)
	}
	s := Scenario{Kind: Overload, Budget: Budget{Kind: Finagle}, Retries: NoRetries}
	assert.ErrorContains(t, s.Validate(nil, Config{}), "budget finagle:percent=20%,min=10,ttl=10s limits retries, and the clients make none")
	s = Scenario{Kind: Contention, Budget: Budget{Kind: Finagle}}
	assert.ErrorContains(t, s.Validate(nil, Config{}), "budget does not apply to the contention scenario")
	s = Scenario{Kind: Reconnect, Budget: Budget{Kind: Finagle}}
	assert.NoError(t, s.Validate(nil, Config{}))
}

// TestBudgetWarnings pins the warnings' arithmetic on the overload
// defaults (200 devices, 70 requests a second, 100 jobs a second, 1s
// timeouts).
func TestBudgetWarnings(t *testing.T) {
	for _, c := range []struct {
		name   string
		s      Scenario
		w      Warning
		substr string
	}{
		{"finagle's reserves held by each device", Scenario{Budget: Budget{Kind: Finagle}}, BudgetNeverBinds,
			"each of the 200 devices holds a reserve of 10 retries a second, 200 × 10 = 2,000 retries a second in all, at least the server's capacity of 100 jobs a second"},
		{"envoy's minimum held by each device", Scenario{Budget: Budget{Kind: Envoy}}, BudgetNeverBinds,
			"200 × 3 = 600 at once, each under way up to its 1s timeout: up to 600 retries a second"},
		{"finagle shared at 75% load", Scenario{Rate: 75, Budget: Budget{Kind: Finagle, Scope: ScopeFleet}}, BudgetNoHeadroom,
			"1.2 × 75 + 10 = 100 a second, at least the server's capacity of 100 jobs a second"},
		{"envoy shared at 80% load", Scenario{Rate: 80, Budget: Budget{Kind: Envoy, Scope: ScopeFleet}}, BudgetNoHeadroom,
			"80 / (1 − 0.2) = 100 a second"},
		{"aws quotas held by 20,000 devices", Scenario{Clients: 20_000, Budget: Budget{Kind: AWS}}, BudgetNeverBinds,
			"each of the 20,000 devices holds a quota of 500 tokens, 100 retries of 5, 2,000,000 retries in all, at least the 26,500 jobs"},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.s.Kind = Overload
			assert.Contains(t, c.s.BudgetWarning(c.w), c.substr)
		})
	}
	for _, s := range []Scenario{
		{Budget: Budget{Kind: Finagle, Scope: ScopeFleet}},
		{Budget: Budget{Kind: Envoy, Scope: ScopeFleet}},
		{Rate: 74, Budget: Budget{Kind: Finagle, Scope: ScopeFleet}},
		{Budget: Budget{Kind: GRPC}},
		{Budget: Budget{Kind: AWS}},
		{},
	} {
		s.Kind = Overload
		assert.Empty(t, s.BudgetWarning(BudgetNeverBinds), "%v", s.Budget)
		assert.Empty(t, s.BudgetWarning(BudgetNoHeadroom), "%v at %v a second", s.Budget, s.Rate)
	}
	s := Scenario{Kind: Overload, Budget: Budget{Kind: Finagle}}
	assert.Empty(t, s.BudgetWarning(BudgetNoHeadroom), "the stronger warning alone")
}

// TestOverloadDurationsBeyondTheHorizon refuses, naming the field, a
// duration whose sum with the others would overflow.
func TestOverloadDurationsBeyondTheHorizon(t *testing.T) {
	s := Scenario{Kind: Overload, DipFor: math.MaxInt64}
	assert.ErrorContains(t, s.Validate(nil, Config{}), "dip-for 2562047h47m16.854775807s is beyond the longest replay")
}

// TestReconnectBudget replays one device against a broker that is down
// for the whole run, under gRPC's throttling: its tokens allow four
// reconnects, and the fifth failure makes it give up; the same under a
// breaker that opens on the first refusal rejects its reconnects at the
// device, but for a probe when it half-opens a minute later.
func TestReconnectBudget(t *testing.T) {
	c := defaultReconnect()
	c.Devices, c.Spread, c.Down, c.Horizon = 1, 0, 100*time.Second, 105*time.Second
	f := kit.Spec{Strategy: kit.None, Base: time.Second, Cap: time.Second}.Factory()
	c.Budget = Budget{Kind: GRPC}.WithDefaults()
	e, err := newReconnectEngine(c, f)
	require.NoError(t, err)
	r, err := e.replay(0, 1)
	require.NoError(t, err)
	assert.Equal(t, 5, r.Attempts, "the first connect and four reconnects")
	assert.Equal(t, 1, r.BudgetRefused)
	assert.Equal(t, 1, r.GaveUp)

	c.Budget = Budget{Kind: Breaker}.WithDefaults()
	e, err = newReconnectEngine(c, f)
	require.NoError(t, err)
	r, err = e.replay(0, 1)
	require.NoError(t, err)
	// Refused at 50ms, the breaker opens until 60.05s: the connects a
	// second apart from 1.05s to 59.05s are rejected at the device (59);
	// the one at 60.05s is the half-open probe, refused at 60.1s, which
	// opens it again past the horizon: 61.1s to 104.1s are rejected (44).
	assert.Equal(t, 59+44, r.Throttled, "rejected at the device while open")
	assert.Equal(t, 2, r.Attempts, "the first connect and the probe")
}

// TestBudgetScopes replays every budget at both scopes on two devices that
// send the same requests against a server that never answers: held by each
// device, each device's budget sees its own requests only, so that two
// devices make twice the attempts of one; held by the fleet, the two share
// one budget, and make at most that.
func TestBudgetScopes(t *testing.T) {
	f := kit.Spec{Strategy: kit.None, Base: time.Second, Cap: time.Second}.Factory()
	for _, kind := range BudgetKinds() {
		t.Run(string(kind), func(t *testing.T) {
			attempts := func(devices int, scope BudgetScope) overloadRun {
				var schedule []time.Duration
				for k := range 4 * devices {
					schedule = append(schedule, time.Duration(k/devices)*10*time.Second)
				}
				o := stalled(time.Minute, schedule...)
				o.Devices, o.Retries = devices, 20
				o.Budget = Budget{Kind: kind, Scope: scope}
				if kind == Finagle {
					// A reserve of one retry, which four requests use up.
					o.Budget.MinPerSecond = 0.1
				}
				o.Budget = o.Budget.WithDefaults()
				return replayOverload(t, o, f)
			}
			one := attempts(1, ScopeDevice)
			two := attempts(2, ScopeDevice)
			shared := attempts(2, ScopeFleet)
			made := func(r overloadRun) int { return r.Attempts + r.Throttled }
			if kind != Adaptive {
				// The adaptive throttle draws its rejections from one
				// generator for the run, in the order of the events.
				assert.Equal(t, 2*one.Attempts, two.Attempts, "two devices' budgets of their own")
				assert.Equal(t, 2*one.Refused, two.Refused)
			}
			assert.Equal(t, 2*made(one), made(two), "every attempt is made or rejected")
			assert.LessOrEqual(t, shared.Attempts, two.Attempts, "one budget for both lets no more through")
			if kind != Breaker && kind != Adaptive && kind != Envoy {
				assert.Less(t, shared.Attempts, two.Attempts, "and, shared, binds sooner")
			}
		})
	}
}
