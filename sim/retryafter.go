package sim

import "time"

// RetryAfter accepts as PerSecond does, but answers every rejection,
// while down too, with a fixed Retry-After hint of RetryAfter that the
// clients obey exactly instead of asking their policy, as
// cenkalti/backoff v5's RetryAfterError and gRPC's pushback do. It shows
// how a constant hint puts a jittered fleet back in lockstep.
const RetryAfter Server = "retry-after"

// retryAfter is the RetryAfter server: the per-second server's quotas and
// shortcuts, and a device rejected at t retries at t + RetryAfter, its
// policy not asked.
type retryAfter struct {
	perSecond
	after time.Duration
}

func newRetryAfter(s Scenario) server {
	return &retryAfter{perSecond: perSecond{rate: s.AcceptRate, down: int64(s.Down)}, after: s.RetryAfter}
}

func (r *retryAfter) hint() (time.Duration, bool) { return r.after, true }
