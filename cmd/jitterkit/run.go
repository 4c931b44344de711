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
	"strings"

	"github.com/jitterkit/jitterkit/internal/cli"
	"github.com/jitterkit/jitterkit/internal/progress"
	"github.com/jitterkit/jitterkit/internal/prose"
	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/reports"
	"github.com/jitterkit/jitterkit/reports/gate"
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
		return usageError("no command given: want demo, check, replay, gate, compare, help or version")
	}
	command, rest := args[0], args[1:]
	switch {
	case command == "help" || command == "-h" || command == "-help" || command == "--help":
		return help(stdout, rest)
	case (command == "version" || command == "--version" || command == "demo") && len(rest) > 0:
		return usageError("%s takes no arguments, got %q (see \"jitterkit help\")", strings.TrimLeft(command, "-"), rest[0])
	case command == "version" || command == "--version":
		_, err := fmt.Fprintf(stdout, "jitterkit %s\n", gate.Version())
		return err
	case command == "demo":
		return demo(e)
	case !slices.Contains(commands, command):
		hint := cli.Closest(command, append([]string{"demo", "help", "version"}, commands...))
		if hint != "" {
			hint = " (did you mean " + hint + "?)"
		}
		return usageError("unknown command %q%s: want demo, check, replay, gate, compare, help or version (see \"jitterkit help\")", command, hint)
	}
	o, err := parseCommand(ctx, command, rest)
	if errors.Is(err, cli.ErrHelp) {
		_, err = io.WriteString(stdout, commandHelp(command))
		return err
	}
	if err != nil {
		return err
	}
	if !o.quiet {
		o.cfg.Progress = progress.On(stderr)
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
	topics := map[string]string{"help": helpMain, "policies": helpPolicies, "demo": helpDemo}
	switch {
	case len(args) == 0:
		args = []string{"help"}
	case len(args) > 1:
		return usageError("help takes one topic, got %q", strings.Join(args, " "))
	}
	text, ok := topics[args[0]]
	if slices.Contains(commands, args[0]) {
		text, ok = commandHelp(args[0]), true
	}
	for _, t := range topicList {
		if t.name == args[0] {
			text, ok = t.help(), true
		}
	}
	if !ok {
		return usageError("no help on %q: want demo, check, replay, gate, compare, policies or a topic: %s", args[0], topicNames())
	}
	_, err := io.WriteString(stdout, text)
	return err
}

// parseCommand reads the config file the arguments name, parses the flags
// of command over it, and checks them all, before any work.
func parseCommand(ctx context.Context, command string, args []string) (*options, error) {
	o := &options{command: command, given: map[string]bool{}}
	if path := cli.Lookahead(args, "config"); path != "" {
		if err := loadConfig(ctx, path, command, o); err != nil {
			return nil, err
		}
	}
	given, err := table.Parse(command, args, o, o.given)
	o.args = given
	switch {
	case errors.Is(err, cli.ErrHelp):
		return nil, err
	case err != nil:
		err = usageError("%v", err)
	default:
		err = validate(o)
	}
	var e *exitError
	if errors.As(err, &e) && e.code == exitUsage {
		return nil, &exitError{exitUsage, fmt.Errorf("%w (see \"jitterkit help %s\")", e.err, command)}
	}
	return o, err
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
	if o.trace != "" {
		src = kit.SourceTrace
	} else if o.exec != "" {
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
	if err := o.cfg.ValidateNamed(src, o.specs, o.clients...); err != nil {
		return configError(err)
	}
	return nil
}

// configError returns the usage error of a configuration a package refused,
// in its own words, saying which flag raises a memory limit.
func configError(err error) error {
	var ce *kit.ConfigError
	hint := ""
	if errors.As(err, &ce) {
		err = ce.Err
		if ce.Memory {
			hint = " with --memory-limit"
		}
	}
	return usageError("%s%s", flagged(err.Error()), hint)
}

// flagged spells the field a package's refusal starts with as the flag
// that sets it: "rate 0 is …" reads "--rate 0 is …".
func flagged(msg string) string {
	name, _, _ := strings.Cut(msg, " ")
	if table.Lookup(strings.TrimSuffix(name, ":")) != nil {
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
		// reports it. The context may be what failed: the outputs are
		// retired without it.
		if r := recover(); r != nil {
			retire(&env{context.Background(), e.stdout, e.stderr}, o, nil)
			panic(r)
		}
	}()
	policies, err := openPolicies(e.ctx, o)
	if err != nil {
		return retire(e, o, err)
	}
	rep, err := gate.Run(e.ctx, policies[0], o.cfg)
	if err != nil {
		return retire(e, o, gateError(e, err))
	}
	if line := defaultedFleet(o); rep.Replay != nil && line != "" {
		fmt.Fprintln(e.stdout, line)
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
	switch code := int(rep.Verdict.ExitCode()); {
	case code == exitFail:
		return &exitError{code, fmt.Errorf("the policy failed %s", map[string]string{"check": "a check", "replay": "the replay", "gate": "the gate"}[o.command])}
	case code == exitNoVerdict && len(rep.Inconclusive()) == 0:
		return &exitError{code, errors.New("no verdict: nothing was judged")}
	case code == exitNoVerdict:
		return &exitError{code, fmt.Errorf("no verdict: inconclusive: %s; the summary above says why", strings.Join(rep.Inconclusive(), ", "))}
	case code != exitPass:
		return kitError(fmt.Errorf("the gate gave no verdict of its own: %q", rep.Verdict))
	}
	return nil
}

// defaultedFleet returns the summary's first line when the replay's fleet
// is in some part its kind's default, because neither a flag nor the
// config described that part (see sim.Scenario.DefaultedParts; a trace's
// devices are its own), with how to describe it:
//
//	scenario: the demo's default fleet (400 clients, accept rate 50/s, down 2s): describe yours with --clients, --accept-rate and --down
//
// It returns "" when every part was described.
func defaultedFleet(o *options) string {
	var texts, flagNames []string
	for _, p := range o.cfg.Scenario.DefaultedParts() {
		if p.Field != "clients" || o.trace == "" {
			texts, flagNames = append(texts, p.Text), append(flagNames, "--"+p.Field)
		}
	}
	whose, noun := "the demo's", "fleet"
	switch {
	case len(texts) == 0:
		return ""
	case o.cfg.Scenario.WithDefaults().Kind.ServerModel():
		whose = "the " + string(o.cfg.Scenario.WithDefaults().Kind) + " model's"
	case flagNames[0] != "--clients":
		noun = "server"
	}
	return fmt.Sprintf("scenario: %s default %s (%s): describe yours with %s", whose, noun, strings.Join(texts, ", "), prose.List(flagNames, "and"))
}

// compare replays every policy o names, or the four built-in strategies,
// at every fleet size, and prints a table per headline figure.
func compare(e *env, o *options) error {
	policies, err := openPolicies(e.ctx, o)
	if err != nil {
		return err
	}
	cs, err := gate.Compare(e.ctx, policies, o.clients, o.cfg)
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
// the write (a FIFO without a reader), bad input (exit 2) when the path
// cannot be written, a failure of the kit (exit 3) when the report could
// not be rendered.
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
