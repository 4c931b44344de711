package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestHelp pins every help text, and checks that -h and help exit 0 and
// that each command's help names every flag the command takes.
func TestHelp(t *testing.T) {
	tests := []struct {
		args   []string
		golden string
	}{
		{[]string{"help"}, "help/main.txt"},
		{[]string{"-h"}, "help/main.txt"},
		{[]string{"--help"}, "help/main.txt"},
		{[]string{"help", "check"}, "help/check.txt"},
		{[]string{"check", "-h"}, "help/check.txt"},
		{[]string{"help", "replay"}, "help/replay.txt"},
		{[]string{"replay", "--help"}, "help/replay.txt"},
		{[]string{"help", "gate"}, "help/gate.txt"},
		{[]string{"gate", "--policy", "full", "-h"}, "help/gate.txt"},
		{[]string{"help", "compare"}, "help/compare.txt"},
		{[]string{"help", "policies"}, "help/policies.txt"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			r := jitterkit(t, context.Background(), tt.args...)
			if r.code != 0 || r.stderr != "" {
				t.Fatalf("exit %d, stderr %q; want 0 and nothing", r.code, r.stderr)
			}
			golden(t, tt.golden, r.stdout)
		})
	}
	for _, command := range commands {
		for _, f := range flags {
			if described := strings.Contains(commandHelp(command), "  --"+f.name+" "); described != f.takes(command) {
				t.Errorf("help for %s describes --%s: %v; %s takes it: %v", command, f.name, described, command, f.takes(command))
			}
		}
	}
}

// TestDemo pins the demo: the README's first command.
func TestDemo(t *testing.T) {
	r := jitterkit(t, context.Background())
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q; want 0 and nothing", r.code, r.stderr)
	}
	golden(t, "demo.txt", r.stdout)
}

// TestFailingGate pins the summary of a gate that a policy without jitter
// fails: the verdict first, the checks, the replay, the comparison and what
// to change.
func TestFailingGate(t *testing.T) {
	r := jitterkit(t, context.Background(), "gate", "--policy", "none:base=1s,cap=30s", "--runs", "5")
	if r.code != exitFail || r.stderr != "jitterkit: the policy failed the gate\n" {
		t.Errorf("exit %d, stderr %q; want 1 and the failure", r.code, r.stderr)
	}
	golden(t, "gate-none.txt", r.stdout)
}

// TestCompareStorm pins a comparison of the four strategies in a storm.
func TestCompareStorm(t *testing.T) {
	r := jitterkit(t, context.Background(), "compare", "--scenario", "storm", "--clients", "1000,10000", "--runs", "5")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q; want 0 and nothing", r.code, r.stderr)
	}
	golden(t, "compare-storm.txt", r.stdout)
}

// TestConfig reads a config file, lets flags override it, and gives
// compare its lists.
func TestConfig(t *testing.T) {
	r := jitterkit(t, context.Background(), "gate", "--config", "testdata/configs/gate.yaml")
	if r.code != 0 {
		t.Fatalf("gate --config: exit %d, stderr %q", r.code, r.stderr)
	}
	for _, want := range []string{"PASS  full:base=10s,cap=2m (spec)", "5 runs", "0.1 "} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("gate --config output lacks %q:\n%s", want, r.stdout)
		}
	}
	r = jitterkit(t, context.Background(), "gate", "--config", "testdata/configs/gate.yaml", "--policy", "none:base=1s,cap=30s", "--runs", "3")
	if r.code != exitFail || !strings.HasPrefix(r.stdout, "FAIL  none:base=1s,cap=30s") || !strings.Contains(r.stdout, "3 runs") {
		t.Errorf("flags over the config: exit %d, output:\n%s", r.code, r.stdout)
	}
	r = jitterkit(t, context.Background(), "compare", "--config", "testdata/configs/compare.yaml")
	if r.code != 0 {
		t.Fatalf("compare --config: exit %d, stderr %q", r.code, r.stderr)
	}
	golden(t, "compare-config.txt", r.stdout)
}

// TestReportDir writes the four reports of a gate, and the replay's JSON.
func TestReportDir(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	r := jitterkit(t, context.Background(), "gate", "--policy", "full:base=1s,cap=60s", "--clients", "200", "--accept-rate", "500", "--runs", "3", "--report", out)
	if r.code != 0 {
		t.Fatalf("exit %d, stderr %q\n%s", r.code, r.stderr, r.stdout)
	}
	for _, name := range []string{"report.json", "report.md", "report.html", "junit.xml"} {
		if fi, err := os.Stat(filepath.Join(out, name)); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", name, err)
		}
	}
	var rep struct {
		Schema      string `json:"schema"`
		Verdict     string `json:"verdict"`
		Checks      []struct{ Name, Status string }
		Comparisons []struct{ Policies []string }
	}
	b, _ := os.ReadFile(filepath.Join(out, "report.json"))
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Schema != "jitterkit.report/v2" || rep.Verdict != "pass" || len(rep.Checks) == 0 || len(rep.Comparisons) != 1 {
		t.Errorf("report.json: schema %q, verdict %q, %d checks", rep.Schema, rep.Verdict, len(rep.Checks))
	}
	want := []string{"full:base=1s,cap=1m", "none:base=1s,cap=1m", "equal:base=1s,cap=1m", "decorrelated:base=1s,cap=1m"}
	if len(rep.Comparisons) == 1 && !slices.Equal(rep.Comparisons[0].Policies, want) {
		t.Errorf("comparison policies = %q; want %q", rep.Comparisons[0].Policies, want)
	}

	path := filepath.Join(dir, "replay.json")
	r = jitterkit(t, context.Background(), "replay", "--policy", "none:base=100ms,cap=10s", "--runs", "2", "--json", path)
	if r.code != exitFail {
		t.Fatalf("replay: exit %d, stderr %q", r.code, r.stderr)
	}
	var replayJSON struct {
		Schema   string         `json:"schema"`
		Scenario map[string]any `json:"scenario"`
		Policy   string         `json:"policy"`
		Runs     []map[string]any
		Summary  map[string]struct{ Median, Low, High float64 }
	}
	b, _ = os.ReadFile(path)
	if err := json.Unmarshal(b, &replayJSON); err != nil {
		t.Fatal(err)
	}
	if replayJSON.Policy != "none:base=100ms,cap=10s" || replayJSON.Scenario["clients"] != 400.0 || len(replayJSON.Runs) != 2 {
		t.Errorf("replay.json: policy %q, scenario %v, %d runs", replayJSON.Policy, replayJSON.Scenario, len(replayJSON.Runs))
	}
	// The lab's figures for no jitter, whatever the seed.
	for _, run := range replayJSON.Runs {
		for _, key := range []string{"seed", "all_served_s", "busiest_window_arrivals", "peak_retry_arrivals", "peak_ratio", "attempts", "served", "gave_up"} {
			if _, ok := run[key]; !ok {
				t.Errorf("replay.json run lacks %q", key)
			}
		}
		if run["all_served_s"] != 62.7 && run["attempts"] != 3800.0 {
			t.Errorf("replay.json run = %v; want the lab's 62.7 s and 3,800 attempts", run)
		}
	}
	if s := replayJSON.Summary["peak_retry_arrivals"]; s.Median == 0 {
		t.Errorf("replay.json summary = %v", replayJSON.Summary)
	}
}

// TestInterrupted cancels runs before and during their work: each says
// where it stopped, exits 130, and leaves the previous report alone.
func TestInterrupted(t *testing.T) {
	out := t.TempDir()
	old := filepath.Join(out, "report.json")
	if err := os.WriteFile(old, []byte("previous report\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"check", "--policy", "full", "--report", out}, "jitterkit: interrupted during the property checks; no report was written\n"},
		{[]string{"gate", "--policy", "full", "--report", out}, "jitterkit: interrupted during the property checks; no report was written\n"},
	}
	for _, tt := range tests {
		r := jitterkit(t, ctx, tt.args...)
		if r.code != exitInterrupted || r.stderr != tt.want {
			t.Errorf("%s: exit %d, stderr %q; want %d, %q", tt.args[0], r.code, r.stderr, exitInterrupted, tt.want)
		}
	}
	// Stopped in the middle of a replay, the message says where.
	ctx, cancel = context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	r := jitterkit(t, ctx, "replay", "--policy", "full", "--clients", "500000", "--accept-rate", "50000", "--runs", "40", "--report", out)
	// Where it stopped depends on how far the machine got in 100ms: a run,
	// or the start of the runs.
	if want := "jitterkit: interrupted during the replay; no report was written\n"; r.code != exitInterrupted || r.stderr != want {
		t.Errorf("replay: exit %d, stderr %q; want %d, %q", r.code, r.stderr, exitInterrupted, want)
	}
	if b, _ := os.ReadFile(old); string(b) != "previous report\n" {
		t.Errorf("report.json = %q after interrupted runs; want the previous report", b)
	}
	if entries, _ := os.ReadDir(out); len(entries) != 1 {
		t.Errorf("report dir holds %d files; want only the previous report", len(entries))
	}
}

// TestTrace checks and replays recorded delays: the devices are the
// trace's own.
func TestTrace(t *testing.T) {
	r := jitterkit(t, context.Background(), "gate", "--trace", "testdata/traces/full-jitter.csv", "--cap", "10s", "--clients", "300", "--accept-rate", "1000", "--down", "1ms", "--runs", "3")
	if r.code != 0 {
		t.Fatalf("exit %d, stderr %q\n%s", r.code, r.stderr, r.stdout)
	}
	if !strings.HasPrefix(r.stdout, "PASS  testdata/traces/full-jitter.csv (trace)\n") || !strings.Contains(r.stdout, "300 clients") {
		t.Errorf("output:\n%s", r.stdout)
	}
	r = jitterkit(t, context.Background(), "replay", "--trace", "testdata/traces/full-jitter.csv", "--clients", "1001")
	want := "jitterkit: a fleet of 1001 devices: the recording testdata/traces/full-jitter.csv holds 1000\n"
	if r.code != exitUsage || r.stderr != want {
		t.Errorf("too many clients: exit %d, stderr %q; want 2, %q", r.code, r.stderr, want)
	}
}

// TestExecPolicy checks a policy written in Python through the exec
// protocol, started twice for reproducibility across processes.
func TestExecPolicy(t *testing.T) {
	if _, err := os.Stat("/usr/bin/env"); err != nil {
		t.Skip("no /usr/bin/env")
	}
	if testing.Short() {
		t.Skip("starts python3")
	}
	r := jitterkit(t, context.Background(), "check", "--exec", "python3 testdata/full_jitter.py", "--cap", "10s")
	if strings.Contains(r.stderr, "not found") {
		t.Skip("python3 not installed")
	}
	if r.code != 0 {
		t.Fatalf("exit %d, stderr %q\n%s", r.code, r.stderr, r.stdout)
	}
	if !strings.Contains(r.stdout, "from a second process") {
		t.Errorf("reproducibility did not use a second process:\n%s", r.stdout)
	}
}

// TestExitCodes maps each class of error to its exit code, and checks
// that an output that cannot be written is bad input.
func TestExitCodes(t *testing.T) {
	tests := []struct {
		err  error
		code int
	}{
		{nil, 0},
		{&exitError{exitFail, errors.New("the policy failed the gate")}, 1},
		{usageError("bad"), 2},
		{inputError(errors.New("bad")), 2},
		{kitError(errors.New("broken")), 3},
		{errors.New("unexpected"), 3},
		{&interruptedError{"during the replay"}, 130},
	}
	for _, tt := range tests {
		var stderr strings.Builder
		if got := exitCode(tt.err, &stderr); got != tt.code {
			t.Errorf("exitCode(%v) = %d; want %d", tt.err, got, tt.code)
		}
	}

	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o644)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"replay", "--policy", "full", "--runs", "1", "--report", file}, "jitterkit: --report: mkdir " + file + ": not a directory\n"},
		{[]string{"replay", "--policy", "full", "--runs", "1", "--json", filepath.Join(dir, "missing", "r.json")}, "jitterkit: --json: create " + filepath.Join(dir, "missing", "r.json") + ": no such file or directory\n"},
	} {
		r := jitterkit(t, context.Background(), tt.args...)
		if r.code != exitUsage || r.stderr != tt.want {
			t.Errorf("%v: exit %d, stderr %q; want 2, %q", tt.args, r.code, r.stderr, tt.want)
		}
	}
}

// TestNoCrash passes run a context that makes the kit panic: the panic is
// reported as a failure of the kit, exit 3, never a crash.
func TestNoCrash(t *testing.T) {
	var stdout, stderr strings.Builder
	// A nil context makes the kit panic.
	err := run(nil, []string{"replay", "--policy", "full", "--runs", "1"}, strings.NewReader(""), &stdout, &stderr)
	if code := exitCode(err, &stderr); code != exitKit || !strings.HasPrefix(stderr.String(), "jitterkit: internal error: ") {
		t.Errorf("exit %d, stderr %q; want 3 and an internal error", code, stderr.String())
	}
}
