package gate_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/reports"
	"github.com/jitterkit/jitterkit/reports/gate"
	"github.com/jitterkit/jitterkit/testdata/kittest"
)

// reportDirEnv hands the child of TestCheckWithoutAReportClearsTheLast the
// directory its parent wrote a passing report to.
const reportDirEnv = "JITTERKIT_TEST_REPORT_DIR"

// TestCheckWithoutAReportClearsTheLast writes a passing report to a
// directory beside a file of the user's own, then runs gate.Check, in a
// process of its own, in a way that gives no report (inside a
// testing/synctest bubble, or on a policy without a factory): the test
// fails saying why, the passing report is gone rather than left looking
// like this run's, and the user's file stays.
func TestCheckWithoutAReportClearsTheLast(t *testing.T) {
	p := gate.SpecPolicy(passing)
	for _, tt := range []struct {
		way   string
		check func(t *testing.T, dir string)
		why   string
	}{
		{"bubble", func(t *testing.T, dir string) {
			synctest.Test(t, func(t *testing.T) { gate.Check(t, p, gate.Config{Steps: gate.Checks, ReportDir: dir}) })
		}, "cannot run inside a testing/synctest bubble"},
		{"no factory", func(t *testing.T, dir string) {
			gate.Check(t, gate.GoPolicy("mine", nil), gate.Config{Steps: gate.Checks, ReportDir: dir})
		}, `gate: policy "mine" has no factory`},
	} {
		t.Run(tt.way, func(t *testing.T) {
			if kittest.InChild(t) {
				tt.check(t, os.Getenv(reportDirEnv))
				return
			}
			dir := t.TempDir()
			rep, err := gate.Run(context.Background(), p, gate.Config{Steps: gate.Checks})
			require.NoError(t, err)
			require.Equal(t, verdict.Pass, rep.Verdict, "the earlier run's report")
			require.NoError(t, reports.WriteDir(context.Background(), dir, rep))
			mine := filepath.Join(dir, "notes.txt")
			require.NoError(t, os.WriteFile(mine, []byte("the user's own\n"), 0o644))

			t.Setenv(reportDirEnv, dir)
			out, failed := kittest.RunChild(t)
			require.True(t, failed, out)
			assert.Contains(t, out, tt.why)
			assert.NotContains(t, out, "panic:")
			var names []string
			for _, f := range reports.Formats() {
				names = append(names, string(f))
			}
			assert.Contains(t, out, "gate: "+dir+": the previous report ("+strings.Join(names, ", ")+") was removed, as this run has none to replace it")
			for _, f := range reports.Formats() {
				assert.NoFileExists(t, filepath.Join(dir, string(f)), "the earlier run's report")
			}
			assert.FileExists(t, mine, "a file of the user's own")
		})
	}
}

// TestCheckRefusesAReportDirFirst runs gate.Check, in a process of its
// own, with a ReportDir that is a file: the test fails before any work,
// naming it, and the file stays as it was.
func TestCheckRefusesAReportDirFirst(t *testing.T) {
	if kittest.InChild(t) {
		gate.Check(t, gate.GoPolicy("mine", func(kit.Device) kit.Policy {
			panic("the policy was made: the work began")
		}), gate.Config{Steps: gate.Checks, ReportDir: os.Getenv(reportDirEnv)})
		return
	}
	file := filepath.Join(t.TempDir(), "report")
	require.NoError(t, os.WriteFile(file, []byte("the user's own\n"), 0o644))
	t.Setenv(reportDirEnv, file)
	out, failed := kittest.RunChild(t)
	require.True(t, failed, out)
	assert.Contains(t, out, "gate: the report output: "+file+" is not a directory")
	assert.NotContains(t, out, "the work began")
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.Equal(t, "the user's own\n", string(b))
}
