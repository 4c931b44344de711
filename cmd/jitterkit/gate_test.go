package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/reports/gate"
	"github.com/jitterkit/jitterkit/sim"
)

// TestGoAndCLIGiveOneReport gates one policy with one seed from go test
// (gate.Check, with its frozen clock) and from the command line (jitterkit
// gate): both write the same report.json, byte for byte.
func TestGoAndCLIGiveOneReport(t *testing.T) {
	spec := kit.Spec{Strategy: kit.Decorrelated, Base: 15 * time.Second, Cap: 5 * time.Minute}
	dir := t.TempDir()
	fromCLI, fromGo := filepath.Join(dir, "cli"), filepath.Join(dir, "go")

	r := jitterkit(t, context.Background(), "gate", "--policy", spec.String(), "--runs", "5", "--seed", "7", "--report", fromCLI)
	require.Equal(t, exitPass, r.code, r.stderr)
	rep := gate.Check(t, gate.SpecPolicy(spec), gate.Config{Seed: 7, Replay: sim.Config{Runs: 5}, ReportDir: fromGo})
	require.Len(t, rep.Comparisons, 1)

	cli, err := os.ReadFile(filepath.Join(fromCLI, "report.json"))
	require.NoError(t, err)
	goReport, err := os.ReadFile(filepath.Join(fromGo, "report.json"))
	require.NoError(t, err)
	assert.Equal(t, string(cli), string(goReport))
}
