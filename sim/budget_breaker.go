package sim

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/jitterkit/jitterkit/internal/prose"
	"github.com/jitterkit/jitterkit/kit"
)

// Breaker is a count-based circuit breaker, failsafe-go's: closed, it
// opens when FailureThreshold of the last FailureCapacity outcomes are
// failures; open, the client rejects every attempt itself for Delay,
// then half-opens and lets SuccessCapacity attempts through at a time;
// once SuccessCapacity of them have ended it closes if SuccessThreshold
// succeeded, and opens again otherwise. Defaults, failsafe-go's
// NewWithDefaults: opens after 1 failure of 1, a delay of 1m, closes
// after 1 success of 1.
const Breaker BudgetKind = "breaker"

// breakerBudget is the model of failsafe-go's count-based circuit
// breaker (its circuitbreaker package).
type breakerBudget struct{}

func (breakerBudget) kind() BudgetKind { return Breaker }
func (breakerBudget) keys() []string {
	return []string{"failures", "of", "delay", "successes", "probes"}
}

// limitsRetries is false: an open breaker rejects first attempts too.
func (breakerBudget) limitsRetries() bool { return false }

func (breakerBudget) defaults(b Budget) Budget {
	def(&b.FailureThreshold, 1)
	def(&b.FailureCapacity, b.FailureThreshold)
	def(&b.Delay, defaultBreakerDelay)
	def(&b.SuccessThreshold, 1)
	def(&b.SuccessCapacity, b.SuccessThreshold)
	return b
}

func (breakerBudget) check(b Budget) error {
	switch {
	case b.FailureCapacity < b.FailureThreshold:
		return invalid("budget: of %d is fewer than failures %d: the breaker counts failures among the last of outcomes", b.FailureCapacity, b.FailureThreshold)
	case b.SuccessCapacity < b.SuccessThreshold:
		return invalid("budget: probes %d is fewer than successes %d: the breaker closes once successes of its probes succeed", b.SuccessCapacity, b.SuccessThreshold)
	}
	return firstError(
		budgetRange("failures", float64(b.FailureThreshold), 1, maxBudgetCount, false),
		budgetRange("of", float64(b.FailureCapacity), float64(b.FailureThreshold), maxBudgetCount, false),
		budgetRange("delay", b.Delay.Seconds(), 0, maxBudgetPeriod.Seconds(), true),
		budgetRange("successes", float64(b.SuccessThreshold), 1, maxBudgetCount, false),
		budgetRange("probes", float64(b.SuccessCapacity), float64(b.SuccessThreshold), maxBudgetCount, false),
	)
}

func (breakerBudget) describe(b Budget) string {
	return fmt.Sprintf("a circuit breaker (open after %s of the last %d outcomes, for %s; closed once %s of %d probes)", plural(b.FailureThreshold, "failure"), b.FailureCapacity, prose.FormatDuration(b.Delay), plural(b.SuccessThreshold, "success"), b.SuccessCapacity)
}

func (breakerBudget) name() string { return "failsafe-go's circuit breaker" }

func (breakerBudget) level() (string, string, []string) {
	return "breaker state", "circuit breaker's state", []string{"closed", "half-open", "open"}
}

func (breakerBudget) newState(b Budget, _ *rand.Rand) budgetState {
	return &breakerState{b: b, delay: int64(b.Delay)}
}

// memory is the ring of the last outcomes.
func (breakerBudget) memory(b Budget) (int64, int64, time.Duration) {
	return 8 * int64(b.FailureCapacity), 0, 0
}

// breakerState is a count-based circuit breaker. A probe's ticket is the
// number of the half-open spell that let it through, from 1.
type breakerState struct {
	b     Budget
	delay int64
	state int   // breakerClosed, breakerHalfOpen or breakerOpen
	until int64 // when an open breaker half-opens
	// Closed, the last FailureCapacity outcomes (true for a failure) in a
	// ring, and the failures among them; half-open, the probes under way
	// and the outcomes of those that ended.
	ring               []bool
	next, failures     int
	probing            int
	probed, successful int
	spell              int // the half-open spells so far
}

// The breaker's states, as its level draws them.
const (
	breakerClosed = iota
	breakerHalfOpen
	breakerOpen
)

func (c *breakerState) admit(t int64, _ bool) (bool, float64) {
	if c.state == breakerOpen && t >= c.until {
		c.state, c.probing, c.probed, c.successful = breakerHalfOpen, 0, 0, 0
		c.spell++
	}
	switch c.state {
	case breakerOpen:
		return false, 0
	case breakerHalfOpen:
		if c.probing >= c.b.SuccessCapacity {
			return false, 0
		}
		c.probing++
		return true, float64(c.spell)
	}
	return true, 0
}

func (c *breakerState) open(t int64) {
	c.state, c.until = breakerOpen, t+c.delay
	c.ring, c.next, c.failures = c.ring[:0], 0, 0
}

// ended records an outcome: closed, every attempt's; half-open, a probe's.
// Any other (an attempt let through while closed that ends once the
// breaker has opened, or a probe of an earlier half-open spell) changes
// nothing.
func (c *breakerState) ended(t int64, o kit.Outcome, _ bool, probe float64) {
	failed := o != kit.Success
	switch {
	case c.state == breakerClosed && probe == 0:
		if len(c.ring) < c.b.FailureCapacity {
			c.ring = append(c.ring, failed)
		} else {
			if c.ring[c.next] {
				c.failures--
			}
			c.ring[c.next] = failed
			c.next = (c.next + 1) % c.b.FailureCapacity
		}
		if failed {
			c.failures++
		}
		if len(c.ring) == c.b.FailureCapacity && c.failures >= c.b.FailureThreshold {
			c.open(t)
		}
	case c.state == breakerHalfOpen && probe == float64(c.spell):
		c.probing--
		c.probed++
		if !failed {
			c.successful++
		}
		switch {
		case c.successful >= c.b.SuccessThreshold:
			c.state = breakerClosed
		case c.probed-c.successful > c.b.SuccessCapacity-c.b.SuccessThreshold:
			c.open(t)
		}
	}
}

func (c *breakerState) retry(int64, kit.Outcome) (bool, float64) { return true, 0 }

func (c *breakerState) abandon(float64) {}

func (c *breakerState) level(t int64) float64 {
	if c.state == breakerOpen && t >= c.until {
		return breakerHalfOpen
	}
	return float64(c.state)
}
