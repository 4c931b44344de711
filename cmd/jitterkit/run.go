package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/jitterkit/jitterkit/reports"
)

// run is the whole command: it parses args, does the work, writes the
// results to stdout and the progress and errors of the work to stderr, and
// returns an error that carries the exit code (see exitCode). It never
// panics: a panic inside the kit is returned as a kit failure.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = kitError(fmt.Errorf("internal error: %v\n%s", r, debug.Stack()))
		}
	}()
	e := &env{ctx: ctx, stdout: stdout, stderr: stderr}
	if len(args) == 0 {
		return demo(e)
	}
	command, rest := args[0], args[1:]
	switch command {
	case "help", "-h", "-help", "--help":
		return help(stdout, rest)
	case "check", "replay", "gate", "compare":
	default:
		return usageError("unknown command %q: want check, replay, gate, compare or help (see \"jitterkit help\")", command)
	}
	o, err := parseCommand(ctx, command, rest)
	if errors.Is(err, errHelp) {
		_, err = io.WriteString(stdout, helps[command])
		return err
	}
	if err != nil {
		return err
	}
	switch command {
	case "check":
		return check(e, o)
	case "replay":
		return replay(e, o)
	case "gate":
		return gate(e, o)
	default:
		return compare(e, o)
	}
}

// An env is where a command writes, and the context it runs in.
type env struct {
	ctx            context.Context
	stdout, stderr io.Writer
}

// help writes the help on the topic args names, or the main help.
func help(stdout io.Writer, args []string) error {
	text := helpMain
	if len(args) > 0 {
		t, ok := helps[args[0]]
		if !ok {
			return usageError("no help on %q: want check, replay, gate, compare or policies", args[0])
		}
		text = t
		if len(args) > 1 {
			return usageError("help takes one topic, got %q", strings.Join(args, " "))
		}
	}
	_, err := io.WriteString(stdout, text)
	return err
}

// parseCommand parses the flags of command and the config file they name,
// and checks them, before any work.
func parseCommand(ctx context.Context, command string, args []string) (*options, error) {
	o := &options{command: command}
	if err := parseFlags(command, args, o); err != nil {
		if errors.Is(err, errHelp) {
			return nil, err
		}
		return nil, withHint(err, command)
	}
	if o.config != "" {
		if err := loadConfig(ctx, o.config, command, o); err != nil {
			return nil, err
		}
	}
	if err := validate(command, o); err != nil {
		return nil, withHint(err, command)
	}
	return o, nil
}

// withHint adds where to read the command's usage to a usage error.
func withHint(err error, command string) error {
	var e *exitError
	if errors.As(err, &e) && e.code == exitUsage {
		return &exitError{exitUsage, fmt.Errorf("%w (see \"jitterkit help %s\")", e.err, command)}
	}
	return err
}

// validate checks the options of command that no single flag can: the
// number of policies and of fleet sizes, and the scenario as a whole.
func validate(command string, o *options) error {
	switch command {
	case "compare":
		if o.json != "" || o.report != "" {
			return usageError("compare writes no report")
		}
	default:
		if err := checkOneSource(command, o); err != nil {
			return err
		}
		if len(o.clients) > 1 {
			return usageError("%s replays one fleet size, got --clients %s; compare takes several", command, joinInts(o.clients))
		}
		if o.trace != "" && o.given["devices"] {
			return usageError("--devices does not apply to --trace: the trace's own devices are checked")
		}
	}
	if err := checkOutputs(o); err != nil {
		return err
	}
	// A trace's own devices are checked, and validated once it is read.
	if (command == "check" || command == "gate") && o.trace == "" {
		if err := checkConfig(o).Validate(); err != nil {
			return usageError("%s", strings.TrimPrefix(err.Error(), "properties: "))
		}
	}
	if command != "check" {
		for _, n := range clientSizes(o) {
			s := scenario(o, n)
			if err := s.Validate(replayConfig(o)); err != nil {
				return usageError("%s", strings.TrimPrefix(err.Error(), "sim: "))
			}
		}
	}
	return nil
}

// checkOutputs refuses an output that is one of the command's inputs:
// writing a report over the trace it judges would destroy the evidence.
func checkOutputs(o *options) error {
	var outputs []string
	if o.json != "" {
		outputs = append(outputs, o.json)
	}
	if o.report != "" {
		for _, f := range reports.Formats() {
			outputs = append(outputs, filepath.Join(o.report, string(f)))
		}
	}
	for _, out := range outputs {
		if fi, err := os.Stat(out); err == nil && fi.Mode()&os.ModeDevice != 0 && fi.Mode()&os.ModeCharDevice == 0 {
			return usageError("%s is a block device; write the output to a file", out)
		}
	}
	for _, in := range []struct{ flag, path string }{{"--trace", o.trace}, {"--config", o.config}} {
		if in.path == "" {
			continue
		}
		inInfo, err := os.Stat(in.path)
		if err != nil {
			continue // reading it will say what is wrong
		}
		for _, out := range outputs {
			if outInfo, err := os.Stat(out); err == nil && os.SameFile(inInfo, outInfo) {
				return usageError("%s would be written over %s %s, an input of this run; write it elsewhere", out, in.flag, in.path)
			}
		}
	}
	return nil
}

func joinInts(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprint(x)
	}
	return strings.Join(parts, ",")
}
