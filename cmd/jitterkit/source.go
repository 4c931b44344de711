package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/jitterkit/jitterkit/internal/prose"
	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/reports/gate"
	"github.com/jitterkit/jitterkit/sim"
)

// checkOneSource returns a usage error unless o names exactly one policy.
func checkOneSource(o *options) error {
	var given []string
	for i, set := range []bool{len(o.specs) > 0, o.exec != "", o.trace != ""} {
		if set {
			given = append(given, []string{"--policy", "--exec", "--trace"}[i])
		}
	}
	switch {
	case len(given) == 0:
		return usageError("%s needs a policy: --policy SPEC, --exec CMD, --trace FILE, or a --config file that names one", o.command)
	case len(given) > 1:
		return usageError("%s checks one policy, got %s", o.command, strings.Join(given, " and "))
	case len(o.specs) > 1:
		return usageError("%s checks one policy, got %d specs (%s); compare takes several", o.command, len(o.specs), strings.Join(prose.Texts(o.specs, kit.Spec.String), "; "))
	}
	return nil
}

// openPolicies opens every policy o names: specs first, then the program,
// then the trace. The caller closes each through its Close; on an error,
// those opened are closed.
func openPolicies(ctx context.Context, o *options) (out []gate.Policy, err error) {
	defer func() {
		if err != nil {
			gate.CloseAll(out)
		}
	}()
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
			switch def := table.Lookup(a.Name); {
			case a.Name == "seed" || a.Name == "runs" || a.Name == "collapse-bound" || a.Name == "report" || a.Name == "json" || !table.Takes(def, command):
			case def.Arg == "" && a.Value == "true":
				parts = append(parts, "--"+a.Name)
			case def.Arg == "":
				parts = append(parts, "--"+a.Name+"="+shellQuote(a.Value))
			default:
				parts = append(parts, "--"+a.Name, shellQuote(a.Value))
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
