package libs

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	retryavast "github.com/avast/retry-go/v4"
	retryavast5 "github.com/avast/retry-go/v5"
	awsretry "github.com/aws/aws-sdk-go-v2/aws/retry"
	backoffv4 "github.com/cenkalti/backoff/v4"
	backoffv5 "github.com/cenkalti/backoff/v5"
	"github.com/failsafe-go/failsafe-go/retrypolicy"
	"github.com/hashicorp/go-retryablehttp"
	"github.com/nats-io/nats.go"
	retry "github.com/sethvargo/go-retry"
	"k8s.io/apimachinery/pkg/util/wait"
	k8sretry "k8s.io/client-go/util/retry"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/loop"
)

// An entry is one row of the scoreboard: one library in one
// configuration, the cap the checks hold it to, and how the kit reads its
// delays.
type entry struct {
	// module is the library's module path, as go.mod requires it; the
	// scoreboard prints the version the test binary was built with.
	module string
	// also are other modules the configuration is taken from.
	also []string
	// config is the configuration, in the library's own terms.
	config string
	// source says where the configuration comes from: the library's
	// default, or the documentation that recommends or shows it.
	source string
	// cap is the declared cap every delay is held to (0 declares none),
	// and capWhy how it follows from the configuration.
	cap    time.Duration
	capWhy string
	// through says how the kit reads the delays.
	through string
	// factory makes the policy of each device in test t.
	factory func(t *testing.T) kit.Factory
}

// observedDelays is how many delays the loop adapter observes of each
// device, and so the horizon of the checks' cap phase and the replay's
// MaxAttempts: no device is asked for a delay its loop was not observed to
// wait. Every row reaches its cap within 12 delays; 20 leave the cap phase
// eight delays at the cap, at five eighths of the cost of the checks'
// default horizon of 32.
const observedDelays = 20

// observed returns the factory of the loop each device runs, observed
// under a fake clock of its own.
func observed(l loop.Loop) func(t *testing.T) kit.Factory {
	return func(t *testing.T) kit.Factory {
		return loop.Factory(t, perDevice(l), loop.Config{MaxDelays: observedDelays})
	}
}

// adapted returns the factory f, whatever the test.
func adapted(f kit.Factory) func(*testing.T) kit.Factory {
	return func(*testing.T) kit.Factory { return f }
}

// errUnavailable is the error an attempt fails with, as a server that is
// down answers: retryable, and not a throttling error.
var errUnavailable = errors.New("503 Service Unavailable")

// entries are the rows, in the order the scoreboard shows them.
var entries = []entry{
	{
		module:  "github.com/cenkalti/backoff/v4",
		config:  "NewExponentialBackOff(): 500ms ×1.5 ±50%, MaxInterval 60s, MaxElapsedTime 15m",
		source:  "default; the package doc: \"use Retry\", and its example passes Retry this backoff",
		cap:     90 * time.Second,
		capWhy:  "MaxInterval 60s × (1 + RandomizationFactor 0.5)",
		through: "kit.FromNextBackOff, with a clock that moves on by each delay so that MaxElapsedTime stops it",
		factory: adapted(cenkaltiV4Sleeping),
	},
	{
		module:  "github.com/cenkalti/backoff/v5",
		config:  "Retry(ctx, op): NewExponentialBackOff() (500ms ×1.5 ±50%, MaxInterval 60s), MaxElapsedTime 15m",
		source:  "default; the README: \"for most cases, use Retry\"",
		cap:     90 * time.Second,
		capWhy:  "MaxInterval 60s × (1 + RandomizationFactor 0.5)",
		through: "kit/loop: Retry under a fake clock",
		factory: observed(func(ctx context.Context, op func(context.Context) error) error {
			_, err := backoffv5.Retry(ctx, func() (struct{}, error) { return struct{}{}, op(ctx) })
			return err
		}),
	},
	{
		module:  "github.com/sethvargo/go-retry",
		config:  "Fibonacci(ctx, 1s, f): NewFibonacci(1s), no jitter, no cap, no limit",
		source:  "default: the README's usage",
		capWhy:  "none: the Fibonacci backoff grows without bound",
		through: "kit.FromNext",
		factory: adapted(func(kit.Device) kit.Policy { return kit.FromNext(retry.NewFibonacci(time.Second)) }),
	},
	{
		module:  "github.com/sethvargo/go-retry",
		config:  "WithCappedDuration(2s, WithJitterPercent(5, NewFibonacci(1s))): the cap around the jitter",
		source:  "the README's Jitter and CappedDuration middleware, with its example values",
		cap:     2 * time.Second,
		capWhy:  "CappedDuration 2s, applied after the jitter",
		through: "kit.FromNext",
		factory: adapted(func(kit.Device) kit.Policy {
			return kit.FromNext(retry.WithCappedDuration(2*time.Second, retry.WithJitterPercent(5, retry.NewFibonacci(time.Second))))
		}),
	},
	{
		module:  "github.com/sethvargo/go-retry",
		config:  "WithJitterPercent(5, WithCappedDuration(2s, NewFibonacci(1s))): the jitter around the cap",
		source:  "the same middleware, in the other order",
		cap:     2100 * time.Millisecond,
		capWhy:  "CappedDuration 2s × (1 + 5%)",
		through: "kit.FromNext",
		factory: adapted(func(kit.Device) kit.Policy {
			return kit.FromNext(retry.WithJitterPercent(5, retry.WithCappedDuration(2*time.Second, retry.NewFibonacci(time.Second))))
		}),
	},
	{
		module:  "github.com/avast/retry-go/v4",
		config:  "Do(op): Attempts 10, Delay 100ms, MaxJitter 100ms, CombineDelay(BackOffDelay, RandomDelay)",
		source:  "default; the README's synopsis",
		cap:     25700 * time.Millisecond,
		capWhy:  "the 9th and last delay, 100ms·2⁸ + MaxJitter 100ms",
		through: "kit/loop: Do under a fake clock",
		factory: observed(avastLoop()),
	},
	{
		module:  "github.com/avast/retry-go/v4",
		config:  "Do(op, DelayType(FullJitterBackoffDelay)): uniform in [0, 100ms·2ⁿ), 10 attempts",
		source:  "the library's full-jitter delay type; the docs recommend no configuration",
		cap:     51200 * time.Millisecond,
		capWhy:  "the 9th and last window, 100ms·2⁹",
		through: "kit/loop: Do under a fake clock",
		factory: observed(avastLoop(retryavast.DelayType(retryavast.FullJitterBackoffDelay))),
	},
	{
		module:  "github.com/avast/retry-go/v5",
		config:  "New().Do(op): Attempts 10, Delay 100ms, MaxJitter 100ms, CombineDelay(BackOffDelay, RandomDelay)",
		source:  "default; the README's synopsis sets only Attempts(5) and Delay(100ms)",
		cap:     25700 * time.Millisecond,
		capWhy:  "the 9th and last delay, 100ms·2⁸ + MaxJitter 100ms",
		through: "kit/loop: Do under a fake clock",
		factory: observed(avast5Loop()),
	},
	{
		module:  "github.com/avast/retry-go/v5",
		config:  "New(DelayType(FullJitterBackoffDelay)).Do(op): uniform in [0, 100ms·2ⁿ), 10 attempts",
		source:  "the library's full-jitter delay type; the docs recommend no configuration",
		cap:     51200 * time.Millisecond,
		capWhy:  "the 9th and last window, 100ms·2⁹",
		through: "kit/loop: Do under a fake clock",
		factory: observed(avast5Loop(retryavast5.DelayType(retryavast5.FullJitterBackoffDelay))),
	},
	{
		module:  "github.com/hashicorp/go-retryablehttp",
		config:  "NewClient(): DefaultBackoff, RetryWaitMin 1s, RetryWaitMax 30s, RetryMax 4",
		source:  "default",
		cap:     30 * time.Second,
		capWhy:  "RetryWaitMax",
		through: "kit.FromIndex (Backoff is asked for attemptNum 0, 1, …) and kit.Limit(RetryMax)",
		factory: adapted(retryablehttpIndexed(retryablehttp.DefaultBackoff)),
	},
	{
		module:  "github.com/hashicorp/go-retryablehttp",
		config:  "NewClient() with Backoff = LinearJitterBackoff: uniform in [1s, 30s) × n, RetryMax 4",
		source:  "the library's backoff \"with jitter to prevent a thundering herd\"",
		cap:     120 * time.Second,
		capWhy:  "RetryWaitMax 30s × RetryMax 4",
		through: "kit.FromIndex and kit.Limit(RetryMax)",
		factory: adapted(retryablehttpIndexed(retryablehttp.LinearJitterBackoff)),
	},
	{
		module:  "github.com/aws/aws-sdk-go-v2",
		config:  "aws/retry NewStandard(): MaxAttempts 3, backoff 50ms·2ⁱ full jitter, MaxBackoff 20s",
		source:  "default: the SDK's clients use it",
		cap:     20 * time.Second,
		capWhy:  "MaxBackoff, applied before the jitter",
		through: "kit.FromBackoffDelay on Standard.RetryDelay, kit.Limit(MaxAttempts−1)",
		factory: adapted(awsStandard(awsretry.NewStandard())),
	},
	{
		module:  "github.com/aws/aws-sdk-go-v2",
		config:  "AddWithMaxAttempts(NewStandard(), 5)",
		source:  "the developer guide's example of raising the attempts",
		cap:     20 * time.Second,
		capWhy:  "MaxBackoff, applied before the jitter",
		through: "kit.FromBackoffDelay on RetryDelay, kit.Limit(MaxAttempts−1)",
		factory: adapted(awsStandard(awsretry.AddWithMaxAttempts(awsretry.NewStandard(), 5))),
	},
	{
		module:  "github.com/aws/aws-sdk-go-v2",
		config:  "NewStandard() with Backoff = NewExponentialJitterBackoff(20s): U(0,1)·2ⁿ s, MaxAttempts 3",
		source:  "the legacy backoff, still exported; exactly 20s from attempt 5 on",
		cap:     20 * time.Second,
		capWhy:  "MaxBackoff",
		through: "kit.FromBackoffDelay on RetryDelay, kit.Limit(MaxAttempts−1)",
		factory: adapted(awsStandard(awsretry.NewStandard(func(o *awsretry.StandardOptions) {
			o.Backoff = awsretry.NewExponentialJitterBackoff(o.MaxBackoff)
		}))),
	},
	{
		module:  "k8s.io/apimachinery",
		also:    []string{"k8s.io/client-go"},
		config:  "wait.Backoff client-go retry.DefaultRetry: Steps 5, 10ms, Factor 1, Jitter 0.1",
		source:  "client-go: \"the recommended retry for a conflict\" (RetryOnConflict)",
		cap:     11 * time.Millisecond,
		capWhy:  "10ms × (1 + Jitter 0.1)",
		through: "kit.FromStep and kit.Limit(Steps−1), as wait.ExponentialBackoff sleeps",
		factory: adapted(waitBackoff(k8sretry.DefaultRetry)),
	},
	{
		module:  "k8s.io/apimachinery",
		also:    []string{"k8s.io/client-go"},
		config:  "wait.Backoff client-go retry.DefaultBackoff: Steps 4, 10ms, Factor 5, Jitter 0.1",
		source:  "client-go: \"the recommended backoff for a conflict\" with controllers",
		cap:     275 * time.Millisecond,
		capWhy:  "the 3rd and last delay, 10ms·5² × (1 + Jitter 0.1)",
		through: "kit.FromStep and kit.Limit(Steps−1), as wait.ExponentialBackoff sleeps",
		factory: adapted(waitBackoff(k8sretry.DefaultBackoff)),
	},
	{
		module:  "github.com/failsafe-go/failsafe-go",
		config:  "retrypolicy.NewWithDefaults(): 3 attempts, no delay",
		source:  "default",
		capWhy:  "none: there is no delay",
		through: "kit/loop: the executor under a fake clock",
		factory: observed(failsafeLoop(retrypolicy.NewWithDefaults[any]())),
	},
	{
		module:  "github.com/failsafe-go/failsafe-go",
		config:  "WithBackoff(1s, 30s).WithJitterFactor(.1): 1s doubling to 30s ±10%, 3 attempts",
		source:  "the Retry docs' Delays and Jitter examples, at the default 3 attempts",
		cap:     33 * time.Second,
		capWhy:  "maxDelay 30s × (1 + JitterFactor 0.1)",
		through: "kit/loop: the executor under a fake clock",
		factory: observed(failsafeLoop(retrypolicy.NewBuilder[any]().WithBackoff(time.Second, 30*time.Second).WithJitterFactor(.1).Build())),
	},
	{
		module:  "google.golang.org/grpc",
		config:  "grpc.NewClient defaults: backoff.DefaultConfig 1s ×1.6 ±20% to 120s, MinConnectTimeout 20s",
		source:  "default; the values of gRPC's connection-backoff document",
		cap:     144 * time.Second,
		capWhy:  "MaxDelay 120s × (1 + Jitter 0.2)",
		through: "kit/loop: a real ClientConn, an RPC waiting for the server, whose every dial an in-memory server refuses; the first dial is the attempt at t0",
		factory: observed(grpcWaitingLoop),
	},
	{
		module:  "github.com/eclipse/paho.mqtt.golang",
		config:  "NewClientOptions(): AutoReconnect, 1s doubling to MaxReconnectInterval 10m",
		source:  "default; the README relies on SetAutoReconnect",
		cap:     10 * time.Minute,
		capWhy:  "MaxReconnectInterval",
		through: "kit/loop: a real client whose in-memory broker drops it, the attempt at t0, and refuses every redial",
		factory: observed(pahoLoop(nil)),
	},
	{
		module:  "github.com/nats-io/nats.go",
		config:  "Connect defaults: ReconnectWait 2s + ReconnectJitter [0, 100ms), MaxReconnects 60",
		source:  "default",
		cap:     2100 * time.Millisecond,
		capWhy:  "ReconnectWait 2s + ReconnectJitter 100ms",
		through: "kit/loop: a real connection whose in-memory server drops it, the attempt at t0, and refuses every redial",
		factory: observed(natsLoop()),
	},
	{
		module:  "github.com/nats-io/nats.go",
		config:  "ReconnectJitter(0, 0): ReconnectWait 2s exactly",
		source:  "the jitter option turned off",
		cap:     2 * time.Second,
		capWhy:  "ReconnectWait",
		through: "kit/loop: a real connection whose in-memory server drops it, the attempt at t0, and refuses every redial",
		factory: observed(natsLoop(nats.ReconnectJitter(0, 0))),
	},
	{
		module:  "github.com/nats-io/nats.go",
		config:  "ReconnectJitter(500ms, 2s): ReconnectWait 2s + [0, 500ms)",
		source:  "the README's jitter example",
		cap:     2500 * time.Millisecond,
		capWhy:  "ReconnectWait 2s + ReconnectJitter 500ms",
		through: "kit/loop: a real connection whose in-memory server drops it, the attempt at t0, and refuses every redial",
		factory: observed(natsLoop(nats.ReconnectJitter(500*time.Millisecond, 2*time.Second))),
	},
	{
		module:  "github.com/nats-io/nats.go",
		config:  "CustomReconnectDelay: " + natsCustomSpec + ", drawn per device",
		source:  "the README: \"add your own jitter\"; the delay is the kit's own strategy",
		cap:     natsCustomCap,
		capWhy:  "the strategy's cap",
		through: "kit/loop: a real connection whose in-memory server drops it, the attempt at t0, and refuses every redial",
		factory: func(t *testing.T) kit.Factory {
			spec, err := kit.ParseSpec(natsCustomSpec)
			if err != nil {
				t.Fatal(err)
			}
			policy := spec.Factory()
			return loop.Factory(t, func(d kit.Device) loop.Loop {
				p := policy(d)
				return natsLoop(nats.CustomReconnectDelay(func(int) time.Duration {
					next, _ := p.Next()
					return next
				}))
			}, loop.Config{MaxDelays: observedDelays})
		},
	},
}

// natsCustomSpec is the strategy the CustomReconnectDelay row hands nats,
// and natsCustomCap its cap.
const (
	natsCustomSpec = "decorrelated:base=15s,cap=2m"
	natsCustomCap  = 2 * time.Minute
)

// cenkaltiV4Sleeping is backoff v4's default ExponentialBackOff with a
// clock that moves on by each delay it gives, as a device that sleeps each
// one sees it: MaxElapsedTime (15 minutes) then stops it as it stops the
// device. Under its default clock, the wall clock, the adapter's delays
// are never slept and it would never stop.
func cenkaltiV4Sleeping(kit.Device) kit.Policy {
	clock := &stoppedClock{now: time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)}
	return &sleeping{p: kit.FromNextBackOff(backoffv4.NewExponentialBackOff(backoffv4.WithClockProvider(clock))), clock: clock}
}

// sleeping is a policy whose clock moves on by each delay it gives.
type sleeping struct {
	p     kit.Policy
	clock *stoppedClock
}

func (s *sleeping) Next() (time.Duration, error) {
	d, err := s.p.Next()
	if err == nil {
		s.clock.now = s.clock.now.Add(d)
	}
	return d, err
}

// avast5Loop runs op through avast/retry-go v5's Do with the given
// options, with ctx, so that Do stops at the adapter's limit.
func avast5Loop(opts ...retryavast5.Option) func(context.Context, func(context.Context) error) error {
	return func(ctx context.Context, op func(context.Context) error) error {
		return retryavast5.New(append(opts, retryavast5.Context(ctx))...).Do(func() error { return op(ctx) })
	}
}

// retryablehttpIndexed returns the policy of a default client with the
// given backoff, asked as the client asks it: attemptNum 0 to RetryMax−1,
// with no response.
func retryablehttpIndexed(backoff retryablehttp.Backoff) kit.Factory {
	return func(kit.Device) kit.Policy {
		c := retryablehttp.NewClient()
		c.Backoff = backoff
		return kit.Limit(kit.FromIndex(func(i int) time.Duration {
			return c.Backoff(c.RetryWaitMin, c.RetryWaitMax, i, (*http.Response)(nil))
		}), c.RetryMax)
	}
}

// awsRetryer is the part of aws.Retryer the scoreboard asks.
type awsRetryer interface {
	MaxAttempts() int
	RetryDelay(attempt int, err error) (time.Duration, error)
}

// awsStandard returns the policy of the retryer r for an attempt that
// failed with errUnavailable: its delays before retries 1 to
// MaxAttempts−1. Each device gets the retryer r; its backoff keeps no
// state between calls.
func awsStandard(r awsRetryer) kit.Factory {
	return func(kit.Device) kit.Policy {
		return kit.Limit(kit.FromBackoffDelay(awsretry.BackoffDelayerFunc(r.RetryDelay), errUnavailable), r.MaxAttempts()-1)
	}
}

// waitBackoff returns the policy of b as wait.ExponentialBackoff runs it:
// Steps calls of the condition, with Steps−1 sleeps between them.
func waitBackoff(b wait.Backoff) kit.Factory {
	return func(kit.Device) kit.Policy {
		b := b
		return kit.Limit(kit.FromStep(&b), b.Steps-1)
	}
}
