package sim

import "time"

// TokenBucket accepts a request when a token is free. Tokens refill
// continuously at AcceptRate per second up to Burst; the bucket is full
// when the server comes up, and accepts nothing while it is down.
const TokenBucket Server = "token-bucket"

// tokenBucket is the TokenBucket server. It fills when it first decides an
// arrival after Down, with Burst tokens as of Down; each arrival at t then
// first adds the tokens refilled since the last one, (t − last)·AcceptRate
// per second, up to Burst, and is accepted, spending a token, when a whole
// token is free. Its tokens carry over from second to second, so it offers
// no shortcut.
type tokenBucket struct {
	rate, burst float64
	down        int64
	tokens      float64
	at          int64 // when tokens was last brought up to date
	up          bool  // the bucket has been filled
}

func newTokenBucket(s Scenario) server {
	return &tokenBucket{rate: s.AcceptRate, burst: s.Burst, down: int64(s.Down)}
}

func (b *tokenBucket) reset() { b.tokens, b.at, b.up = 0, 0, false }

func (b *tokenBucket) second(int64) (shortcut, int64) { return askEach, 0 }

func (b *tokenBucket) accept(t int64) bool {
	if t < b.down {
		return false
	}
	if !b.up {
		b.tokens, b.at, b.up = b.burst, b.down, true
	}
	b.tokens = min(b.burst, b.tokens+float64(t-b.at)*b.rate/1e9)
	b.at = t
	if b.tokens >= 1 {
		b.tokens--
		return true
	}
	return false
}

func (b *tokenBucket) hint() (time.Duration, bool) { return 0, false }
