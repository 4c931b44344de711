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

// NoBudget is no budget: every retry the policy asks for is made. Each
// budget's constant stands in its own file, beside its model; its
// parameters are a [Budget]'s fields, whose zero values take the
// anchor's defaults.
const NoBudget BudgetKind = ""

// BudgetKinds returns the budgets, in the order of their constants.
func BudgetKinds() []BudgetKind {
	kinds := make([]BudgetKind, len(budgetModels))
	for i, m := range budgetModels {
		kinds[i] = m.kind()
	}
	return kinds
}

// A budgetModel is one kind of budget: the keys of its spec, the defaults
// of its fields and the checks of their values, its description, its state
// in a run and what that state holds. Each lives in the budget's own file
// and is listed once, in budgetModels.
type budgetModel interface {
	kind() BudgetKind
	// keys lists the budget's keys in a spec, in the order String writes
	// them.
	keys() []string
	// defaults returns b, of the model's kind, with its zero fields set to
	// the kind's defaults.
	defaults(b Budget) Budget
	// check reports the first of b's fields, after defaults, whose value
	// the kind refuses, named as ParseBudget's key.
	check(b Budget) error
	// describe says what b, after defaults, is, for Describe.
	describe(b Budget) string
	// newState returns a fresh state of b, after defaults; rng draws the
	// adaptive throttle's rejections.
	newState(b Budget, rng *rand.Rand) budgetState
	// memory returns what one state of b holds beyond the fields every
	// state has, and how many windows of amounts it counts, over what span
	// (see Scenario.budgetBytes).
	memory(b Budget) (per, windows int64, span time.Duration)
	// limitsRetries reports whether the budget limits retries only, and
	// so has nothing to limit when the clients make none.
	limitsRetries() bool
	// name is what advice calls the budget.
	name() string
	// level names the budget's level over time as a chart draws it: its
	// axis, the line, and the names of its values when they are states.
	level() (axis, line string, states []string)
}

// A loadBudget is a budget whose floor and allowance can be set against
// a server's capacity (see [Scenario.BudgetWarning]).
type loadBudget interface {
	budgetModel
	// neverBinds says how b, held by each of the devices of s, lets
	// through at least c, the capacity, whatever the storm, or returns "";
	// n is the number of budgets, each and capacity the words for the
	// devices and the capacity.
	neverBinds(s Scenario, b Budget, n, c float64, each, capacity string) string
	// allowed returns the retries and requests a second b, held n times,
	// lets through under a load of rate, and the arithmetic in words.
	allowed(b Budget, rate, n float64) (float64, string)
	// headroomLoad returns the load below which b, held n times, lets
	// through less than the capacity c.
	headroomLoad(b Budget, n, c float64) float64
}

// budgetModels are the budgets, in the order of BudgetKinds.
var budgetModels = []budgetModel{
	finagleBudget{},
	envoyBudget{},
	grpcBudget{},
	awsBudget{},
	awsBudget{newer: true},
	adaptiveBudget{},
	breakerBudget{},
}

// model returns the model of the budget kind, and false for NoBudget and
// a kind that is none of BudgetKinds.
func (k BudgetKind) model() (budgetModel, bool) {
	for _, m := range budgetModels {
		if m.kind() == k {
			return m, true
		}
	}
	return nil, false
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

// Name returns what advice calls the budget: "Finagle's retry budget",
// or "" for NoBudget and a kind that is none of BudgetKinds.
func (k BudgetKind) Name() string {
	if m, ok := k.model(); ok {
		return m.name()
	}
	return ""
}

// LevelWords names b's level over time ([Series].Budget) as a chart draws
// it: the axis, the line, and the names of the values 0, 1, 2… when the
// level is a state (a breaker's), or none.
func (b Budget) LevelWords() (axis, line string, states []string) {
	if m, ok := b.Kind.model(); ok {
		return m.level()
	}
	return "budget level", "budget's level", nil
}

// load returns the model of the budget kind when its allowance can be set
// against a capacity.
func (k BudgetKind) load() (loadBudget, bool) {
	m, _ := k.model()
	l, ok := m.(loadBudget)
	return l, ok
}

// newBudgetState returns a fresh state of b, after defaults; rng draws
// the adaptive throttle's rejections.
func newBudgetState(b Budget, rng *rand.Rand) budgetState {
	m, ok := b.Kind.model()
	if !ok {
		panic("sim: a budget state of no kind")
	}
	return m.newState(b, rng)
}

// budgetKeys returns the keys of kind's spec, in the order String writes
// them, and false for a kind that is none of BudgetKinds.
func budgetKeys(kind BudgetKind) ([]string, bool) {
	m, ok := kind.model()
	if !ok {
		return nil, false
	}
	return m.keys(), true
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
	if m, ok := b.Kind.model(); ok {
		b = m.defaults(b)
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
	m, ok := b.Kind.model()
	if !ok {
		return invalid("budget: unknown kind %q (want one of %s)", string(b.Kind), budgetKindNames())
	}
	if !slices.Contains(BudgetScopes(), b.Scope) {
		return invalid("budget-scope: unknown scope %q (want device or fleet)", string(b.Scope))
	}
	keys := m.keys()
	for _, f := range budgetFields(&b) {
		if !f.zero() && !slices.Contains(keys, f.key) {
			return invalid("budget: %s is not a key of the %s budget (want %s)", f.key, b.Kind, strings.Join(keys, ", "))
		}
	}
	return m.check(b)
}

// budgetRange refuses x, the value of the key, outside [lo, hi], or (lo,
// hi] when open.
func budgetRange(key string, x, lo, hi float64, open bool) error {
	if !(x <= hi) || x < lo || open && x == lo {
		return invalid("budget: %s %s is not in %s%s, %s]", key, count(x), map[bool]string{true: "(", false: "["}[open], count(lo), count(hi))
	}
	return nil
}

// checkPercent refuses a share over 10 (1,000%), which is most likely a
// percentage written as a number.
func checkPercent(b Budget) error {
	if b.Percent > 10 {
		return invalid("budget: percent %s is over 10 (1,000%%): a share is written 20%% or 0.2", count(b.Percent))
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
	keys, ok := budgetKeys(b.Kind)
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
// held describes the budget and who holds it, as a scenario's one-line
// description names it (see [Scenario.Describe]), or returns nil for no
// budget.
func (b Budget) held() []string {
	if b.Kind == NoBudget {
		return nil
	}
	return []string{"budget " + b.String() + " held by " + map[BudgetScope]string{ScopeDevice: "each device", ScopeFleet: "the fleet"}[b.Scope]}
}

func (b Budget) String() string {
	if b.Kind == NoBudget {
		return ""
	}
	var parts []string
	keys, _ := budgetKeys(b.Kind)
	for _, key := range keys {
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
	m, ok := b.Kind.model()
	if !ok {
		return "No retry budget: every retry the policy asks for is made."
	}
	what := m.describe(b)
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
		if m, ok := b.Kind.load(); ok {
			return m.neverBinds(s, b, n, c, each, capacity)
		}
	case BudgetNoHeadroom:
		if s.BudgetWarning(BudgetNeverBinds) != "" {
			return "" // the stronger warning says it
		}
		m, ok := b.Kind.load()
		if !ok {
			return ""
		}
		allowed, how := m.allowed(b, s.Rate, n)
		if allowed >= c {
			need := fmt.Sprintf("the budget needs a load below %s requests a second, or a tighter budget", count(m.headroomLoad(b, n, c)))
			if m.headroomLoad(b, n, c) <= 0 {
				need = "no load leaves it headroom: tighten the budget"
			}
			return fmt.Sprintf("The budget leaves no headroom: it lets through %s, at least %s, which then has nothing left to drain its queue with after the trigger; %s.",
				how, capacity, need)
		}
	}
	return ""
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
