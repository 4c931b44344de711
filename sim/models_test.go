package sim

import (
	"context"
	"errors"
	"maps"
	"reflect"
	"regexp"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/internal/prose"
	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/testdata/kittest"
)

// TestModelValidate refuses each out-of-range field of the server models,
// word for word, naming the field as the CLI's flag names it, and each
// field that one kind has and another does not, on the other kind.
func TestModelValidate(t *testing.T) {
	for _, c := range []struct {
		name string
		s    Scenario
		want string
	}{
		// Overload, after defaults: 200 clients, 70 requests a second into
		// 100 jobs a second, 10ms round trips, 1s timeouts, 3 retries, a
		// dip to 10% for 5s from 30s, over 300s.
		{"overload: negative rate", Scenario{Kind: Overload, Rate: -1}, "sim: rate -1 requests a second is not a positive number"},
		{"overload: rate at the accept-rate", Scenario{Kind: Overload, Rate: 100},
			"sim: rate 100 requests a second is at or over the accept-rate of 100 jobs a second: the server is overloaded without a dip, and no fleet recovers from that"},
		{"overload: rate over the accept-rate", Scenario{Kind: Overload, AcceptRate: 50},
			"sim: rate 70 requests a second is at or over the accept-rate of 50 jobs a second: the server is overloaded without a dip, and no fleet recovers from that"},
		{"overload: accept-rate beyond 1e6", Scenario{Kind: Overload, AcceptRate: 2e6}, "sim: accept-rate 2e+06 jobs a second is not between 1e-6 and 1e6"},
		{"overload: negative timeout", Scenario{Kind: Overload, Timeout: -time.Second}, "sim: timeout -1s is not positive"},
		{"overload: negative rtt", Scenario{Kind: Overload, RTT: -time.Millisecond}, "sim: rtt -1ms is negative"},
		{"overload: rtt of the timeout", Scenario{Kind: Overload, RTT: time.Second}, "sim: rtt 1s is not shorter than the 1s timeout: every attempt would time out"},
		{"overload: retries beyond 1000", Scenario{Kind: Overload, Retries: 1001}, "sim: retries 1001 is not between 0 and 1000"},
		{"overload: retries below NoRetries", Scenario{Kind: Overload, Retries: -2}, "sim: retries -2 is not between 0 and 1000"},
		{"overload: dip of the whole capacity", Scenario{Kind: Overload, Dip: 1}, "sim: dip 1 is not a fraction of the capacity above 0 and below 1 (a dip to 0 stalls the server)"},
		{"overload: negative dip", Scenario{Kind: Overload, Dip: -0.5}, "sim: dip -0.5 is not a fraction of the capacity above 0 and below 1 (a dip to 0 stalls the server)"},
		{"overload: negative dip-for", Scenario{Kind: Overload, DipFor: -time.Second}, "sim: dip-for -1s is not positive: without a dip there is nothing to recover from"},
		{"overload: negative dip-at", Scenario{Kind: Overload, DipAt: -time.Second}, "sim: dip-at -1s is negative"},
		{"overload: negative ramp", Scenario{Kind: Overload, Ramp: -time.Second}, "sim: ramp -1s is negative"},
		{"overload: negative queue-limit", Scenario{Kind: Overload, QueueLimit: -1}, "sim: queue-limit -1 is negative"},
		{"overload: a dip longer than the horizon", Scenario{Kind: Overload, DipFor: 300 * time.Second},
			"sim: the dip ends at 5m30s (dip-at 30s, dip-for 5m0s, ramp 0s), less than 5s before the 5m0s horizon: recovery could not be judged"},
		{"overload: a ramp into the last window", Scenario{Kind: Overload, Ramp: 262 * time.Second},
			"sim: the dip ends at 4m57s (dip-at 30s, dip-for 5s, ramp 4m22s), less than 5s before the 5m0s horizon: recovery could not be judged"},
		{"overload: negative horizon", Scenario{Kind: Overload, Horizon: -time.Second}, "sim: horizon -1s is not between 0 and 744h0m0s"},
		{"overload: negative clients", Scenario{Kind: Overload, Clients: -1}, "sim: clients -1 is negative"},
		{"overload: negative threshold", Scenario{Kind: Overload, Threshold: -1}, "sim: threshold does not apply to the overload scenario: it is judged on recovery, not on a peak ratio"},
		{"overload: more clients than a replay holds", Scenario{Kind: Overload, Clients: 5e9}, "sim: clients 5000000000 is not between 1 and 4294967295"},

		// Reconnect, after defaults: 2,000 devices over 10ms, 50ms round
		// trips, 5s down, 2,000 units a second, handshakes of 10 (200 a
		// second), a warm-up of 4,000, drops after 100ms, over 300s.
		{"reconnect: fractional cpu", Scenario{Kind: Reconnect, CPU: 1500.5}, "sim: cpu 1500.5 units a second is not a whole number from 1 to 1e12"},
		{"reconnect: cpu under 1", Scenario{Kind: Reconnect, CPU: 0.5}, "sim: cpu 0.5 units a second is not a whole number from 1 to 1e12"},
		{"reconnect: fractional handshake", Scenario{Kind: Reconnect, Handshake: 2.5}, "sim: handshake 2.5 units is not a whole number from 1 to 1e12"},
		{"reconnect: negative warm-up", Scenario{Kind: Reconnect, WarmUp: -1}, "sim: warm-up -1 units is not a whole number from 0 to 1e12"},
		{"reconnect: negative cold-drop", Scenario{Kind: Reconnect, ColdDrop: -time.Second}, "sim: cold-drop -1s is negative"},
		{"reconnect: negative rtt", Scenario{Kind: Reconnect, RTT: -time.Millisecond}, "sim: rtt -1ms is negative"},
		{"reconnect: negative down", Scenario{Kind: Reconnect, Down: -time.Second}, "sim: down -1s is negative"},
		{"reconnect: negative start-spread", Scenario{Kind: Reconnect, StartSpread: -time.Millisecond}, "sim: start-spread -1ms is negative"},
		{"reconnect: accept-rate not cpu over handshake", Scenario{Kind: Reconnect, AcceptRate: 100},
			"sim: accept-rate 100 is not the broker's handshakes a second, cpu over handshake (200): set cpu and handshake instead"},
		{"reconnect: unknown on-drop", Scenario{Kind: Reconnect, OnDrop: "never"}, `sim: unknown on-drop "never" (want reset, reset-jitter or continue)`},
		{"reconnect: down into the last window", Scenario{Kind: Reconnect, Down: 299 * time.Second},
			"sim: down 4m59s ends less than 5s before the 5m0s horizon: recovery could not be judged"},
		{"reconnect: cold-drop beyond the longest replay", Scenario{Kind: Reconnect, ColdDrop: 800 * time.Hour}, "sim: cold-drop 800h0m0s is not between 0 and 744h0m0s"},
		{"reconnect: start-spread beyond the horizon", Scenario{Kind: Reconnect, StartSpread: 400 * time.Second}, "sim: start-spread 6m40s is not between 0 and the horizon 5m0s"},
		{"reconnect: rtt beyond the longest replay", Scenario{Kind: Reconnect, RTT: 800 * time.Hour}, "sim: rtt 800h0m0s is not between 0 and 744h0m0s"},
		{"reconnect: more clients than the engine holds", Scenario{Kind: Reconnect, Clients: 2_000_000}, "sim: clients 2000000 is not between 1 and 1,000,000"},

		// Contention, after defaults: 100 clients, 10ms and 2ms, over 1h.
		{"contention: more clients than the engine holds", Scenario{Kind: Contention, Clients: 20_000}, "sim: clients 20000 is not between 1 and 10,000"},
		{"contention: negative horizon", Scenario{Kind: Contention, Horizon: -time.Second}, "sim: horizon -1s is not between 0 and 744h0m0s"},
		{"contention: negative latency", Scenario{Kind: Contention, Latency: -time.Millisecond}, "sim: latency -1ms is not between 0 and 1h0m0s"},
		{"contention: negative latency-sd", Scenario{Kind: Contention, LatencySD: -time.Millisecond}, "sim: latency-sd -1ms is not between 0 and 1h0m0s"},

		// Fields of one kind on another.
		{"rate on an outage", Scenario{Rate: 70}, "sim: rate is a field of the overload scenario, not of outage"},
		{"timeout on an outage", Scenario{Kind: Outage, Timeout: time.Second}, "sim: timeout is a field of the overload scenario, not of outage"},
		{"dip on a storm", Scenario{Kind: Storm, Dip: 0.5}, "sim: dip is a field of the overload scenario, not of storm"},
		{"dip-for on a reconnect", Scenario{Kind: Reconnect, DipFor: time.Second}, "sim: dip-for is a field of the overload scenario, not of reconnect"},
		{"dip-at on a contention", Scenario{Kind: Contention, DipAt: time.Second}, "sim: dip-at is a field of the overload scenario, not of contention"},
		{"ramp on a periodic", Scenario{Kind: Periodic, Ramp: time.Second}, "sim: ramp is a field of the overload scenario, not of periodic"},
		{"queue-limit on a reconnect", Scenario{Kind: Reconnect, QueueLimit: 50}, "sim: queue-limit is a field of the overload scenario, not of reconnect"},
		{"drop-expired on a contention", Scenario{Kind: Contention, DropExpired: true}, "sim: drop-expired is a field of the overload scenario, not of contention"},
		{"on-drop on an overload", Scenario{Kind: Overload, OnDrop: DropContinue}, "sim: on-drop is a field of the reconnect scenario, not of overload"},
		{"refuse-cold on an outage", Scenario{RefuseCold: true}, "sim: refuse-cold is a field of the reconnect scenario, not of outage"},
		{"cpu on an overload", Scenario{Kind: Overload, CPU: 2000}, "sim: cpu is a field of the reconnect scenario, not of overload"},
		{"handshake on a contention", Scenario{Kind: Contention, Handshake: 10}, "sim: handshake is a field of the reconnect scenario, not of contention"},
		{"warm-up on a long outage", Scenario{Kind: LongOutage, WarmUp: 10}, "sim: warm-up is a field of the reconnect scenario, not of long-outage"},
		{"cold-drop on an overload", Scenario{Kind: Overload, ColdDrop: time.Second}, "sim: cold-drop is a field of the reconnect scenario, not of overload"},
		{"latency on a reconnect", Scenario{Kind: Reconnect, Latency: time.Millisecond}, "sim: latency is a field of the contention scenario, not of reconnect"},
		{"latency-sd on an overload", Scenario{Kind: Overload, LatencySD: time.Millisecond}, "sim: latency is a field of the contention scenario, not of overload"},
		{"rtt on a contention", Scenario{Kind: Contention, RTT: time.Millisecond}, "sim: rtt does not apply to the contention scenario"},
		{"accept-rate on a contention", Scenario{Kind: Contention, AcceptRate: 10}, "sim: accept-rate does not apply to the contention scenario"},
		{"retries on a reconnect", Scenario{Kind: Reconnect, Retries: 3}, "sim: retries does not apply to the reconnect scenario"},
		{"down on an overload", Scenario{Kind: Overload, Down: time.Second}, "sim: down does not apply to the overload scenario"},
		{"start-spread on a contention", Scenario{Kind: Contention, StartSpread: time.Second}, "sim: start-spread does not apply to the contention scenario"},
		{"threshold on a contention", Scenario{Kind: Contention, Threshold: 0.5}, "sim: threshold does not apply to the contention scenario: it is judged on its clients' success, not on a peak ratio"},
		// The recovery kinds report their peak ratio unjudged: a threshold
		// would be ignored.
		{"threshold on an overload", Scenario{Kind: Overload, Threshold: 0.5}, "sim: threshold does not apply to the overload scenario: it is judged on recovery, not on a peak ratio"},
		{"threshold on a reconnect", Scenario{Kind: Reconnect, Threshold: 2}, "sim: threshold does not apply to the reconnect scenario: it is judged on recovery, not on a peak ratio"},
		{"server on an overload", Scenario{Kind: Overload, Server: TokenBucket}, "sim: server does not apply to the overload scenario"},
		{"window on a reconnect", Scenario{Kind: Reconnect, Window: 2 * time.Second}, "sim: window does not apply to the reconnect scenario"},
		{"burst on a contention", Scenario{Kind: Contention, Burst: 5}, "sim: burst does not apply to the contention scenario"},
		{"period on an overload", Scenario{Kind: Overload, Period: time.Minute}, "sim: period does not apply to the overload scenario"},
		{"retry-after on a reconnect", Scenario{Kind: Reconnect, RetryAfter: time.Second}, "sim: retry-after does not apply to the reconnect scenario"},
		// Fields of one server, or of the periodic kinds, on the others.
		{"burst on a per-second server", Scenario{Burst: 5}, "sim: burst applies to the token-bucket server only, not to the per-second server"},
		{"retry-after on a per-second server", Scenario{Server: PerSecond, RetryAfter: time.Second}, "sim: retry-after applies to the retry-after server only, not to the per-second server"},
		{"retry-after on a token bucket", Scenario{Server: TokenBucket, RetryAfter: time.Second}, "sim: retry-after applies to the retry-after server only, not to the token-bucket server"},
		{"period on an outage", Scenario{Period: time.Minute}, "sim: period applies to the periodic scenarios only, not to the outage scenario"},
		{"no retries on a storm", Scenario{Kind: Storm, Retries: NoRetries}, "sim: retries 0 applies to the overload scenario only: a storm replay retries at least once"},
		// MaxAttempts bounds a Reconnect's devices; the overload and
		// contention engines never read it.
		{"max-attempts on an overload", Scenario{Kind: Overload, MaxAttempts: 5}, "sim: max-attempts does not apply to the overload scenario"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.s.Validate(nil, Config{})
			var ce *kit.ConfigError
			require.ErrorAs(t, err, &ce, "Validate()")
			assert.EqualError(t, err, c.want, "Validate()")
			_, rerr := Replay(context.Background(), kit.Spec{Strategy: kit.Full}.Factory(), c.s, Config{Runs: 3})
			assert.EqualError(t, rerr, c.want, "Replay()")
		})
	}
	for _, k := range []Kind{Overload, Reconnect, Contention} {
		assert.NoError(t, Scenario{Kind: k}.Validate(nil, Config{}), "the default %s", k)
	}
	assert.NoError(t, Scenario{Kind: Overload, Retries: NoRetries, Dip: DipStall}.Validate(nil, Config{}), "an overload without retries whose dip stalls the server")
	assert.Equal(t, RetryAfter, Scenario{RetryAfter: time.Second}.WithDefaults().Server, "a retry-after hint picks its server")
	assert.NoError(t, Scenario{RetryAfter: time.Second}.Validate(nil, Config{}), "a retry-after hint alone")
	assert.EqualError(t, Scenario{Kind: Reconnect}.Validate(nil, Config{TippingPoint: true}), "sim: tipping-point applies to the overload scenario only, not to the reconnect scenario", "a tipping point on a reconnect")
}

// TestModelDefaults pins WithDefaults of each server model to the defaults
// its Kind's documentation gives.
func TestModelDefaults(t *testing.T) {
	o := Scenario{Kind: Overload}.WithDefaults()
	assert.Equal(t, 200, o.Clients, "overload clients")
	assert.Equal(t, 100.0, o.AcceptRate, "overload accept-rate, jobs a second")
	assert.Equal(t, 70.0, o.Rate, "overload rate")
	assert.Equal(t, 10*time.Millisecond, o.RTT, "overload rtt")
	assert.Equal(t, time.Second, o.Timeout, "overload timeout")
	assert.Equal(t, 3, o.Retries, "overload retries")
	assert.Equal(t, 0.1, o.Dip, "overload dip")
	assert.Equal(t, 5*time.Second, o.DipFor, "overload dip-for")
	assert.Equal(t, 30*time.Second, o.DipAt, "overload dip-at")
	assert.Equal(t, 300*time.Second, o.Horizon, "overload horizon")
	assert.Zero(t, o.Ramp, "overload ramp: at once")
	assert.Zero(t, o.QueueLimit, "overload queue-limit: none")
	assert.False(t, o.DropExpired, "overload drop-expired")
	assert.Zero(t, o.StartSpread, "overload start-spread: an open-loop stream has none")
	assert.Equal(t, 35*time.Second, o.RecoveryFrom(), "overload: recovery is judged from the dip's end")

	kept := Scenario{Kind: Overload, Retries: NoRetries, Dip: DipStall}.WithDefaults()
	assert.Equal(t, NoRetries, kept.Retries, "NoRetries is kept")
	assert.Equal(t, DipStall, kept.Dip, "DipStall is kept")
	assert.Equal(t, 36*time.Second, Scenario{Kind: Overload, DipFor: 5500 * time.Millisecond}.WithDefaults().RecoveryFrom(),
		"a dip ending at 35.5s is judged from 36s, the next whole second")

	r := Scenario{Kind: Reconnect}.WithDefaults()
	assert.Equal(t, 2000, r.Clients, "reconnect clients")
	assert.Equal(t, 10*time.Millisecond, r.StartSpread, "reconnect start-spread")
	assert.Equal(t, 50*time.Millisecond, r.RTT, "reconnect rtt")
	assert.Equal(t, 5*time.Second, r.Down, "reconnect down")
	assert.Equal(t, 2000.0, r.CPU, "reconnect cpu")
	assert.Equal(t, 10.0, r.Handshake, "reconnect handshake")
	assert.Equal(t, 4000.0, r.WarmUp, "reconnect warm-up")
	assert.Equal(t, 100*time.Millisecond, r.ColdDrop, "reconnect cold-drop")
	assert.Equal(t, DropReset, r.OnDrop, "reconnect on-drop")
	assert.False(t, r.RefuseCold, "reconnect refuse-cold")
	assert.Equal(t, 300*time.Second, r.Horizon, "reconnect horizon")
	assert.Equal(t, 200.0, r.AcceptRate, "reconnect accept-rate: cpu over handshake")
	assert.Equal(t, 5*time.Second, r.RecoveryFrom(), "reconnect: recovery is judged from the broker's return")
	assert.Equal(t, 300.0, Scenario{Kind: Reconnect, CPU: 3000}.WithDefaults().AcceptRate, "accept-rate follows cpu over handshake")

	c := Scenario{Kind: Contention}.WithDefaults()
	assert.Equal(t, 100, c.Clients, "contention clients")
	assert.Equal(t, 10*time.Millisecond, c.Latency, "contention latency")
	assert.Equal(t, 2*time.Millisecond, c.LatencySD, "contention latency-sd")
	assert.Equal(t, time.Hour, c.Horizon, "contention horizon")
	assert.Zero(t, c.StartSpread, "contention start-spread")

	ids := Scenario{Kind: Overload, IDs: []string{"a", "b", "c"}}.WithDefaults()
	assert.Equal(t, 3, ids.Clients, "an overload's ids set its fleet")
}

// modelResult returns a hand-made Result of the default scenario of
// kind: runs runs, the first recovered of which recovered, with the
// summary sum and the baselines.
func modelResult(kind Kind, runs, recovered int, sum map[Figure]Estimate, baselines ...Baseline) Result {
	rs := make([]Run, runs)
	for i := range recovered {
		rs[i].Recovered = true
	}
	if _, ok := sum[PeakRetryArrivals]; !ok && sum != nil {
		// Retries reached the server, unless the case says otherwise:
		// the policy was judged.
		sum = maps.Clone(sum)
		sum[PeakRetryArrivals] = Estimate{Median: 1, Low: 1, High: 1}
	}
	return Result{Scenario: Scenario{Kind: kind}.WithDefaults(), Config: Config{}.WithDefaults(), Runs: rs, Summary: sum, Baselines: baselines}
}

// TestModelStatus judges hand-made Results of each server model by each
// rule of Result.Status: a recovery kind fails when any run it judges did
// not recover, however many did (a run whose baseline did not recover
// either is excused); a Reconnect or a Contention fails when its median
// run leaves devices unserved; fewer than MinRunsToPass runs, or judged
// runs, that did not fail are inconclusive; and each warning warns, or
// fails with FailWarnings.
func TestModelStatus(t *testing.T) {
	// The default overload is judged from 35s over a 300s horizon: a run
	// that never recovered counts 265s.
	const never = 265
	fast := map[Figure]Estimate{RecoveryTime: {Median: 5, Low: 5, High: 10}}
	uncertain := map[Figure]Estimate{RecoveryTime: {Median: 5, Low: 5, High: never}}
	rec := func(median float64) map[Figure]Estimate {
		return map[Figure]Estimate{RecoveryTime: {Median: median, Low: median, High: median}}
	}
	noRetries := func(median float64) Baseline {
		return Baseline{Name: BaselineNoRetries, Recovered: 3, Summary: rec(median)}
	}
	// excused is the baseline of 4 runs of which the last did not recover
	// without retries either: that run judges nothing.
	excused := func(median float64) Baseline {
		return Baseline{Name: BaselineNoRetries, Recovered: 3, Unrecovered: []int{3}, Summary: rec(median)}
	}
	strict := func(r Result) Result {
		r.Config.FailWarnings = true
		return r
	}
	served := func(n, attempts float64) map[Figure]Estimate {
		return map[Figure]Estimate{Served: {Median: n, Low: n, High: n}, Attempts: {Median: attempts, Low: attempts, High: attempts},
			RecoveryTime: {Median: 10, Low: 10, High: 10}}
	}
	noBackoff := func(attempts float64) Baseline {
		return Baseline{Name: BaselineNoBackoff, Summary: map[Figure]Estimate{Attempts: {Median: attempts, Low: attempts, High: attempts}}}
	}
	for _, c := range []struct {
		name     string
		r        Result
		want     verdict.Status
		warnings []Warning
	}{
		{"no runs", modelResult(Overload, 0, 0, nil), verdict.Inconclusive, nil},
		{"4 runs, 2 recovered", modelResult(Overload, 4, 2, fast), verdict.Fail, nil},
		// One run that never recovers is a counterexample, whatever the
		// median run did.
		{"4 runs, 3 recovered", modelResult(Overload, 4, 3, fast), verdict.Fail, nil},
		{"20 runs, 19 recovered", modelResult(Overload, 20, 19, fast), verdict.Fail, nil},
		{"20 runs, all recovered", modelResult(Overload, 20, 20, fast), verdict.Pass, nil},
		{"4 runs, 3 recovered, the last excused", modelResult(Overload, 4, 3, fast, excused(5)), verdict.Pass, nil},
		{"3 runs, 2 recovered, the last excused: too few judged", modelResult(Overload, 3, 2, fast, Baseline{Name: BaselineNoRetries, Recovered: 2, Unrecovered: []int{2}, Summary: rec(5)}), verdict.Inconclusive, nil},
		{"3 runs, 2 recovered", modelResult(Overload, 3, 2, fast), verdict.Fail, nil},
		{"5 runs, 3 recovered", modelResult(Overload, 5, 3, fast), verdict.Fail, nil},
		{"2 runs, both recovered: too few to pass", modelResult(Overload, 2, 2, fast), verdict.Inconclusive, nil},
		// As in the fleet kinds, a failure in too few runs is evidence
		// enough to fail: a counterexample is one run.
		{"2 runs, 1 recovered", modelResult(Overload, 2, 1, fast), verdict.Fail, nil},
		{"1 run, not recovered", modelResult(Overload, 1, 0, fast), verdict.Fail, nil},
		{"1 run, recovered", modelResult(Overload, 1, 1, fast), verdict.Inconclusive, nil},
		// SlowRecovery: at least twice the baseline's and 10s more.
		{"twice the baseline's, 10s more", modelResult(Overload, 3, 3, rec(20), noRetries(10)), verdict.Warn, []Warning{SlowRecovery}},
		{"twice the baseline's, warnings failing", strict(modelResult(Overload, 3, 3, rec(20), noRetries(10))), verdict.Fail, []Warning{SlowRecovery}},
		{"just under twice the baseline's", modelResult(Overload, 3, 3, rec(19.9), noRetries(10)), verdict.Pass, nil},
		{"three times the baseline's, 10s more", modelResult(Overload, 3, 3, rec(15), noRetries(5)), verdict.Warn, []Warning{SlowRecovery}},
		{"three times the baseline's, less than 10s more", modelResult(Overload, 3, 3, rec(14.9), noRetries(5)), verdict.Pass, nil},
		// RecoveryUncertain: the interval reaches the horizon, which only
		// runs excused by their baseline leave judged and unrecovered.
		{"the interval reaches the horizon", modelResult(Overload, 4, 3, uncertain, excused(5)), verdict.Warn, []Warning{RecoveryUncertain}},
		{"the interval stops short of the horizon", modelResult(Overload, 4, 3, map[Figure]Estimate{RecoveryTime: {Median: 5, Low: 5, High: never - 1}}, excused(5)), verdict.Pass, nil},
		{"slow and uncertain", modelResult(Overload, 4, 3, map[Figure]Estimate{RecoveryTime: {Median: 30, Low: 5, High: never}}, excused(10)), verdict.Warn, []Warning{SlowRecovery, RecoveryUncertain}},
		{"a failure is not also uncertain", modelResult(Overload, 3, 1, uncertain), verdict.Fail, nil},

		// Reconnect: 2,000 devices, judged on recovery and on the devices
		// served.
		{"reconnect: recovered, all served", modelResult(Reconnect, 3, 3, served(2000, 0)), verdict.Pass, nil},
		{"reconnect: recovered, one device unserved", modelResult(Reconnect, 3, 3, served(1999, 0)), verdict.Fail, nil},
		{"reconnect: all served, 2 of 4 recovered", modelResult(Reconnect, 4, 2, served(2000, 0)), verdict.Fail, nil},
		{"reconnect: all served, 19 of 20 recovered", modelResult(Reconnect, 20, 19, served(2000, 0)), verdict.Fail, nil},
		{"reconnect: 2 runs", modelResult(Reconnect, 2, 2, served(2000, 0)), verdict.Inconclusive, nil},
		{"reconnect: 2 runs leaving devices unserved", modelResult(Reconnect, 2, 2, served(1000, 0)), verdict.Fail, nil},

		// Contention: 100 clients, judged on the clients served; it has no
		// recovery, so no run's Recovered counts.
		{"contention: all served", modelResult(Contention, 3, 0, served(100, 800), noBackoff(2000)), verdict.Pass, nil},
		{"contention: the median of 4 runs leaves half a client", modelResult(Contention, 4, 0, served(99.5, 800), noBackoff(2000)), verdict.Fail, nil},
		{"contention: more work than no backoff", modelResult(Contention, 3, 0, served(100, 2001), noBackoff(2000)), verdict.Warn, []Warning{MoreWork}},
		{"contention: as much work as no backoff", modelResult(Contention, 3, 0, served(100, 2000), noBackoff(2000)), verdict.Pass, nil},
		{"contention: 2 runs", modelResult(Contention, 2, 0, served(100, 800)), verdict.Inconclusive, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, c.r.Status(), "Status() of %d runs, %d recovered", len(c.r.Runs), c.r.Recovered())
			assert.Equal(t, c.warnings, c.r.Warnings(), "Warnings()")
			assert.Equal(t, c.want != verdict.Fail, c.r.Passed(), "Passed()")
			assert.NotEmpty(t, c.r.Detail(), "Detail()")
		})
	}
}

// TestModelTippingPoint searches the tipping point of a small overload
// whose answer follows from the model. The fleet sends 70 requests a
// second into 100 jobs a second; a dip to 10% for d seconds leaves a
// backlog of about (70−10)·d = 60d jobs, which drains at 100−70 = 30 a
// second, in 2d seconds. Without retries, the requests time out (waiting
// over 1s, a backlog of over 100 jobs) until the backlog is nearly
// drained, and the service recovers once a whole 5s window after the
// dip's end has no failures: the dip ends at 10s+d, its failures stop by
// about 10s+3d, and the last whole window before the 120s horizon starts
// by 115s. So the baseline recovers from dips up to about (115−10)/3 =
// 35s, and certainly from 30s (15s to spare, over thirty seconds of
// Poisson noise), and cannot recover from 40s. A retrying fleet adds the
// retries of every timed-out attempt to the backlog: at the defaults it
// never recovers from 5s (TestOverloadDefaultRecovers), so its tipping
// point is at most 5s, and never beyond the baseline's.
//
// A dip to 80% keeps the capacity, 80 a second, over the 70 offered: no
// dip up to the longest builds a backlog, and neither fleet has a tipping
// point, which the detail says as "none up to" the longest.
func TestModelTippingPoint(t *testing.T) {
	f := kit.Spec{Strategy: kit.Full, Base: 100 * time.Millisecond, Cap: 10 * time.Second}.Factory()
	s := Scenario{Kind: Overload, Clients: 50, DipAt: 10 * time.Second, Horizon: 120 * time.Second}
	cfg := Config{Runs: 3, Seed: 1, TippingPoint: true}
	res, err := Replay(context.Background(), f, s, cfg)
	require.NoError(t, err)
	tp := res.TippingPoint
	require.NotNil(t, tp, "TippingPoint")
	t.Logf("tipping point: %+v", *tp)
	assert.Equal(t, 105*time.Second, tp.Longest, "Longest: the horizon less the dip's start and one window")
	assert.Greater(t, tp.BaselineDip, 30*time.Second, "BaselineDip: without retries a backlog of 60d jobs drains in 2d")
	assert.LessOrEqual(t, tp.BaselineDip, 40*time.Second, "BaselineDip")
	assert.Positive(t, tp.Dip, "Dip: the retrying fleet fails within the longest dip")
	assert.LessOrEqual(t, tp.Dip, 5*time.Second, "Dip: the retrying fleet fails at the default dip")
	assert.LessOrEqual(t, tp.Dip, tp.BaselineDip, "Dip: retries never make a fleet recover from a longer dip")
	assert.Zero(t, tp.Dip%time.Second, "Dip is in whole seconds")
	assert.Zero(t, tp.BaselineDip%time.Second, "BaselineDip is in whole seconds")
	assert.Contains(t, res.Detail(), "; tipping point: the shortest dip from which a run of the fleet does not recover is "+prose.FormatDuration(tp.Dip)+"; without retries, "+prose.FormatDuration(tp.BaselineDip))

	s.Dip = 0.8
	res, err = Replay(context.Background(), f, s, cfg)
	require.NoError(t, err)
	require.NotNil(t, res.TippingPoint, "TippingPoint")
	assert.Equal(t, TippingPoint{Longest: 105 * time.Second}, *res.TippingPoint, "a dip that leaves the capacity over the load")
	assert.Contains(t, res.Detail(), "; tipping point: the shortest dip from which a run of the fleet does not recover is none up to 1m45s; without retries, none up to 1m45s")

	_, err = Replay(context.Background(), f, Scenario{Kind: Reconnect, Clients: 200, CPU: 200, Horizon: time.Minute}, cfg)
	assert.EqualError(t, err, "sim: tipping-point applies to the overload scenario only, not to the reconnect scenario", "a reconnect has no dip, and no tipping point to search")
}

// smallModels are a scenario of each server model small enough to replay
// in a few milliseconds a run.
var smallModels = []Scenario{
	{Kind: Overload, Clients: 50, DipAt: 10 * time.Second, Horizon: time.Minute},
	{Kind: Reconnect, Clients: 200, CPU: 200, WarmUp: 400, Horizon: time.Minute},
	{Kind: Contention, Clients: 20},
}

// TestModelWorkers replays each server model with one worker and with
// two: the same seed gives the same Result, baselines and tipping point
// included.
func TestModelWorkers(t *testing.T) {
	f := kit.Spec{Strategy: kit.Full, Base: 100 * time.Millisecond, Cap: 10 * time.Second}.Factory()
	for _, s := range smallModels {
		t.Run(string(s.Kind), func(t *testing.T) {
			var got [2]Result
			for w := range got {
				res, err := Replay(context.Background(), f, s, Config{Runs: 4, Seed: 7, Workers: w + 1, TippingPoint: s.Kind == Overload})
				require.NoError(t, err, "Replay with %d workers", w+1)
				res.Config.Workers = 0
				got[w] = res
			}
			assert.True(t, reflect.DeepEqual(got[0], got[1]), "Replay with 2 workers differs from Replay with 1:\n%+v\n%+v", got[0].Summary, got[1].Summary)
			again, err := Replay(context.Background(), f, s, Config{Runs: 4, Seed: 8, Workers: 1})
			require.NoError(t, err)
			assert.NotEqual(t, got[0].Runs[0].Seed, again.Runs[0].Seed, "another seed replays other runs")
		})
	}
}

// TestModelHostilePolicies replays, on each server model, policies that
// panic, return a negative delay or fail, and a factory that panics, for
// one device of a fleet of named devices: the replay returns a
// *DeviceError naming that device, with Workers 1 and 2 alike, and never
// crashes. A policy that stops (kit.ErrStop) is no defect: its device
// gives up, and the replay goes on.
func TestModelHostilePolicies(t *testing.T) {
	ids := make([]string, 10)
	for i := range ids {
		ids[i] = "sensor-" + string(rune('0'+i))
	}
	const bad = "sensor-7"
	hostile := func(next func() (time.Duration, error)) kit.Factory {
		return func(d kit.Device) kit.Policy {
			return kittest.PolicyFunc(func() (time.Duration, error) {
				if d.ID == bad {
					return next()
				}
				return 200 * time.Millisecond, nil
			})
		}
	}
	models := []Scenario{
		// The worker stalls for 5s: every request in the dip times out
		// and asks its policy for a delay.
		{Kind: Overload, IDs: ids, Dip: DipStall, DipAt: 10 * time.Second, Horizon: time.Minute},
		{Kind: Reconnect, IDs: ids, CPU: 20, WarmUp: 40, Horizon: time.Minute},
		{Kind: Contention, IDs: ids},
	}
	for _, c := range []struct {
		name  string
		f     kit.Factory
		cause StopCause
		want  string // the end of the error
	}{
		{"panic", hostile(func() (time.Duration, error) { panic("boom") }), StopPanic, "the policy panicked: boom"},
		{"negative delay", hostile(func() (time.Duration, error) { return -time.Second, nil }), StopBadDelay, "delay -1s is negative"},
		{"source error", hostile(func() (time.Duration, error) { return 0, errUnreachable }), StopSourceError, errUnreachable.Error()},
		{"factory panic", func(d kit.Device) kit.Policy {
			if d.ID == bad {
				panic("no policy for you")
			}
			return kit.FromFunc(func(int) time.Duration { return 200 * time.Millisecond })
		}, StopPanic, "the factory panicked: no policy for you"},
	} {
		for _, s := range models {
			t.Run(c.name+"/"+string(s.Kind), func(t *testing.T) {
				var msgs []string
				for _, w := range []int{1, 2} {
					_, err := Replay(context.Background(), c.f, s, Config{Runs: 3, Seed: 5, Workers: w})
					var de *DeviceError
					require.ErrorAs(t, err, &de, "Replay() with %d workers", w)
					assert.Equal(t, bad, de.Device, "the device of %v", err)
					assert.Equal(t, c.cause, de.Cause, "the cause of %v", err)
					assert.Regexp(t, `^sim: run \d+ \(seed \d+\): device `+bad+`: `, err.Error())
					assert.Regexp(t, regexp.QuoteMeta(c.want)+`$`, err.Error())
					msgs = append(msgs, err.Error())
				}
				assert.Equal(t, msgs[0], msgs[1], "the error does not depend on the workers")
			})
		}
	}
	for _, s := range models {
		t.Run("ErrStop/"+string(s.Kind), func(t *testing.T) {
			res, err := Replay(context.Background(), hostile(func() (time.Duration, error) { return 0, kit.ErrStop }), s, Config{Runs: 3, Seed: 5})
			require.NoError(t, err, "a policy that stops is no defect")
			var de *DeviceError
			assert.False(t, errors.As(err, &de))
			assert.Positive(t, res.Summary[GaveUp].High, "the stopped device gives up in some run")
		})
	}
}

// TestModelHungPolicy replays, on each server model, a policy whose call
// for one device never returns, with a CallTimeout of 1s, and with a
// context cancelled once that call has begun: as in the fleet kinds
// (TestCallTimeout, TestHungPolicy), Replay must return within seconds a
// *DeviceError of cause StopHung naming the device. A replay that has not
// returned after 20s fails the test, and its call is released.
func TestModelHungPolicy(t *testing.T) {
	defer func(g time.Duration) { stuckGrace = g }(stuckGrace)
	stuckGrace = 100 * time.Millisecond
	const bad = "sensor-7"
	ids := []string{"sensor-0", "sensor-1", "sensor-2", "sensor-3", "sensor-4", "sensor-5", "sensor-6", bad, "sensor-8", "sensor-9"}
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	hangs := func(entered chan<- struct{}) kit.Factory {
		var once bool
		return func(d kit.Device) kit.Policy {
			return kittest.PolicyFunc(func() (time.Duration, error) {
				if d.ID == bad && !once {
					once = true
					if entered != nil {
						close(entered)
					}
					<-release
				}
				return 200 * time.Millisecond, nil
			})
		}
	}
	models := []Scenario{
		{Kind: Overload, IDs: ids, Dip: DipStall, DipAt: 10 * time.Second, Horizon: time.Minute},
		{Kind: Reconnect, IDs: ids, CPU: 20, WarmUp: 40, Horizon: time.Minute},
		{Kind: Contention, IDs: ids},
	}
	replay := func(t *testing.T, ctx context.Context, f kit.Factory, s Scenario, cfg Config) error {
		t.Helper()
		done := make(chan error, 1)
		go func() { _, err := Replay(ctx, f, s, cfg); done <- err }()
		select {
		case err := <-done:
			return err
		case <-time.After(20 * time.Second):
			t.Fatalf("Replay of the %s did not return within 20s of a call that never returns", s.Kind)
			return nil
		}
	}
	for _, s := range models {
		t.Run("call timeout/"+string(s.Kind), func(t *testing.T) {
			err := replay(t, context.Background(), hangs(nil), s, Config{Runs: 1, Seed: 5, Workers: 1, CallTimeout: time.Second})
			var de *DeviceError
			require.ErrorAs(t, err, &de, "Replay()")
			assert.Equal(t, StopHung, de.Cause, "the cause of %v", err)
			assert.Equal(t, bad, de.Device, "the device of %v", err)
		})
		t.Run("cancelled/"+string(s.Kind), func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			entered := make(chan struct{})
			go func() { <-entered; cancel() }()
			err := replay(t, ctx, hangs(entered), s, Config{Runs: 1, Seed: 5, Workers: 1})
			var de *DeviceError
			require.ErrorAs(t, err, &de, "Replay()")
			assert.Equal(t, StopHung, de.Cause, "the cause of %v", err)
			assert.Equal(t, bad, de.Device, "the device of %v", err)
		})
	}
}

// TestModelGoexitInPolicy replays, on each server model, a policy whose
// Next ends its goroutine for one device, as a t.FailNow inside a policy
// would: as in the fleet kinds (TestGoexitInPolicy), the *DeviceError
// must name that device and the delay it was asked for, not a device
// without an id "making its policy".
func TestModelGoexitInPolicy(t *testing.T) {
	const bad = "sensor-7"
	ids := []string{"sensor-0", "sensor-1", "sensor-2", "sensor-3", "sensor-4", "sensor-5", "sensor-6", bad, "sensor-8", "sensor-9"}
	f := func(d kit.Device) kit.Policy {
		return kittest.PolicyFunc(func() (time.Duration, error) {
			if d.ID == bad {
				runtime.Goexit()
			}
			return 200 * time.Millisecond, nil
		})
	}
	for _, s := range []Scenario{
		{Kind: Overload, IDs: ids, Dip: DipStall, DipAt: 10 * time.Second, Horizon: time.Minute},
		{Kind: Reconnect, IDs: ids, CPU: 20, WarmUp: 40, Horizon: time.Minute},
		{Kind: Contention, IDs: ids},
	} {
		t.Run(string(s.Kind), func(t *testing.T) {
			_, err := Replay(context.Background(), f, s, Config{Runs: 3, Seed: 5})
			var de *DeviceError
			require.ErrorAs(t, err, &de, "Replay()")
			assert.True(t, de.PolicyDefect(), "PolicyDefect() of %v", err)
			assert.Equal(t, bad, de.Device, "the device of %v", err)
			assert.Positive(t, de.Attempt, "the attempt of %v: Next was asked, not the factory", err)
			assert.Regexp(t, `^sim: run \d+ \(seed \d+\): device `+bad+`: delay before attempt \d+: `, err.Error())
		})
	}
}

// TestModelJSON writes the JSON of server models' Results: a reader of
// jitterkit replay --json must find what the verdict was judged on, so
// that two replays that differ only in a model's field (the timeout), or
// only in which runs recovered, write different JSON. The test names no
// key, only that the difference shows.
func TestModelJSON(t *testing.T) {
	base := modelResult(Overload, 3, 2, map[Figure]Estimate{RecoveryTime: {Median: 5, Low: 5, High: 10}})
	marshal := func(r Result) string {
		b, err := r.MarshalJSON()
		require.NoError(t, err)
		return string(b)
	}
	other := base
	other.Scenario.Timeout = 2 * time.Second
	assert.NotEqual(t, marshal(base), marshal(other), "the JSON of overloads with a 1s and a 2s timeout")
	swapped := base
	swapped.Runs = []Run{{}, {Recovered: true}, {Recovered: true}}
	assert.NotEqual(t, marshal(base), marshal(swapped), "the JSON of runs 0 and 1 recovered, and of runs 1 and 2")
}

// TestModelUnjudged judges the replays that used nothing of the policy
// Inconclusive, saying why.
func TestModelUnjudged(t *testing.T) {
	fast := map[Figure]Estimate{RecoveryTime: {Median: 5, Low: 5, High: 10}}
	never := Baseline{Name: BaselineNoRetries, Recovered: 0, Unrecovered: []int{0, 1, 2}, Summary: map[Figure]Estimate{RecoveryTime: {Median: 265}}}
	noRetries := modelResult(Overload, 3, 3, fast)
	noRetries.Scenario.Retries = NoRetries
	noneArrived := modelResult(Overload, 3, 3, map[Figure]Estimate{RecoveryTime: {Median: 5}, PeakRetryArrivals: {}})
	noConflict := modelResult(Contention, 3, 0, map[Figure]Estimate{Attempts: {Median: 100}, Served: {Median: 100}})
	for _, c := range []struct {
		name string
		r    Result
		why  string
	}{
		{"no retries", noRetries, "the clients make no retries (retries 0)"},
		{"no retry reached the server", noneArrived, "no retry reached the server in the median run"},
		{"no write conflicted", noConflict, "no write conflicted in the median run"},
		{"the baseline never recovers either", modelResult(Overload, 3, 0, fast, never), "the same fleet without retries never recovers either"},
	} {
		t.Run(c.name, func(t *testing.T) {
			assert.Contains(t, c.r.Unjudged(), c.why)
			assert.Equal(t, verdict.Inconclusive, c.r.Status())
			assert.Contains(t, c.r.Detail(), "nothing of the policy judged: "+c.why)
		})
	}
	assert.Empty(t, modelResult(Overload, 3, 0, fast).Unjudged(), "a fleet that fails where its baseline recovers is judged")
}
