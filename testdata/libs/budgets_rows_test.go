package libs

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	awsratelimit "github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	awsretry "github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/failsafe-go/failsafe-go"
	"github.com/failsafe-go/failsafe-go/budget"
	"github.com/failsafe-go/failsafe-go/circuitbreaker"
	"github.com/failsafe-go/failsafe-go/retrypolicy"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"

	"github.com/jitterkit/jitterkit/internal/prose"
	"github.com/jitterkit/jitterkit/sim"
)

// A budgetLib is one library's retry budget or circuit breaker, a row of
// BUDGETS.md at each scope it allows: how the test reads its parameters
// from the library, and what mapping it to the replay's model assumes.
type budgetLib struct {
	// module is the library's module path, as go.mod requires it.
	module string
	// name is the budget in the library's own terms.
	name string
	// observe reads the library in test t and returns the budget in sim's
	// terms, with what it measured or read, one sentence each, figures
	// included: the file changes when the library does.
	observe func(t *testing.T) (sim.Budget, []string)
	// assumed says how the library's semantics map to the replay's, and
	// where they differ.
	assumed []string
	// scopes are the scopes the library allows, and scopeWhy who holds the
	// budget at each.
	scopes   []sim.BudgetScope
	scopeWhy string
}

// budgetLibs are the rows, in the order BUDGETS.md shows them.
var budgetLibs = []budgetLib{
	{
		module:  "google.golang.org/grpc",
		name:    `retryThrottling {"maxTokens":10,"tokenRatio":0.1} in the service config`,
		observe: observeGRPCThrottling,
		assumed: []string{
			"The values are those of gRPC's A6 design's example and the ones a typical service config sets: grpc-go parses the service config into an unexported field and exports no way to read the throttler back, so the parameters are the config the test wrote, and the counts above are what shows grpc-go honours them.",
			"The replay's grpc budget is grpc-go's throttler: a failed attempt takes a token, a success adds tokenRatio, within [0, maxTokens], and a retry is made only while the tokens, after the failure's, are above maxTokens/2.",
			"It differs in what a failure is: grpc-go counts only an attempt whose status is one of the retry policy's retryableStatusCodes (or that carries a malformed pushback), and adds tokenRatio once per successful RPC. The replay counts every timed-out attempt as a failure: it assumes the overloaded server answers UNAVAILABLE, or that the application puts a deadline on each attempt and counts its DEADLINE_EXCEEDED as retryable; grpc-go itself ends an RPC whose deadline passes, without a retry, and has no per-attempt timeout.",
			"The delays are the kit's full jitter (the row's policy), not the retryPolicy's initialBackoff ×backoffMultiplier ±20%: the row judges the budget, not grpc-go's backoff.",
		},
		scopes:   []sim.BudgetScope{sim.ScopeDevice, sim.ScopeFleet},
		scopeWhy: "A ClientConn holds one throttler (cc.retryThrottler, made anew from each service config it applies): device is a ClientConn per device; fleet is one ClientConn every device's requests share, as a gateway's would.",
	},
	{
		module:  "github.com/aws/aws-sdk-go-v2",
		name:    "aws/retry NewStandard(): its RateLimiter, ratelimit.NewTokenRateLimit(500), and its costs",
		observe: observeAWSQuota,
		assumed: []string{
			"The replay's aws2026 budget is this quota: a retry is made only when the bucket holds its cost, which it takes; a request whose first attempt succeeds adds NoRetryIncrement; a successful retry gives its cost back; nothing else refills the bucket, in time or otherwise. The legacy costs (DefaultRetryCost 5, DefaultRetryTimeoutCost 10, deprecated and unused by the standard retryer at this version) are sim's aws budget, not replayed here.",
			"A timed-out attempt of the replay is a transient error of the SDK, costing RetryCost as a timeout does in this version; the replay's rejections, which cost ThrottlingRetryCost, would be the SDK's throttling errors (HTTP 429, ThrottlingException), but the overload scenario's defaults bound no queue, so no attempt is rejected and every retry costs 14.",
			"The SDK makes at most MaxAttempts 3 attempts with its own backoff (50ms·2ⁱ full jitter to 20s); the row keeps the scenario's 3 retries and the kit's full jitter, to judge the quota alone.",
		},
		scopes:   []sim.BudgetScope{sim.ScopeDevice, sim.ScopeFleet},
		scopeWhy: "A retryer holds its quota (StandardOptions.RateLimiter, a bucket made by each NewStandard), and a client holds one retryer: device is a client per device; fleet is one client every device's requests share.",
	},
	{
		module:  "github.com/failsafe-go/failsafe-go",
		name:    "budget.New() on retrypolicy.Builder.WithBudget",
		observe: observeFailsafeBudget,
		assumed: []string{
			"The replay's envoy budget is the same rule: a retry is made while the retries under way are fewer than max(Percent × the attempts in flight, MinConcurrency). failsafe-go refuses a retry when at least minConcurrency are under way and their share of its executions is above maxRate.",
			"It differs in three details. failsafe-go takes a retry's permit after the retry's delay and releases it when that attempt ends; the replay's budget grants the retry when the attempt fails, before the delay, so it holds each retry for longer and refuses more. failsafe-go's executions count every request in progress, those waiting out a delay too, where Envoy's attempts in flight count only those sent; so failsafe-go's denominator is larger and it admits more. And it admits a retry at a share equal to maxRate, where Envoy's rule is strict.",
			"Each of the replay's requests is one failsafe-go execution (failsafe.With(rp).Run), its retries the retry policy's; failsafe-go counts only what runs through an executor whose policy holds the budget.",
		},
		scopes:   []sim.BudgetScope{sim.ScopeDevice, sim.ScopeFleet},
		scopeWhy: "A Budget is a value passed to each retry policy's WithBudget: device is a budget per device; fleet is one budget every device's policy is given.",
	},
	{
		module:  "github.com/failsafe-go/failsafe-go",
		name:    "circuitbreaker.NewWithDefaults()",
		observe: observeFailsafeBreaker,
		assumed: []string{
			"The replay's breaker budget is this breaker: closed, it opens when FailureThreshold of the last FailureCapacity outcomes are failures; open, it rejects every attempt for Delay; then it half-opens at the next attempt, lets SuccessCapacity through, and closes on SuccessThreshold successes of them or opens again.",
			"The replay records every attempt's outcome with the breaker, a timeout as a failure, as failsafe.With(retryPolicy, breaker) does with the breaker inside the retry policy; an attempt the open breaker rejects fails at once (circuitbreaker.ErrOpen) and the request's retries go on as the replay's engine has them. failsafe-go's count-based thresholds are the ones read; its time-based thresholds (WithFailureThresholdPeriod, WithFailureRateThreshold) are not modelled.",
		},
		scopes:   []sim.BudgetScope{sim.ScopeDevice, sim.ScopeFleet},
		scopeWhy: "A CircuitBreaker is a value each executor is built with: device is a breaker per device; fleet is one breaker every device's executor shares.",
	},
}

// errThrottling is an AWS throttling error, as a service's error with the
// code ThrottlingException is.
type errThrottling struct{}

func (errThrottling) Error() string     { return "ThrottlingException: Rate exceeded" }
func (errThrottling) ErrorCode() string { return "ThrottlingException" }

// errTimeout is a timeout, as a net.Error reports one.
type errTimeout struct{}

func (errTimeout) Error() string { return "i/o timeout" }
func (errTimeout) Timeout() bool { return true }

// grpcThrottlingConfig is the service config of the gRPC row: throttling,
// and a retry policy that retries UNAVAILABLE after 1ms, up to 10
// attempts (grpc.WithMaxCallAttempts lifts the cap of 5), so that an RPC
// stops at the throttle, not at its attempts.
const grpcThrottlingConfig = `{
	"methodConfig": [{
		"name": [{"service": "grpc.health.v1.Health"}],
		"retryPolicy": {"maxAttempts": 10, "initialBackoff": "0.001s", "maxBackoff": "0.001s", "backoffMultiplier": 1, "retryableStatusCodes": ["UNAVAILABLE"]}
	}],
	"retryThrottling": {"maxTokens": %s, "tokenRatio": 0.1}
}`

// grpcMaxAttempts is the retry policy's maxAttempts in grpcThrottlingConfig.
const grpcMaxAttempts = 10

// healthServer answers Check with UNAVAILABLE while failing is set, and
// counts the calls: the attempts the client made.
type healthServer struct {
	healthpb.UnimplementedHealthServer
	failing atomic.Bool
	calls   atomic.Int64
}

func (h *healthServer) Check(context.Context, *healthpb.HealthCheckRequest) (*healthpb.HealthCheckResponse, error) {
	h.calls.Add(1)
	if h.failing.Load() {
		return nil, status.Error(codes.Unavailable, "overloaded")
	}
	return &healthpb.HealthCheckResponse{Status: healthpb.HealthCheckResponse_SERVING}, nil
}

// grpcThrottleRig is an in-process server on a bufconn listener and the
// way to make ClientConns to it.
type grpcThrottleRig struct {
	lis *bufconn.Listener
	srv *healthServer
}

func newGRPCThrottleRig(t *testing.T) *grpcThrottleRig {
	t.Helper()
	r := &grpcThrottleRig{lis: bufconn.Listen(1 << 16), srv: &healthServer{}}
	s := grpc.NewServer()
	healthpb.RegisterHealthServer(s, r.srv)
	go func() { _ = s.Serve(r.lis) }()
	t.Cleanup(s.Stop)
	return r
}

// client returns a ClientConn to the rig with the service config of
// maxTokens, or the error grpc.NewClient gave.
func (r *grpcThrottleRig) client(t *testing.T, maxTokens string) (*grpc.ClientConn, error) {
	t.Helper()
	cc, err := grpc.NewClient("passthrough:///bufnet",
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return r.lis.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithMaxCallAttempts(grpcMaxAttempts),
		grpc.WithDefaultServiceConfig(fmt.Sprintf(grpcThrottlingConfig, maxTokens)))
	if err == nil {
		t.Cleanup(func() { _ = cc.Close() })
	}
	return cc, err
}

// attempts makes one RPC on cc and returns the attempts the server saw.
func (r *grpcThrottleRig) attempts(t *testing.T, cc *grpc.ClientConn, fail bool) int64 {
	t.Helper()
	r.srv.failing.Store(fail)
	before := r.srv.calls.Load()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	_, err := healthpb.NewHealthClient(cc).Check(ctx, &healthpb.HealthCheckRequest{}, grpc.WaitForReady(true))
	if fail {
		require.Equal(t, codes.Unavailable, status.Code(err), "a failing RPC: %v", err)
	} else {
		require.NoError(t, err)
	}
	return r.srv.calls.Load() - before
}

// observeGRPCThrottling makes RPCs through real ClientConns against an
// in-process server that answers UNAVAILABLE, and counts the attempts.
func observeGRPCThrottling(t *testing.T) (sim.Budget, []string) {
	const maxTokens, tokenRatio = 10, 0.1
	r := newGRPCThrottleRig(t)
	var notes []string

	_, err := r.client(t, "1001")
	require.Error(t, err, "grpc.NewClient accepted maxTokens 1001")
	notes = append(notes, fmt.Sprintf("grpc.NewClient(\"passthrough:///bufnet\", grpc.WithDefaultServiceConfig(...)) parses the retryThrottling it is given: it accepts maxTokens %d, tokenRatio %g, and refuses maxTokens 1001 (%q).", maxTokens, tokenRatio, err.Error()))

	// A fresh ClientConn, every RPC failing: the first stops when a
	// failure leaves the tokens at half, the next retry nothing.
	cc, err := r.client(t, "10")
	require.NoError(t, err)
	var first []int64
	for range 4 {
		first = append(first, r.attempts(t, cc, true))
	}
	notes = append(notes, fmt.Sprintf("Against a bufconn server whose Check always answers UNAVAILABLE, with a retry policy of up to %d attempts (grpc.WithMaxCallAttempts(%d)), consecutive RPCs on one fresh ClientConn made %s attempts: the first stops at %d attempts, when the tokens fall from %d to %g (a retry is made only above maxTokens/2), and no later one retries.",
		grpcMaxAttempts, grpcMaxAttempts, joinList(first), first[0], maxTokens, float64(maxTokens)/2))

	// Another ClientConn is not drained by the first: the throttler is
	// the channel's.
	other, err := r.client(t, "10")
	require.NoError(t, err)
	notes = append(notes, fmt.Sprintf("A second ClientConn to the same server, made after the first was drained, made %d attempts on its first failing RPC: each ClientConn holds its own tokens.", r.attempts(t, other, true)))

	// Successes refill by tokenRatio: drained to 0, how many successful
	// RPCs make a failing one retry again? Each probe is a fresh channel.
	retriesAfter := func(successes int) int64 {
		cc, err := r.client(t, "10")
		require.NoError(t, err)
		for range 2 * maxTokens {
			r.attempts(t, cc, true)
		}
		for range successes {
			r.attempts(t, cc, false)
		}
		return r.attempts(t, cc, true)
	}
	lo, hi := 0, 200 // retriesAfter(lo) == 1 < retriesAfter(hi)
	require.Greater(t, retriesAfter(hi), int64(1), "no retry after %d successes", hi)
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if retriesAfter(mid) > 1 {
			hi = mid
		} else {
			lo = mid
		}
	}
	notes = append(notes, fmt.Sprintf("Drained to 0 tokens by %d failing RPCs, a ClientConn retries a failing RPC again after %d successful ones and not after %d: at %g a success, %d successes bring the tokens to %.1f, one failure then leaves %.1f, above %g.",
		2*maxTokens, hi, lo, tokenRatio, hi, float64(hi)*tokenRatio, float64(hi)*tokenRatio-1, float64(maxTokens)/2))
	return sim.Budget{Kind: sim.GRPC, MaxTokens: maxTokens, TokenRatio: tokenRatio}, notes
}

// joinList writes items as "a, b and c".
func joinList[T any](xs []T) string {
	s := ""
	for i, x := range xs {
		switch {
		case i == 0:
		case i == len(xs)-1:
			s += " and "
		default:
			s += ", "
		}
		s += fmt.Sprint(x)
	}
	return s
}

// standardOptions returns a fresh standard retryer with the options
// NewStandard built it with: its defaults, as the option function sees
// them.
func standardOptions() (*awsretry.Standard, awsretry.StandardOptions) {
	var o awsretry.StandardOptions
	s := awsretry.NewStandard(func(so *awsretry.StandardOptions) { o = *so })
	return s, o
}

// observeAWSQuota reads the standard retryer's options and measures its
// bucket and what each kind of retry takes from it.
func observeAWSQuota(t *testing.T) (sim.Budget, []string) {
	ctx := t.Context()
	_, o := standardOptions()
	limiter, ok := o.RateLimiter.(*awsratelimit.TokenRateLimit)
	require.True(t, ok, "the default RateLimiter is a %T", o.RateLimiter)
	notes := []string{fmt.Sprintf("retry.NewStandard(func(o *retry.StandardOptions){...}) hands its option function the defaults: RateLimiter %T, RetryCost %d, RetryTimeoutCost %d, ThrottlingRetryCost %d, NoRetryIncrement %d, MaxAttempts %d.",
		o.RateLimiter, o.RetryCost, o.RetryTimeoutCost, o.ThrottlingRetryCost, o.NoRetryIncrement, o.MaxAttempts)}

	capacity := 0
	for ; capacity < 1_000_000; capacity++ {
		if _, err := limiter.GetToken(ctx, 1); err != nil {
			notes = append(notes, fmt.Sprintf("Its bucket gave %d tokens to GetToken(ctx, 1) before it failed (%q).", capacity, err.Error()))
			break
		}
	}

	// What GetRetryToken takes after each kind of error, from a fresh
	// retryer each.
	cost := func(err error) uint {
		s, o := standardOptions()
		l := o.RateLimiter.(*awsratelimit.TokenRateLimit)
		before := l.Remaining()
		_, gerr := s.GetRetryToken(ctx, err)
		require.NoError(t, gerr)
		return before - l.Remaining()
	}
	transient, timeout, throttle := cost(errUnavailable), cost(errTimeout{}), cost(errThrottling{})
	notes = append(notes, fmt.Sprintf("Standard.GetRetryToken took %d tokens (TokenRateLimit.Remaining before and after) after a 503, %d after a timeout (an error whose Timeout() is true) and %d after a throttling error (ErrorCode \"ThrottlingException\").", transient, timeout, throttle))

	s, o := standardOptions()
	l := o.RateLimiter.(*awsratelimit.TokenRateLimit)
	release, err := s.GetRetryToken(ctx, errUnavailable)
	require.NoError(t, err)
	taken := l.Remaining()
	require.NoError(t, release(nil))
	refunded := l.Remaining()
	first, err := s.GetAttemptToken(ctx)
	require.NoError(t, err)
	require.NoError(t, first(nil))
	full := l.Remaining()
	_, err = s.GetRetryToken(ctx, errUnavailable)
	require.NoError(t, err)
	afterRetry := l.Remaining()
	first, err = s.GetAttemptToken(ctx)
	require.NoError(t, err)
	require.NoError(t, first(nil))
	increment := l.Remaining() - afterRetry
	notes = append(notes, fmt.Sprintf("A retry token's release after a success gave its cost back (%d → %d tokens); a first attempt's token (GetAttemptToken) released after a success added %d (%d → %d), and nothing beyond the capacity (%d stayed %d).",
		taken, refunded, increment, afterRetry, afterRetry+increment, refunded, full))

	s1, o1 := standardOptions()
	_, o2 := standardOptions()
	for range 3 {
		_, err := s1.GetRetryToken(ctx, errUnavailable)
		require.NoError(t, err)
	}
	notes = append(notes, fmt.Sprintf("Two NewStandard() retryers hold two buckets: after three retries on one, it has %d tokens and the other %d.",
		o1.RateLimiter.(*awsratelimit.TokenRateLimit).Remaining(), o2.RateLimiter.(*awsratelimit.TokenRateLimit).Remaining()))

	b := sim.Budget{Kind: sim.AWS2026, MaxTokens: float64(capacity), RetryCost: float64(transient), ThrottleCost: float64(throttle), NoRetryIncrement: float64(increment)}
	if timeout != transient {
		b = sim.Budget{Kind: sim.AWS, MaxTokens: float64(capacity), RetryCost: float64(transient), TimeoutCost: float64(timeout), NoRetryIncrement: float64(increment)}
	}
	return b, notes
}

// failsafeAdmitted runs n executions at once, in a synctest bubble, each
// through a retry policy sharing one budget.New(): each first attempt
// fails, execution i retries after (i+1)ms, one at a time, and each retry
// admitted blocks until every execution has tried. It returns how many
// retries the budget admitted.
func failsafeAdmitted(t *testing.T, n int) int {
	var admitted, refused atomic.Int64
	synctest.Test(t, func(t *testing.T) {
		b := budget.New()
		release := make(chan struct{})
		var wg sync.WaitGroup
		for i := range n {
			rp := retrypolicy.NewBuilder[any]().
				WithMaxRetries(1).
				WithDelay(time.Duration(i+1) * time.Millisecond).
				WithBudget(b).
				Build()
			wg.Go(func() {
				attempt := 0
				err := failsafe.With(rp).Run(func() error {
					attempt++
					if attempt == 1 {
						return errUnavailable
					}
					admitted.Add(1)
					<-release
					return nil
				})
				if errors.Is(err, budget.ErrExceeded) {
					refused.Add(1)
				}
			})
		}
		time.Sleep(time.Duration(n+1) * time.Millisecond)
		synctest.Wait()
		require.Equal(t, int64(n), admitted.Load()+refused.Load(), "of %d executions, %d retried and %d were refused", n, admitted.Load(), refused.Load())
		close(release)
		wg.Wait()
	})
	return int(admitted.Load())
}

// observeFailsafeBudget counts the concurrent retries budget.New() admits
// of several fleets of executions, and derives its parameters.
func observeFailsafeBudget(t *testing.T) (sim.Budget, []string) {
	sizes := []int{5, 20, 50}
	got := make([]int, len(sizes))
	var counts []string
	for i, n := range sizes {
		got[i] = failsafeAdmitted(t, n)
		counts = append(counts, fmt.Sprintf("%d of %d", got[i], n))
	}
	// Of n executions, the k-th retry is admitted when k−1 are under way
	// and either k−1 < minConcurrency or (k−1)/(n+k−1) ≤ maxRate (the
	// executions count the n requests and the retries under way).
	minConc := got[0]
	lo, hi := 0.0, 1.0
	for i, n := range sizes {
		if k := got[i]; k > minConc {
			lo = max(lo, float64(k-1)/float64(n+k-1))
		}
		hi = min(hi, float64(got[i])/float64(n+got[i]))
	}
	require.True(t, lo <= 0.2 && 0.2 < hi, "the admitted retries put maxRate in [%v, %v), not at the documented 0.2", lo, hi)
	notes := []string{
		fmt.Sprintf("In a testing/synctest bubble, executions run at once through failsafe.With(retrypolicy.NewBuilder[any]().WithMaxRetries(1).WithDelay(...).WithBudget(b)), all sharing one b := budget.New(); each first attempt fails, the retries come 1ms apart and each admitted retry stays under way: the budget admitted %s.", joinList(counts)),
		fmt.Sprintf("With %d and %d executions, the shares of retries under way among the executions at the last retry admitted and at the first refused put maxRate in [%.3f, %.3f): the documented 0.2. With %d executions it admitted a retry at %d under way, a share of %d/%d above that maxRate, and refused one at %d: minConcurrency is %d, as documented.",
			sizes[1], sizes[2], lo, hi, sizes[0], got[0]-1, got[0]-1, sizes[0]+got[0]-1, got[0], minConc),
	}
	return sim.Budget{Kind: sim.Envoy, Percent: 0.2, MinConcurrency: minConc}, notes
}

// observeFailsafeBreaker watches circuitbreaker.NewWithDefaults() change
// state under the fake clock of a synctest bubble.
func observeFailsafeBreaker(t *testing.T) (sim.Budget, []string) {
	var (
		notes  []string
		delay  time.Duration
		probes int
	)
	synctest.Test(t, func(t *testing.T) {
		cb := circuitbreaker.NewWithDefaults[any]()
		require.True(t, cb.IsClosed())
		cb.RecordFailure()
		require.True(t, cb.IsOpen(), "one failure left the breaker %s", cb.State())
		delay = cb.RemainingDelay()
		start := time.Now()
		time.Sleep(delay - time.Nanosecond)
		stillOpen := cb.IsOpen() && !cb.TryAcquirePermit()
		require.True(t, stillOpen, "the breaker is %s %v after it opened", cb.State(), time.Since(start))
		time.Sleep(time.Nanosecond)
		require.True(t, cb.TryAcquirePermit(), "no permit %v after the breaker opened", time.Since(start))
		require.True(t, cb.IsHalfOpen(), "the breaker is %s after its delay", cb.State())
		probes = 1
		for cb.TryAcquirePermit() {
			probes++
		}
		cb.RecordSuccess()
		require.True(t, cb.IsClosed(), "one success left the half-open breaker %s", cb.State())
		notes = append(notes, fmt.Sprintf("In a testing/synctest bubble: one RecordFailure() opened a fresh breaker; RemainingDelay() was then %s; after time.Sleep of %s it was still open and TryAcquirePermit() refused; %s after it opened TryAcquirePermit() granted a permit and the breaker was half-open; while half-open it granted %d permit in all; one RecordSuccess() closed it.",
			prose.FormatDuration(delay), (delay-time.Nanosecond).String(), prose.FormatDuration(delay), probes))

		cb = circuitbreaker.NewWithDefaults[any]()
		cb.RecordFailure()
		time.Sleep(delay)
		require.True(t, cb.TryAcquirePermit())
		cb.RecordFailure()
		require.True(t, cb.IsOpen(), "a failed probe left the breaker %s", cb.State())
		notes = append(notes, "A half-open breaker's one failed probe (RecordFailure() after its permit) opened it again.")
	})
	notes = append(notes, "Not observed: the failure capacity, as 1 failure opens a breaker whatever the count it is held over; NewBuilder's defaults read 1 failure of 1 (failureThreshold, failureThresholdingCapacity).")
	return sim.Budget{Kind: sim.Breaker, FailureThreshold: 1, FailureCapacity: 1, Delay: delay, SuccessThreshold: 1, SuccessCapacity: probes}, notes
}
