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
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/jitterkit/jitterkit/cmd/jitterkit/internal/progress"
	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/properties"
	"github.com/jitterkit/jitterkit/reports"
	"github.com/jitterkit/jitterkit/reports/gate"
	"github.com/jitterkit/jitterkit/sim"
)

// commands are the commands, in the order the help lists them.
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
	if len(args) > 0 {
		switch args[0] {
		case "policies":
			text = helpPolicies
		case "check", "replay", "gate", "compare":
			text = commandHelp(args[0])
		default:
			return usageError("no help on %q: want check, replay, gate, compare or policies", args[0])
		}
		if len(args) > 1 {
			return usageError("help takes one topic, got %q", strings.Join(args, " "))
		}
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
	if err := parseFlags(command, args, o); err != nil {
		if errors.Is(err, errHelp) {
			return nil, err
		}
		return nil, withHint(err, command)
	}
	if err := validate(command, o); err != nil {
		return nil, withHint(err, command)
	}
	return o, nil
}

// configArg returns the file --config names in args, or "".
func configArg(args []string) string {
	for i, a := range args {
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if a == "--" || !strings.HasPrefix(a, "-") || name != "config" {
			continue
		}
		if hasValue {
			return value
		}
		if i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}

// withHint adds where to read the command's usage to a usage error.
func withHint(err error, command string) error {
	var e *exitError
	if errors.As(err, &e) && e.code == exitUsage {
		return &exitError{exitUsage, fmt.Errorf("%w (see \"jitterkit help %s\")", e.err, command)}
	}
	return err
}

// validate checks what no single flag can, and fills the gate's
// configuration with what the flags left to the command: its steps, the
// fleet size, the memory limit and the command line that finds a
// counterexample again.
func validate(command string, o *options) error {
	if len(o.clients) == 0 {
		o.clients = []int{0} // the scenario's default
	}
	switch command {
	case "compare":
	default:
		if err := checkOneSource(command, o); err != nil {
			return err
		}
		if len(o.clients) > 1 {
			return usageError("%s replays one fleet size, got --clients %s; compare takes several", command, joinInts(o.clients))
		}
		o.cfg.Scenario.Clients = o.clients[0]
		if o.trace != "" && o.given["devices"] {
			return usageError("--devices does not apply to --trace: the trace's own devices are checked")
		}
	}
	o.cfg.Steps = map[string]gate.Step{"check": gate.Checks | gate.Fix, "replay": gate.Replay | gate.Fix, "gate": gate.All, "compare": gate.Replay}[command]
	if o.noFix {
		o.cfg.Steps &^= gate.Fix
	}
	o.cfg.Checks.MemoryLimit, o.cfg.Scenario.MemoryLimit = o.memoryLimit, o.memoryLimit
	o.cfg.Reproduce = reproduce(o)
	if err := checkOutputs(o); err != nil {
		return err
	}
	// A trace's own devices are checked, and validated once it is read.
	if o.cfg.Steps&gate.Checks != 0 && o.trace == "" {
		if err := o.cfg.Checks.Validate(); err != nil {
			return configError(err)
		}
	}
	if o.cfg.Steps&gate.Replay != 0 {
		for _, n := range o.clients {
			s := o.cfg.Scenario
			if n > 0 {
				s.Clients = n
			}
			if o.trace == "" {
				sampled, err := o.cfg.Sampled(s)
				if err != nil {
					return usageError("--sample: %v", err)
				}
				s = sampled
			}
			if err := s.Validate(o.cfg.ReplayConfig()); err != nil && !(o.trace != "" && n == 0) {
				return configError(err)
			}
		}
	}
	return nil
}

// configError returns the usage error of a configuration a package refused,
// in its own words, saying which flag raises a memory limit.
func configError(err error) error {
	var se *sim.ConfigError
	var pe *properties.ConfigError
	switch {
	case errors.As(err, &se):
		if se.Memory {
			return usageError("%v with --memory-limit", se.Err)
		}
		return usageError("%v", se.Err)
	case errors.As(err, &pe):
		if pe.Memory {
			return usageError("%v with --memory-limit", pe.Err)
		}
		return usageError("%v", pe.Err)
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
	if o.report != "" {
		// Found before the run, not after it.
		if fi, err := os.Stat(o.report); err == nil && !fi.IsDir() {
			return usageError("--report %s is not a directory", o.report)
		}
	}
	if o.cfg.Sample > 1 && o.trace != "" {
		return usageError("--sample does not apply to --trace: a recording is replayed whole")
	}
	if o.cfg.Sample > 1 && o.json != "" {
		// The replay's JSON holds the sample's own figures, with
		// nothing to say that they are a sample's.
		return usageError("--json does not take a sampled replay, whose figures are the sample's; use --report, whose files say what the sample stands for")
	}
	if o.json != "" {
		return replaceableJSON(o.json)
	}
	return nil
}

// replayJSONHead is how a replay's JSON begins (sim.Result.WriteJSON).
const replayJSONHead = "{\n  \"schema\": \"jitterkit.replay/"

// replaceableJSON refuses a --json path that holds a regular file other
// than a replay's JSON, or an empty one: --json never replaces a file it
// did not write, such as the exec policy's own script.
func replaceableJSON(path string) error {
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return nil // absent; writing it will say what else is wrong
	case fi.IsDir():
		return usageError("--json %s is a directory; name a file", path)
	case !fi.Mode().IsRegular() || fi.Size() == 0:
		return nil // a device or a FIFO, written through, or empty
	}
	ours, err := isReplayJSON(path)
	if err != nil {
		return usageError("--json %s cannot be read to see that it is a replay's JSON, which --json alone replaces: %v", path, err)
	}
	if !ours {
		return usageError("--json %s holds a file that is not a replay's JSON, which --json never replaces; write it elsewhere", path)
	}
	return nil
}

// isReplayJSON reports whether the file at path begins as a replay's JSON.
func isReplayJSON(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	head := make([]byte, len(replayJSONHead))
	n, _ := io.ReadFull(f, head)
	return bytes.Equal(head[:n], []byte(replayJSONHead)), nil
}

// removeReplayJSON removes the replay's JSON that --json path would
// replace: the regular file at the end of path's links, when it begins as
// a replay's JSON. It reports whether there was one. A device, a FIFO, an
// empty file or any other file is left as it is.
func removeReplayJSON(path string) (bool, error) {
	target, err := filepath.EvalSymlinks(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil // absent, or a link that dangles
	}
	if err != nil {
		return false, err
	}
	if fi, err := os.Lstat(target); err != nil || !fi.Mode().IsRegular() {
		return false, err
	}
	if ours, err := isReplayJSON(target); err != nil || !ours {
		return false, err
	}
	return true, os.Remove(target)
}

// retire removes what the outputs o names hold of an earlier run, when
// this run ends with err and nothing to write in their place: a program
// that broke the protocol, bad input found once the work began, a failure
// of the kit. Left there, the last run's report or figures would pass for
// this run's. Only what jitterkit wrote is removed (see reports.ClearDir
// and removeReplayJSON), and stderr says what was. An interrupted run
// leaves them as they were, as its error says. It returns err.
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
		fmt.Fprintf(e.stderr, "jitterkit: --report %s: the previous report (%s) was removed, as this run has none to replace it\n", dir, formatNames(removed))
	}
}

// retireJSON removes the replay's JSON at path, and says so on stderr with
// why this run writes none.
func retireJSON(e *env, path, why string) {
	removed, err := removeReplayJSON(path)
	if err != nil {
		fmt.Fprintf(e.stderr, "jitterkit: --json %s: the previous replay's JSON there is not this run's, and removing it failed: %s\n", path, visibleLines(err.Error()))
		return
	}
	if removed {
		fmt.Fprintf(e.stderr, "jitterkit: --json %s: the previous replay's JSON was removed, as %s\n", path, why)
	}
}

// formatNames lists the files of formats: "report.json, junit.xml".
func formatNames(formats []reports.Format) string {
	names := make([]string, len(formats))
	for i, f := range formats {
		names[i] = string(f)
	}
	return strings.Join(names, ", ")
}

// progressOn returns the gate's progress: a bar on w when it is a terminal.
func progressOn(w io.Writer) func(string, int64) gate.Meter {
	return func(step string, total int64) gate.Meter { return progress.Start(w, step, total) }
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
			crashed := *e
			crashed.ctx = context.Background()
			retire(&crashed, o, nil)
			panic(r)
		}
	}()
	policies, err := openPolicies(e.ctx, o)
	if err != nil {
		closeAll(policies)
		return retire(e, o, err)
	}
	p := policies[0]
	cfg := o.cfg
	cfg.Progress = progressOn(e.stderr)
	rep, err := gate.Run(e.ctx, p, cfg)
	if err != nil {
		return retire(e, o, gateError(e, err))
	}
	if r := rep.Replay; r != nil {
		if line := defaultedFleet(o, r.Scenario); line != "" {
			fmt.Fprintln(e.stdout, line)
		}
	}
	// The summary first: an output that cannot be written must not take
	// the verdict with it.
	if err := reports.WriteText(e.stdout, rep); err != nil {
		// The verdict stands, and the report is still written: a
		// standard output that cannot be written is said, not made the
		// run's exit code.
		fmt.Fprintf(e.stderr, "jitterkit: the summary could not be written to standard output: %v\n", err)
	}
	var outErr error
	switch r := rep.Replay; {
	case o.json == "":
	case r == nil || r.Stopped != nil:
		// A replay a defect stopped has no run's figures, and the
		// replay's JSON has no shape for none: the last run's figures
		// are removed rather than left to pass for this run's.
		fmt.Fprintf(e.stdout, "\n%s: not written: the replay stopped before any run's figures\n", o.json)
		retireJSON(e, o.json, "the replay stopped before any run's figures")
	default:
		res := sim.Result{Scenario: r.Scenario, Config: r.Config, Runs: r.Runs, Representative: r.Representative, Summary: r.Summary}
		var b bytes.Buffer
		if err := res.WriteJSON(&b, p.Name); err != nil {
			return retire(e, o, kitError(err))
		}
		if err := reports.WriteFile(e.ctx, o.json, b.Bytes()); err != nil {
			outErr = outputError(e, "--json", err)
			if errors.As(outErr, new(*interruptedError)) {
				return outErr
			}
			// The report is this run's outcome all the same, and is
			// still written.
			retireJSON(e, o.json, "this run's could not be written")
		}
	}
	if o.report != "" {
		if err := reports.WriteDir(e.ctx, o.report, rep); err != nil {
			err = outputError(e, "--report", err)
			if !errors.As(err, new(*interruptedError)) {
				retireReport(e, o.report)
			}
			return cmp.Or(outErr, err)
		}
		fmt.Fprintf(e.stdout, "\nreport: %s\n", reportFiles(o.report))
	}
	if outErr != nil {
		return outErr
	}
	switch rep.Verdict {
	case verdict.Fail:
		return &exitError{exitFail, fmt.Errorf("the policy failed %s", map[string]string{"check": "a check", "replay": "the replay", "gate": "the gate"}[o.command])}
	case verdict.Inconclusive:
		return inconclusive(rep)
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
		texts, flagNames = append(texts, fmt.Sprintf("%s clients", count(s.Clients))), append(flagNames, "--clients")
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

// count writes n with thousands separators: 50,000.
func count(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// compare replays every policy o names, or the four built-in strategies,
// at every fleet size, and prints a table per headline figure.
func compare(e *env, o *options) error {
	policies, err := openPolicies(e.ctx, o)
	if err != nil {
		closeAll(policies)
		return err
	}
	cfg := o.cfg
	cfg.Progress = progressOn(e.stderr)
	cs, err := gate.Compare(e.ctx, policies, o.clients, cfg)
	if cerr := closeAll(policies); err == nil && cerr != nil {
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
	var de *gate.DefectError
	var se *gate.InterruptedError
	var ee *exitError
	switch {
	case errors.As(err, &se):
		return &interruptedError{se.During}
	case e.ctx.Err() != nil:
		return &interruptedError{"by a signal"}
	case errors.As(err, &ee):
		return err
	case errors.As(err, &de):
		return &exitError{exitFail, err}
	case errors.As(err, &ie):
		var se *sim.ConfigError
		var pe *properties.ConfigError
		if errors.As(err, &se) || errors.As(err, &pe) {
			return configError(err)
		}
		if errors.Is(err, gate.ErrExecTimeout) {
			return inputError(fmt.Errorf("%w; raise it with --exec-timeout", ie.Err))
		}
		return inputError(ie.Err)
	}
	return kitError(err)
}

// inconclusive returns the error of a run that gathered too little evidence
// to give a verdict: exit 2, since what it was given could not be judged,
// and never 0.
func inconclusive(rep reports.Report) error {
	var names []string
	for _, c := range rep.Checks {
		if c.Status == verdict.Inconclusive {
			names = append(names, c.Name)
		}
	}
	if rep.Replay != nil && rep.Replay.Status == verdict.Inconclusive {
		names = append(names, "the replay")
	}
	what := "nothing was judged"
	switch len(names) {
	case 0:
	case 1:
		what = names[0] + " could not gather the evidence it needs (see above)"
	default:
		what = strings.Join(names, ", ") + " could not gather the evidence they need (see above)"
	}
	return &exitError{exitUsage, fmt.Errorf("no verdict: %s", what)}
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

// reportFiles lists the files WriteDir writes to dir.
func reportFiles(dir string) string {
	var names []string
	for _, f := range reports.Formats() {
		names = append(names, filepath.Join(dir, string(f)))
	}
	return strings.Join(names, ", ")
}

// memoryLimit returns the memory limit o sets, or the default.
func memoryLimit(o *options) int64 {
	if o.memoryLimit > 0 {
		return o.memoryLimit
	}
	return properties.DefaultMemoryLimit
}

func joinInts(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprint(x)
	}
	return strings.Join(parts, ",")
}
