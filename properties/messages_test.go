package properties

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// recorder is a testing.TB that records what a check reports to it.
type recorder struct {
	testing.TB
	errors, logs []string
}

func (r *recorder) Helper()           {}
func (r *recorder) Error(args ...any) { r.errors = append(r.errors, fmt.Sprint(args...)) }
func (r *recorder) Log(args ...any)   { r.logs = append(r.logs, fmt.Sprint(args...)) }

func TestReportFailsOnlyOnFailure(t *testing.T) {
	for _, tt := range []struct {
		status       verdict.Status
		errors, logs int
	}{{verdict.Pass, 0, 0}, {verdict.Warn, 0, 1}, {verdict.Fail, 1, 0}} {
		rec := &recorder{TB: t}
		report(rec, Result{Name: NameSpread, Status: tt.status, Detail: "d"})
		if len(rec.errors) != tt.errors || len(rec.logs) != tt.logs {
			t.Errorf("%s: %d errors, %d logs; want %d, %d", tt.status, len(rec.errors), len(rec.logs), tt.errors, tt.logs)
		}
	}
}

func TestMessageWordForWord(t *testing.T) {
	rec := &recorder{TB: t}
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
	if len(rec.errors) != 1 || rec.errors[0] != want {
		t.Errorf("reported %q; want %q", rec.errors, want)
	}
}

func TestCounterexampleCutAtTen(t *testing.T) {
	var devs []DeviceDelays
	for i := range 12 {
		devs = append(devs, DeviceDelays{ID: fmt.Sprintf("d%02d", i), Delays: []time.Duration{time.Second}})
	}
	got := (&Counterexample{Devices: devs}).String()
	if !strings.HasSuffix(got, "\t\"d09\": [1s]\n\t... and 2 more devices\n") {
		t.Errorf("String() = %q; want ten devices and a count of the rest", got)
	}
	if got := formatDelays(make([]time.Duration, 12)); got != "[0s 0s 0s 0s 0s 0s 0s 0s 0s 0s ... 2 more]" {
		t.Errorf("formatDelays = %q", got)
	}
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
		rec := &recorder{TB: t}
		for _, r := range mustRun(t, context.Background(), c.f, c.cfg).Results {
			report(rec, r)
		}
		fmt.Fprintf(&b, "== %s\n", c.name)
		for _, e := range rec.errors {
			fmt.Fprintf(&b, "error: %s\n", e)
		}
		for _, l := range rec.logs {
			fmt.Fprintf(&b, "log: %s\n", l)
		}
	}
	golden(t, "messages.golden", b.String())
}

// golden compares got with the file testdata/name, or rewrites it under
// -update, and shows a (-want +got) diff on a mismatch.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if string(want) != got {
		t.Errorf("%s mismatch (-want +got):\n%s", path, lineDiff(string(want), got))
	}
}

// lineDiff returns the lines of want and got that differ, marked - and +,
// after their longest common prefix and suffix.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	i := 0
	for i < len(w) && i < len(g) && w[i] == g[i] {
		i++
	}
	j := 0
	for j < len(w)-i && j < len(g)-i && w[len(w)-1-j] == g[len(g)-1-j] {
		j++
	}
	var b strings.Builder
	for _, l := range w[i : len(w)-j] {
		fmt.Fprintf(&b, "-%s\n", l)
	}
	for _, l := range g[i : len(g)-j] {
		fmt.Fprintf(&b, "+%s\n", l)
	}
	return b.String()
}
