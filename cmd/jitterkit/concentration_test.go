package main

import (
	"context"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// awkCommand returns the command that runs the awk program file as an exec
// policy: mawk reads a pipe in blocks unless told to read it line by line,
// and would wait for requests the kit sends only after each reply.
func awkCommand(t *testing.T, file string) string {
	t.Helper()
	if _, err := exec.LookPath("awk"); err != nil {
		t.Skip("no awk")
	}
	out, _ := exec.Command("awk", "-W", "version").CombinedOutput()
	if strings.Contains(string(out), "mawk") {
		return "awk -W interactive -f " + file
	}
	return "awk -f " + file
}

// TestExecMostlyLockstep checks, through the exec protocol, a fleet whose
// CV passes because 3% of its devices draw full jitter while the other 97%
// retry within a millisecond of one another: spread, clusters and cap
// phase fail on the share of the fleet in one window.
func TestExecMostlyLockstep(t *testing.T) {
	program := awkCommand(t, "testdata/mostly_lockstep.awk")
	r := jitterkit(t, context.Background(), "check", "--exec", program, "--cap", "10s")
	require.Equal(t, exitFail, r.code, "exit code; stderr %q\n%s", r.stderr, r.stdout)
	for _, want := range []string{
		"3 checks failed: spread, clusters, cap-phase",
		"FAIL    spread           96.7% of the fleet    < 11.2%    delay 1 of 967 of 1000 devices lies within 498.7µs of 100.5ms, in one window of 1ms (1% of the delay), CV 0.085; want spread: fewer than 112 in one window (independent devices spread with CV 0.05 reach 112 with probability below 1e-07)",
		"FAIL    clusters         96.7% of the fleet    < 11.2%    the retries after delay 1 of 967 of 1000 devices land within 498.7µs of 100.5ms",
		"FAIL    cap-phase        96.7% of the fleet    < 11.2%    delay 4 of 967 of 1000 devices lies within 499.8µs of 800.5ms",
		"PASS    bounds",
	} {
		assert.Contains(t, r.stdout, want, "the output of check")
	}
}
