package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jitterkit/jitterkit/cmd/jitterkit/internal/progress"
	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/properties"
	"github.com/jitterkit/jitterkit/reports"
	"github.com/jitterkit/jitterkit/sim"
)

// defaultSeed is the seed of a run given no --seed.
const defaultSeed = 1

// seedOf returns the seed o asks for, or defaultSeed.
func seedOf(o *options) uint64 {
	if o.given["seed"] {
		return o.seed
	}
	return defaultSeed
}

// The steps a command runs on the one policy o names.
type steps struct {
	checks, replay, comparison bool
}

// check runs the property checks.
func check(e *env, o *options) error { return evaluate(e, o, steps{checks: true}) }

// replay runs the fleet replay, and writes its JSON when o asks for it.
func replay(e *env, o *options) error { return evaluate(e, o, steps{replay: true}) }

// gate runs the checks and the replay, compares the policy with the four
// built-in strategies, and writes the reports.
func gate(e *env, o *options) error {
	return evaluate(e, o, steps{checks: true, replay: true, comparison: true})
}

// evaluate runs the steps on the one policy o names and finishes the
// report. A replay stopped by a policy defect has no figures to write or
// compare.
func evaluate(e *env, o *options, st steps) error {
	src, err := openOne(e, o)
	if err != nil {
		return err
	}
	defer src.close()
	rep := newReport(src, o)
	var replayJSON bytes.Buffer
	if st.checks {
		out, err := runChecks(e, o, src)
		if err != nil {
			return err
		}
		rep.AddChecks(out)
	}
	if st.replay {
		res, failed, err := runReplay(e, o, src, 0)
		if err != nil {
			return err
		}
		addReplay(&rep, o, src, res, failed)
		if o.json != "" && failed == nil {
			if err := res.WriteJSON(&replayJSON, src.name); err != nil {
				return kitError(err)
			}
		}
		if st.comparison && failed == nil {
			cmp, err := builtinComparison(e, o, src, res)
			if err != nil {
				return err
			}
			rep.Comparison = cmp
		}
	}
	// An external program's replies belong to their requests only if it
	// wrote no line too many, which shows once it is closed: close it
	// before giving a verdict on what it answered.
	if err := src.close(); err != nil {
		return inputError(err)
	}
	if replayJSON.Len() > 0 {
		if err := reports.WriteFile(e.ctx, o.json, replayJSON.Bytes()); err != nil {
			return outputError(e, "--json", err)
		}
	}
	return finish(e, o, rep)
}

// finish judges the report, writes its summary and its files, and returns
// the error of a failed policy when it failed, or of a run without a
// verdict when a check or the replay could not gather its evidence.
func finish(e *env, o *options, rep reports.Report) error {
	rep.Verdict = judge(rep)
	rep.Advice = reports.Advise(rep)
	if err := reports.WriteText(e.stdout, rep); err != nil {
		return kitError(err)
	}
	if o.report != "" {
		if err := e.ctx.Err(); err != nil {
			return &interruptedError{"before writing the report"}
		}
		if err := reports.WriteDir(e.ctx, o.report, rep); err != nil {
			return outputError(e, "--report", err)
		}
		fmt.Fprintf(e.stdout, "\nreport: %s\n", reportFiles(o.report))
	}
	switch rep.Verdict {
	case verdict.Fail:
		return failed(o.command)
	case verdict.Inconclusive:
		return inconclusive(rep)
	}
	return nil
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
	if len(names) > 0 {
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

// judge returns the gate's verdict on the report's checks and replay.
func judge(rep reports.Report) verdict.Status {
	var parts []verdict.Status
	for _, c := range rep.Checks {
		parts = append(parts, c.Status)
	}
	if rep.Replay != nil {
		parts = append(parts, rep.Replay.Status)
	}
	return verdict.Gate(parts...)
}

// openOne opens the one policy o names.
func openOne(e *env, o *options) (*source, error) {
	srcs, err := openSources(e.ctx, o)
	if err != nil {
		closeAll(srcs)
		return nil, err
	}
	return srcs[0], nil
}

// runChecks runs the property suite on src.
func runChecks(e *env, o *options, src *source) (properties.Outcome, error) {
	cfg := checkConfig(o)
	cfg.IDs = src.ids
	switch src.kind {
	case "exec":
		// The program's own silence timeout decides whether it answers in
		// time; a second watch on each call would make machine speed a
		// verdict.
		cfg.Source, cfg.CallTimeout = properties.External, -1
	case "trace":
		cfg.Source = properties.Recorded
	}
	if src.spec != nil {
		spec := *src.spec
		cfg.Claim = &spec
		if cfg.Cap == 0 {
			cfg.Cap = specCap(spec)
		}
	}
	if src.kind == "exec" {
		second, err := src.again()
		if err != nil {
			return properties.Outcome{}, err
		}
		cfg.Second = second.Factory()
	}
	bar := progress.Start(e.stderr, "checks: devices", 0)
	out, err := properties.Run(e.ctx, counted(src.factory, bar), cfg)
	bar.Finish()
	if err != nil {
		return out, usageError("%s", strings.TrimPrefix(err.Error(), "properties: "))
	}
	if e.ctx.Err() != nil {
		return out, &interruptedError{"during the property checks"}
	}
	if err := src.protocolError(); err != nil {
		return out, inputError(err)
	}
	if out.Err != nil {
		return out, inputError(fmt.Errorf("the policy's source failed: %w", out.Err))
	}
	return out, nil
}

// checkConfig returns the property checks' configuration that o's flags
// describe, before the policy's source adds what it knows.
func checkConfig(o *options) properties.Config {
	return properties.Config{
		Devices:             o.devices,
		Cap:                 o.cap,
		Seed:                seedOf(o),
		RequireReproducible: o.requireReproducible,
		Thresholds:          properties.Thresholds{MinCV: o.minCV},
		MemoryLimit:         o.memoryLimit,
	}
}

// memoryLimit returns the memory limit o sets, or the default.
func memoryLimit(o *options) int64 {
	if o.memoryLimit > 0 {
		return o.memoryLimit
	}
	return properties.DefaultMemoryLimit
}

// specCap returns the cap of spec after its default.
func specCap(spec kit.Spec) time.Duration {
	if spec.Cap > 0 {
		return spec.Cap
	}
	return kit.DefaultCap
}

// scenario returns the scenario o describes, with clients devices (0 for
// the default).
func scenario(o *options, clients int) sim.Scenario {
	s := sim.Scenario{
		Kind:        o.scenario,
		Clients:     clients,
		AcceptRate:  o.acceptRate,
		Down:        o.down,
		Window:      o.window,
		StartSpread: o.startSpread,
		Horizon:     o.horizon,
		Threshold:   o.threshold,
		MemoryLimit: o.memoryLimit,
	}
	if o.retryAfter > 0 {
		s.Server, s.RetryAfter = sim.RetryAfter, o.retryAfter
	}
	if s.Kind == sim.Storm && s.Window == 0 {
		s.Window = stormWindow
	}
	return s
}

// The storm study (seed 000) gives neither its backoff nor its window. A
// storm's peak comes from the first retries, so it depends on the window
// over the base: a storm's default window is 20ms, and compare's built-in
// strategies in a storm back off from 1s to at most 30s, which brings
// every cell of the study's table within a few percent.
const (
	stormWindow = 20 * time.Millisecond
	stormBase   = time.Second
	stormCap    = 30 * time.Second
)

// clientSizes returns the fleet sizes o asks for, or the default.
func clientSizes(o *options) []int {
	if len(o.clients) == 0 {
		return []int{0}
	}
	return o.clients
}

// runReplay replays src on o's scenario with clients devices (0 for o's
// one size). A policy defect found by the replay is returned as failed,
// with the result empty; other errors as err.
func runReplay(e *env, o *options, src *source, clients int) (res sim.Result, failed *sim.DeviceError, err error) {
	if clients == 0 {
		clients = clientSizes(o)[0]
	}
	f := src.factory
	s := scenario(o, clients)
	cfg := replayConfig(o)
	if src.ids != nil {
		if s, err = traceFleet(src, s); err != nil {
			return res, nil, err
		}
	}
	d := s.WithDefaults()
	runs := runsOf(o)
	bar := progress.Start(e.stderr, "replay: devices", int64(d.Clients)*int64(runs))
	res, err = sim.Replay(e.ctx, counted(f, bar), s, cfg)
	bar.Finish()
	if perr := src.protocolError(); perr != nil {
		return res, nil, inputError(perr)
	}
	var de *sim.DeviceError
	switch {
	case e.ctx.Err() != nil:
		return res, nil, &interruptedError{"during the replay: " + strings.TrimPrefix(errString(err), "sim: ")}
	case errors.As(err, &de) && de.PolicyDefect():
		return res, de, nil
	case errors.As(err, &de):
		return res, nil, inputError(fmt.Errorf("the policy's source failed: %w", err))
	case err != nil:
		return res, nil, kitError(err)
	}
	return res, nil, nil
}

func errString(err error) string {
	if err == nil {
		return "stopped"
	}
	return err.Error()
}

// replayConfig returns the replications o asks for. The reports draw the
// representative run's histograms only, so only those are kept.
func replayConfig(o *options) sim.Config {
	return sim.Config{Runs: o.runs, Seed: seedOf(o), RepresentativeOnly: true}
}

// traceFleet gives every run of a replay the trace's devices: device i of
// each run is the trace's i-th device.
func traceFleet(src *source, s sim.Scenario) (sim.Scenario, error) {
	n := len(src.ids)
	switch {
	case s.Clients == 0:
		s.IDs = src.ids
	case s.Clients > n:
		return s, usageError("--clients %d: the trace %s holds %d devices", s.Clients, src.name, n)
	default:
		s.IDs, s.Clients = src.ids[:s.Clients], 0
	}
	return s, nil
}

// counted returns f, counting on bar the devices it makes.
func counted(f kit.Factory, bar *progress.Bar) kit.Factory {
	return func(d kit.Device) kit.Policy {
		bar.Add(1)
		return f(d)
	}
}
