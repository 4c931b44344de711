//go:build unix

package main

import (
	"context"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
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

// TestBrokenProgramStopsItsTwin runs a program whose first process to be
// asked closes its output at once, while every other process of it (the
// reproducibility check's twin, the fresh processes of the checks) reads
// its request and sleeps for ten minutes with its output open, with a
// silence timeout as long: the run ends with the protocol error as soon as
// it is seen, without waiting for the others. Were it to wait, the test
// would outlast go test's own timeout.
func TestBrokenProgramStopsItsTwin(t *testing.T) {
	t.Setenv("JITTERKIT_TEST_BROKE", filepath.Join(t.TempDir(), "broke"))
	program := `read -r line; if mkdir "$JITTERKIT_TEST_BROKE" 2>/dev/null; then exec 1>&-; fi; exec sleep 600`
	res := jitterkit(t, context.Background(), "check", "--exec", program, "--exec-timeout", "10m", "--cap", "10s")
	assert.Equal(t, 2, res.code, "stderr: %s", res.stderr)
	assert.Contains(t, res.stderr, "it closed its output without answering")
}
