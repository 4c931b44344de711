package kit

import (
	"fmt"
	"time"
)

// A NextBackOffer is the delay method of cenkalti/backoff's BackOff (v4 and
// v5): NextBackOff returns the next delay, or -1 (backoff.Stop) to stop.
type NextBackOffer interface {
	NextBackOff() time.Duration
	Reset()
}

// FromNextBackOff returns the policy of b, reset first. A delay of -1, the
// libraries' Stop, ends the schedule.
func FromNextBackOff(b NextBackOffer) Policy {
	b.Reset()
	return nextBackOff{b}
}

type nextBackOff struct{ b NextBackOffer }

func (p nextBackOff) Next() (time.Duration, error) {
	d := p.b.NextBackOff()
	if d == -1 {
		return 0, ErrStop
	}
	return d, nil
}

// A Nexter is the delay method of sethvargo/go-retry's Backoff: Next returns
// the next delay, and true to stop.
type Nexter interface {
	Next() (time.Duration, bool)
}

// FromNext returns the policy of b.
func FromNext(b Nexter) Policy { return nexter{b} }

type nexter struct{ b Nexter }

func (p nexter) Next() (time.Duration, error) {
	d, stop := p.b.Next()
	if stop {
		return 0, ErrStop
	}
	return d, nil
}

// A BackoffDelayer is the delay method of aws-sdk-go-v2's retry backoff:
// BackoffDelay returns the delay before retry number attempt, counting from 1,
// after the error err.
type BackoffDelayer interface {
	BackoffDelay(attempt int, err error) (time.Duration, error)
}

// FromBackoffDelay returns the policy of b, asked for attempts 1, 2, 3, ...
// with err as the error that each attempt failed with. It never stops: the
// SDK's retryers stop at their attempt limit (MaxAttempts) before they ask
// for a delay, so to stop as the SDK does after m attempts, wrap the policy
// in [Limit] with m-1 delays.
//
// An error from BackoffDelay is returned as it is, a failure of the source:
// the SDK's backoffs fail only when they cannot draw their jitter (their
// random source), and the SDK then fails the request with that error rather
// than giving up quietly. Taking it for a stop would hide a broken library
// behind a policy that merely looks short.
func FromBackoffDelay(b BackoffDelayer, err error) Policy {
	return &backoffDelay{b: b, err: err}
}

type backoffDelay struct {
	b       BackoffDelayer
	err     error
	attempt int
}

func (p *backoffDelay) Next() (time.Duration, error) {
	p.attempt++
	d, err := p.b.BackoffDelay(p.attempt, p.err)
	if err != nil {
		return 0, fmt.Errorf("BackoffDelay(%d): %w", p.attempt, err)
	}
	return d, nil
}

// FromFunc returns the policy whose delay before retry number attempt,
// counting from 1, is f(attempt). It never stops.
//
// A backoff whose attempt 0 is the wait before the first try fits FromFunc
// when that first try is the one that fails with the fleet, as a request
// sent when the server goes down is: f(0) is then no retry's delay, and
// FromFunc, asking f(1) first, leaves it out. When the loop starts at the
// failure instead, as a reconnect loop starts when its connection drops,
// its first try is a retry, made after f(0): that is [FromIndex].
func FromFunc(f func(attempt int) time.Duration) Policy {
	return &funcPolicy{f: f}
}

type funcPolicy struct {
	f       func(int) time.Duration
	attempt int
}

func (p *funcPolicy) Next() (time.Duration, error) {
	p.attempt++
	return p.f(p.attempt), nil
}

// FromIndex returns the policy whose delay before retry i+1 is f(i), i
// counting from 0, as the retry loops that index their schedule count:
// go-retryablehttp's Backoff is asked for attemptNum 0 before the first
// retry. It never stops; [Limit] stops it where the loop does (RetryMax).
//
// FromIndex fits a reconnect backoff whose attempt 0 is the wait before
// the first try to reconnect: the loop starts when the connection drops,
// with the whole fleet's, so f(0) is the delay of its first retry, and
// the checks judge it as the first delay. An f(0) of 0, or of exactly the
// base, for every device brings the whole fleet back at one instant,
// which the checks report however well the later delays spread. A loop
// whose f(0) is the wait before a first try that fails with the fleet
// retries first after f(1): that is [FromFunc].
func FromIndex(f func(i int) time.Duration) Policy {
	return &funcPolicy{f: f, attempt: -1}
}

// FromDelayFunc returns the policy whose each delay is the next call of
// f, a function told no attempt number that keeps its own place in the
// schedule, as k8s.io/apimachinery's wait.DelayFunc does (wait.Backoff's
// DelayFunc method returns one and leaves the Backoff as it was, so one
// Backoff value gives every device its own). A method value of the same
// shape, such as a wait.Backoff's Step, fits as well. Each device needs an
// f of its own, used by one goroutine at a time. It never stops, nor does
// the loop of a DelayFunc (its Until method); a loop that stops after n
// delays is the policy wrapped in [Limit].
func FromDelayFunc(f func() time.Duration) Policy { return delayFunc(f) }

type delayFunc func() time.Duration

func (f delayFunc) Next() (time.Duration, error) { return f(), nil }

// A Stepper is the delay method of k8s.io/apimachinery's wait.Backoff: each
// call to Step returns the next delay and moves the backoff on. It is told
// no attempt number and has no way to stop.
type Stepper interface {
	Step() time.Duration
}

// FromStep returns the policy of s, which never stops. wait.Backoff keeps
// returning its last delay once its Steps run out, and the loops around it
// (wait.ExponentialBackoff) stop after Steps calls: to stop as they do,
// read Steps before the first call and wrap the policy in [Limit].
func FromStep(s Stepper) Policy { return stepper{s} }

type stepper struct{ s Stepper }

func (p stepper) Next() (time.Duration, error) { return p.s.Step(), nil }

// Limit returns p stopped after n delays, as a retry loop with a limit on
// attempts stops whatever its backoff would give next: the policy returns
// [ErrStop] from then on without asking p. A p that stops or fails earlier
// does so through Limit too. When p is [FakeClocked], so is the result. n
// below 0 panics.
func Limit(p Policy, n int) Policy {
	if n < 0 {
		panic(fmt.Sprintf("kit: Limit of %d delays", n))
	}
	l := &limited{p: p, left: n}
	if c, ok := p.(FakeClocked); ok {
		return limitedClocked{l, c}
	}
	return l
}

type limited struct {
	p    Policy
	left int
}

func (l *limited) Next() (time.Duration, error) {
	if l.left == 0 {
		return 0, ErrStop
	}
	l.left--
	return l.p.Next()
}

// limitedClocked is a limited FakeClocked policy, still FakeClocked.
type limitedClocked struct {
	*limited
	c FakeClocked
}

func (l limitedClocked) ClockStart() time.Time { return l.c.ClockStart() }

// FromSlice returns the policy that waits the given delays in order and then
// stops, as a recorded trace does.
func FromSlice(delays []time.Duration) Policy {
	return &slicePolicy{delays: delays}
}

type slicePolicy struct{ delays []time.Duration }

func (p *slicePolicy) Next() (time.Duration, error) {
	if len(p.delays) == 0 {
		return 0, ErrStop
	}
	d := p.delays[0]
	p.delays = p.delays[1:]
	return d, nil
}
