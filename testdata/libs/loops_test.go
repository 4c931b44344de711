package libs

import (
	"context"
	"errors"
	"net"
	"sync/atomic"
	"testing"
	"time"

	retryavast "github.com/avast/retry-go/v4"
	"github.com/failsafe-go/failsafe-go"
	"github.com/failsafe-go/failsafe-go/retrypolicy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/loop"
	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/properties"
)

// Retry loops as users ship them, observed by the loop adapter under a
// fake clock of each device's own: the libraries here never hand out a
// delay, they wait it themselves.

// handWritten is the loop a user writes by hand: try, and sleep d between
// tries, for ever. It has no context: its op is the adapter's with the
// loop's context closed over, and it ignores cancellation, so the adapter
// ends it with runtime.Goexit at its limit.
func handWritten(d time.Duration) loop.Loop {
	return func(ctx context.Context, call func(context.Context) error) error {
		op := func() error { return call(ctx) }
		for {
			if op() == nil {
				return nil
			}
			time.Sleep(d)
		}
	}
}

// failsafeLoop runs op through failsafe-go's executor with the retry
// policy rp, which waits on a timer between attempts and stops when ctx is
// cancelled.
func failsafeLoop(rp retrypolicy.RetryPolicy[any]) loop.Loop {
	return func(ctx context.Context, op func(context.Context) error) error {
		return failsafe.With(rp).WithContext(ctx).Run(func() error { return op(ctx) })
	}
}

// failsafeBackoff is failsafe-go's exponential backoff, 100ms doubling to
// 10s, retrying for ever.
func failsafeBackoff() retrypolicy.Builder[any] {
	return retrypolicy.NewBuilder[any]().WithBackoff(100*time.Millisecond, 10*time.Second).WithMaxRetries(-1)
}

// avastLoop runs op through avast/retry-go's Do with its default delay
// (100ms·2ⁿ plus up to 100ms of random delay) and the given options, with
// ctx, so that Do stops at the adapter's limit.
func avastLoop(opts ...retryavast.Option) loop.Loop {
	return func(ctx context.Context, op func(context.Context) error) error {
		return retryavast.Do(func() error { return op(ctx) }, append(opts, retryavast.Context(ctx))...)
	}
}

func each(l loop.Loop) func(kit.Device) loop.Loop {
	return func(kit.Device) loop.Loop { return l }
}

// verdicts runs the suite as Check does, without failing t, and logs each
// check's status and figure.
func verdicts(t *testing.T, f kit.Factory, cfg properties.Config) properties.Outcome {
	t.Helper()
	out, err := properties.RunFrozen(t, f, cfg)
	require.NoError(t, err)
	require.NoError(t, out.Err, "the loop could not be observed")
	logFigures(t, out)
	return out
}

// statuses returns each check's status by name.
func statuses(out properties.Outcome) map[string]verdict.Status {
	m := map[string]verdict.Status{}
	for _, r := range out.Results {
		m[r.Name] = r.Status
	}
	return m
}

func TestLoopHandWritten(t *testing.T) {
	f := loop.Factory(t, each(handWritten(2*time.Second)), loop.Config{})
	got, err := kit.Delays(f(kit.Device{ID: "dev-000001"}), 5)
	require.NoError(t, err)
	assert.Equal(t, []time.Duration{2 * time.Second, 2 * time.Second, 2 * time.Second, 2 * time.Second, 2 * time.Second}, got)

	out := verdicts(t, f, properties.Config{Cap: 2 * time.Second})
	s := statuses(out)
	// Every device retries every 2s after the same outage: no spread, one
	// sequence for all, and nothing for a frozen clock to collapse.
	assert.Equal(t, verdict.Fail, s[properties.NameSpread])
	assert.Equal(t, verdict.Fail, s[properties.NameClusters])
	assert.Equal(t, verdict.Inconclusive, s[properties.NameFrozenClock])
	assert.Equal(t, verdict.Fail, s[properties.NameCapPhase])
	assert.Equal(t, verdict.Pass, s[properties.NameBounds])
	assert.Equal(t, verdict.Pass, s[properties.NameReproducibility])
}

func TestLoopFailsafeWithoutJitter(t *testing.T) {
	f := loop.Factory(t, each(failsafeLoop(failsafeBackoff().Build())), loop.Config{})
	got, err := kit.Delays(f(kit.Device{ID: "dev-000001"}), 9)
	require.NoError(t, err)
	ms := time.Millisecond
	assert.Equal(t, []time.Duration{100 * ms, 200 * ms, 400 * ms, 800 * ms, 1600 * ms, 3200 * ms, 6400 * ms, 10 * time.Second, 10 * time.Second}, got,
		"failsafe-go's documented backoff: the delay doubles from 100ms to the 10s max")

	out := verdicts(t, f, properties.Config{Cap: 10 * time.Second})
	s := statuses(out)
	assert.Equal(t, verdict.Fail, s[properties.NameSpread], "exponential backoff without jitter must fail spread")
	assert.Equal(t, verdict.Fail, s[properties.NameClusters])
	assert.Equal(t, verdict.Fail, s[properties.NameCapPhase])
}

func TestLoopFailsafeWithJitter(t *testing.T) {
	rp := failsafeBackoff().WithJitter(100 * time.Millisecond).Build()
	f := loop.Factory(t, each(failsafeLoop(rp)), loop.Config{})
	out := verdicts(t, f, properties.Config{Cap: 10*time.Second + 100*time.Millisecond})
	s := statuses(out)
	assert.Equal(t, verdict.Pass, s[properties.NameSpread])
	assert.Equal(t, verdict.Pass, s[properties.NameFrozenClock])
	// failsafe-go draws its jitter from math/rand's global generator: the
	// same device gets other delays when it is made again.
	assert.Equal(t, verdict.Warn, s[properties.NameReproducibility])
	// ±100ms against a 10s maximum is a CV of 0.006 at the cap.
	assert.Equal(t, verdict.Fail, s[properties.NameCapPhase])
}

// A jitter factor scales with the delay, so it holds at the cap: Check
// passes, and logs reproducibility's warning.
func TestLoopFailsafeWithJitterFactor(t *testing.T) {
	rp := failsafeBackoff().WithJitterFactor(0.5).Build()
	properties.Check(t, loop.Factory(t, each(failsafeLoop(rp)), loop.Config{}), properties.Config{Cap: 15 * time.Second})
}

func TestLoopAvastUntilSucceeded(t *testing.T) {
	f := loop.Factory(t, each(avastLoop(retryavast.UntilSucceeded())), loop.Config{})
	out := verdicts(t, f, properties.Config{})
	s := statuses(out)
	assert.Equal(t, verdict.Fail, s[properties.NameCapPhase], "100ms·2ⁿ plus at most 100ms of jitter: the jitter vanishes against the window")
}

func TestLoopAvastAttempts(t *testing.T) {
	f := loop.Factory(t, each(avastLoop(retryavast.Attempts(5))), loop.Config{})
	p := f(kit.Device{ID: "dev-000001"})
	got, err := kit.Delays(p, 10)
	require.NoError(t, err, "Do gives up after 5 attempts: the policy stops")
	assert.Len(t, got, 4, "5 attempts, 4 delays")
	out := verdicts(t, f, properties.Config{})
	s := statuses(out)
	assert.Equal(t, verdict.Pass, s[properties.NameSpread])
	// Its fourth and last delay, 800ms plus up to 100ms, lies beyond the
	// three that spread examines: cap-phase judges it, and its fixed
	// 100ms of jitter has already shrunk against the doubled window.
	assert.Equal(t, verdict.Fail, s[properties.NameCapPhase])
}

// errRefused is what the in-memory dialers of the reconnect loops fail
// with, as a server that refuses connections does.
var errRefused = errors.New("connection refused (jitterkit's in-memory server is down)")

// refusingDialer returns a gRPC context dialer that calls op, the attempt
// the adapter records, and fails every dial with errRefused, counting the
// dials on dials. No socket is opened: the dial stays inside the device's
// bubble, where a real one would be I/O the fake clock cannot see.
func refusingDialer(op func(context.Context) error, dials *atomic.Int64) func(context.Context, string) (net.Conn, error) {
	return func(ctx context.Context, _ string) (net.Conn, error) {
		if err := op(ctx); errors.Is(err, context.Canceled) {
			return nil, err
		}
		dials.Add(1)
		return nil, errRefused
	}
}

// newGRPCClient returns a gRPC client with its default options (its
// connection backoff is backoff.DefaultConfig: 1s, ×1.6, ±20%, at most
// 120s, and MinConnectTimeout 20s) whose every dial refuses, through
// refusingDialer. extra adds dial options.
func newGRPCClient(op func(context.Context) error, dials *atomic.Int64, extra ...grpc.DialOption) (*grpc.ClientConn, error) {
	opts := append([]grpc.DialOption{
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithContextDialer(refusingDialer(op, dials)),
	}, extra...)
	return grpc.NewClient("passthrough:///server", opts...)
}

// grpcLoop is a gRPC client that connects and waits for its context:
// grpc-go reconnects on its own with its connection backoff, and each
// attempt calls op and is refused. dials counts the refused dials. extra
// adds dial options.
func grpcLoop(dials *atomic.Int64, extra ...grpc.DialOption) loop.Loop {
	return func(ctx context.Context, op func(context.Context) error) error {
		cc, err := newGRPCClient(op, dials, extra...)
		if err != nil {
			return err
		}
		defer cc.Close()
		cc.Connect()
		<-ctx.Done()
		return ctx.Err()
	}
}

// A grpc.ClientConn that is never used goes idle after 30 minutes
// (grpc-go's default idle timeout) and stops reconnecting until an RPC
// asks for it: no goroutine of it waits on a timer any more, and the
// adapter reports the device as blocked for ever.
func TestLoopGRPCGoesIdle(t *testing.T) {
	var dials atomic.Int64
	f := loop.Factory(t, each(grpcLoop(&dials)), loop.Config{})
	got, err := kit.Delays(f(kit.Device{ID: "dev-000001"}), 32)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "loop: blocked for ever after")
	var sum time.Duration
	for _, d := range got {
		sum += d
	}
	assert.Greater(t, len(got), 15, "delays before it went idle: %v", got)
	assert.Less(t, sum, 30*time.Minute, "it stopped within its 30 minutes of idleness: %v", got)
	assert.Equal(t, int64(len(got)+1), dials.Load(), "every attempt was a dial, refused")
}

// With idleness turned off, grpc-go reconnects for ever: its backoff's
// first delay is BaseDelay with no jitter, the same 1s for every device,
// while at the cap its ±20% spreads. The scoreboard (TestScoreboard) holds
// the checks' verdicts on this schedule.
func TestLoopGRPCConnectionBackoff(t *testing.T) {
	var dials atomic.Int64
	f := loop.Factory(t, each(grpcLoop(&dials, grpc.WithIdleTimeout(0))), loop.Config{})
	got, err := kit.Delays(f(kit.Device{ID: "dev-000001"}), 32)
	require.NoError(t, err)
	require.Len(t, got, 32)
	assert.Equal(t, int64(32), dials.Load(), "every attempt but the last, where the adapter cancels the loop, was a dial, refused")
	assert.Equal(t, time.Second, got[0], "grpc-go's first backoff is BaseDelay, without jitter")
	for i, d := range got[12:] {
		assert.InDelta(t, 120, d.Seconds(), 24, "delay %d at the cap: 120s ± 20%%", i+12)
	}
}
