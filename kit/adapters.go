package kit

import "time"

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
// with err as the error that each attempt failed with. An error from
// BackoffDelay ends the schedule, as it ends the SDK's retry loop.
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
		return 0, ErrStop
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
