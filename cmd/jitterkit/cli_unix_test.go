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
