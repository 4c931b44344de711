package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/jitterkit/jitterkit/reports"
)

// loadConfig reads the YAML file path into o, before the command line's
// flags, which override it. Its keys are the flags' names; policy and
// clients may be lists. Keys of flags that command does not take are read
// and checked but not used, so that one file serves every command.
func loadConfig(ctx context.Context, path, command string, o *options) error {
	var parsed error
	err := reports.ReadFile(ctx, path, maxConfigBytes, func(r io.Reader) error {
		data, err := io.ReadAll(r)
		if err == nil {
			parsed = table.ReadConfig(data, path, command, "config", o, o.given, func() *options { return &options{} })
		}
		return err
	})
	switch {
	case err != nil:
		return fileError(ctx, "--config", path, err)
	case parsed != nil:
		return inputError(parsed)
	}
	return nil
}

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
