package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/reports/gate"
	"github.com/jitterkit/jitterkit/sim"
)

// checkOneSource returns a usage error unless o names exactly one policy.
func checkOneSource(o *options) error {
	var given, specs []string
	for _, src := range []struct {
		flag string
		set  bool
	}{{"--policy", len(o.specs) > 0}, {"--exec", o.exec != ""}, {"--trace", o.trace != ""}} {
		if src.set {
			given = append(given, src.flag)
		}
	}
	for _, s := range o.specs {
		specs = append(specs, s.String())
	}
	switch {
	case len(given) == 0:
		return usageError("%s needs a policy: --policy SPEC, --exec CMD, --trace FILE, or a --config file that names one", o.command)
	case len(given) > 1:
		return usageError("%s checks one policy, got %s", o.command, strings.Join(given, " and "))
	case len(specs) > 1:
		return usageError("%s checks one policy, got %d specs (%s); compare takes several", o.command, len(specs), strings.Join(specs, "; "))
	}
	return nil
}

// unopened returns the policies o names from src as the gate validates
// them before any source is opened: each spec (the built-in strategies,
// for a compare that names none), or a program or a recording by its
// source alone.
func unopened(o *options, src kit.Source) []gate.Policy {
	if src != kit.SourceSpec {
		return []gate.Policy{{Source: src}}
	}
	specs := o.specs
	if len(specs) == 0 {
		specs = gate.Builtins(nil, o.cfg.Scenario.WithDefaults().Kind, o.cfg.Checks.Cap)
	}
	out := make([]gate.Policy, len(specs))
	for i, s := range specs {
		out[i] = gate.SpecPolicy(s)
	}
	return out
}

// openPolicies opens every policy o names: specs first, then the program,
// then the trace. The caller closes each through its Close.
func openPolicies(ctx context.Context, o *options) ([]gate.Policy, error) {
	var out []gate.Policy
	for _, s := range o.specs {
		out = append(out, gate.SpecPolicy(s))
	}
	if o.exec != "" {
		p, err := gate.ExecPolicy(ctx, o.exec, o.execTimeout)
		if err != nil {
			return out, inputError(fmt.Errorf("--exec: %w", err))
		}
		out = append(out, p)
	}
	if o.trace != "" {
		p, err := gate.OpenTrace(ctx, o.trace, o.memoryLimit)
		if err != nil {
			return out, fileError(ctx, "--trace", o.trace, err)
		}
		out = append(out, p)
	}
	return out, nil
}

// reproduce returns the command line that finds again, with the seed, what
// a step of o's command found: the check, or the replay's run of that seed
// as the first of the fewest runs a replay takes, with every flag the
// command line gave that the command takes, each with its value.
func reproduce(o *options) func(step gate.Step, seed uint64) string {
	return func(step gate.Step, seed uint64) string {
		command := "check"
		if step != gate.Checks {
			command = "replay"
		}
		parts := []string{"jitterkit", command}
		for _, a := range o.args {
			switch def := lookupFlag(a.name); {
			case a.name == "seed" || a.name == "runs" || a.name == "report" || a.name == "json" || !def.takes(command):
			case def.arg == "" && a.value == "true":
				parts = append(parts, "--"+a.name)
			case def.arg == "":
				parts = append(parts, "--"+a.name+"="+shellQuote(a.value))
			default:
				parts = append(parts, "--"+a.name, shellQuote(a.value))
			}
		}
		if command == "replay" {
			parts = append(parts, "--runs", fmt.Sprint(sim.MinRunsToPass))
		}
		return strings.Join(append(parts, "--seed", fmt.Sprint(seed)), " ")
	}
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.,:=/+@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
