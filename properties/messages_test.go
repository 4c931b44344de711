package properties

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/testdata/kittest"
)

func TestReportFailsOnlyOnFailure(t *testing.T) {
	for _, tt := range []struct {
		status              verdict.Status
		failed              bool // another check failed
		sub                 bool // reported to the check's own subtest
		errors, logs, skips int
	}{
		{verdict.Pass, false, true, 0, 0, 0}, {verdict.Warn, false, true, 0, 1, 0}, {verdict.Fail, false, true, 1, 0, 0},
		{verdict.Inconclusive, false, true, 1, 0, 0}, {verdict.Inconclusive, true, true, 0, 0, 1}, {verdict.Skipped, false, true, 0, 0, 1},
		// Inside a bubble the checks are no subtests: a skip would end the
		// test, and is logged.
		{verdict.Inconclusive, true, false, 0, 1, 0}, {verdict.Skipped, false, false, 0, 1, 0},
	} {
		rec := &kittest.Recorder{TB: t}
		report(rec, Result{Name: NameSpread, Status: tt.status, Detail: "d"}, tt.failed, tt.sub)
		assert.Len(t, rec.Errors, tt.errors, "%s, another failed %v, subtest %v: errors", tt.status, tt.failed, tt.sub)
		assert.Len(t, rec.Logs, tt.logs, "%s, another failed %v, subtest %v: logs", tt.status, tt.failed, tt.sub)
		assert.Len(t, rec.Skips, tt.skips, "%s, another failed %v, subtest %v: skips", tt.status, tt.failed, tt.sub)
	}
}

func TestMessageWordForWord(t *testing.T) {
	rec := &kittest.Recorder{TB: t}
	report(rec, Result{
		Name:   NameSpread,
		Status: verdict.Fail,
		Detail: `delays("dev-000017")[2] = 400ms for 1000 of 1000 devices, CV 0; want spread (CV ≥ 0.05)`,
		Counterexample: &Counterexample{Attempt: 3, Seed: 7, Replay: "Config.Seed = 7", Devices: []DeviceDelays{
			{ID: "dev-000017", Delays: []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond}},
			{ID: "dev-000018", Delays: []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond}, Err: "Next panicked: boom"},
		}},
	}, true, false)
	want := `spread: delays("dev-000017")[2] = 400ms for 1000 of 1000 devices, CV 0; want spread (CV ≥ 0.05)
	"dev-000017": [100ms 200ms 400ms]
	"dev-000018": [100ms 200ms 400ms] (Next panicked: boom)
	replay: Config.Seed = 7
`
	assert.Equal(t, []string{want}, rec.Errors, "what report reports")
}

func TestCounterexampleCutAtTen(t *testing.T) {
	var devs []DeviceDelays
	for i := range 12 {
		devs = append(devs, DeviceDelays{ID: fmt.Sprintf("d%02d", i), Delays: []time.Duration{time.Second}})
	}
	got := (&Counterexample{Devices: devs}).String()
	assert.True(t, strings.HasSuffix(got, "\t\"d09\": [1s]\n\t... and 2 more devices\n"), "String() = %q; want ten devices and a count of the rest", got)
	assert.Equal(t, "[0s 0s 0s 0s 0s 0s 0s 0s 0s 0s ... 2 more]", formatDelays(make([]time.Duration, 12)), "formatDelays")
}

// TestMessagesGolden pins, word for word, what a failing test prints for
// one policy of each bug class, through the same report that Check uses.
func TestMessagesGolden(t *testing.T) {
	block := make(chan struct{})
	defer close(block)
	ids := serials(1000)
	cases := []struct {
		name string
		f    kit.Factory
		cfg  Config
	}{
		{"no jitter", spec(t, "none"), Config{IDs: ids}},
		{"±1% jitter", jittered(perDevice, onePercent), Config{IDs: ids}},
		{"seed from the sum of the id's bytes", jittered(byteSum, fullJitter), Config{IDs: ids}},
		{"retries realigned to a fixed instant", realignedRetries(), Config{IDs: ids}},
		{"jitter that vanishes at the cap", jittered(perDevice, vanishingAtCap), Config{IDs: ids}},
		{"over the declared cap", overCap(), Config{IDs: ids, Cap: testCap}},
		{"hang", faulty("dev-100017", 2, func() (time.Duration, error) { <-block; return 0, nil }), Config{IDs: ids, CallTimeout: time.Second}},
		{"equal jitter claiming full", spec(t, "equal"), Config{IDs: ids, Claim: &kit.Spec{Strategy: kit.Full}}},
		{"full from one shared generator", sharedGenerator(), Config{IDs: ids}},
	}
	var b strings.Builder
	for _, c := range cases {
		rec := &kittest.Recorder{TB: t}
		out := mustRun(t, context.Background(), c.f, c.cfg)
		for _, r := range out.Results {
			report(rec, r, out.Status() == verdict.Fail, false)
		}
		fmt.Fprintf(&b, "== %s\n", c.name)
		for _, e := range rec.Errors {
			fmt.Fprintf(&b, "error: %s\n", e)
		}
		for _, l := range rec.Logs {
			fmt.Fprintf(&b, "log: %s\n", l)
		}
	}
	kittest.Golden(t, filepath.Join("testdata", "messages.golden"), []byte(b.String()))
}

// TestBoundsSaysTheAttemptsItSaw holds the bounds check's passing detail to
// the delays the devices gave: a policy limited to five attempts is judged
// over five, not over the attempts the checks asked for.
func TestBoundsSaysTheAttemptsItSaw(t *testing.T) {
	full := kit.Spec{Strategy: kit.Full, Base: 100 * time.Millisecond, Cap: 10 * time.Second}.Factory()
	for _, tt := range []struct {
		f    kit.Factory
		want string
	}{
		{full, "over up to 32 attempts in bounds"},
		{func(d kit.Device) kit.Policy { return kit.Limit(full(d), 5) }, "over up to 5 attempts in bounds"},
		{func(d kit.Device) kit.Policy { return kit.Limit(full(d), 1) }, "over up to 1 attempt in bounds"},
	} {
		out, err := Run(context.Background(), tt.f, Config{Seed: 1, Cap: 10 * time.Second})
		assert.NoError(t, err)
		assert.Contains(t, resultOf(t, out, NameBounds).Detail, tt.want)
	}
}
