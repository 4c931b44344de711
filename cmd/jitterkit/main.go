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

	"github.com/jitterkit/jitterkit/reports"
)

// Exit codes. Scripts depend on them: they are a versioned contract (see
// exitCodesVersion), each code saying one thing.
const (
	exitPass  = 0 // the policy passed
	exitFail  = 1 // the policy failed the gate
	exitUsage = 2 // bad usage or bad input
	exitKit   = 3 // the kit itself failed
	// exitNoVerdict is a run that gathered too little evidence to judge:
	// never a pass, and never bad usage, whose 2 it shared in version 1
	// of the codes. 3 is the kit's own failure, so it is 4.
	exitNoVerdict   = 4
	exitInterrupted = 130 // stopped by a signal, as shells report SIGINT
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

// noVerdictError reports a run that could not judge: exit code 4.
func noVerdictError(format string, args ...any) error {
	return &exitError{exitNoVerdict, fmt.Errorf(format, args...)}
}

// An interruptedError reports a run stopped by a signal, and where.
type interruptedError struct{ where string }

func (e *interruptedError) Error() string {
	return "interrupted " + e.where + "; no report was written"
}

// visibleLines escapes every control character, invisible character and
// invalid byte of each line of msg, so that what a program, a file or a
// config wrote cannot move the cursor or forge a line; an indent of tabs
// stays.
func visibleLines(msg string) string {
	lines := strings.Split(msg, "\n")
	for i, line := range lines {
		body := strings.TrimLeft(line, "\t")
		lines[i] = line[:len(line)-len(body)] + reports.Visible(body, maxMessageLine)
	}
	return strings.Join(lines, "\n")
}

// maxMessageLine is the longest line of an error message, in bytes.
const maxMessageLine = 4096

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
