package main

import (
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
	case command == "version" || command == "--version":
		if len(rest) > 0 {
			return usageError("version takes no arguments, got %q", rest[0])
		}
		_, err := fmt.Fprintf(stdout, "jitterkit %s\n", gate.Version())
		return err
	case command == "demo" && len(rest) > 0:
		return usageError("demo takes no arguments, got %q (see \"jitterkit help\")", rest[0])
	case command == "demo":
		return demo(e)
	case !slices.Contains(commands, command):
		return usageError("unknown command %q%s: want demo, check, replay, gate, compare, help or version (see \"jitterkit help\")", command, suggestCommand(command))
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

// suggestCommand returns " (did you mean gate?)" for the command closest
// to name, when one is within two edits of it.
func suggestCommand(name string) string {
	if best := closest(name, append([]string{"demo", "help", "version"}, commands...)); best != "" {
		return " (did you mean " + best + "?)"
	}
	return ""
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
	case len(args) == 0 || args[0] == "help":
	case args[0] == "policies":
		text = helpPolicies
	case args[0] == "demo":
		text = helpDemo
	case slices.Contains(commands, args[0]):
		text = commandHelp(args[0])
	default:
		return usageError("no help on %q: want demo, check, replay, gate, compare or policies", args[0])
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
	}
	if runs := o.cfg.Replay.Runs; runs > 0 && runs < sim.MinRunsToPass {
		if o.command == "compare" {
			return usageError("--runs %d makes no interval: compare shows each cell's median with its interval over the runs, and fewer than %d runs make none; give --runs %d or more", runs, sim.MinRunsToPass, sim.MinRunsToPass)
		}
		what := "the interval of the runs' peaks"
		if o.cfg.Scenario.Kind.ServerModel() {
			what = "the median of the runs, with its interval"
		}
		return usageError("--runs %d cannot pass: %s judges %s, and fewer than %d runs make none; give --runs %d or more", runs, o.command, what, sim.MinRunsToPass, sim.MinRunsToPass)
	}
	s := o.cfg.Scenario.WithDefaults()
	for _, a := range appliesTo {
		if o.given[a.flag] && !a.applies(s) {
			if s.Kind.ServerModel() {
				// A server model is its own server.
				return usageError("--%s applies to %s only, not to --scenario %s", a.flag, a.what, s.Kind)
			}
			return usageError("--%s applies to %s only, not to --scenario %s --server %s", a.flag, a.what, s.Kind, s.Server)
		}
	}
	if s.Retries == sim.NoRetries && s.Kind != sim.Overload {
		// 0 retries is an overload's "none"; elsewhere it is no figure.
		return usageError("--retries: 0 is not a positive number")
	}
	o.cfg.Steps = map[string]gate.Step{"check": gate.Checks | gate.Fix, "replay": gate.Replay | gate.Fix, "gate": gate.All, "compare": gate.Replay}[o.command]
	if o.noFix {
		o.cfg.Steps &^= gate.Fix
	}
	o.cfg.Checks.MemoryLimit, o.cfg.Scenario.MemoryLimit = o.memoryLimit, o.memoryLimit
	o.cfg.Reproduce = reproduce(o)
	var oe *reports.OutputError
	if err := outputs(o).Check(o.cfg.Sample > 1, o.trace, o.config); errors.As(err, &oe) {
		return usageError("--%s %v", oe.Output, oe.Err)
	}
	for _, p := range unopened(o, src) {
		if err := o.cfg.Validate(p, o.clients...); err != nil {
			return configError(err)
		}
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
	msg := flagged(err.Error())
	if memory {
		return usageError("%s with --memory-limit", msg)
	}
	return usageError("%s", msg)
}

// flagged spells the field a package's refusal starts with as the flag
// that sets it: "rate 0 is …" reads "--rate 0 is …".
func flagged(msg string) string {
	name, _, _ := strings.Cut(msg, " ")
	if lookupFlag(strings.TrimSuffix(name, ":")) != nil {
		return "--" + msg
	}
	return msg
}

// outputs returns the files o writes.
func outputs(o *options) reports.Outputs { return reports.Outputs{JSON: o.json, Dir: o.report} }

// retire removes what the outputs o names hold of an earlier run, when
// this run ends with err and nothing to write in their place (see
// reports.Outputs.Retire), and says so on stderr. An interrupted run
// leaves them as they were, as its error says. It returns err.
func retire(e *env, o *options, err error) error {
	if !errors.As(err, new(*interruptedError)) {
		printNotes(e, outputs(o).Retire(e.ctx))
	}
	return err
}

// printNotes writes what became of the outputs: the retired files on
// stderr, the others on stdout.
func printNotes(e *env, notes []reports.OutputNote) {
	for _, n := range notes {
		if n.Retired {
			fmt.Fprintf(e.stderr, "jitterkit: --%s %s: %s\n", n.Output, visibleLines(n.Path), visibleLines(n.Text))
		} else {
			fmt.Fprintf(e.stdout, "\n%s\n", n.Text)
		}
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
	if !o.quiet {
		cfg.Progress = progress.On(e.stderr)
	}
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
	notes, outErr := outputs(o).Write(e.ctx, rep, policies[0].Name)
	printNotes(e, notes)
	if outErr != nil {
		return outputError(e, outErr)
	}
	switch {
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
	if s.Kind.ServerModel() {
		return modelDefaults(o, s)
	}
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

// modelDefaults returns the summary's first line when a server model's
// fleet is in some part the model's default:
//
//	scenario: the overload model's default fleet (200 clients, accept rate 100/s, rate 70/s): describe yours with --clients, --accept-rate and --rate
func modelDefaults(o *options, s sim.Scenario) string {
	var texts, flagNames []string
	part := func(flag, text string) {
		if !o.given[flag] && (flag != "clients" || o.trace == "") {
			texts, flagNames = append(texts, text), append(flagNames, "--"+flag)
		}
	}
	part("clients", strconv.Itoa(s.Clients)+" clients")
	switch s.Kind {
	case sim.Overload:
		part("accept-rate", fmt.Sprintf("accept rate %g/s", s.AcceptRate))
		part("rate", fmt.Sprintf("rate %g/s", s.Rate))
	case sim.Reconnect:
		part("cpu", fmt.Sprintf("cpu %g units/s", s.CPU))
	}
	if len(texts) == 0 {
		return ""
	}
	return fmt.Sprintf("scenario: the %s model's default fleet (%s): describe yours with %s", s.Kind, strings.Join(texts, ", "), andList(flagNames))
}

// andList joins items as a sentence does: "a", "a and b", "a, b and c".
func andList(items []string) string { return joinList(items, "and") }

// orList joins items as andList does, with "or".
func orList(items []string) string { return joinList(items, "or") }

func joinList(items []string, conj string) string {
	if len(items) == 1 {
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " " + conj + " " + items[len(items)-1]
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
	if !o.quiet {
		cfg.Progress = progress.On(e.stderr)
	}
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

// outputError returns the exit error of an output that could not be
// written (see reports.Outputs.Write): an interruption when a signal ended
// the wait for it (a FIFO without a reader, another gate writing the same
// directory), bad input (exit 2) when the path cannot be written, a
// failure of the kit (exit 3) when the report could not be rendered.
func outputError(e *env, err error) error {
	var oe *reports.OutputError
	if !errors.As(err, &oe) {
		return kitError(err)
	}
	flag := "--" + oe.Output
	if e.ctx.Err() != nil && errors.Is(err, e.ctx.Err()) {
		return &interruptedError{"while writing " + flag}
	}
	err = fmt.Errorf("%s: %w", flag, oe.Err)
	if errors.As(err, new(*fs.PathError)) || errors.As(err, new(*os.LinkError)) {
		return inputError(err)
	}
	return kitError(err)
}
