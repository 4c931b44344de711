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
func FromIndex(f func(i int) time.Duration) Policy {
	return &funcPolicy{f: f, attempt: -1}
}

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
