package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/jitterkit/jitterkit/internal/prose"
	"github.com/jitterkit/jitterkit/kit"
)

// Envoy is Envoy's retry budget: a retry is made while the retries
// under way are fewer than max(Percent × the attempts in flight,
// MinConcurrency). A retry is under way from when it is granted until
// the client learns its outcome; an attempt is in flight from when it
// is sent until then. Defaults: 20%, 3.
const Envoy BudgetKind = "envoy"

// envoyBudget is the model of Envoy's retry budget, as its
// RetryBudget (envoy.config.cluster.v3.CircuitBreakers.Thresholds)
// documents it.
type envoyBudget struct{}

func (envoyBudget) kind() BudgetKind    { return Envoy }
func (envoyBudget) keys() []string      { return []string{"percent", "min"} }
func (envoyBudget) limitsRetries() bool { return true }

func (envoyBudget) defaults(b Budget) Budget {
	def(&b.Percent, defaultBudgetPercent)
	def(&b.MinConcurrency, defaultMinConcurrency)
	return b
}

func (envoyBudget) check(b Budget) error {
	return firstError(
		checkPercent(b),
		budgetRange("percent", b.Percent, 0, 10, true),
		budgetRange("min", float64(b.MinConcurrency), 0, maxBudgetCount, false),
	)
}

func (envoyBudget) describe(b Budget) string {
	return fmt.Sprintf("Envoy's retry budget (retries under way below %g%% of the attempts in flight, and at least %d)", 100*b.Percent, b.MinConcurrency)
}

func (envoyBudget) name() string { return "Envoy's retry budget" }

func (envoyBudget) level() (string, string, []string) {
	return "free retry slots", "free retry slots of the Envoy budget", nil
}

func (envoyBudget) newState(b Budget, _ *rand.Rand) budgetState {
	return &envoyState{percent: b.Percent, min: b.MinConcurrency}
}

func (envoyBudget) memory(Budget) (int64, int64, time.Duration) { return 0, 0, 0 }

// neverBinds compares the retries each device lets be under way, each for
// up to a timeout, with the capacity.
func (envoyBudget) neverBinds(s Scenario, b Budget, n, c float64, each, capacity string) string {
	if got := float64(b.MinConcurrency) * n / s.Timeout.Seconds(); got >= c {
		return fmt.Sprintf("The budget cannot hold the retries below the server's capacity, whatever the storm: %s lets %d retries be under way whatever its load, %s × %d = %s at once, each under way up to its %s timeout: up to %s retries a second, at least %s.",
			each, b.MinConcurrency, prose.FormatCount(int64(s.Clients)), b.MinConcurrency, count(float64(b.MinConcurrency)*n), prose.FormatDuration(s.Timeout), count(got), capacity)
	}
	return ""
}

// allowed is the load over 1−Percent, without bound from a Percent of 1.
func (envoyBudget) allowed(b Budget, rate, n float64) (float64, string) {
	if b.Percent >= 1 {
		return math.Inf(1), fmt.Sprintf("%s requests a second, with retries up to %g%% of the attempts in flight: no bound", count(rate), 100*b.Percent)
	}
	allowed := rate / (1 - b.Percent)
	return allowed, fmt.Sprintf("%s requests a second, with retries up to %g%% of the attempts in flight: %s / (1 − %g) = %s a second", count(rate), 100*b.Percent, count(rate), b.Percent, count(allowed))
}

func (envoyBudget) headroomLoad(b Budget, n, c float64) float64 { return max(0, c*(1-b.Percent)) }

// envoyState is an Envoy budget: the attempts in flight and the retries
// under way.
type envoyState struct {
	percent  float64
	min      int
	inFlight int
	retrying int
}

func (e *envoyState) admit(int64, bool) (bool, float64) { e.inFlight++; return true, 0 }

func (e *envoyState) ended(_ int64, _ kit.Outcome, retry bool, _ float64) {
	e.inFlight--
	if retry {
		e.retrying--
	}
}

func (e *envoyState) allowed() float64 {
	return max(e.percent*float64(e.inFlight), float64(e.min))
}

func (e *envoyState) retry(int64, kit.Outcome) (bool, float64) {
	if float64(e.retrying) >= e.allowed() {
		return false, 0
	}
	e.retrying++
	return true, 0
}

func (e *envoyState) abandon(float64) { e.retrying-- }

func (e *envoyState) level(int64) float64 { return e.allowed() - float64(e.retrying) }
