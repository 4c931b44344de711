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
		status       verdict.Status
		errors, logs int
	}{{verdict.Pass, 0, 0}, {verdict.Warn, 0, 1}, {verdict.Fail, 1, 0}} {
		rec := &kittest.Recorder{TB: t}
		report(rec, Result{Name: NameSpread, Status: tt.status, Detail: "d"})
		assert.Len(t, rec.Errors, tt.errors, "%s: errors", tt.status)
		assert.Len(t, rec.Logs, tt.logs, "%s: logs", tt.status)
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
	})
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
		for _, r := range mustRun(t, context.Background(), c.f, c.cfg).Results {
			report(rec, r)
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
