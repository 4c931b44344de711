package sim

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/jitterkit/jitterkit/kit"
)

// GRPC is gRPC's retry throttling: a token count starts at MaxTokens;
// each failed attempt takes one and each success adds TokenRatio,
// within [0, MaxTokens]; a retry is made only while the count, after
// the failure's, is above MaxTokens/2. Defaults: 10, 0.1.
const GRPC BudgetKind = "grpc"

// grpcBudget is the model of gRPC's retry throttling, as gRFC A6
// (client retries) specifies it.
type grpcBudget struct{}

func (grpcBudget) kind() BudgetKind    { return GRPC }
func (grpcBudget) keys() []string      { return []string{"tokens", "ratio"} }
func (grpcBudget) limitsRetries() bool { return true }

func (grpcBudget) defaults(b Budget) Budget {
	def(&b.MaxTokens, defaultGRPCTokens)
	def(&b.TokenRatio, defaultTokenRatio)
	return b
}

func (grpcBudget) check(b Budget) error {
	return firstError(
		budgetRange("tokens", b.MaxTokens, 0, maxBudgetUnits, true),
		budgetRange("ratio", b.TokenRatio, 0, maxBudgetUnits, true),
	)
}

func (grpcBudget) describe(b Budget) string {
	return fmt.Sprintf("gRPC's retry throttling (%g tokens, %g back a success, retrying above %g)", b.MaxTokens, b.TokenRatio, b.MaxTokens/2)
}

func (grpcBudget) name() string { return "gRPC's retry throttling" }

func (grpcBudget) level() (string, string, []string) {
	return "tokens", "gRPC retry tokens", nil
}

func (grpcBudget) newState(b Budget, _ *rand.Rand) budgetState {
	return &grpcState{max: b.MaxTokens, ratio: b.TokenRatio, tokens: b.MaxTokens}
}

func (grpcBudget) memory(Budget) (int64, int64, time.Duration) { return 0, 0, 0 }

// neverBinds is never: the tokens run out under any storm of failures.
func (grpcBudget) neverBinds(Scenario, Budget, float64, float64, string, string) string { return "" }

// allowed is a retry for each 1/TokenRatio successes.
func (grpcBudget) allowed(b Budget, rate, n float64) (float64, string) {
	allowed := rate * (1 + b.TokenRatio)
	return allowed, fmt.Sprintf("%s requests a second, with a retry for each %g successes: %s × %g = %s a second", count(rate), 1/b.TokenRatio, count(rate), 1+b.TokenRatio, count(allowed))
}

func (grpcBudget) headroomLoad(b Budget, n, c float64) float64 { return c / (1 + b.TokenRatio) }

// grpcState is gRPC's retry throttling.
type grpcState struct {
	max, ratio, tokens float64
}

func (g *grpcState) admit(int64, bool) (bool, float64) { return true, 0 }

func (g *grpcState) ended(_ int64, o kit.Outcome, _ bool, _ float64) {
	if o == kit.Success {
		g.tokens = min(g.max, g.tokens+g.ratio)
	} else {
		g.tokens = max(0, g.tokens-1)
	}
}

func (g *grpcState) retry(int64, kit.Outcome) (bool, float64) { return g.tokens > g.max/2, 0 }

func (g *grpcState) abandon(float64) {}

func (g *grpcState) level(int64) float64 { return g.tokens }
