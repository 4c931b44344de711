package sim

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/jitterkit/jitterkit/internal/prose"
	"github.com/jitterkit/jitterkit/kit"
)

// Finagle is Finagle's RetryBudget: each request deposits Percent of a
// retry, a retry withdraws one, and the deposits and withdrawals count
// for TTL after they are made; beside them a reserve of MinPerSecond·TTL
// retries never expires. A retry is made when the balance (the reserve,
// plus the deposits, minus the withdrawals of the last TTL) is at least
// one. Defaults: 20%, 10 a second, 10s.
const Finagle BudgetKind = "finagle"

// finagleBudget is the model of Finagle's RetryBudget, as
// com.twitter.finagle.service.RetryBudget documents it.
type finagleBudget struct{}

func (finagleBudget) kind() BudgetKind    { return Finagle }
func (finagleBudget) keys() []string      { return []string{"percent", "min", "ttl"} }
func (finagleBudget) limitsRetries() bool { return true }

func (finagleBudget) defaults(b Budget) Budget {
	def(&b.Percent, defaultBudgetPercent)
	def(&b.MinPerSecond, defaultMinPerSecond)
	def(&b.TTL, defaultBudgetTTL)
	return b
}

func (finagleBudget) check(b Budget) error {
	return firstError(
		checkPercent(b),
		budgetRange("percent", b.Percent, 0, 10, true),
		budgetRange("min", b.MinPerSecond, 0, maxBudgetUnits, false),
		budgetRange("ttl", b.TTL.Seconds(), 0, maxBudgetPeriod.Seconds(), true),
	)
}

func (finagleBudget) describe(b Budget) string {
	return fmt.Sprintf("Finagle's retry budget (%g%% of requests plus %g %s a second, over %s)", 100*b.Percent, b.MinPerSecond, map[bool]string{true: "retry", false: "retries"}[b.MinPerSecond == 1], prose.FormatDuration(b.TTL))
}

func (finagleBudget) name() string { return "Finagle's retry budget" }

func (finagleBudget) level() (string, string, []string) {
	return "retries available", "retries the Finagle budget allows", nil
}

func (finagleBudget) newState(b Budget, _ *rand.Rand) budgetState {
	return &finagleState{deposit: b.Percent, reserve: b.MinPerSecond * b.TTL.Seconds(), w: window{span: int64(b.TTL)}}
}

// memory is the window of the deposits and withdrawals, over the TTL.
func (finagleBudget) memory(b Budget) (int64, int64, time.Duration) { return 16 * 16, 1, b.TTL }

// neverBinds compares the devices' reserves with the capacity.
func (finagleBudget) neverBinds(s Scenario, b Budget, n, c float64, each, capacity string) string {
	if got := b.MinPerSecond * n; got >= c {
		return fmt.Sprintf("The budget cannot hold the retries below the server's capacity, whatever the storm: %s holds a reserve of %s retries a second, %s × %s = %s retries a second in all, at least %s.",
			each, count(b.MinPerSecond), prose.FormatCount(int64(s.Clients)), count(b.MinPerSecond), count(got), capacity)
	}
	return ""
}

// allowed is the load, Percent of it, and the reserves.
func (finagleBudget) allowed(b Budget, rate, n float64) (float64, string) {
	allowed := rate*(1+b.Percent) + b.MinPerSecond*n
	return allowed, fmt.Sprintf("%s requests a second, plus %g%% of them and %s retries a second of reserve: %s × %s + %s = %s a second", count(rate), 100*b.Percent, count(b.MinPerSecond*n), strconv.FormatFloat(1+b.Percent, 'g', 6, 64), count(rate), count(b.MinPerSecond*n), count(allowed))
}

func (finagleBudget) headroomLoad(b Budget, n, c float64) float64 {
	return max(0, (c-b.MinPerSecond*n)/(1+b.Percent))
}

// finagleState is a Finagle budget: deposits and withdrawals over the TTL,
// beside the reserve.
type finagleState struct {
	deposit, reserve float64
	w                window // over the TTL
}

func (f *finagleState) admit(t int64, retry bool) (bool, float64) {
	if !retry {
		f.w.add(t, f.deposit)
	}
	return true, 0
}

func (f *finagleState) ended(int64, kit.Outcome, bool, float64) {}

func (f *finagleState) retry(t int64, _ kit.Outcome) (bool, float64) {
	// The sum of deposits and withdrawals is rounded in float64; a
	// tolerance of 1e-9 retry keeps 5 deposits of 0.2 worth one.
	if f.reserve+f.w.at(t) < 1-1e-9 {
		return false, 0
	}
	f.w.add(t, -1)
	return true, 0
}

// abandon leaves the withdrawal made: Finagle's budget is not refunded.
func (f *finagleState) abandon(float64) {}

func (f *finagleState) level(t int64) float64 { return f.reserve + f.w.at(t) }
