package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/jitterkit/jitterkit/kit"
)

// Limits on the files a command reads. A config holds a few flags; a trace
// is held in memory whole, and checking one with a short line per device
// peaks at about 30 bytes of memory for each byte of it (1.16 GB for a
// trace of 40 MB and 1.5 million devices), so a trace may take up to a
// sixty-fourth of the memory limit.
const (
	maxConfigBytes      = 1 << 20
	traceBytesPerMemory = 64
)

// readInput opens the file that flag names and hands read at most max of
// its bytes, more being an input error. Opening a FIFO waits for a writer
// and reading one waits for its data: ctx (Ctrl-C, SIGTERM) ends either
// wait with an interruptedError.
func readInput(ctx context.Context, flag, path string, max int64, read func(io.Reader) error) error {
	type opened struct {
		f   *os.File
		err error
	}
	done := make(chan opened, 1)
	go func() {
		f, err := os.Open(path)
		done <- opened{f, err}
	}()
	var f *os.File
	select {
	case o := <-done:
		if o.err != nil {
			return inputError(fmt.Errorf("%s: %w", flag, o.err))
		}
		f = o.f
	case <-ctx.Done():
		// The open may still return: close what it opens.
		go func() {
			if o := <-done; o.f != nil {
				o.f.Close()
			}
		}()
		return &interruptedError{"while opening " + path}
	}
	stop := context.AfterFunc(ctx, func() { f.Close() })
	defer func() {
		if stop() {
			f.Close()
		}
	}()
	lr := &io.LimitedReader{R: f, N: max + 1}
	err := read(lr)
	switch {
	case ctx.Err() != nil:
		return &interruptedError{"while reading " + path}
	case lr.N <= 0:
		return inputError(fmt.Errorf("%s %s: larger than %s; %s", flag, path, kit.FormatBytes(max), limitHint(flag)))
	case err != nil && !isInputError(err):
		return inputError(fmt.Errorf("%s %s: %w", flag, path, err))
	}
	return err
}

// limitHint says how to read a larger file of flag's kind.
func limitHint(flag string) string {
	if flag == "--trace" {
		return "raise --memory-limit to read a larger trace"
	}
	return "a config holds a few flags"
}

// isInputError reports whether err already carries its exit code.
func isInputError(err error) bool {
	var e *exitError
	return errors.As(err, &e)
}
