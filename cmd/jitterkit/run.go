package main

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/reports"
	"github.com/jitterkit/jitterkit/reports/gate"
	"github.com/jitterkit/jitterkit/reports/gate/progress"
	"github.com/jitterkit/jitterkit/sim"
)

// commands are the commands that take flags, in the order the help lists
// them.
var commands = []string{"check", "replay", "gate", "compare"}

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
		io.WriteString(stderr, helpMain)
		return usageError("no command given: want demo, check, replay, gate, compare or help")
	}
	command, rest := args[0], args[1:]
	switch {
	case command == "help" || command == "-h" || command == "-help" || command == "--help":
		return help(stdout, rest)
	case command == "demo" && len(rest) > 0:
		return usageError("demo takes no arguments, got %q (see \"jitterkit help\")", rest[0])
	case command == "demo":
		return demo(e)
	case !slices.Contains(commands, command):
		return usageError("unknown command %q: want demo, check, replay, gate, compare or help (see \"jitterkit help\")", command)
	}
	o, err := parseCommand(ctx, command, rest)
	if errors.Is(err, errHelp) {
		_, err = io.WriteString(stdout, commandHelp(command))
		return err
	}
	if err != nil {
		return err
	}
	if command == "compare" {
		return compare(e, o)
	}
	return evaluate(e, o)
}

// An env is where a command writes, and the context it runs in.
type env struct {
	ctx            context.Context
	stdout, stderr io.Writer
}

// help writes the help on the topic args names, or the main help.
func help(stdout io.Writer, args []string) error {
	text := helpMain
	switch {
	case len(args) > 1:
		return usageError("help takes one topic, got %q", strings.Join(args, " "))
	case len(args) == 0:
	case args[0] == "policies":
		text = helpPolicies
	case slices.Contains(commands, args[0]):
		text = commandHelp(args[0])
	default:
		return usageError("no help on %q: want check, replay, gate, compare or policies", args[0])
	}
	_, err := io.WriteString(stdout, text)
	return err
}

// parseCommand reads the config file the arguments name, parses the flags
// of command over it, and checks them all, before any work.
func parseCommand(ctx context.Context, command string, args []string) (*options, error) {
	o := &options{command: command, given: map[string]bool{}}
	if path := configArg(args); path != "" {
		if err := loadConfig(ctx, path, command, o); err != nil {
			return nil, err
		}
	}
	err := parseFlags(command, args, o)
	if err == nil {
		err = validate(o)
	}
	var e *exitError
	if errors.As(err, &e) && e.code == exitUsage {
		return nil, &exitError{exitUsage, fmt.Errorf("%w (see \"jitterkit help %s\")", e.err, command)}
	}
	return o, err
}

// configArg returns the file --config names in args, or "".
func configArg(args []string) string {
	for i, a := range args {
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		switch {
		case a == "--" || !strings.HasPrefix(a, "-") || name != "config":
		case hasValue:
			return value
		case i+1 < len(args):
			return args[i+1]
		}
	}
	return ""
}

// validate checks what no single flag can, fills the gate's configuration
// with what the flags left to the command (its steps, the fleet size, the
// memory limit, the command line that finds a counterexample again), and
// has the gate refuse what it would refuse, before any source is opened.
func validate(o *options) error {
	if len(o.clients) == 0 {
		o.clients = []int{0} // the scenario's default
	}
	src := kit.SourceSpec
	switch {
	case o.trace != "":
		src = kit.SourceTrace
	case o.exec != "":
		src = kit.SourceExec
	}
	if o.command != "compare" {
		if err := checkOneSource(o); err != nil {
			return err
		}
		if len(o.clients) > 1 {
			return usageError("%s replays one fleet size, got --clients %s; compare takes several", o.command, strings.ReplaceAll(strings.Trim(fmt.Sprint(o.clients), "[]"), " ", ","))
		}
		o.cfg.Scenario.Clients = o.clients[0]
		if o.trace != "" && o.given["devices"] {
			return usageError("--devices does not apply to --trace: the trace's own devices are checked")
		}
		if runs := o.cfg.Replay.Runs; runs > 0 && runs < sim.MinRunsToPass {
			return usageError("--runs %d cannot pass: %s judges the interval of the runs' peaks, and fewer than %d runs make none; give --runs %d or more", runs, o.command, sim.MinRunsToPass, sim.MinRunsToPass)
		}
	}
	s := o.cfg.Scenario.WithDefaults()
	for _, a := range appliesTo {
		if o.given[a.flag] && !a.applies(s) {
			return usageError("--%s applies to %s only, not to --scenario %s --server %s", a.flag, a.what, s.Kind, s.Server)
		}
	}
	o.cfg.Steps = map[string]gate.Step{"check": gate.Checks | gate.Fix, "replay": gate.Replay | gate.Fix, "gate": gate.All, "compare": gate.Replay}[o.command]
	if o.noFix {
		o.cfg.Steps &^= gate.Fix
	}
	o.cfg.Checks.MemoryLimit, o.cfg.Scenario.MemoryLimit = o.memoryLimit, o.memoryLimit
	o.cfg.Reproduce = reproduce(o)
	if err := checkOutputs(o); err != nil {
		return err
	}
	if err := o.cfg.Validate(src, o.clients...); err != nil {
		return configError(err)
	}
	return nil
}

// configError returns the usage error of a configuration a package refused,
// in its own words, saying which flag raises a memory limit.
func configError(err error) error {
	var ce *kit.ConfigError
	memory := false
	if errors.As(err, &ce) {
		err, memory = ce.Err, ce.Memory
	}
	if memory {
		return usageError("%v with --memory-limit", err)
	}
	return usageError("%v", err)
}

// checkOutputs refuses an output that is one of the command's inputs, or a
// block device: writing a report over the trace it judges would destroy the
// evidence.
func checkOutputs(o *options) error {
	var outputs []string
	if o.json != "" {
		outputs = append(outputs, o.json)
	}
	if o.report != "" {
		outputs = append(outputs, reports.Paths(o.report)...)
		if fi, err := os.Stat(o.report); err == nil && !fi.IsDir() {
			return usageError("--report %s is not a directory", o.report)
		}
	}
	for _, out := range outputs {
		fi, err := os.Stat(out)
		if err != nil {
			continue
		}
		if fi.Mode()&os.ModeDevice != 0 && fi.Mode()&os.ModeCharDevice == 0 {
			return usageError("%s is a block device; write the output to a file", out)
		}
		for _, in := range []struct{ flag, path string }{{"--trace", o.trace}, {"--config", o.config}} {
			if inInfo, err := os.Stat(in.path); in.path != "" && err == nil && os.SameFile(inInfo, fi) {
				return usageError("%s would be written over %s %s, an input of this run; write it elsewhere", out, in.flag, in.path)
			}
		}
	}
	if o.cfg.Sample > 1 && o.json != "" {
		// The replay's JSON holds the sample's own figures, with
		// nothing to say that they are a sample's.
		return usageError("--json does not take a sampled replay, whose figures are the sample's; use --report, whose files say what the sample stands for")
	}
	if err := sim.CheckJSONPath(o.json); o.json != "" && err != nil {
		return usageError("--json %v", err)
	}
	return nil
}

// retire removes what the outputs o names hold of an earlier run, when
// this run ends with err and nothing to write in their place: a program
// that broke the protocol, bad input found once the work began, a failure
// of the kit. Left there, the last run's report or figures would pass for
// this run's. Only what jitterkit wrote is removed (reports.ClearDir,
// sim.RemoveJSON), and stderr says what was. An interrupted run leaves
// them as they were, as its error says. It returns err.
func retire(e *env, o *options, err error) error {
	if errors.As(err, new(*interruptedError)) {
		return err
	}
	if o.report != "" {
		retireReport(e, o.report)
	}
	if o.json != "" {
		retireJSON(e, o.json, "this run has no figures to replace it")
	}
	return err
}

// retireReport removes the report in dir, and says so on stderr.
func retireReport(e *env, dir string) {
	removed, err := reports.ClearDir(e.ctx, dir)
	if err != nil {
		fmt.Fprintf(e.stderr, "jitterkit: --report %s: the previous report there is not this run's, and removing it failed: %s\n", dir, visibleLines(err.Error()))
		return
	}
	if len(removed) > 0 {
		var names []string
		for _, f := range removed {
			names = append(names, string(f))
		}
		fmt.Fprintf(e.stderr, "jitterkit: --report %s: the previous report (%s) was removed, as this run has none to replace it\n", dir, strings.Join(names, ", "))
	}
}

// retireJSON removes the replay's JSON at path, and says so on stderr with
// why this run writes none.
func retireJSON(e *env, path, why string) {
	removed, err := sim.RemoveJSON(path)
	if err != nil {
		fmt.Fprintf(e.stderr, "jitterkit: --json %s: the previous replay's JSON there is not this run's, and removing it failed: %s\n", path, visibleLines(err.Error()))
		return
	}
	if removed {
		fmt.Fprintf(e.stderr, "jitterkit: --json %s: the previous replay's JSON was removed, as %s\n", path, why)
	}
}

// evaluate runs check, replay or gate on the one policy o names, prints
// the summary, writes the outputs, and returns the verdict's error. A run
// that ends without an outcome to write retires the last run's outputs
// (see retire); one whose output cannot be written retires that output.
func evaluate(e *env, o *options) error {
	defer func() {
		// A panic of the kit ends the run without an outcome too; run
		// reports it. The context may be what failed: the lock on the
		// report's directory is waited for without it.
		if r := recover(); r != nil {
			retire(&env{context.Background(), e.stdout, e.stderr}, o, nil)
			panic(r)
		}
	}()
	policies, err := openPolicies(e.ctx, o)
	if err != nil {
		gate.CloseAll(policies)
		return retire(e, o, err)
	}
	cfg := o.cfg
	cfg.Progress = progress.On(e.stderr)
	rep, err := gate.Run(e.ctx, policies[0], cfg)
	if err != nil {
		return retire(e, o, gateError(e, err))
	}
	if r := rep.Replay; r != nil {
		if line := defaultedFleet(o, r.Scenario); line != "" {
			fmt.Fprintln(e.stdout, line)
		}
	}
	// The summary first: an output that cannot be written must not take
	// the verdict with it. A standard output that cannot be written is
	// said, not made the run's exit code.
	if err := reports.WriteText(e.stdout, rep); err != nil {
		fmt.Fprintf(e.stderr, "jitterkit: the summary could not be written to standard output: %v\n", err)
	}
	var outErr error
	var b bytes.Buffer
	switch err := rep.Replay.WriteJSON(&b, policies[0].Name); {
	case o.json == "":
	case errors.Is(err, reports.ErrNoFigures):
		// The last run's figures are removed rather than left to pass
		// for this run's.
		fmt.Fprintf(e.stdout, "\n%s: not written: %v\n", o.json, err)
		retireJSON(e, o.json, err.Error())
	case err != nil:
		return retire(e, o, kitError(err))
	default:
		if err := reports.WriteFile(e.ctx, o.json, b.Bytes()); err != nil {
			if outErr = outputError(e, "--json", err); errors.As(outErr, new(*interruptedError)) {
				return outErr
			}
			// The report is this run's outcome all the same, and is
			// still written.
			retireJSON(e, o.json, "this run's could not be written")
		}
	}
	if o.report != "" {
		if err := reports.WriteDir(e.ctx, o.report, rep); err != nil {
			if err = outputError(e, "--report", err); !errors.As(err, new(*interruptedError)) {
				retireReport(e, o.report)
			}
			return cmp.Or(outErr, err)
		}
		fmt.Fprintf(e.stdout, "\nreport: %s\n", strings.Join(reports.Paths(o.report), ", "))
	}
	switch {
	case outErr != nil:
		return outErr
	case rep.Verdict == verdict.Fail:
		return &exitError{exitFail, fmt.Errorf("the policy failed %s", map[string]string{"check": "a check", "replay": "the replay", "gate": "the gate"}[o.command])}
	case rep.Verdict == verdict.Inconclusive && len(rep.Inconclusive()) == 0:
		return noVerdictError("no verdict: nothing was judged")
	case rep.Verdict == verdict.Inconclusive:
		return noVerdictError("no verdict: inconclusive: %s; the summary above says why", strings.Join(rep.Inconclusive(), ", "))
	}
	return nil
}

// defaultedFleet returns the summary's first line when the replay's fleet,
// s after its defaults, is in some part the demo's because neither a flag
// nor the config described that part, with how to describe it:
//
//	scenario: the demo's default fleet (400 clients, accept rate 50/s, down 2s): describe yours with --clients, --accept-rate and --down
//
// The parts are the devices (a trace's are its own), the accept rate (but
// in a storm, which judges arrivals alone), and the down time of a kind
// that has one. It returns "" when every part was described.
func defaultedFleet(o *options, s sim.Scenario) string {
	var texts, flagNames []string
	noun := "server"
	if !o.given["clients"] && o.trace == "" {
		noun = "fleet"
		texts, flagNames = append(texts, strconv.Itoa(s.Clients)+" clients"), append(flagNames, "--clients")
	}
	if !o.given["accept-rate"] && s.Kind != sim.Storm {
		texts, flagNames = append(texts, fmt.Sprintf("accept rate %g/s", s.AcceptRate)), append(flagNames, "--accept-rate")
	}
	if !o.given["down"] && s.Down > 0 {
		texts, flagNames = append(texts, "down "+kit.FormatDuration(s.Down)), append(flagNames, "--down")
	}
	if len(texts) == 0 {
		return ""
	}
	return fmt.Sprintf("scenario: the demo's default %s (%s): describe yours with %s", noun, strings.Join(texts, ", "), andList(flagNames))
}

// andList joins items as a sentence does: "a", "a and b", "a, b and c".
func andList(items []string) string {
	if len(items) == 1 {
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// compare replays every policy o names, or the four built-in strategies,
// at every fleet size, and prints a table per headline figure.
func compare(e *env, o *options) error {
	policies, err := openPolicies(e.ctx, o)
	if err != nil {
		gate.CloseAll(policies)
		return err
	}
	cfg := o.cfg
	cfg.Progress = progress.On(e.stderr)
	cs, err := gate.Compare(e.ctx, policies, o.clients, cfg)
	if cerr := gate.CloseAll(policies); err == nil && cerr != nil {
		err = &gate.InputError{Err: cerr}
	}
	if err != nil {
		return gateError(e, err)
	}
	return reports.WriteComparisons(e.stdout, cs)
}

// gateError returns the exit error of a gate that could not judge: an
// interruption, bad input (a refused configuration, a policy's source
// that failed), a policy's defect in a comparison, or a failure of the kit.
func gateError(e *env, err error) error {
	var ie *gate.InputError
	var ee *exitError
	var se *gate.InterruptedError
	switch {
	case errors.As(err, &se):
		return &interruptedError{se.During}
	case e.ctx.Err() != nil:
		return &interruptedError{"by a signal"}
	case errors.As(err, &ee):
		return err
	case errors.As(err, new(*gate.DefectError)):
		return &exitError{exitFail, err}
	case errors.As(err, new(*kit.ConfigError)):
		return configError(err)
	case errors.Is(err, gate.ErrExecTimeout):
		return inputError(fmt.Errorf("%w; raise it with --exec-timeout", err))
	case errors.As(err, &ie):
		return inputError(ie.Err)
	}
	return kitError(err)
}

// outputError reports a failure to write flag's file: an interruption when
// a signal ended the wait for it (a FIFO without a reader, another gate
// writing the same directory), bad input (exit 2) when the path cannot be
// written, a failure of the kit (exit 3) when the report could not be
// rendered.
func outputError(e *env, flag string, err error) error {
	if e.ctx.Err() != nil && errors.Is(err, e.ctx.Err()) {
		return &interruptedError{"while writing " + flag}
	}
	err = fmt.Errorf("%s: %w", flag, err)
	if errors.As(err, new(*fs.PathError)) || errors.As(err, new(*os.LinkError)) {
		return inputError(err)
	}
	return kitError(err)
}
