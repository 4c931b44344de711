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

// TestBrokenProgramStopsItsTwin runs a program that closes its output
// behind the sh -c that started it, then sleeps for ten minutes, with a
// silence timeout as long: the run ends with the protocol error as soon as
// it is seen, without waiting for the second program the reproducibility
// check starts, which does the same. Were it to wait, the test would
// outlast go test's own timeout.
func TestBrokenProgramStopsItsTwin(t *testing.T) {
	program := `sh -c 'read -r line; exec 1>&-; exec sleep 600'; true`
	res := jitterkit(t, context.Background(), "check", "--exec", program, "--exec-timeout", "10m", "--cap", "10s")
	assert.Equal(t, 2, res.code, "stderr: %s", res.stderr)
	assert.Contains(t, res.stderr, "it closed its output without answering")
}
