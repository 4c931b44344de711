package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jitterkit/jitterkit/internal/prose"
	"github.com/jitterkit/jitterkit/kit"
)

// A BudgetKind names a limit on the retries a server model's clients make,
// each in the form its anchor library gives it. Backoff and jitter decide
// when a client retries; a budget decides whether it may.
type BudgetKind string

// The budgets. Each one's parameters are a [Budget]'s fields, whose zero
// values take the anchor's defaults.
const (
	// NoBudget: every retry the policy asks for is made.
	NoBudget BudgetKind = ""
	// Finagle is Finagle's RetryBudget: each request deposits Percent of a
	// retry, a retry withdraws one, and the deposits and withdrawals count
	// for TTL after they are made; beside them a reserve of MinPerSecond·TTL
	// retries never expires. A retry is made when the balance (the reserve,
	// plus the deposits, minus the withdrawals of the last TTL) is at least
	// one. Defaults: 20%, 10 a second, 10s.
	Finagle BudgetKind = "finagle"
	// Envoy is Envoy's retry budget: a retry is made while the retries
	// under way are fewer than max(Percent × the attempts in flight,
	// MinConcurrency). A retry is under way from when it is granted until
	// the client learns its outcome; an attempt is in flight from when it
	// is sent until then. Defaults: 20%, 3.
	Envoy BudgetKind = "envoy"
	// GRPC is gRPC's retry throttling: a token count starts at MaxTokens;
	// each failed attempt takes one and each success adds TokenRatio,
	// within [0, MaxTokens]; a retry is made only while the count, after
	// the failure's, is above MaxTokens/2. Defaults: 10, 0.1.
	GRPC BudgetKind = "grpc"
	// AWS is the AWS SDK's retry quota, its standard retryer's legacy costs
	// (aws-sdk-go-v2's DefaultRetryCost and DefaultRetryTimeoutCost): a
	// quota of MaxTokens; a retry costs RetryCost, or TimeoutCost after a
	// timeout, and is made only when the quota holds its cost; a request
	// whose first attempt succeeds adds NoRetryIncrement, and a successful
	// retry gives its cost back, within MaxTokens. Defaults: 500, 5, 10, 1.
	AWS BudgetKind = "aws"
	// AWS2026 is the same quota with the SDK's newer costs: RetryCost 14
	// for a timeout or any other transient error, ThrottleCost 5 after a
	// rejection, the server's throttling.
	AWS2026 BudgetKind = "aws2026"
	// Adaptive is client-side adaptive throttling in the form of Google's
	// SRE book: every attempt, first ones too, is rejected by the client
	// itself with probability max(0, (requests − K·accepts)/(requests+1)),
	// where requests counts the attempts the client made (those it
	// rejected too) and accepts those the server answered in time, both
	// over the last Window. Defaults: K 2, a window of 2m.
	Adaptive BudgetKind = "adaptive"
	// Breaker is a count-based circuit breaker, failsafe-go's: closed, it
	// opens when FailureThreshold of the last FailureCapacity outcomes are
	// failures; open, the client rejects every attempt itself for Delay,
	// then half-opens and lets SuccessCapacity attempts through at a time;
	// once SuccessCapacity of them have ended it closes if SuccessThreshold
	// succeeded, and opens again otherwise. Defaults, failsafe-go's
	// NewWithDefaults: opens after 1 failure of 1, a delay of 1m, closes
	// after 1 success of 1.
	Breaker BudgetKind = "breaker"
)

// BudgetKinds returns the budgets, in the order of their constants.
func BudgetKinds() []BudgetKind {
	return []BudgetKind{Finagle, Envoy, GRPC, AWS, AWS2026, Adaptive, Breaker}
}

// A BudgetScope says who shares a budget.
type BudgetScope string

const (
	// ScopeDevice gives each device a budget of its own, as a client
	// library does when every device holds one instance.
	ScopeDevice BudgetScope = "device"
	// ScopeFleet gives the whole fleet one budget: a shared proxy or
	// gateway, or one SDK client used by every caller.
	ScopeFleet BudgetScope = "fleet"
)

// BudgetScopes returns the scopes.
func BudgetScopes() []BudgetScope { return []BudgetScope{ScopeDevice, ScopeFleet} }

// A Budget limits the retries of an Overload's clients. Its zero fields
// take the defaults of its Kind (see the kinds); fields of other kinds must
// be zero. Budget.String writes it in the form [ParseBudget] reads.
type Budget struct {
	Kind BudgetKind
	// Scope says who holds the budget; default ScopeDevice.
	Scope BudgetScope

	// Percent is Finagle's and Envoy's share, in (0, 10]: 0.2 for 20%.
	Percent float64
	// MinPerSecond is Finagle's reserve, in retries a second.
	MinPerSecond float64
	// TTL is how long Finagle's deposits and withdrawals count.
	TTL time.Duration
	// MinConcurrency is the retries Envoy lets be under way whatever the
	// attempts in flight.
	MinConcurrency int
	// MaxTokens is gRPC's token count and the AWS quota.
	MaxTokens float64
	// TokenRatio is what a success adds to gRPC's tokens.
	TokenRatio float64
	// RetryCost, TimeoutCost and ThrottleCost are what an AWS retry costs
	// after a failure, a timeout and a rejection; NoRetryIncrement is what
	// a first attempt's success adds.
	RetryCost, TimeoutCost, ThrottleCost, NoRetryIncrement float64
	// K is the adaptive throttle's multiplier of accepts; Window is how
	// far back it counts.
	K      float64
	Window time.Duration
	// FailureThreshold of the last FailureCapacity outcomes open the
	// breaker; it stays open for Delay; half-open, it lets SuccessCapacity
	// attempts through and closes when SuccessThreshold of them succeed.
	FailureThreshold, FailureCapacity int
	Delay                             time.Duration
	SuccessThreshold, SuccessCapacity int
}

// Defaults of the budgets, their anchors'.
const (
	defaultBudgetPercent    = 0.2
	defaultMinPerSecond     = 10
	defaultBudgetTTL        = 10 * time.Second
	defaultMinConcurrency   = 3
	defaultGRPCTokens       = 10
	defaultTokenRatio       = 0.1
	defaultAWSTokens        = 500
	defaultAWSRetryCost     = 5
	defaultAWSTimeoutCost   = 10
	defaultAWS2026RetryCost = 14
	defaultAWSThrottleCost  = 5
	defaultNoRetryIncrement = 1
	defaultAdaptiveK        = 2
	defaultAdaptiveWindow   = 2 * time.Minute
	defaultBreakerDelay     = time.Minute
)

// budgetKeys lists each kind's keys in a spec, in the order String writes
// them, each with its field.
var budgetKeys = map[BudgetKind][]string{
	Finagle:  {"percent", "min", "ttl"},
	Envoy:    {"percent", "min"},
	GRPC:     {"tokens", "ratio"},
	AWS:      {"tokens", "cost", "timeout-cost", "increment"},
	AWS2026:  {"tokens", "cost", "throttle-cost", "increment"},
	Adaptive: {"k", "window"},
	Breaker:  {"failures", "of", "delay", "successes", "probes"},
}

// WithDefaults returns b with its zero fields set to its kind's defaults.
// A budget of no kind stays as it is.
func (b Budget) WithDefaults() Budget {
	if b.Kind == NoBudget {
		return b
	}
	if b.Scope == "" {
		b.Scope = ScopeDevice
	}
	setF := func(x *float64, v float64) {
		if *x == 0 {
			*x = v
		}
	}
	setI := func(x *int, v int) {
		if *x == 0 {
			*x = v
		}
	}
	setD := func(x *time.Duration, v time.Duration) {
		if *x == 0 {
			*x = v
		}
	}
	switch b.Kind {
	case Finagle:
		setF(&b.Percent, defaultBudgetPercent)
		setF(&b.MinPerSecond, defaultMinPerSecond)
		setD(&b.TTL, defaultBudgetTTL)
	case Envoy:
		setF(&b.Percent, defaultBudgetPercent)
		setI(&b.MinConcurrency, defaultMinConcurrency)
	case GRPC:
		setF(&b.MaxTokens, defaultGRPCTokens)
		setF(&b.TokenRatio, defaultTokenRatio)
	case AWS, AWS2026:
		setF(&b.MaxTokens, defaultAWSTokens)
		setF(&b.NoRetryIncrement, defaultNoRetryIncrement)
		if b.Kind == AWS {
			setF(&b.RetryCost, defaultAWSRetryCost)
			setF(&b.TimeoutCost, defaultAWSTimeoutCost)
		} else {
			setF(&b.RetryCost, defaultAWS2026RetryCost)
			setF(&b.ThrottleCost, defaultAWSThrottleCost)
		}
	case Adaptive:
		setF(&b.K, defaultAdaptiveK)
		setD(&b.Window, defaultAdaptiveWindow)
	case Breaker:
		setI(&b.FailureThreshold, 1)
		setI(&b.FailureCapacity, b.FailureThreshold)
		setD(&b.Delay, defaultBreakerDelay)
		setI(&b.SuccessThreshold, 1)
		setI(&b.SuccessCapacity, b.SuccessThreshold)
	}
	return b
}

// Limits of the budgets' parameters.
const (
	minBudgetUnits  = 1e-9 // below, a cost or a share is a rounding error
	maxBudgetUnits  = 1e9
	maxBudgetCount  = 1_000_000
	maxBudgetPeriod = time.Hour
)

// validate reports the first field of b, after defaults, that is out of
// range or not its kind's, named as ParseBudget's key.
func (b Budget) validate() error {
	if b.Kind == NoBudget {
		switch {
		case b.Scope != "" && b == (Budget{Scope: b.Scope}):
			return invalid("budget-scope %s is set without a budget to hold (want a budget of one of %s)", b.Scope, budgetKindNames())
		case b != (Budget{}):
			return invalid("budget: the fields of a budget are set but its kind is not (want one of %s)", budgetKindNames())
		}
		return nil
	}
	keys, ok := budgetKeys[b.Kind]
	if !ok {
		return invalid("budget: unknown kind %q (want one of %s)", string(b.Kind), budgetKindNames())
	}
	if !slices.Contains(BudgetScopes(), b.Scope) {
		return invalid("budget-scope: unknown scope %q (want device or fleet)", string(b.Scope))
	}
	for _, f := range budgetFields(&b) {
		if !f.zero() && !slices.Contains(keys, f.key) {
			return invalid("budget: %s is not a key of the %s budget (want %s)", f.key, b.Kind, strings.Join(keys, ", "))
		}
	}
	switch {
	case b.Kind == Breaker && b.FailureCapacity < b.FailureThreshold:
		return invalid("budget: of %d is fewer than failures %d: the breaker counts failures among the last of outcomes", b.FailureCapacity, b.FailureThreshold)
	case b.Kind == Breaker && b.SuccessCapacity < b.SuccessThreshold:
		return invalid("budget: probes %d is fewer than successes %d: the breaker closes once successes of its probes succeed", b.SuccessCapacity, b.SuccessThreshold)
	case (b.Kind == Finagle || b.Kind == Envoy) && b.Percent > 10:
		return invalid("budget: percent %s is over 10 (1,000%%): a share is written 20%% or 0.2", count(b.Percent))
	}
	between := func(key string, x, lo, hi float64, open bool) error {
		if !(x <= hi) || x < lo || open && x == lo {
			return invalid("budget: %s %s is not in %s%s, %s]", key, count(x), map[bool]string{true: "(", false: "["}[open], count(lo), count(hi))
		}
		return nil
	}
	for _, c := range []struct {
		key      string
		x        float64
		lo, hi   float64
		open     bool
		relevant bool
	}{
		{"percent", b.Percent, 0, 10, true, b.Kind == Finagle || b.Kind == Envoy},
		{"min", b.MinPerSecond, 0, maxBudgetUnits, false, b.Kind == Finagle},
		{"min", float64(b.MinConcurrency), 0, maxBudgetCount, false, b.Kind == Envoy},
		{"ttl", b.TTL.Seconds(), 0, maxBudgetPeriod.Seconds(), true, b.Kind == Finagle},
		{"tokens", b.MaxTokens, 0, maxBudgetUnits, true, b.Kind == GRPC || b.Kind == AWS || b.Kind == AWS2026},
		{"ratio", b.TokenRatio, 0, maxBudgetUnits, true, b.Kind == GRPC},
		{"cost", b.RetryCost, 0, maxBudgetUnits, true, b.Kind == AWS || b.Kind == AWS2026},
		{"timeout-cost", b.TimeoutCost, 0, maxBudgetUnits, true, b.Kind == AWS},
		{"throttle-cost", b.ThrottleCost, 0, maxBudgetUnits, true, b.Kind == AWS2026},
		{"increment", b.NoRetryIncrement, 0, maxBudgetUnits, false, b.Kind == AWS || b.Kind == AWS2026},
		{"k", b.K, 1, maxBudgetUnits, false, b.Kind == Adaptive},
		{"window", b.Window.Seconds(), 0, maxBudgetPeriod.Seconds(), true, b.Kind == Adaptive},
		{"failures", float64(b.FailureThreshold), 1, maxBudgetCount, false, b.Kind == Breaker},
		{"of", float64(b.FailureCapacity), float64(b.FailureThreshold), maxBudgetCount, false, b.Kind == Breaker},
		{"delay", b.Delay.Seconds(), 0, maxBudgetPeriod.Seconds(), true, b.Kind == Breaker},
		{"successes", float64(b.SuccessThreshold), 1, maxBudgetCount, false, b.Kind == Breaker},
		{"probes", float64(b.SuccessCapacity), float64(b.SuccessThreshold), maxBudgetCount, false, b.Kind == Breaker},
	} {
		if c.relevant {
			if err := between(c.key, c.x, c.lo, c.hi, c.open); err != nil {
				return err
			}
		}
	}
	return nil
}

// budgetKindNames lists the kinds for a message.
func budgetKindNames() string {
	var names []string
	for _, k := range BudgetKinds() {
		names = append(names, string(k))
	}
	return strings.Join(names, ", ")
}

// A budgetField is one key of a budget spec and its field.
type budgetField struct {
	key string
	f   *float64
	i   *int
	d   *time.Duration
}

func (f budgetField) zero() bool {
	switch {
	case f.f != nil:
		return *f.f == 0
	case f.i != nil:
		return *f.i == 0
	}
	return *f.d == 0
}

func (f budgetField) String() string {
	switch {
	case f.f != nil:
		if f.key == "percent" {
			// As a percentage when it reads back as the same share.
			p := strconv.FormatFloat(100**f.f, 'g', -1, 64)
			if x, err := strconv.ParseFloat(p, 64); err == nil && x/100 == *f.f {
				return p + "%"
			}
		}
		return strconv.FormatFloat(*f.f, 'g', -1, 64)
	case f.i != nil:
		return strconv.Itoa(*f.i)
	}
	return prose.FormatDuration(*f.d)
}

// budgetFields returns the fields of b, by key; "min" is Finagle's
// MinPerSecond or Envoy's MinConcurrency, and "cost" RetryCost.
func budgetFields(b *Budget) []budgetField {
	min := budgetField{key: "min", f: &b.MinPerSecond}
	if b.Kind == Envoy {
		min = budgetField{key: "min", i: &b.MinConcurrency}
	}
	out := []budgetField{
		{key: "percent", f: &b.Percent}, min, {key: "ttl", d: &b.TTL},
		{key: "tokens", f: &b.MaxTokens}, {key: "ratio", f: &b.TokenRatio},
		{key: "cost", f: &b.RetryCost}, {key: "timeout-cost", f: &b.TimeoutCost},
		{key: "throttle-cost", f: &b.ThrottleCost}, {key: "increment", f: &b.NoRetryIncrement},
		{key: "k", f: &b.K}, {key: "window", d: &b.Window},
		{key: "failures", i: &b.FailureThreshold}, {key: "of", i: &b.FailureCapacity},
		{key: "delay", d: &b.Delay},
		{key: "successes", i: &b.SuccessThreshold}, {key: "probes", i: &b.SuccessCapacity},
	}
	if b.Kind == Envoy {
		out = append(out, budgetField{key: "min-per-second", f: &b.MinPerSecond})
	} else {
		out = append(out, budgetField{key: "min-concurrency", i: &b.MinConcurrency})
	}
	return out
}

// ParseBudget parses a budget spec, KIND[:key=value,...], such as
// "finagle", "finagle:percent=10%,min=5,ttl=30s" or
// "breaker:failures=5,of=10,delay=30s". The keys are a kind's parameters
// (see [BudgetKind]): percent (a share such as 20% or 0.2), min, ttl for
// finagle; percent, min (the concurrency) for envoy; tokens, ratio for
// grpc; tokens, cost, timeout-cost, increment for aws, and tokens, cost,
// throttle-cost, increment for aws2026; k, window for adaptive; failures,
// of, delay, successes, probes for breaker. The scope is set apart; the
// budget is validated with [Scenario.Validate].
func ParseBudget(spec string) (Budget, error) {
	kind, rest, _ := strings.Cut(strings.TrimSpace(spec), ":")
	b := Budget{Kind: BudgetKind(strings.TrimSpace(kind))}
	keys, ok := budgetKeys[b.Kind]
	if !ok {
		return Budget{}, fmt.Errorf("unknown budget %q (want one of %s)", kind, budgetKindNames())
	}
	if strings.TrimSpace(rest) == "" {
		return b, nil
	}
	seen := map[string]bool{}
	for _, pair := range strings.Split(rest, ",") {
		key, value, ok := strings.Cut(strings.TrimSpace(pair), "=")
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		if !ok || key == "" {
			return Budget{}, fmt.Errorf("budget %s: %q: want key=value", b.Kind, strings.TrimSpace(pair))
		}
		if !slices.Contains(keys, key) {
			return Budget{}, fmt.Errorf("budget %s: unknown key %s (want %s)", b.Kind, key, strings.Join(keys, ", "))
		}
		if seen[key] {
			return Budget{}, fmt.Errorf("budget %s: %s given more than once", b.Kind, key)
		}
		seen[key] = true
		var f budgetField
		for _, g := range budgetFields(&b) {
			if g.key == key {
				f = g
			}
		}
		if err := f.set(value); err != nil {
			return Budget{}, fmt.Errorf("budget %s: %s: %w", b.Kind, key, err)
		}
	}
	return b, nil
}

// set parses value into the field.
func (f budgetField) set(value string) error {
	switch {
	case f.d != nil:
		d, err := prose.ParseDuration(value)
		if err != nil {
			return err
		}
		*f.d = d
	case f.i != nil:
		n, err := strconv.Atoi(value)
		if err != nil || n <= 0 {
			return fmt.Errorf("%q is not a positive whole number", value)
		}
		*f.i = n
	default:
		percent := f.key == "percent" && strings.HasSuffix(value, "%")
		text := value
		if percent {
			value = strings.TrimSuffix(value, "%")
		}
		x, err := strconv.ParseFloat(value, 64)
		if err != nil || !(x >= minBudgetUnits) || math.IsInf(x, 0) {
			return fmt.Errorf("%q is not a number of at least %g", text, minBudgetUnits)
		}
		if percent {
			x /= 100 // correctly rounded: "35%" reads as 0.35 does
		}
		*f.f = x
	}
	return nil
}

// String writes b as ParseBudget reads it, its scope apart: the kind,
// then the keys set, in the kind's order. A budget of no kind is "".
func (b Budget) String() string {
	if b.Kind == NoBudget {
		return ""
	}
	var parts []string
	for _, key := range budgetKeys[b.Kind] {
		for _, f := range budgetFields(&b) {
			if f.key == key && !f.zero() {
				parts = append(parts, key+"="+f.String())
			}
		}
	}
	if len(parts) == 0 {
		return string(b.Kind)
	}
	return string(b.Kind) + ":" + strings.Join(parts, ",")
}

// Describe says in one sentence what the budget is and who holds it: the
// scope the replay assumes.
func (b Budget) Describe(clients int) string {
	b = b.WithDefaults()
	var what string
	switch b.Kind {
	case NoBudget:
		return "No retry budget: every retry the policy asks for is made."
	case Finagle:
		what = fmt.Sprintf("Finagle's retry budget (%g%% of requests plus %g %s a second, over %s)", 100*b.Percent, b.MinPerSecond, map[bool]string{true: "retry", false: "retries"}[b.MinPerSecond == 1], prose.FormatDuration(b.TTL))
	case Envoy:
		what = fmt.Sprintf("Envoy's retry budget (retries under way below %g%% of the attempts in flight, and at least %d)", 100*b.Percent, b.MinConcurrency)
	case GRPC:
		what = fmt.Sprintf("gRPC's retry throttling (%g tokens, %g back a success, retrying above %g)", b.MaxTokens, b.TokenRatio, b.MaxTokens/2)
	case AWS:
		what = fmt.Sprintf("the AWS SDK's retry quota (%g tokens, %g a retry, %g after a timeout)", b.MaxTokens, b.RetryCost, b.TimeoutCost)
	case AWS2026:
		what = fmt.Sprintf("the AWS SDK's retry quota with its newer costs (%g tokens, %g a retry, %g after a rejection)", b.MaxTokens, b.RetryCost, b.ThrottleCost)
	case Adaptive:
		what = fmt.Sprintf("adaptive throttling (K=%g over %s)", b.K, prose.FormatDuration(b.Window))
	case Breaker:
		what = fmt.Sprintf("a circuit breaker (open after %s of the last %d outcomes, for %s; closed once %s of %d probes)", plural(b.FailureThreshold, "failure"), b.FailureCapacity, prose.FormatDuration(b.Delay), plural(b.SuccessThreshold, "success"), b.SuccessCapacity)
	}
	if b.Scope == ScopeFleet {
		return fmt.Sprintf("The %s devices share one budget, %s, as they would behind a proxy or a gateway, or with one client for every caller.", prose.FormatCount(int64(clients)), what)
	}
	return fmt.Sprintf("Each of the %s devices holds a budget of its own, %s, as it would with a client library's instance on every device.", prose.FormatCount(int64(clients)), what)
}

// A budgetState is a budget's state in a run, held by one device or by
// the fleet. The engine calls admit when an attempt is about to be sent,
// ended when the client learns the outcome of one it sent, and, after a
// failure, retry before it asks the policy for a delay; abandon gives back
// a retry granted that the request does not make. Times are in
// nanoseconds from the start of the run. A ticket is what the state needs
// to know again of an attempt when it ends: the cost an AWS retry paid, or
// whether a breaker's attempt is a probe; the engine keeps the last one
// admit or retry returned, for the request.
type budgetState interface {
	// admit reports whether the attempt (a retry or a first attempt)
	// may be sent at t; false rejects it at the client.
	admit(t int64, retry bool) (ok bool, ticket float64)
	// ended records the outcome o, at t, of an attempt sent.
	ended(t int64, o kit.Outcome, retry bool, ticket float64)
	// retry reports whether a request whose attempt failed with o at t
	// may retry, and takes what the retry costs.
	retry(t int64, o kit.Outcome) (ok bool, ticket float64)
	// abandon gives back a retry granted that is not made.
	abandon(ticket float64)
	// level is the budget's figure at t, drawn over time: the retries it
	// allows, its tokens, the chance it rejects, or the breaker's state.
	level(t int64) float64
}

// newBudgetState returns a fresh state of b, after defaults; rng draws
// the adaptive throttle's rejections.
func newBudgetState(b Budget, rng *rand.Rand) budgetState {
	switch b.Kind {
	case Finagle:
		return &finagleState{deposit: b.Percent, reserve: b.MinPerSecond * b.TTL.Seconds(), w: window{span: int64(b.TTL)}}
	case Envoy:
		return &envoyState{percent: b.Percent, min: b.MinConcurrency}
	case GRPC:
		return &grpcState{max: b.MaxTokens, ratio: b.TokenRatio, tokens: b.MaxTokens}
	case AWS, AWS2026:
		return &awsState{b: b, tokens: b.MaxTokens}
	case Adaptive:
		return &adaptiveState{k: b.K, requests: window{span: int64(b.Window)}, accepts: window{span: int64(b.Window)}, rng: rng}
	case Breaker:
		return &breakerState{b: b, delay: int64(b.Delay)}
	}
	panic("sim: a budget state of no kind")
}

// A timed is an amount that counts from t.
type timed struct {
	t int64
	x float64
}

// A window sums the amounts added over the last span nanoseconds: an
// amount added at s counts at t for s ≤ t < s+span. The amounts are kept
// in a ring, in the order of their times, which grows by doubling to the
// most that count at once.
type window struct {
	span    int64
	items   []timed // its length is a power of two
	head, n int
	sum     float64
}

func (w *window) add(t int64, x float64) {
	if w.n == len(w.items) {
		items := make([]timed, max(16, 2*len(w.items)))
		for i := range w.n {
			items[i] = w.items[(w.head+i)&(len(w.items)-1)]
		}
		w.items, w.head = items, 0
	}
	w.items[(w.head+w.n)&(len(w.items)-1)] = timed{t, x}
	w.n++
	w.sum += x
}

// at expires the amounts that no longer count at t and returns the sum.
func (w *window) at(t int64) float64 {
	for w.n > 0 && w.items[w.head].t+w.span <= t {
		w.sum -= w.items[w.head].x
		w.head = (w.head + 1) & (len(w.items) - 1)
		w.n--
	}
	if w.n == 0 {
		w.sum = 0 // no rounding left over once nothing counts
	}
	return w.sum
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

// BudgetWarning returns the arithmetic behind the budget warning w of the
// Overload s, after defaults, or "" when s does not have it. The rules
// are the budgets' bounds on the retries a second they let through:
//
//   - finagle: the reserves' MinPerSecond a second each, and Percent of
//     the offered load;
//   - envoy: MinConcurrency retries under way each, each under way for at
//     most the timeout when it times out; and retries at most Percent of
//     the attempts in flight, so that the fleet sends at most
//     Rate/(1−Percent);
//   - grpc: a failure's token back for each 1/TokenRatio successes, so
//     that retries are at most TokenRatio of the load;
//   - aws: NoRetryIncrement a first success, RetryCost a retry, so that
//     retries are at most NoRetryIncrement/RetryCost of the load; each
//     device's quota holds MaxTokens/RetryCost retries.
//
// BudgetNeverBinds compares a device-held budget's floor, times the
// fleet, with the capacity (or, for a quota, with what the server serves
// from the trigger's end to the horizon); BudgetNoHeadroom compares the
// load plus what the budget allows with the capacity.
func (s Scenario) BudgetWarning(w Warning) string {
	s = s.WithDefaults()
	b := s.Budget
	if s.Kind != Overload || b.Kind == NoBudget {
		return ""
	}
	n := 1.0
	if b.Scope == ScopeDevice {
		n = float64(s.Clients)
	}
	c := s.AcceptRate
	capacity := fmt.Sprintf("the server's capacity of %s jobs a second", count(c))
	each := fmt.Sprintf("each of the %s devices", prose.FormatCount(int64(s.Clients)))
	switch w {
	case BudgetNeverBinds:
		if b.Scope != ScopeDevice {
			return ""
		}
		switch b.Kind {
		case Finagle:
			if got := b.MinPerSecond * n; got >= c {
				return fmt.Sprintf("The budget cannot hold the retries below the server's capacity, whatever the storm: %s holds a reserve of %s retries a second, %s × %s = %s retries a second in all, at least %s.",
					each, count(b.MinPerSecond), prose.FormatCount(int64(s.Clients)), count(b.MinPerSecond), count(got), capacity)
			}
		case Envoy:
			if got := float64(b.MinConcurrency) * n / s.Timeout.Seconds(); got >= c {
				return fmt.Sprintf("The budget cannot hold the retries below the server's capacity, whatever the storm: %s lets %d retries be under way whatever its load, %s × %d = %s at once, each under way up to its %s timeout: up to %s retries a second, at least %s.",
					each, b.MinConcurrency, prose.FormatCount(int64(s.Clients)), b.MinConcurrency, count(float64(b.MinConcurrency)*n), prose.FormatDuration(s.Timeout), count(got), capacity)
			}
		case AWS, AWS2026:
			cost := b.cheapestRetry()
			retries := b.MaxTokens / cost * n
			span := (s.Horizon - s.recoveryStart()).Seconds()
			if retries >= c*span {
				return fmt.Sprintf("The budget cannot run out within the replay: %s holds a quota of %s tokens, %s retries of %s, %s retries in all, at least the %s jobs the server serves from the trigger's end to the %s horizon.",
					each, count(b.MaxTokens), count(b.MaxTokens/cost), count(cost), count(retries), count(c*span), prose.FormatDuration(s.Horizon))
			}
		}
	case BudgetNoHeadroom:
		if s.BudgetWarning(BudgetNeverBinds) != "" {
			return "" // the stronger warning says it
		}
		rate := s.Rate
		var allowed float64
		var how string
		switch b.Kind {
		case Finagle:
			allowed = rate*(1+b.Percent) + b.MinPerSecond*n
			how = fmt.Sprintf("%s requests a second, plus %g%% of them and %s retries a second of reserve: %s × %s + %s = %s a second", count(rate), 100*b.Percent, count(b.MinPerSecond*n), strconv.FormatFloat(1+b.Percent, 'g', 6, 64), count(rate), count(b.MinPerSecond*n), count(allowed))
		case Envoy:
			if b.Percent >= 1 {
				allowed = math.Inf(1)
				how = fmt.Sprintf("%s requests a second, with retries up to %g%% of the attempts in flight: no bound", count(rate), 100*b.Percent)
			} else {
				allowed = rate / (1 - b.Percent)
				how = fmt.Sprintf("%s requests a second, with retries up to %g%% of the attempts in flight: %s / (1 − %g) = %s a second", count(rate), 100*b.Percent, count(rate), b.Percent, count(allowed))
			}
		case GRPC:
			allowed = rate * (1 + b.TokenRatio)
			how = fmt.Sprintf("%s requests a second, with a retry for each %g successes: %s × %g = %s a second", count(rate), 1/b.TokenRatio, count(rate), 1+b.TokenRatio, count(allowed))
		case AWS, AWS2026:
			cost := b.cheapestRetry()
			allowed = rate * (1 + b.NoRetryIncrement/cost)
			how = fmt.Sprintf("%s requests a second, with a retry of %g tokens for each %g first successes: %s × (1 + %g/%g) = %s a second", count(rate), cost, cost/b.NoRetryIncrement, count(rate), b.NoRetryIncrement, cost, count(allowed))
		default:
			return ""
		}
		if allowed >= c {
			need := fmt.Sprintf("the budget needs a load below %s requests a second, or a tighter budget", count(headroomLoad(b, n, c)))
			if headroomLoad(b, n, c) <= 0 {
				need = "no load leaves it headroom: tighten the budget"
			}
			return fmt.Sprintf("The budget leaves no headroom: it lets through %s, at least %s, which then has nothing left to drain its queue with after the trigger; %s.",
				how, capacity, need)
		}
	}
	return ""
}

// cheapestRetry returns the least an AWS quota's retry costs: its
// RetryCost, or with the newer costs the throttling cost, if less.
func (b Budget) cheapestRetry() float64 {
	if b.Kind == AWS2026 {
		return min(b.RetryCost, b.ThrottleCost)
	}
	return b.RetryCost
}

// headroomLoad returns the load below which budget b, held n times, lets
// through less than capacity c.
func headroomLoad(b Budget, n, c float64) float64 {
	switch b.Kind {
	case Finagle:
		return max(0, (c-b.MinPerSecond*n)/(1+b.Percent))
	case Envoy:
		return max(0, c*(1-b.Percent))
	case GRPC:
		return c / (1 + b.TokenRatio)
	}
	cost := b.cheapestRetry()
	return c / (1 + b.NoRetryIncrement/cost)
}

// A budgetRun holds a run's budget: its states, one for the fleet or one
// a device, the generator of the adaptive throttle's draws, and the whole
// seconds whose level the run's Series has.
type budgetRun struct {
	states  []budgetState
	pcg     rand.PCG
	leveled int
}

// budgetSalt sets the budget's generator apart from the run's, so that a
// budget's draws leave the run's other draws as they are.
const budgetSalt = 0x6a09e667f3bcc909

// reset makes the states of budget b (after defaults) afresh for a run of
// seed seed over devices devices, and the budget's series of s; a budget
// of no kind has none.
func (r *budgetRun) reset(b Budget, devices int, seed uint64, s *Series) {
	r.states, r.leveled = r.states[:0], 0
	if b.Kind == NoBudget {
		return
	}
	r.pcg.Seed(seed^budgetSalt, splitmix64(seed^budgetSalt))
	rng := rand.New(&r.pcg)
	n := 1
	if b.Scope == ScopeDevice {
		n = devices
	}
	for range n {
		r.states = append(r.states, newBudgetState(b, rng))
	}
	s.Refused = make([]int, len(s.Jobs))
	s.Throttled = make([]int, len(s.Jobs))
	s.Budget = make([]float64, len(s.Jobs))
}

// of returns the state device dev draws on, or nil without a budget.
func (r *budgetRun) of(dev uint32) budgetState {
	switch len(r.states) {
	case 0:
		return nil
	case 1:
		return r.states[0]
	}
	return r.states[dev]
}

// level samples the budget's level into s at every whole second before
// t: the fleet's, or the mean of the devices'.
func (r *budgetRun) level(t int64, s *Series) {
	if len(r.states) == 0 {
		return
	}
	for ; r.leveled < len(s.Budget) && int64(r.leveled)*nsPerSec < t; r.leveled++ {
		at := int64(r.leveled) * nsPerSec
		var sum float64
		for _, b := range r.states {
			sum += b.level(at)
		}
		s.Budget[r.leveled] = sum / float64(len(r.states))
	}
}

// plural writes n and its noun, adding "es" to a word in s or "s" to any
// other when n is not 1.
func plural(n int, noun string) string {
	switch {
	case n == 1:
		return "1 " + noun
	case strings.HasSuffix(noun, "s"):
		return fmt.Sprintf("%d %ses", n, noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
