package sim

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/jitterkit/jitterkit/internal/prose"
	"github.com/jitterkit/jitterkit/kit"
)

// Adaptive is client-side adaptive throttling in the form of Google's
// SRE book: every attempt, first ones too, is rejected by the client
// itself with probability max(0, (requests − K·accepts)/(requests+1)),
// where requests counts the attempts the client made (those it
// rejected too) and accepts those the server answered in time, both
// over the last Window. Defaults: K 2, a window of 2m.
const Adaptive BudgetKind = "adaptive"

// adaptiveBudget is the model of client-side adaptive throttling, in the
// form of the Google SRE book's chapter on handling overload.
type adaptiveBudget struct{}

func (adaptiveBudget) kind() BudgetKind { return Adaptive }
func (adaptiveBudget) keys() []string   { return []string{"k", "window"} }

// limitsRetries is false: the throttle rejects first attempts too.
func (adaptiveBudget) limitsRetries() bool { return false }

func (adaptiveBudget) defaults(b Budget) Budget {
	def(&b.K, defaultAdaptiveK)
	def(&b.Window, defaultAdaptiveWindow)
	return b
}

func (adaptiveBudget) check(b Budget) error {
	return firstError(
		budgetRange("k", b.K, 1, maxBudgetUnits, false),
		budgetRange("window", b.Window.Seconds(), 0, maxBudgetPeriod.Seconds(), true),
	)
}

func (adaptiveBudget) describe(b Budget) string {
	return fmt.Sprintf("adaptive throttling (K=%g over %s)", b.K, prose.FormatDuration(b.Window))
}

func (adaptiveBudget) name() string { return "adaptive throttling" }

func (adaptiveBudget) level() (string, string, []string) {
	return "rejection probability", "chance the adaptive throttle rejects an attempt", nil
}

func (adaptiveBudget) newState(b Budget, rng *rand.Rand) budgetState {
	return &adaptiveState{k: b.K, requests: window{span: int64(b.Window)}, accepts: window{span: int64(b.Window)}, rng: rng}
}

// memory is the windows of the requests and the accepts.
func (adaptiveBudget) memory(b Budget) (int64, int64, time.Duration) {
	return 2 * 16 * 16, 2, b.Window
}

// adaptiveState is the SRE book's adaptive throttling.
type adaptiveState struct {
	k                 float64
	requests, accepts window // over the window
	rng               *rand.Rand
}

// reject returns the chance an attempt at t is rejected.
func (a *adaptiveState) reject(t int64) float64 {
	req, acc := a.requests.at(t), a.accepts.at(t)
	return max(0, (req-a.k*acc)/(req+1))
}

func (a *adaptiveState) admit(t int64, _ bool) (bool, float64) {
	p := a.reject(t)
	a.requests.add(t, 1)
	return p == 0 || a.rng.Float64() >= p, 0
}

func (a *adaptiveState) ended(t int64, o kit.Outcome, _ bool, _ float64) {
	if o == kit.Success {
		a.accepts.add(t, 1)
	}
}

func (a *adaptiveState) retry(int64, kit.Outcome) (bool, float64) { return true, 0 }

func (a *adaptiveState) abandon(float64) {}

func (a *adaptiveState) level(t int64) float64 { return a.reject(t) }
