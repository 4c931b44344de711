package sim

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/jitterkit/jitterkit/internal/prose"
	"github.com/jitterkit/jitterkit/kit"
)

// AWS is the AWS SDK's retry quota, its standard retryer's legacy costs
// (aws-sdk-go-v2's DefaultRetryCost and DefaultRetryTimeoutCost): a
// quota of MaxTokens; a retry costs RetryCost, or TimeoutCost after a
// timeout, and is made only when the quota holds its cost; a request
// whose first attempt succeeds adds NoRetryIncrement, and a successful
// retry gives its cost back, within MaxTokens. Defaults: 500, 5, 10, 1.
const AWS BudgetKind = "aws"

// AWS2026 is the same quota with the SDK's newer costs: RetryCost 14
// for a timeout or any other transient error, ThrottleCost 5 after a
// rejection, the server's throttling.
const AWS2026 BudgetKind = "aws2026"

// awsBudget is the model of the AWS SDK's retry quota (aws-sdk-go-v2's
// aws/retry package, its costs, and aws/ratelimit, its token bucket):
// newer for AWS2026, the same quota with the newer costs.
type awsBudget struct{ newer bool }

func (m awsBudget) kind() BudgetKind {
	if m.newer {
		return AWS2026
	}
	return AWS
}

func (m awsBudget) keys() []string {
	if m.newer {
		return []string{"tokens", "cost", "throttle-cost", "increment"}
	}
	return []string{"tokens", "cost", "timeout-cost", "increment"}
}

func (awsBudget) limitsRetries() bool { return true }

func (m awsBudget) defaults(b Budget) Budget {
	def(&b.MaxTokens, defaultAWSTokens)
	def(&b.NoRetryIncrement, defaultNoRetryIncrement)
	if m.newer {
		def(&b.RetryCost, defaultAWS2026RetryCost)
		def(&b.ThrottleCost, defaultAWSThrottleCost)
	} else {
		def(&b.RetryCost, defaultAWSRetryCost)
		def(&b.TimeoutCost, defaultAWSTimeoutCost)
	}
	return b
}

func (m awsBudget) check(b Budget) error {
	cost := budgetRange("timeout-cost", b.TimeoutCost, 0, maxBudgetUnits, true)
	if m.newer {
		cost = budgetRange("throttle-cost", b.ThrottleCost, 0, maxBudgetUnits, true)
	}
	return firstError(
		budgetRange("tokens", b.MaxTokens, 0, maxBudgetUnits, true),
		budgetRange("cost", b.RetryCost, 0, maxBudgetUnits, true),
		cost,
		budgetRange("increment", b.NoRetryIncrement, 0, maxBudgetUnits, false),
	)
}

func (m awsBudget) describe(b Budget) string {
	if m.newer {
		return fmt.Sprintf("the AWS SDK's retry quota with its newer costs (%g tokens, %g a retry, %g after a rejection)", b.MaxTokens, b.RetryCost, b.ThrottleCost)
	}
	return fmt.Sprintf("the AWS SDK's retry quota (%g tokens, %g a retry, %g after a timeout)", b.MaxTokens, b.RetryCost, b.TimeoutCost)
}

func (m awsBudget) name() string {
	if m.newer {
		return "the AWS SDK's retry quota with its newer costs"
	}
	return "the AWS SDK's retry quota"
}

func (awsBudget) level() (string, string, []string) {
	return "tokens", "tokens in the AWS retry quota", nil
}

func (awsBudget) newState(b Budget, _ *rand.Rand) budgetState {
	return &awsState{b: b, tokens: b.MaxTokens}
}

func (awsBudget) memory(Budget) (int64, int64, time.Duration) { return 0, 0, 0 }

// cheapest returns the least a retry costs: its RetryCost, or with the
// newer costs the throttling cost, if less.
func (m awsBudget) cheapest(b Budget) float64 {
	if m.newer {
		return min(b.RetryCost, b.ThrottleCost)
	}
	return b.RetryCost
}

// neverBinds compares the retries the devices' quotas hold with what the
// server serves from the trigger's end to the horizon.
func (m awsBudget) neverBinds(s Scenario, b Budget, n, c float64, each, capacity string) string {
	cost := m.cheapest(b)
	retries := b.MaxTokens / cost * n
	span := (s.Horizon - s.recoveryStart()).Seconds()
	if retries >= c*span {
		return fmt.Sprintf("The budget cannot run out within the replay: %s holds a quota of %s tokens, %s retries of %s, %s retries in all, at least the %s jobs the server serves from the trigger's end to the %s horizon.",
			each, count(b.MaxTokens), count(b.MaxTokens/cost), count(cost), count(retries), count(c*span), prose.FormatDuration(s.Horizon))
	}
	return ""
}

// allowed is a retry of the cheapest cost for each cost/increment first
// successes.
func (m awsBudget) allowed(b Budget, rate, n float64) (float64, string) {
	cost := m.cheapest(b)
	allowed := rate * (1 + b.NoRetryIncrement/cost)
	return allowed, fmt.Sprintf("%s requests a second, with a retry of %g tokens for each %g first successes: %s × (1 + %g/%g) = %s a second", count(rate), cost, cost/b.NoRetryIncrement, count(rate), b.NoRetryIncrement, cost, count(allowed))
}

func (m awsBudget) headroomLoad(b Budget, n, c float64) float64 {
	return c / (1 + b.NoRetryIncrement/m.cheapest(b))
}

// awsState is the AWS SDK's retry quota.
type awsState struct {
	b      Budget
	tokens float64
}

func (a *awsState) admit(int64, bool) (bool, float64) { return true, 0 }

// ended adds a first attempt's success's increment, or gives back the
// cost a successful retry paid, its ticket.
func (a *awsState) ended(_ int64, o kit.Outcome, retry bool, paid float64) {
	switch {
	case o != kit.Success:
	case retry:
		a.tokens = min(a.b.MaxTokens, a.tokens+paid)
	default:
		a.tokens = min(a.b.MaxTokens, a.tokens+a.b.NoRetryIncrement)
	}
}

func (a *awsState) cost(o kit.Outcome) float64 {
	switch {
	case a.b.Kind == AWS && o == kit.Timeout:
		return a.b.TimeoutCost
	case a.b.Kind == AWS2026 && o == kit.Rejection:
		return a.b.ThrottleCost
	}
	return a.b.RetryCost
}

func (a *awsState) retry(_ int64, o kit.Outcome) (bool, float64) {
	c := a.cost(o)
	if a.tokens < c {
		return false, 0
	}
	a.tokens -= c
	return true, c
}

func (a *awsState) abandon(paid float64) { a.tokens = min(a.b.MaxTokens, a.tokens+paid) }

func (a *awsState) level(int64) float64 { return a.tokens }
