//go:build unix

package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/reports"
)

// Programs that break the exec protocol or whose delays are a defect.
const (
	// brokenProgram answers every request with a line that is no reply.
	brokenProgram = `while read -r line; do echo hello; done`
	// nanProgram answers every request with a NaN delay.
	nanProgram = `while read -r line; do echo "[NaN]"; done`
	// negativeProgram answers every request with a negative delay.
	negativeProgram = `while read -r line; do echo "[-1]"; done`
)

// TestNoStaleOutput runs a passing replay that writes its JSON and its
// report, then a run that breaks the exec protocol or whose policy has a
// defect, into the same files: no file of the passing run is left to pass
// for the later run's. A protocol error has no outcome, and removes the
// report and the JSON, saying so; a defect is a failure, whose report is
// written, while the replay it stopped has no figures, and its JSON is
// removed. A user's file beside the report stays.
func TestNoStaleOutput(t *testing.T) {
	tests := []struct {
		name   string
		args   []string // --report DIR and, for replay, --json FILE follow
		code   int
		stderr []string // word for word, after the paths are put in
		report string   // the verdict of report.json afterwards, "" when there is none
		reason string   // what report.md says of it
	}{
		{"replay, a protocol error", []string{"replay", "--exec", brokenProgram, "--runs", "3"}, exitUsage, []string{
			"jitterkit: --report DIR: the previous report (" + removedReport() + ") was removed, as this run has none to replace it",
			"jitterkit: --json FILE: the previous replay's JSON was removed, as this run has no figures to replace it",
			`jitterkit: exec "` + strings.ReplaceAll(brokenProgram, `"`, `\"`) + `": device "dev-00000001-0000000": the reply is not a JSON array of numbers: "hello"`,
		}, "", ""},
		{"gate, a protocol error", []string{"gate", "--exec", brokenProgram, "--runs", "3"}, exitUsage, []string{
			"jitterkit: --report DIR: the previous report (" + removedReport() + ") was removed, as this run has none to replace it",
			`jitterkit: exec "` + strings.ReplaceAll(brokenProgram, `"`, `\"`) + `": device "02:1a:7f:01:09:53": the reply is not a JSON array of numbers: "hello"`,
		}, "", ""},
		{"check, a protocol error", []string{"check", "--exec", brokenProgram, "--cap", "10s"}, exitUsage, []string{
			"jitterkit: --report DIR: the previous report (" + removedReport() + ") was removed, as this run has none to replace it",
			`jitterkit: exec "` + strings.ReplaceAll(brokenProgram, `"`, `\"`) + `": device "02:1a:7f:01:09:53": the reply is not a JSON array of numbers: "hello"`,
		}, "", ""},
		{"replay, a defect", []string{"replay", "--exec", nanProgram, "--runs", "3"}, exitFail, []string{
			"jitterkit: --json FILE: the previous replay's JSON was removed, as the replay stopped before any run's figures",
			"jitterkit: the policy failed the replay",
		}, "fail", `**FAIL**: a defect of the policy stopped the replay at device "dev-00000001-0000000", delay 1.`},
		{"gate, a defect", []string{"gate", "--exec", negativeProgram, "--runs", "3", "--fix=false"}, exitFail, []string{
			"jitterkit: the policy failed the gate",
		}, "fail", `**FAIL**: a defect of the policy stopped the replay at device "dev-00000001-0000000", delay 1, and 3 checks failed: spread, clusters, bounds.`},
		{"check, a defect", []string{"check", "--exec", negativeProgram, "--fix=false"}, exitFail, []string{
			"jitterkit: the policy failed a check",
		}, "fail", `**FAIL**: 3 checks failed: spread, clusters, bounds.`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			out, file := filepath.Join(dir, "out"), filepath.Join(dir, "replay.json")
			r := jitterkit(t, context.Background(), "replay", "--policy", "decorrelated:base=15s,cap=5m", "--runs", "3", "--json", file, "--report", out)
			require.Equal(t, exitPass, r.code, "the passing replay: stderr %q", r.stderr)
			require.Equal(t, "pass", verdictOf(t, filepath.Join(out, "report.json")), "the passing replay's report")
			notes := filepath.Join(out, "notes.txt")
			require.NoError(t, os.WriteFile(notes, []byte("mine\n"), 0o644))

			args := append(tt.args, "--report", out)
			if tt.args[0] == "replay" {
				args = append(args, "--json", file)
			}
			r = jitterkit(t, context.Background(), args...)
			assert.Equal(t, tt.code, r.code, "exit code; stderr %q", r.stderr)
			want := strings.Join(tt.stderr, "\n") + "\n"
			want = strings.ReplaceAll(strings.ReplaceAll(want, "DIR", out), "FILE", file)
			assert.Equal(t, anyRun(want), anyRun(r.stderr), "stderr, word for word")

			if tt.args[0] == "replay" {
				assert.NoFileExists(t, file, "the passing replay's JSON after a run without figures")
			} else {
				assert.Equal(t, "pass", statusOf(t, file), "the JSON of a run that writes none is not touched")
			}
			b, err := os.ReadFile(notes)
			require.NoError(t, err, "the user's notes beside the report")
			assert.Equal(t, "mine\n", string(b), "the user's notes beside the report")
			if tt.report == "" {
				assertFiles(t, out, "notes.txt")
				return
			}
			assertFiles(t, out, reportFilesAnd("notes.txt")...)
			assert.Equal(t, tt.report, verdictOf(t, filepath.Join(out, "report.json")), "report.json's verdict")
			md, err := os.ReadFile(filepath.Join(out, "report.md"))
			require.NoError(t, err)
			assert.Contains(t, string(md), "\n"+tt.reason+"\n", "report.md's reason")
		})
	}
}

// TestUnwritableOutputIsNotLeftStale makes the report's directory one the
// new report cannot be written into, as a full disk would: the previous
// report is not left to pass for this run's.
func TestUnwritableOutputIsRefusedUpFront(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	r := jitterkit(t, context.Background(), "gate", "--policy", "decorrelated:base=15s,cap=5m", "--runs", "3", "--report", out)
	require.Equal(t, exitPass, r.code, "the passing gate: stderr %q", r.stderr)
	// A user's own report.md, which the report never replaces, would make
	// the next report fail to be written: it is refused before any work,
	// and bad usage leaves the files as they were.
	require.NoError(t, os.WriteFile(filepath.Join(out, "report.md"), []byte("# my notes\n"), 0o644))
	r = jitterkit(t, context.Background(), "gate", "--policy", "none:base=1s,cap=30s", "--runs", "3", "--fix=false", "--report", out)
	assert.Equal(t, exitUsage, r.code, "exit code; stderr %q", r.stderr)
	assert.Equal(t, "jitterkit: --report "+filepath.Join(out, "report.md")+": not a report file: it is a file that is not a jitterkit report, which a report never replaces; nothing was written (see \"jitterkit help gate\")\n", r.stderr, "stderr")
	assert.Empty(t, r.stdout, "no work was done")
	assertFiles(t, out, reportFilesAnd()...)
}

// TestCrashLeavesNoStaleReport makes the kit panic in a run (a nil
// context does) whose report directory holds a passing report: the run
// fails as the kit's failure, and the report is removed.
func TestCrashLeavesNoStaleReport(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	r := jitterkit(t, context.Background(), "replay", "--policy", "decorrelated:base=15s,cap=5m", "--runs", "3", "--report", out)
	require.Equal(t, exitPass, r.code, "the passing replay: stderr %q", r.stderr)
	var stdout, stderr strings.Builder
	err := run(nil, []string{"replay", "--policy", "full", "--runs", "3", "--report", out}, strings.NewReader(""), &stdout, &stderr)
	assert.Equal(t, exitKit, exitCode(err, &stderr), "exit code")
	want := "jitterkit: --report " + out + ": the previous report (" + removedReport() + ") was removed, as this run has none to replace it\njitterkit: internal error: "
	assert.True(t, strings.HasPrefix(stderr.String(), want), "stderr %q; want it to begin %q", stderr.String(), want)
	assertFiles(t, out)
}

// removedReport lists the files of every report format but those kept, in
// the order the CLI names a removed report: "report.json, report.md, ...".
func removedReport(kept ...reports.Format) string {
	var names []string
	for _, f := range reports.Formats() {
		if !slices.Contains(kept, f) {
			names = append(names, string(f))
		}
	}
	return strings.Join(names, ", ")
}

// reportFilesAnd returns the files of every report format and others, in
// the order a directory lists them.
func reportFilesAnd(others ...string) []string {
	names := others
	for _, f := range reports.Formats() {
		names = append(names, string(f))
	}
	slices.Sort(names)
	return names
}

// verdictOf returns the verdict of the report.json at path.
func verdictOf(t *testing.T, path string) string {
	t.Helper()
	var rep struct{ Verdict string }
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &rep))
	return rep.Verdict
}

// statusOf returns the status of the replay's JSON at path.
func statusOf(t *testing.T, path string) string {
	t.Helper()
	var res struct{ Status string }
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &res))
	return res.Status
}

// assertFiles fails unless dir holds exactly the named files, hidden ones
// included: no temporary file or backup is left behind.
func assertFiles(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	assert.Equal(t, names, got, "the files %s holds", dir)
}
