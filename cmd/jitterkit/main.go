package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/reports"
)

// The exit codes (see verdict.ExitCodes), each saying one thing.
const (
	exitPass, exitFail, exitUsage           = int(verdict.ExitPass), int(verdict.ExitFail), int(verdict.ExitUsage)
	exitKit, exitNoVerdict, exitInterrupted = int(verdict.ExitKit), int(verdict.ExitNoVerdict), int(verdict.ExitInterrupted)
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(exitCode(err, os.Stderr))
}

// An exitError carries the exit code of the error it wraps.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// usageError returns a bad usage or bad input error: exit code 2.
func usageError(format string, args ...any) error {
	return &exitError{exitUsage, fmt.Errorf(format, args...)}
}

// inputError marks err as bad input: exit code 2.
func inputError(err error) error { return &exitError{exitUsage, err} }

// kitError marks err as a failure of the kit itself: exit code 3.
func kitError(err error) error { return &exitError{exitKit, err} }

// An interruptedError reports a run stopped by a signal, and where.
type interruptedError struct{ where string }

func (e *interruptedError) Error() string {
	return "interrupted " + e.where + "; no report was written"
}

// visibleLines escapes every control character, invisible character and
// invalid byte of each line of msg, so that what a program, a file or a
// config wrote cannot move the cursor or forge a line, and cuts each at
// 4096 bytes; an indent of tabs stays.
func visibleLines(msg string) string {
	lines := strings.Split(msg, "\n")
	for i, line := range lines {
		body := strings.TrimLeft(line, "\t")
		lines[i] = line[:len(line)-len(body)] + reports.Visible(body, 4096)
	}
	return strings.Join(lines, "\n")
}

// exitCode writes err to stderr, unless it is nil, and returns its exit
// code: the code an exitError carries, exitInterrupted for an interrupted
// run, and exitKit for any other error.
func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return exitPass
	}
	fmt.Fprintf(stderr, "jitterkit: %s\n", visibleLines(err.Error()))
	var e *exitError
	switch {
	case errors.As(err, &e):
		return e.code
	case errors.As(err, new(*interruptedError)):
		return exitInterrupted
	}
	return exitKit
}
