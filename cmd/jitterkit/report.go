package main

import (
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/reports"
	"github.com/jitterkit/jitterkit/sim"
)

// version is the kit's version in reports: the module's version when the
// binary was built from one, "devel" otherwise.
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

// newReport starts the report on src, with the scenario o describes.
func newReport(src *source, o *options) reports.Report {
	return reports.Report{
		Policy:     src.reportPolicy(),
		KitVersion: version(),
		Seed:       seedOf(o),
	}
}

// addReplay adds the replay's figures. A replay that a policy defect
// stopped adds instead a failed check named replay, with the device and the
// attempt, and how to replay that run alone.
func addReplay(rep *reports.Report, o *options, src *source, res sim.Result, failed *sim.DeviceError) {
	if failed != nil {
		rep.Scenario = reports.ScenarioOf(scenario(o, clientSizes(o)[0]), runsOf(o))
		if src.ids != nil && rep.Scenario.Clients == 0 {
			rep.Scenario.Clients = len(src.ids)
		}
		rep.Checks = append(rep.Checks, reports.Check{
			Name:   "replay",
			Why:    "A policy that fails one device in a replay fails it in the field, in the middle of an outage.",
			Status: verdict.Fail,
			Detail: fmt.Sprintf("the replay stopped at device %q, delay before attempt %d: %v (%s); want every delay finite and ≥ 0",
				failed.Device, failed.Attempt, failed.Err, failed.Cause),
			Counterexample: &reports.Counterexample{
				Attempt: max(failed.Attempt-1, 0), // the delay before attempt n is retry n-1's
				Devices: []reports.DeviceDelays{{ID: failed.Device, DelaysS: []float64{}, Err: failed.Err.Error()}},
				Replay:  fmt.Sprintf("jitterkit replay %s --runs 1 --seed %d", sourceFlag(src), failed.Seed),
			},
		})
		return
	}
	rep.AddReplay(res)
}

// runsOf returns the number of runs o asks for, after the default.
func runsOf(o *options) int {
	if o.runs > 0 {
		return o.runs
	}
	return sim.DefaultRuns
}

// sourceFlag writes the flag that names src, quoted for a shell.
func sourceFlag(src *source) string {
	switch src.kind {
	case "exec":
		return "--exec " + shellQuote(src.name)
	case "trace":
		return "--trace " + shellQuote(src.name)
	}
	return "--policy " + shellQuote(src.name)
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.,:=/+@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
