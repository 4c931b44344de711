package main

import (
	"context"
	"io"

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
