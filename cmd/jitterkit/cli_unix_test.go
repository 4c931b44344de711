//go:build unix

package main

import (
	"context"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFIFOWithoutAWriter opens a trace and a config that are FIFOs no one
// writes to: opening one waits for a writer, and a signal ends the wait.
func TestFIFOWithoutAWriter(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "input")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for _, args := range [][]string{
		{"check", "--trace", fifo},
		{"gate", "--config", fifo},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		// Whenever the signal comes, the open is still waiting: nothing
		// writes to the FIFO.
		time.AfterFunc(50*time.Millisecond, cancel)
		r := jitterkit(t, ctx, args...)
		cancel()
		assert.Equal(t, exitInterrupted, r.code, "%s: exit code", args[0])
		assert.Equal(t, "jitterkit: interrupted while opening "+fifo+"; no report was written\n", r.stderr, "%s: stderr", args[0])
	}
}

// TestBrokenProgramStopsItsTwin runs a program each process of which
// reads its request, closes its output without answering and sleeps for
// ten minutes, with a silence timeout as long: the run ends with the
// protocol error as soon as the first is seen, stopping the processes
// still asleep (the reproducibility check's twin, the fresh processes of
// the checks) rather than waiting out their silence. Every process breaks
// alike, so which of them the machine runs first does not change the
// outcome. The run has three minutes, against the ten it would take to
// wait.
func TestBrokenProgramStopsItsTwin(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	program := `read -r line; exec 1>&-; exec sleep 600`
	res := jitterkit(t, ctx, "check", "--exec", program, "--exec-timeout", "10m", "--cap", "10s")
	require.NoError(t, ctx.Err(), "the run waited for the sleeping processes; stderr: %s", res.stderr)
	assert.Equal(t, 2, res.code, "stderr: %s", res.stderr)
	assert.Contains(t, res.stderr, "it closed its output without answering")
}
