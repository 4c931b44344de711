package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/jitterkit/jitterkit/reports"
)

// maxConfigBytes is the largest config file: one holds a few flags.
const maxConfigBytes = 1 << 20

// fileError returns the exit error of reading the file flag names at path:
// an interruption of the wait to open or read it, or bad input.
func fileError(ctx context.Context, flag, path string, err error) error {
	var pe *fs.PathError
	var big *reports.TooLargeError
	switch {
	case ctx.Err() != nil && errors.As(err, &pe) && errors.Is(err, ctx.Err()):
		return &interruptedError{map[string]string{"open": "while opening ", "read": "while reading "}[pe.Op] + path}
	case errors.As(err, &big) && flag == "--trace":
		return inputError(fmt.Errorf("%s %s: %v; raise --memory-limit to read a larger trace", flag, path, err))
	case errors.As(err, &big):
		return inputError(fmt.Errorf("%s %s: %v; a config holds a few flags", flag, path, err))
	case errors.As(err, &pe):
		return inputError(fmt.Errorf("%s: %w", flag, err))
	}
	return gateError(&env{ctx: ctx}, err)
}
