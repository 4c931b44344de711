package gate_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/properties"
	"github.com/jitterkit/jitterkit/reports"
	"github.com/jitterkit/jitterkit/reports/gate"
	"github.com/jitterkit/jitterkit/sim"
	"github.com/jitterkit/jitterkit/testdata/kittest"
)

// passing is a policy that passes on the default scenario: decorrelated
// jitter from a base long enough for 400 devices against 50 a second.
var passing = kit.Spec{Strategy: kit.Decorrelated, Base: 15 * time.Second, Cap: 5 * time.Minute}

func spec(t *testing.T, text string) kit.Spec {
	t.Helper()
	s, err := kit.ParseSpec(text)
	require.NoError(t, err)
	return s
}

func TestRunVerdicts(t *testing.T) {
	tests := []struct {
		name    string
		p       gate.Policy
		cfg     gate.Config
		verdict verdict.Status
	}{
		{"a policy that passes", gate.SpecPolicy(passing), gate.Config{Replay: sim.Config{Runs: 5}}, verdict.Pass},
		{"no jitter", gate.SpecPolicy(spec(t, "none:base=1s,cap=30s")), gate.Config{Replay: sim.Config{Runs: 5}}, verdict.Fail},
		{"jitter that storms", gate.SpecPolicy(spec(t, "full")), gate.Config{Replay: sim.Config{Runs: 5}}, verdict.Fail},
		{"too few devices to judge", gate.SpecPolicy(passing), gate.Config{Steps: gate.Checks, Checks: properties.Config{Devices: 50}}, verdict.Inconclusive},
		{"the checks alone", gate.SpecPolicy(passing), gate.Config{Steps: gate.Checks}, verdict.Pass},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, err := gate.Run(context.Background(), tt.p, tt.cfg)
			require.NoError(t, err)
			assert.Equal(t, tt.verdict, rep.Verdict)
			assert.Equal(t, tt.p.Name, rep.Policy.Name)
			if tt.verdict == verdict.Fail {
				assert.NotEmpty(t, rep.Advice, "a failure says what to change")
			}
			if tt.cfg.Steps == gate.Checks {
				assert.Nil(t, rep.Replay)
				assert.Empty(t, rep.Comparisons)
			}
		})
	}
}

func TestRunCompares(t *testing.T) {
	rep, err := gate.Run(context.Background(), gate.SpecPolicy(spec(t, "full:base=1s,cap=1m")), gate.Config{Replay: sim.Config{Runs: 3}})
	require.NoError(t, err)
	require.Len(t, rep.Comparisons, 1)
	c := rep.Comparisons[0]
	assert.Equal(t, sim.PeakRatio, c.Figure)
	assert.Equal(t, []string{"full:base=1s,cap=1m", "none:base=1s,cap=1m", "equal:base=1s,cap=1m", "decorrelated:base=1s,cap=1m"}, c.Policies)
	require.Len(t, c.Rows, 1)
	assert.Equal(t, rep.Replay.Summary[sim.PeakRatio], c.Rows[0].Cells[0], "the policy's own cell is its replay's")
}

// TestDefectStopsTheReplay replays a policy that returns NaN for one
// device: the replay fails naming the device and the attempt, and says
// how to find it again; nothing is compared.
func TestDefectStopsTheReplay(t *testing.T) {
	full := spec(t, "full").Factory()
	bad := func(d kit.Device) kit.Policy {
		p := full(d)
		if !strings.HasSuffix(d.ID, "-0000017") {
			return p
		}
		n := 0
		return kittest.PolicyFunc(func() (time.Duration, error) {
			if n++; n == 2 {
				return kit.Seconds(math.NaN())
			}
			return p.Next()
		})
	}
	rep, err := gate.Run(context.Background(), gate.GoPolicy("nan", bad), gate.Config{Steps: gate.Replay | gate.Comparison, Replay: sim.Config{Runs: sim.MinRunsToPass}})
	require.NoError(t, err)
	require.NotNil(t, rep.Replay)
	require.NotNil(t, rep.Replay.Stopped)
	assert.Equal(t, verdict.Fail, rep.Verdict)
	assert.Contains(t, rep.Replay.Detail, "-0000017\", delay 2: delay NaN s is not a duration (bad delay)")
	// The device breaks in the first run, whose seed is the gate's: the
	// gate's seed finds it again.
	assert.Equal(t, uint64(1), rep.Replay.Stopped.Seed)
	assert.Equal(t, "gate.Config{Seed: 1}", rep.Replay.Stopped.Replay)
	assert.Empty(t, rep.Comparisons)

	rep, err = gate.Run(context.Background(), gate.GoPolicy("nan", bad), gate.Config{
		Steps: gate.Replay, Replay: sim.Config{Runs: sim.MinRunsToPass},
		Reproduce: func(step gate.Step, seed uint64) string { return fmt.Sprintf("step %d seed %d", step, seed) },
	})
	require.NoError(t, err)
	assert.Equal(t, fmt.Sprintf("step %d seed 1", gate.Replay), rep.Replay.Stopped.Replay)
}

func TestRunErrors(t *testing.T) {
	failing := errors.New("the program stopped answering")
	tests := []struct {
		name string
		p    gate.Policy
		cfg  gate.Config
		want string
	}{
		{"a configuration out of range", gate.SpecPolicy(passing), gate.Config{Scenario: sim.Scenario{Clients: -1}},
			"sim: clients -1 is negative"},
		{"a population over the memory limit", gate.SpecPolicy(passing), gate.Config{Checks: properties.Config{Devices: 100_000, MemoryLimit: 1 << 20}},
			"properties: checking 100000 devices over 32 attempts would need about 167.8 MiB, above the memory limit of 1.0 MiB: check fewer devices or fewer attempts, or raise the limit"},
		{"a source that fails", gate.Policy{Name: "program", Source: kit.SourceExec, Factory: func(kit.Device) kit.Policy {
			return kittest.PolicyFunc(func() (time.Duration, error) { return 0, failing })
		}}, gate.Config{Steps: gate.Checks}, "the program stopped answering"},
		{"a source's own failure named first", gate.Policy{Name: "program", Source: kit.SourceExec,
			Factory: spec(t, "full").Factory(),
			Err:     func() error { return errors.New("exec: a line nobody asked for") }},
			gate.Config{Steps: gate.Checks}, "exec: a line nobody asked for"},
		{"a source that fails when closed", gate.Policy{Name: "program", Source: kit.SourceExec,
			Factory: spec(t, "full").Factory(),
			Close:   func() error { return errors.New("exec: a line too many") }},
			gate.Config{Steps: gate.Checks}, "exec: a line too many"},
		{"a recording shorter than the fleet", recording(t, 10), gate.Config{Scenario: sim.Scenario{Clients: 11}},
			"a fleet of 11 devices: the recording t.csv holds 10"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := gate.Run(context.Background(), tt.p, tt.cfg)
			var ie *gate.InputError
			require.ErrorAs(t, err, &ie)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestRunInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, steps := range []gate.Step{gate.Checks, gate.Replay} {
		_, err := gate.Run(ctx, gate.SpecPolicy(passing), gate.Config{Steps: steps})
		var ie *gate.InterruptedError
		require.ErrorAs(t, err, &ie)
		assert.ErrorIs(t, err, context.Canceled)
		want := map[gate.Step]string{gate.Checks: "during the property checks", gate.Replay: "during the replay"}[steps]
		assert.Equal(t, want, ie.During)
	}
}

// TestRecording checks and replays a recording: its own devices in both,
// the checks that cannot apply to it skipped.
func TestRecording(t *testing.T) {
	rep, err := gate.Run(context.Background(), recording(t, 1000), gate.Config{
		Checks: properties.Config{Cap: 10 * time.Second}, Scenario: sim.Scenario{Clients: 300, AcceptRate: 1000, Down: time.Millisecond},
		Replay: sim.Config{Runs: 3},
	})
	require.NoError(t, err)
	assert.Equal(t, verdict.Pass, rep.Verdict)
	assert.Equal(t, kit.SourceTrace, rep.Policy.Source)
	statuses := map[string]verdict.Status{}
	for _, c := range rep.Checks {
		statuses[c.Name] = c.Status
	}
	for _, name := range []string{properties.NameIDPopulations, properties.NameFrozenClock, properties.NameReproducibility} {
		assert.Equal(t, verdict.Skipped, statuses[name], name)
	}
	assert.Equal(t, 300, rep.Replay.Scenario.Clients)
}

// TestRecordingComparedAtItsSize compares a recording of its whole fleet
// with the built-in strategies on as many devices: without jitter, from a
// base of 100ms, every device retries at 0.1s, 0.3s and 0.7s, three waves
// of the whole fleet in the first window, so the peak is three times the
// recorded fleet over the budget, not the default fleet's.
func TestRecordingComparedAtItsSize(t *testing.T) {
	rep, err := gate.Run(context.Background(), recording(t, 1000), gate.Config{
		Steps:  gate.Replay | gate.Comparison,
		Checks: properties.Config{Cap: 10 * time.Second}, Scenario: sim.Scenario{AcceptRate: 50},
		Replay: sim.Config{Runs: 3},
	})
	require.NoError(t, err)
	require.Len(t, rep.Comparisons, 1)
	c := rep.Comparisons[0]
	require.Len(t, c.Rows, 1)
	assert.Equal(t, 1000, c.Rows[0].Clients)
	none := slices.Index(c.Policies, "none:base=100ms,cap=10s")
	require.GreaterOrEqual(t, none, 0, "policies %v", c.Policies)
	assert.Equal(t, 3*1000.0/50, c.Rows[0].Cells[none].Median, "no jitter: three waves of the recorded fleet in one window")
}

// TestCompareBesideARecording compares a spec with a recording: the row
// is the recording's fleet, and the spec is replayed at that size, as
// Compare at that size replays it.
func TestCompareBesideARecording(t *testing.T) {
	none := gate.SpecPolicy(spec(t, "none:base=100ms,cap=10s"))
	cfg := gate.Config{Replay: sim.Config{Runs: 3}}
	cs, err := gate.Compare(context.Background(), []gate.Policy{none, recording(t, 300)}, nil, cfg)
	require.NoError(t, err)
	require.Len(t, cs[0].Rows, 1)
	assert.Equal(t, 300, cs[0].Rows[0].Clients)
	alone, err := gate.Compare(context.Background(), []gate.Policy{none}, []int{300}, cfg)
	require.NoError(t, err)
	assert.Equal(t, alone[0].Rows[0].Cells[0], cs[0].Rows[0].Cells[0], "the spec's cell is its replay of 300 devices")
}

// TestCompareMarksNoneServed compares a policy that never retries: its
// cells are marked, so that no time of serving is shown for them.
func TestCompareMarksNoneServed(t *testing.T) {
	never := gate.GoPolicy("gives up", func(kit.Device) kit.Policy { return kit.FromSlice(nil) })
	cs, err := gate.Compare(context.Background(), []gate.Policy{gate.SpecPolicy(spec(t, "full")), never}, nil, gate.Config{Replay: sim.Config{Runs: 3}})
	require.NoError(t, err)
	for _, c := range cs {
		assert.Equal(t, []bool{false, true}, c.Rows[0].NoneServed, "%s", c.Figure)
	}
}

func TestCompare(t *testing.T) {
	cs, err := gate.Compare(context.Background(), nil, []int{100, 200}, gate.Config{Scenario: sim.Scenario{Kind: sim.Storm}, Replay: sim.Config{Runs: 3}})
	require.NoError(t, err)
	require.Len(t, cs, 1, "a storm has one headline figure")
	assert.Equal(t, sim.PeakRetryArrivals, cs[0].Figure)
	assert.Equal(t, []string{"none:base=1s,cap=30s", "full:base=1s,cap=30s", "equal:base=1s,cap=30s", "decorrelated:base=1s,cap=30s"}, cs[0].Policies)
	require.Len(t, cs[0].Rows, 2)
	assert.Equal(t, 100.0, cs[0].Rows[0].Cells[0].Median, "no jitter peaks at the whole fleet")

	cs, err = gate.Compare(context.Background(), []gate.Policy{gate.SpecPolicy(passing)}, nil, gate.Config{Replay: sim.Config{Runs: 3}})
	require.NoError(t, err)
	require.Len(t, cs, 2)
	assert.Equal(t, []sim.Figure{sim.PeakRatio, sim.AllServed}, []sim.Figure{cs[0].Figure, cs[1].Figure})

	nan := func(kit.Device) kit.Policy {
		return kittest.PolicyFunc(func() (time.Duration, error) { return kit.Seconds(math.NaN()) })
	}
	_, err = gate.Compare(context.Background(), []gate.Policy{gate.GoPolicy("nan", nan)}, nil, gate.Config{Replay: sim.Config{Runs: sim.MinRunsToPass}})
	var de *gate.DefectError
	require.ErrorAs(t, err, &de)
	assert.Equal(t, "nan", de.Policy)
}

// recording returns the policy of a recording of n devices of full
// jitter, five delays each, opened from its file as the CLI opens one and
// named t.csv.
func recording(t *testing.T, n int) gate.Policy {
	t.Helper()
	var b strings.Builder
	b.WriteString("device,attempt,delay_s\n")
	f := spec(t, "full").Factory()
	for i := range n {
		id := fmt.Sprintf("meter-%04d", i)
		ds, err := kit.Delays(f(kit.Device{ID: id}), 5)
		require.NoError(t, err)
		for a, d := range ds {
			fmt.Fprintf(&b, "%s,%d,%v\n", id, a+1, d.Seconds())
		}
	}
	path := filepath.Join(t.TempDir(), "t.csv")
	require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o600))
	p, err := gate.OpenTrace(context.Background(), path, 0)
	require.NoError(t, err)
	p.Name = "t.csv"
	return p
}

// TestRunFrozen judges, without failing the test, a policy seeded from the
// clock: RunFrozen freezes the clock of the frozen-clock check as Check
// does, and finds what Run, whose clock runs, cannot.
func TestRunFrozen(t *testing.T) {
	full := spec(t, "full:base=1s,cap=1m").Factory()
	clockSeeded := func(d kit.Device) kit.Policy {
		return full(kit.Device{ID: fmt.Sprint(time.Now().UnixNano()), Boot: d.Boot})
	}
	p := gate.GoPolicy("seeded from the clock", clockSeeded)
	cfg := gate.Config{Steps: gate.Checks, Checks: properties.Config{Cap: time.Minute}}

	frozen, err := gate.RunFrozen(t, p, cfg)
	require.NoError(t, err)
	assert.Equal(t, verdict.Fail, frozen.Verdict)
	running, err := gate.Run(context.Background(), p, cfg)
	require.NoError(t, err)
	for _, rep := range []struct {
		name string
		want verdict.Status
		got  []properties.Result
	}{{"RunFrozen", verdict.Fail, frozen.Checks}, {"Run", verdict.Pass, running.Checks}} {
		for _, c := range rep.got {
			if c.Name == properties.NameFrozenClock {
				assert.Equal(t, rep.want, c.Status, "%s: frozen-clock: %s", rep.name, c.Detail)
			}
		}
	}
	assert.False(t, t.Failed(), "RunFrozen leaves t alone")
}

// TestSample replays a fleet of 200,000 devices whole and as a tenth of it
// against a tenth of its accept rate: the sample's peak ratio comes within
// SampleError of the whole fleet's, its time until the last device is
// served is no later, the report says it is a sample, and a sample too
// small to stand for its fleet is refused.
func TestSample(t *testing.T) {
	s := sim.Scenario{Clients: 200_000, AcceptRate: 25_000}
	cfg := gate.Config{Steps: gate.Replay, Scenario: s, Replay: sim.Config{Runs: 5}}
	p := gate.SpecPolicy(spec(t, "full:base=1s,cap=30s"))
	whole, err := gate.Run(context.Background(), p, cfg)
	require.NoError(t, err)
	cfg.Sample = 10
	sample, err := gate.Run(context.Background(), p, cfg)
	require.NoError(t, err)
	require.NotNil(t, sample.Replay.Sample)
	assert.Equal(t, reports.Sample{Of: 10, Clients: 200_000, AcceptRate: 25_000, Error: gate.SampleError}, *sample.Replay.Sample)
	assert.Equal(t, 20_000, sample.Replay.Scenario.Clients)
	w, x := whole.Replay.Summary[sim.PeakRatio].Median, sample.Replay.Summary[sim.PeakRatio].Median
	assert.InEpsilon(t, w, x, gate.SampleError, "peak ratio: whole %v, sample %v", w, x)
	// The last device served is the latest of the fleet's: fewer devices
	// put it earlier.
	w, x = whole.Replay.Summary[sim.AllServed].Median, sample.Replay.Summary[sim.AllServed].Median
	assert.LessOrEqual(t, x, w*(1+gate.SampleError), "all served: whole %v, sample %v", w, x)

	_, err = gate.Config{Sample: 100}.Sampled(sim.Scenario{Clients: 500_000})
	var ie *gate.InputError
	require.ErrorAs(t, err, &ie)
	assert.Contains(t, err.Error(), "holds 5000, fewer than the 10000")
}

// TestSampleNearTheThreshold warns of a sample whose peak ratio passes
// within the sample's error of the threshold: the whole fleet may be over.
func TestSampleNearTheThreshold(t *testing.T) {
	r := &reports.Replay{Status: verdict.Pass, Scenario: sim.Scenario{Threshold: 0.6},
		Summary: map[sim.Figure]sim.Estimate{sim.PeakRatio: {Median: 0.595, Low: 0.59, High: 0.598}}}
	r.MarkSample(sim.Scenario{Clients: 1_000_000, AcceptRate: 125_000}, 100, gate.SampleError)
	assert.Equal(t, verdict.Warn, r.Status)
	far := &reports.Replay{Status: verdict.Pass, Scenario: sim.Scenario{Threshold: 0.6},
		Summary: map[sim.Figure]sim.Estimate{sim.PeakRatio: {Median: 0.4, Low: 0.39, High: 0.41}}}
	far.MarkSample(sim.Scenario{Clients: 1_000_000, AcceptRate: 125_000}, 100, gate.SampleError)
	assert.Equal(t, verdict.Pass, far.Status)
}

// hangsInTheReplay is a policy whose one replayed device never returns.
func hangsInTheReplay(t *testing.T) gate.Policy {
	full := spec(t, "full:base=1s,cap=30s").Factory()
	return gate.GoPolicy("hangs in the replay", func(d kit.Device) kit.Policy {
		if d.ID == "dev-00000001-0000003" {
			return kittest.PolicyFunc(func() (time.Duration, error) { select {} })
		}
		return full(d)
	})
}

// TestCheckNamesAPolicyThatNeverReturns gates only the replay of a policy
// whose one replayed device never returns, in a test binary given 30 s and
// no CallTimeout: Check fails the test naming that device and its attempt,
// rather than the binary dying with every goroutine's stack or waiting for
// ever.
//
// The replay's call timeout is then a quarter of what go test leaves the
// gate, (30s - 5s) / 4 at most: the hang is named after about 6 s, and go
// test's deadline is four times as far, so however slowly the child runs
// the hang is found before it. Were the child slow enough to reach the
// gate's stop, 5 s before the deadline, first, the replay would name the
// call it stopped on instead; both say "did not return within".
func TestCheckNamesAPolicyThatNeverReturns(t *testing.T) {
	if kittest.InChild(t) {
		gate.Check(t, hangsInTheReplay(t), gate.Config{Steps: gate.Replay, Replay: sim.Config{Runs: 3}})
		return
	}
	out, failed := kittest.RunChild(t, "-test.timeout=30s")
	require.True(t, failed, out)
	assert.NotContains(t, out, "panic: test timed out")
	assert.Contains(t, out, `the replay stopped at device "dev-00000001-0000003", delay 1: did not return within`)
	// Named by the call timeout, that timeout came from go test's
	// deadline: at least the gate's least, and not the default 30s.
	if m := regexp.MustCompile(`did not return within ([0-9.]+s) \(hung\)`).FindStringSubmatch(out); m != nil {
		d, err := time.ParseDuration(m[1])
		require.NoError(t, err)
		assert.GreaterOrEqual(t, d, time.Second, "the call timeout")
		assert.LessOrEqual(t, d, (30*time.Second-5*time.Second)/4, "the call timeout: a quarter of what go test leaves the gate, at most")
	}
}

// TestCheckNamesAPolicyThatNeverReturnsWithoutTimeout is
// TestCheckNamesAPolicyThatNeverReturns under -timeout 0, where only the
// replay's call timeout can name the hang.
func TestCheckNamesAPolicyThatNeverReturnsWithoutTimeout(t *testing.T) {
	if kittest.InChild(t) {
		gate.Check(t, hangsInTheReplay(t), gate.Config{Steps: gate.Replay, Replay: sim.Config{Runs: 3, CallTimeout: time.Second}})
		return
	}
	out, failed := kittest.RunChild(t, "-test.timeout=0")
	require.True(t, failed, out)
	assert.NotContains(t, out, "all goroutines are asleep")
	assert.Contains(t, out, `the replay stopped at device "dev-00000001-0000003", delay 1: did not return within 1s (hung)`)
}
