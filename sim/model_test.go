package sim

import (
	"context"
	"github.com/jitterkit/jitterkit/kit"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fleetKinds are the kinds the fleet's engine replays.
var fleetKinds = func() []Kind {
	var kinds []Kind
	for _, k := range Kinds() {
		if !k.ServerModel() {
			kinds = append(kinds, k)
		}
	}
	return kinds
}()

// Every kind has one model, which names it, and the zero Kind is an
// Outage; a kind that is none of them has none and is refused.
func TestModels(t *testing.T) {
	seen := map[Kind]bool{}
	for _, k := range Kinds() {
		m, ok := k.registered()
		if assert.True(t, ok, k) {
			assert.Equal(t, k, m.kind())
		}
		assert.False(t, seen[k], "%s is listed twice", k)
		seen[k] = true
	}
	assert.Equal(t, Outage, Kind("").model().kind())
	_, ok := Kind("bogus").registered()
	assert.False(t, ok)
	assert.Equal(t, []Kind{Outage, LongOutage, Storm, Periodic, PeriodicAligned}, fleetKinds)
	err := Scenario{Kind: "bogus"}.validateFields()
	assert.ErrorContains(t, err, `unknown scenario "bogus"`)
}

// Every budget has one model, which names it, gives it a name for advice
// and words for its level; no budget has none of them.
func TestBudgetModels(t *testing.T) {
	for _, k := range BudgetKinds() {
		m, ok := k.model()
		if assert.True(t, ok, k) {
			assert.Equal(t, k, m.kind())
		}
		assert.NotEmpty(t, k.Name(), k)
		axis, line, _ := Budget{Kind: k}.LevelWords()
		assert.NotEmpty(t, axis, k)
		assert.NotEmpty(t, line, k)
		keys, ok := budgetKeys(k)
		assert.True(t, ok, k)
		assert.NotEmpty(t, keys, k)
	}
	assert.Empty(t, NoBudget.Name())
	_, _, states := Budget{Kind: Breaker}.LevelWords()
	assert.Equal(t, []string{"closed", "half-open", "open"}, states)
	_, ok := BudgetKind("bogus").model()
	assert.False(t, ok)
}

// A kind names a figure in its own words where it counts something other
// than devices served, and by the figure's label everywhere else.
func TestKindLabel(t *testing.T) {
	tests := []struct {
		kind Kind
		f    Figure
		want string
	}{
		{Outage, Served, "served"},
		{Storm, AllServed, "all served, from t=0"},
		{Periodic, Served, "firings served"},
		{PeriodicAligned, GaveUp, "devices that missed a firing"},
		{Periodic, P99Served, P99Served.Label()},
		{Overload, Served, "requests answered in time"},
		{Overload, Pending, Pending.Label()},
		{Reconnect, Attempts, "connects sent"},
		{Contention, Attempts, "writes (the work)"},
		{Contention, Reads, "reads"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.kind.Label(tt.f), "%s: %s", tt.kind, tt.f)
	}
}

// Every kind's row in its table of runs has a cell under each head, for a
// run that recovered and was served and for one that was not.
func TestRunTable(t *testing.T) {
	runs := []Run{{}, {Recovered: true, RecoveredAfter: 3 * time.Second, Warm: true, Served: 100, AllServed: time.Second}}
	for _, k := range Kinds() {
		heads := k.RunHeads()
		assert.NotEmpty(t, heads, k)
		for _, run := range runs {
			assert.Len(t, Scenario{Kind: k, Clients: 100}.RunCells(run), len(heads), k)
		}
	}
	cells := Scenario{Kind: Overload}.RunCells(Run{Recovered: true, RecoveredAfter: 3 * time.Second})
	assert.Equal(t, []string{"yes", "3"}, cells[:2])
	cells = Scenario{Kind: Reconnect, Clients: 100}.RunCells(Run{Served: 99, AllServed: time.Second})
	assert.Equal(t, []string{"no", "–", "99", "–"}, cells[:4], "a fleet not all connected has no time of the last connection")
}

// A recovery model's changes leave out those made already, and name the
// kinds of change the gate tries; the other kinds have none.
func TestServerChanges(t *testing.T) {
	flags := func(s Scenario) []string {
		var out []string
		for _, c := range s.ServerChanges() {
			changed := s
			c.Apply(&changed)
			require.NoError(t, changed.Validate(nil, Config{}), c.Flags)
			if c.Side != SideBudget {
				out = append(out, c.Flags)
			}
		}
		return out
	}
	tests := []struct {
		s     Scenario
		flags []string
		tried string
	}{
		{Scenario{Kind: Overload}, []string{"--queue-limit 50", "--drop-expired"}, "the budgets of the fleet, a bounded queue, dropped expired work"},
		{Scenario{Kind: Overload, QueueLimit: 20, DropExpired: true}, nil, "the budgets of the fleet, a bounded queue, dropped expired work"},
		{Scenario{Kind: Reconnect}, []string{"--on-drop continue", "--on-drop reset-jitter", "--refuse-cold"}, "the budgets of the fleet, counting a drop as a failure, refusing until warm"},
		{Scenario{Kind: Reconnect, OnDrop: DropContinue}, []string{"--refuse-cold"}, "the budgets of the fleet, counting a drop as a failure, refusing until warm"},
		{Scenario{Kind: Reconnect, RefuseCold: true}, nil, "the budgets of the fleet"},
		{Scenario{Kind: Contention}, nil, ""},
		{Scenario{Kind: Outage}, nil, ""},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.flags, flags(tt.s), "%+v", tt.s)
		assert.Equal(t, tt.tried, tt.s.ServerChangesTried(), "%+v", tt.s)
	}
	budgets := Scenario{Kind: Overload, Budget: Budget{Kind: Envoy}}.ServerChanges()
	require.NotEmpty(t, budgets)
	assert.Equal(t, "--budget envoy --budget-scope fleet", budgets[0].Flags, "the scenario's own budget first, shared")
	assert.Len(t, Scenario{Kind: Overload, Budget: Budget{Kind: Envoy, Scope: ScopeFleet}}.ServerChanges(), 2, "no budget offered when the fleet shares one")
	assert.Less(t, SideRank(SideBudget), SideRank(SideReset))
	assert.Less(t, SideRank(SideReset), SideRank(SideServer))
}

// A server model's replay says what it found in its own terms; a fleet
// kind's says nothing, its reason being its peak ratio.
func TestFound(t *testing.T) {
	full := kit.Spec{Strategy: kit.Full}.Factory()
	slow := kit.Spec{Strategy: kit.Full, Base: time.Second, Cap: time.Minute}.Factory()
	tests := []struct {
		s    Scenario
		f    kit.Factory
		want string
	}{
		{Scenario{Kind: Contention, Horizon: 200 * time.Millisecond}, full, `^the replay's 100 clients made [0-9,]+ writes, and [0-9,.]+ of them did not succeed by the 200ms horizon$`},
		{Scenario{Kind: Contention}, full, `^the replay's 100 clients made [0-9,]+ writes and all succeeded after [0-9.]+s$`},
		{Scenario{Kind: Overload}, full, `^5 of 5 runs never recovered from the trigger within the replay's 5m horizon: a chance of collapse of 100%: at least 54.9% at 95%$`},
		{Scenario{Kind: Reconnect, RefuseCold: true, Horizon: 30 * time.Second}, slow, `^[0-9,]+ of 2,000 devices were not connected by the replay's 30s horizon$`},
		{Scenario{Kind: Outage, Clients: 100}, full, `^$`},
	}
	for _, tt := range tests {
		res, err := Replay(t.Context(), tt.f, tt.s, Config{Runs: 5, Resamples: 100})
		require.NoError(t, err, "%+v", tt.s)
		assert.Regexp(t, tt.want, res.Found(), "%+v", tt.s)
	}
}

// Every kind defines the terms its reports use, each with a definition;
// an overload adds the tipping point only when it was searched.
func TestTerms(t *testing.T) {
	names := func(r Result) []string {
		var out []string
		for _, term := range r.Terms() {
			assert.NotEmpty(t, term[1], term[0])
			out = append(out, term[0])
		}
		return out
	}
	for _, k := range Kinds() {
		assert.NotEmpty(t, names(Result{Scenario: Scenario{Kind: k}}), k)
	}
	assert.Equal(t, []string{"accept budget", "peak ratio", "threshold"}, names(Result{Scenario: Scenario{Kind: Periodic}}))
	assert.NotContains(t, names(Result{Scenario: Scenario{Kind: Overload}}), "tipping point")
	assert.Contains(t, names(Result{Scenario: Scenario{Kind: Overload}, TippingPoint: &TippingPoint{}}), "tipping point")
	assert.Equal(t, "What knocks the service over: the broker's first 5s down.", Result{Scenario: Scenario{Kind: Reconnect}}.Terms()[0][1])
}

// A recovery model's time-series chart names its failures by what the
// server does with them, and shades its own trigger.
func TestSeriesChart(t *testing.T) {
	c := Scenario{Kind: Overload, QueueLimit: 10, DropExpired: true, Ramp: 2 * time.Second}.SeriesChart()
	assert.Equal(t, "timed out, rejected or dropped", c.Failures)
	assert.Equal(t, []float64{30, 35, 37}, []float64{c.From, c.To, c.RampTo})
	assert.Equal(t, "dip to 10% for 5s at 30s", c.Trigger)
	assert.Equal(t, "ramp back (2s)", c.Ramp)
	assert.True(t, c.Budgeted)
	assert.Equal(t, "timed out", Scenario{Kind: Overload}.SeriesChart().Failures)
	r := Scenario{Kind: Reconnect}.SeriesChart()
	assert.Equal(t, []float64{0, 5, 5}, []float64{r.From, r.To, r.RampTo})
	assert.Equal(t, "the broker's return", r.End)
	assert.Empty(t, r.Ramp)
	assert.Equal(t, SeriesChart{}, Scenario{Kind: Contention}.SeriesChart())
}

// Each kind says how a comparison sets policies side by side on it.
func TestCompared(t *testing.T) {
	tests := []struct {
		kind      Kind
		headlines []Figure
		base, cap time.Duration
		budgets   bool
	}{
		{Outage, []Figure{PeakRatio, AllServed}, kit.DefaultBase, kit.DefaultCap, false},
		{Storm, []Figure{PeakRetryArrivals}, time.Second, 30 * time.Second, false},
		{Overload, []Figure{RecoveryTime, Amplification}, kit.DefaultBase, kit.DefaultCap, true},
		{Reconnect, []Figure{RecoveryTime, Amplification}, kit.DefaultBase, kit.DefaultCap, false},
		{Contention, []Figure{Attempts, AllServed}, kit.DefaultBase, kit.DefaultCap, false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.headlines, tt.kind.Headlines(), tt.kind)
		base, limit := tt.kind.CompareBackoff()
		assert.Equal(t, []time.Duration{tt.base, tt.cap}, []time.Duration{base, limit}, tt.kind)
		assert.Equal(t, tt.budgets, tt.kind.ComparesBudgets(), tt.kind)
	}
}

// A baseline is replayed once for its scenario and configuration: a
// second replay of the scenario, with any policy, reuses it, and what the
// caller does to its copy changes nothing kept.
func TestBaselinesReplayedOnce(t *testing.T) {
	s := Scenario{Kind: Overload, Clients: 50, Horizon: time.Minute, DipAt: 5 * time.Second, DipFor: 5 * time.Second}.WithDefaults()
	cfg := Config{Runs: 3, Seed: 11, Resamples: 100}.WithDefaults()
	memo.mu.Lock()
	memo.kept = nil
	memo.mu.Unlock()
	var wg sync.WaitGroup
	got := make([][]Baseline, 4)
	for i := range got {
		wg.Go(func() {
			b, err := baselines(t.Context(), s, cfg)
			assert.NoError(t, err)
			got[i] = b
		})
	}
	wg.Wait()
	require.Len(t, got[0], 1)
	for _, b := range got[1:] {
		assert.Equal(t, got[0], b)
	}
	assert.Len(t, memo.kept, 1, "four replays of one scenario, one baseline")

	got[0][0].Summary[RecoveryTime] = Estimate{Median: -1}
	again, err := baselines(t.Context(), s, cfg)
	require.NoError(t, err)
	assert.Equal(t, got[1], again, "a caller's change of its copy reaches no other")

	other := cfg
	other.Seed++
	_, err = baselines(t.Context(), s, other)
	require.NoError(t, err)
	assert.Len(t, memo.kept, 2, "another seed is another baseline")

	fresh, err := replayBaseline(t.Context(), s.Kind.model().(engineModel).baselines(s)[0], cfg)
	require.NoError(t, err)
	assert.Equal(t, fresh, again[0], "the kept baseline is the one a replay makes")

	stopped, cancel := context.WithCancel(t.Context())
	cancel()
	third := cfg
	third.Seed += 2
	_, err = baselines(stopped, s, third)
	require.Error(t, err)
	assert.Len(t, memo.kept, 2, "a baseline whose replay was stopped is not kept")
}
