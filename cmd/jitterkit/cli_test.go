package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/reports"
	"github.com/jitterkit/jitterkit/testdata/kittest"
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
		{[]string{"help", "help"}, "help/main.txt"},
		{[]string{"version"}, "version.txt"},
		{[]string{"help", "demo"}, "help/demo.txt"},
	}
	for _, tp := range topicList {
		tests = append(tests, struct {
			args   []string
			golden string
		}{[]string{"help", tp.name}, "help/" + tp.name + ".txt"})
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			r := jitterkit(t, context.Background(), tt.args...)
			require.Equal(t, 0, r.code, "exit code; stderr %q", r.stderr)
			require.Empty(t, r.stderr, "stderr")
			kittest.Golden(t, filepath.Join("testdata", tt.golden), []byte(r.stdout))
		})
	}
	for _, command := range commands {
		help := commandHelp(command)
		for _, f := range flags {
			described := strings.Contains(help, "\n  --"+f.Name+" ")
			if f.Topic == "" {
				assert.Equal(t, table.Takes(&f, command), described, "help for %s describes --%s, as %s takes it", command, f.Name, command)
				continue
			}
			assert.False(t, described, "help for %s describes --%s, which the topic %s describes", command, f.Name, f.Topic)
			if table.Takes(&f, command) {
				tp, ok := topicOf(f.Topic)
				require.True(t, ok, "--%s: no topic %s", f.Name, f.Topic)
				assert.Contains(t, help, "\n  "+f.Topic+" ", "help for %s lists the topic %s, which describes --%s", command, f.Topic, f.Name)
				assert.Contains(t, tp.help(), "\n  --"+f.Name+" ", "the topic %s describes --%s", f.Topic, f.Name)
			}
		}
	}
	assert.LessOrEqual(t, strings.Count(commandHelp("gate"), "\n"), 120, "the gate's help, in lines")
}

// TestHelpExamples parses every example of the help's topics as its
// command would: an example the command refuses is a broken promise.
func TestHelpExamples(t *testing.T) {
	for _, tp := range topicList {
		for _, para := range strings.Split(tp.text(), "\n\n") {
			_, example, ok := strings.Cut(para, " Example: ")
			if !ok {
				continue
			}
			args := strings.Fields(example)
			require.Equal(t, "jitterkit", args[0], "topic %s: %s", tp.name, example)
			_, err := parseCommand(context.Background(), args[1], args[2:])
			assert.NoError(t, err, "topic %s: %s", tp.name, example)
		}
	}
}

// topicOf returns the help topic named name.
func topicOf(name string) (topic, bool) {
	for _, tp := range topicList {
		if tp.name == name {
			return tp, true
		}
	}
	return topic{}, false
}

// TestNoCommand prints the usage without a command, and exits 2, doing
// no work.
func TestNoCommand(t *testing.T) {
	r := jitterkit(t, context.Background())
	assert.Equal(t, exitUsage, r.code, "exit code")
	assert.Empty(t, r.stdout, "stdout")
	assert.Equal(t, helpMain+"jitterkit: no command given: want demo, check, replay, gate, compare, help or version\n", r.stderr, "stderr")
}

// TestDemo pins the demo: the README's first command.
func TestDemo(t *testing.T) {
	r := jitterkit(t, context.Background(), "demo")
	require.Equal(t, 0, r.code, "exit code; stderr %q", r.stderr)
	require.Empty(t, r.stderr, "stderr")
	kittest.Golden(t, filepath.Join("testdata", "demo.txt"), []byte(r.stdout))
}

// TestFailingGate pins the summary of a gate that a policy without jitter
// fails on the default fleet: the line that says the fleet is the demo's,
// the verdict, the checks, the replay, the comparison and what to change.
func TestFailingGate(t *testing.T) {
	r := jitterkit(t, context.Background(), "gate", "--policy", "none:base=1s,cap=30s", "--runs", "5")
	assert.Equal(t, exitFail, r.code, "exit code")
	assert.Equal(t, "jitterkit: the policy failed the gate\n", r.stderr, "stderr")
	kittest.Golden(t, filepath.Join("testdata", "gate-none.txt"), []byte(r.stdout))
}

// TestCompareStorm pins a comparison of the four strategies in a storm.
func TestCompareStorm(t *testing.T) {
	r := jitterkit(t, context.Background(), "compare", "--scenario", "storm", "--clients", "1000,10000", "--runs", "5")
	require.Equal(t, 0, r.code, "exit code; stderr %q", r.stderr)
	require.Empty(t, r.stderr, "stderr")
	kittest.Golden(t, filepath.Join("testdata", "compare-storm.txt"), []byte(r.stdout))
}

// TestConfig reads a config file, lets flags override it, and gives
// compare its lists.
func TestConfig(t *testing.T) {
	r := jitterkit(t, context.Background(), "gate", "--config", "testdata/configs/gate.yaml")
	require.Equal(t, 0, r.code, "gate --config: exit code; stderr %q", r.stderr)
	for _, want := range []string{"PASS  full:base=10s,cap=2m (spec)", "5 runs", "0.1 "} {
		assert.Contains(t, r.stdout, want, "gate --config output")
	}
	r = jitterkit(t, context.Background(), "gate", "--config", "testdata/configs/gate.yaml", "--policy", "none:base=1s,cap=30s", "--runs", "3")
	assert.Equal(t, exitFail, r.code, "flags over the config: exit code")
	assert.True(t, strings.HasPrefix(r.stdout, "FAIL  none:base=1s,cap=30s"), "flags over the config: output:\n%s", r.stdout)
	assert.Contains(t, r.stdout, "3 runs", "flags over the config: output")
	r = jitterkit(t, context.Background(), "compare", "--config", "testdata/configs/compare.yaml")
	require.Equal(t, 0, r.code, "compare --config: exit code; stderr %q", r.stderr)
	kittest.Golden(t, filepath.Join("testdata", "compare-config.txt"), []byte(r.stdout))
}

// TestReportDir writes the reports of a gate, in every format, and the
// replay's JSON.
func TestReportDir(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	r := jitterkit(t, context.Background(), "gate", "--policy", "full:base=1s,cap=60s", "--clients", "200", "--accept-rate", "500", "--runs", "3", "--report", out)
	require.Equal(t, 0, r.code, "exit code; stderr %q\n%s", r.stderr, r.stdout)
	for _, f := range reports.Formats() {
		if fi, err := os.Stat(filepath.Join(out, string(f))); assert.NoError(t, err, string(f)) {
			assert.NotZero(t, fi.Size(), "%s's size", f)
		}
	}
	var rep struct {
		Schema      string `json:"schema"`
		Verdict     string `json:"verdict"`
		Checks      []struct{ Name, Status string }
		Comparisons []struct{ Policies []string }
	}
	b, _ := os.ReadFile(filepath.Join(out, "report.json"))
	require.NoError(t, json.Unmarshal(b, &rep))
	assert.Equal(t, "jitterkit.report/v2", rep.Schema, "report.json: schema")
	assert.Equal(t, "pass", rep.Verdict, "report.json: verdict")
	assert.NotEmpty(t, rep.Checks, "report.json: checks")
	assert.Len(t, rep.Comparisons, 1, "report.json: comparisons")
	want := []string{"full:base=1s,cap=1m", "none:base=1s,cap=1m", "equal:base=1s,cap=1m", "decorrelated:base=1s,cap=1m"}
	if len(rep.Comparisons) == 1 {
		assert.Equal(t, want, rep.Comparisons[0].Policies, "comparison policies")
	}

	path := filepath.Join(dir, "replay.json")
	r = jitterkit(t, context.Background(), "replay", "--policy", "none:base=100ms,cap=10s", "--runs", "3", "--json", path)
	require.Equal(t, exitFail, r.code, "replay: exit code; stderr %q", r.stderr)
	var replayJSON struct {
		Schema   string         `json:"schema"`
		Scenario map[string]any `json:"scenario"`
		Policy   string         `json:"policy"`
		Runs     []map[string]any
		Summary  map[string]struct{ Median, Low, High float64 }
	}
	b, _ = os.ReadFile(path)
	require.NoError(t, json.Unmarshal(b, &replayJSON))
	assert.Equal(t, "none:base=100ms,cap=10s", replayJSON.Policy, "replay.json: policy")
	assert.Equal(t, 400.0, replayJSON.Scenario["clients"], "replay.json: the scenario's clients")
	assert.Len(t, replayJSON.Runs, 3, "replay.json: runs")
	// Without jitter only the first attempts' instants within the first
	// second are drawn: every run of the 400-device outage serves all
	// after 62.7s, to within that second's last arrival, in 3,800 attempts.
	for _, run := range replayJSON.Runs {
		for _, key := range []string{"seed", "all_served_s", "busiest_window_arrivals", "peak_retry_arrivals", "peak_ratio", "attempts", "served", "gave_up"} {
			assert.Contains(t, run, key, "replay.json run")
		}
		assert.InDelta(t, 62.7, run["all_served_s"], 0.05, "replay.json run = %v", run)
		assert.Equal(t, 3800.0, run["attempts"], "replay.json run = %v", run)
	}
	assert.NotZero(t, replayJSON.Summary["peak_retry_arrivals"].Median, "replay.json summary = %v", replayJSON.Summary)
}

// TestDefaultFleetLine pins the summary's first line of runs whose fleet
// is in part or whole the demo's default, and of runs that describe it,
// whose first line is the verdict's.
func TestDefaultFleetLine(t *testing.T) {
	runs := [][]string{
		{"gate", "--policy", "none:base=1s,cap=30s", "--runs", "3", "--fix=false"},
		{"replay", "--policy", "full:base=100ms,cap=10s", "--runs", "3"},
		{"replay", "--policy", "full:base=100ms,cap=10s", "--runs", "3", "--clients", "2000"},
		{"replay", "--policy", "full:base=100ms,cap=10s", "--runs", "3", "--accept-rate", "500"},
		{"replay", "--policy", "full:base=100ms,cap=10s", "--runs", "3", "--clients", "2000", "--accept-rate", "500", "--down", "10s"},
		{"replay", "--policy", "full:base=100ms,cap=10s", "--runs", "3", "--scenario", "long-outage"},
		{"replay", "--policy", "full:base=100ms,cap=10s", "--runs", "3", "--scenario", "storm"},
		{"replay", "--trace", "testdata/traces/full-jitter.csv", "--runs", "3"},
		{"gate", "--config", "testdata/configs/gate.yaml", "--runs", "3", "--fix=false"},
		{"check", "--policy", "full:base=100ms,cap=10s"},
	}
	var b strings.Builder
	for _, args := range runs {
		r := jitterkit(t, context.Background(), args...)
		require.Contains(t, []int{exitPass, exitFail}, r.code, "%v: exit code; stderr %q", args, r.stderr)
		first, _, _ := strings.Cut(r.stdout, "\n")
		b.WriteString("jitterkit " + strings.Join(args, " ") + "\n  " + first + "\n")
	}
	kittest.Golden(t, filepath.Join("testdata", "default-fleet.txt"), []byte(b.String()))
}

// TestInterrupted cancels runs before and during their work: each says
// where it stopped, exits 130, and leaves the previous report alone.
func TestInterrupted(t *testing.T) {
	out := t.TempDir()
	r := jitterkit(t, context.Background(), "check", "--policy", "full:base=1s,cap=30s", "--report", out)
	require.Equal(t, exitPass, r.code, "the previous report: stderr %q", r.stderr)
	old := filepath.Join(out, "report.json")
	previous, err := os.ReadFile(old)
	require.NoError(t, err)
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
		assert.Equal(t, exitInterrupted, r.code, "%s: exit code", tt.args[0])
		assert.Equal(t, tt.want, r.stderr, "%s: stderr", tt.args[0])
	}
	// Stopped in the middle of a replay, the message says where. The
	// policy is a program that, asked for its first device's delays,
	// says so through a FIFO and then never answers: the run is cancelled
	// once the replay is waiting on it, however fast the machine.
	fifo := filepath.Join(t.TempDir(), "began")
	if err := exec.Command("mkfifo", fifo).Run(); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	began := make(chan error, 1)
	go func() {
		_, err := os.ReadFile(fifo) // returns once the program has written and closed it
		began <- err
		cancel()
	}()
	program := `read -r line; echo began > '` + fifo + `'; exec sleep 600`
	r = jitterkit(t, ctx, "replay", "--exec", program, "--clients", "1000", "--runs", "3", "--report", out)
	select {
	case err := <-began:
		require.NoError(t, err, "reading the FIFO the program writes when the replay asks it")
	default:
		require.Failf(t, "the replay ended before it asked the program", "exit %d, stderr %q", r.code, r.stderr)
	}
	assert.Equal(t, exitInterrupted, r.code, "replay: exit code")
	assert.Equal(t, "jitterkit: interrupted during the replay; no report was written\n", r.stderr, "replay: stderr")
	b, _ := os.ReadFile(old)
	assert.Equal(t, string(previous), string(b), "report.json after interrupted runs")
	entries, _ := os.ReadDir(out)
	assert.Len(t, entries, len(reports.Formats()), "files in the report dir: only the previous report")
}

// TestTrace checks and replays recorded delays: the devices are the
// trace's own.
func TestTrace(t *testing.T) {
	r := jitterkit(t, context.Background(), "gate", "--trace", "testdata/traces/full-jitter.csv", "--cap", "10s", "--clients", "300", "--accept-rate", "1000", "--down", "1ms", "--runs", "3")
	require.Equal(t, 0, r.code, "exit code; stderr %q\n%s", r.stderr, r.stdout)
	assert.True(t, strings.HasPrefix(r.stdout, "PASS  testdata/traces/full-jitter.csv (trace)\n"), "output:\n%s", r.stdout)
	assert.Contains(t, r.stdout, "300 clients", "output")
	r = jitterkit(t, context.Background(), "replay", "--trace", "testdata/traces/full-jitter.csv", "--clients", "1001")
	assert.Equal(t, exitUsage, r.code, "too many clients: exit code")
	assert.Equal(t, "jitterkit: a fleet of 1001 devices: the recording testdata/traces/full-jitter.csv holds 1000\n", r.stderr, "too many clients: stderr")
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
	require.Equal(t, 0, r.code, "exit code; stderr %q\n%s", r.stderr, r.stdout)
	assert.Contains(t, r.stdout, "from a second process", "reproducibility did not use a second process")
}

// TestExitCodes runs a command that ends in each exit code, and maps each
// class of error to its code: each code says one thing.
func TestExitCodes(t *testing.T) {
	interrupted, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name string
		ctx  context.Context
		args []string
		code int
	}{
		{"pass", context.Background(), []string{"replay", "--policy", "decorrelated:base=15s,cap=5m", "--runs", "3"}, 0},
		{"fail", context.Background(), []string{"replay", "--policy", "none:base=1s,cap=30s", "--runs", "3", "--fix=false"}, 1},
		{"usage", context.Background(), []string{"check", "--dwon", "2s"}, 2},
		{"bad input", context.Background(), []string{"check", "--trace", "testdata/traces/bad-number.csv"}, 2},
		{"kit failure", nil, []string{"replay", "--policy", "full", "--runs", "3"}, 3},
		{"no verdict", context.Background(), []string{"replay", "--scenario", "periodic", "--policy", "full", "--runs", "3"}, 4},
		{"interrupted", interrupted, []string{"check", "--policy", "full"}, 130},
	}
	for _, tt := range tests {
		r := jitterkit(t, tt.ctx, tt.args...)
		assert.Equal(t, tt.code, r.code, "%s: %v: exit code; stderr %q", tt.name, tt.args, r.stderr)
	}
	r := jitterkit(t, context.Background(), tests[5].args...)
	assert.Equal(t, "jitterkit: no verdict: inconclusive: replay; the summary above says why\n", r.stderr, "no verdict: stderr")

	errs := []struct {
		err  error
		code int
	}{
		{nil, exitPass},
		{&exitError{exitFail, errors.New("the policy failed the gate")}, exitFail},
		{usageError("bad"), exitUsage},
		{inputError(errors.New("bad")), exitUsage},
		{kitError(errors.New("broken")), exitKit},
		{errors.New("unexpected"), exitKit},
		{&exitError{exitNoVerdict, errors.New("no verdict")}, exitNoVerdict},
		{&interruptedError{"during the replay"}, exitInterrupted},
	}
	for _, tt := range errs {
		var stderr strings.Builder
		assert.Equal(t, tt.code, exitCode(tt.err, &stderr), "exitCode(%v)", tt.err)
	}

	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o644)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"replay", "--policy", "full", "--runs", "3", "--report", file}, "jitterkit: --report " + file + " is not a directory (see \"jitterkit help replay\")\n"},
		{[]string{"replay", "--policy", "full", "--runs", "3", "--json", filepath.Join(dir, "missing", "r.json")}, "jitterkit: --json cannot create a file in " + filepath.Join(dir, "missing") + ": no such file or directory (see \"jitterkit help replay\")\n"},
	} {
		r := jitterkit(t, context.Background(), tt.args...)
		assert.Equal(t, exitUsage, r.code, "%v: exit code", tt.args)
		assert.Equal(t, tt.want, r.stderr, "%v: stderr", tt.args)
	}
}

// TestNoCrash passes run a context that makes the kit panic: the panic is
// reported as a failure of the kit, exit 3, never a crash.
func TestNoCrash(t *testing.T) {
	var stdout, stderr strings.Builder
	// A nil context makes the kit panic.
	err := run(nil, []string{"replay", "--policy", "full", "--runs", "3"}, strings.NewReader(""), &stdout, &stderr)
	assert.Equal(t, exitKit, exitCode(err, &stderr), "exit code")
	assert.True(t, strings.HasPrefix(stderr.String(), "jitterkit: internal error: "), "stderr %q; want an internal error", stderr.String())
}

// TestValidatesAsTheGateRuns refuses, before any work, exactly what the
// gate would: a replay of many runs fits in memory because the gate keeps
// only the representative run's histograms, and one past the limit even
// so is refused with the flag that raises it.
func TestValidatesAsTheGateRuns(t *testing.T) {
	// 1,000 runs keep about 110 MiB with every run's histograms, 28 MiB
	// with the representative run's alone; 3,000 keep 84 MiB even so.
	r := jitterkit(t, context.Background(), "replay", "--policy", "full:base=1s,cap=30s", "--clients", "1", "--runs", "1000", "--memory-limit", "64MiB")
	assert.Equal(t, exitPass, r.code, "stderr: %s", r.stderr)
	assert.Contains(t, r.stdout, "1 client, accept rate")

	r = jitterkit(t, context.Background(), "replay", "--policy", "full:base=1s,cap=30s", "--clients", "1", "--runs", "3000", "--memory-limit", "64MiB")
	assert.Equal(t, exitUsage, r.code)
	assert.Contains(t, r.stderr, "--memory-limit")
	assert.NotContains(t, r.stderr, "Config.", "a command-line user is told flags, not Go names")
}

// fullWriter fails every write, as /dev/full does.
type fullWriter struct{}

func (fullWriter) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// TestVerdictOutlivesStandardOutput runs a failing replay whose standard
// output cannot be written: the exit code is still the verdict's, and the
// report is still written.
func TestVerdictOutlivesStandardOutput(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	var stderr bytes.Buffer
	err := run(context.Background(), []string{"replay", "--policy", "full", "--runs", "3", "--report", dir}, strings.NewReader(""), fullWriter{}, &stderr)
	assert.Equal(t, exitFail, exitCode(err, &stderr), stderr.String())
	assert.Contains(t, stderr.String(), "the summary could not be written to standard output")
	assert.FileExists(t, filepath.Join(dir, "report.json"))
}

// TestExitCodeTable finds the exit codes' table, word for word, in every
// help, in the package's documentation and in the README.
func TestExitCodeTable(t *testing.T) {
	lines := func(text string) []string {
		var out []string
		for _, l := range strings.Split(strings.TrimSpace(text), "\n") {
			out = append(out, strings.TrimSpace(l))
		}
		return out
	}
	want := lines(exitCodes)
	contains := func(where, text string) {
		got := lines(text)
		for i := range got {
			if i+len(want) <= len(got) && assert.ObjectsAreEqual(want, got[i:i+len(want)]) {
				return
			}
		}
		t.Errorf("%s lacks the exit codes' table:\n%s", where, exitCodes)
	}
	contains("jitterkit help", helpMain)
	for _, c := range commands {
		contains("jitterkit help "+c, commandHelp(c))
	}
	doc, err := os.ReadFile("doc.go")
	require.NoError(t, err)
	contains("the package's documentation", strings.ReplaceAll(string(doc), "//", ""))
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	contains("README.md", string(readme))
}
