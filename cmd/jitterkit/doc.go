// Command jitterkit proves that a retry policy's jitter de-synchronises a
// fleet, before the fleet finds out.
//
// It runs two checks on a policy and gives one verdict: property checks
// over a thousand device ids and more (do the devices draw different delays,
// at every stage of backoff?), and a fleet replay (when every device fails
// together, do the retries stay under what the server accepts?).
//
// Usage:
//
//	jitterkit                  a demo: the four strategies compared, then a gate
//	jitterkit check   [flags]  the property checks on one policy
//	jitterkit replay  [flags]  the fleet replay of one policy
//	jitterkit gate    [flags]  both, one verdict, and the reports
//	jitterkit compare [flags]  policies side by side on one scenario
//	jitterkit help [command]   help on a command, or on policies
//
// A policy comes from a spec (--policy full:base=100ms,cap=10s), from a
// program in any language that speaks the exec protocol (--exec CMD), from
// delays recorded on real devices (--trace FILE), or from a YAML file whose
// keys are the flags' names (--config FILE).
//
// The exit code is 0 when the policy passed, 1 when it failed, 2 on bad
// usage or bad input, and when the run gathered too little evidence for a
// verdict (a check that could not examine its devices is never a pass), 3
// when jitterkit itself failed, and 130 when the run was interrupted. Run "jitterkit help COMMAND" for each command's flags and
// an example; the texts are below.
//
// A replay whose fleet is not described replays the demo's, and its
// summary says so on its first line. A run that ends without an outcome to
// write removes the report and the replay's JSON an earlier run left where
// it would have written its own, so that they are not taken for its own.
package main

import (
	"fmt"
	"strings"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/sim"
)

// helpMain is the text of "jitterkit help".
const helpMain = `jitterkit proves that a retry policy's jitter de-synchronises a fleet.

Usage:

  jitterkit                  a demo: the four strategies compared, then a gate
  jitterkit check   [flags]  the property checks on one policy
  jitterkit replay  [flags]  the fleet replay of one policy
  jitterkit gate    [flags]  both, one verdict, and the reports
  jitterkit compare [flags]  policies side by side on one scenario
  jitterkit help [command]   help on a command, or on policies

Example, in CI:

  jitterkit gate --policy full:base=10s,cap=120s --clients 50000 \
      --accept-rate 3000 --down 60s --report out/

Exit codes: 0 the policy passed, 1 it failed, 2 bad usage or input, or
no verdict (a check could not gather its evidence: never a pass),
3 jitterkit itself failed, 130 interrupted.

Run "jitterkit help COMMAND" for a command's flags and an example, and
"jitterkit help policies" for the four ways to give a policy.
`

// helpPolicies is the text of "jitterkit help policies".
const helpPolicies = `A policy comes from one of four sources.

--policy SPEC
  A built-in strategy: STRATEGY[:key=value,...]. Strategies: none, full,
  equal, decorrelated. Keys: base and cap (durations), multiplier (default
  2), seed (device, the default; clock; constant). For example
  full:base=100ms,cap=10s or decorrelated:base=1s,cap=300s.

--exec CMD
  A program in any language, started once with sh -c CMD. jitterkit writes
  one JSON request per line to its standard input, and the program answers
  each with one line, in order: up to "attempts" delays, in seconds.

    jitterkit -> program   {"device":"dev-000017","attempts":5}
    program -> jitterkit   [0.042,0.171,0.305,0.77,1.2]

  Fewer delays mean the policy stops retrying. NaN, Infinity, -Infinity and
  negative delays are the policy's defect (exit 1). A reply that is not an
  array of numbers, a missing reply, a program that exits early or does not
  answer within --exec-timeout is a protocol error (exit 2). When jitterkit
  is done with the program it stops its process group, and on Linux every
  process that descends from it or keeps its environment, after setsid too;
  a process that both leaves the program's tree and clears its environment
  (setsid env -i ...) is out of reach.
  Example: --exec 'python3 policy.py'.

--trace FILE
  Delays recorded on real devices: CSV with the header device,attempt,delay_s,
  attempts counting from 1. The devices checked and replayed are the
  trace's. Declare the policy's cap with --cap.

--config FILE
  A YAML file whose keys are the flags' names, for example:

    policy: full:base=10s,cap=120s
    clients: 50000
    accept-rate: 3000
    down: 60s
    threshold: 0.6

  A flag given on the command line overrides the file. policy and clients
  may be lists, for compare.
`

// commandHeads are the help's opening of each command: what it does and an
// example. The flags follow, from the flag table, then commandTails.
var commandHeads = map[string]string{
	"check": `Usage: jitterkit check [flags]

Check runs the property checks on one policy: spread of the early delays
across devices, clusters of devices in lockstep, id populations, a frozen
clock, reproducibility, the cap phase, bounds, and conformance to the
claimed strategy. Warnings do not fail the check. A check that could not
gather the evidence it needs (a program that stopped answering, too few
devices) is inconclusive, never a pass; one that does not apply to the
source (a trace cannot be made again at a frozen instant) is skipped.

Example:

  jitterkit check --policy equal:base=1s,cap=60s --devices 5000
`,
	"replay": `Usage: jitterkit replay [flags]

Replay simulates a fleet of devices that fail together and retry against a
server that accepts a limited number of requests per second, and judges the
peak retry arrivals in one window against the window's accept budget.

Example:

  jitterkit replay --policy full:base=100ms,cap=10s --clients 400 \
      --accept-rate 50 --down 2s --json replay.json
`,
	"gate": `Usage: jitterkit gate [flags]

Gate runs the property checks and the fleet replay on one policy, compares
it with the four built-in strategies on the same scenario, prints one
verdict with what to change, and writes the reports. Add it to CI to stop a
rollout on a policy that would storm.

Example:

  jitterkit gate --policy full:base=10s,cap=120s --clients 50000 \
      --accept-rate 3000 --down 60s --report out/
`,
	"compare": `Usage: jitterkit compare [flags]

Compare replays several policies on one scenario and prints a table: a row
per fleet size, a column per policy, and in each cell the median over the
runs with its 95% interval. The figure is the peak retry arrivals in one
window for storm; the peak ratio and the time until all are served for the
other scenarios. Without a policy it compares the four built-in strategies
with base 100ms and cap 10s (or --cap); in a storm, base 1s and cap 30s,
which bring a storm's peaks to about N/32, N/24 and N/74 for full, equal
and decorrelated jitter.

Example:

  jitterkit compare --scenario storm --clients 1000,10000,100000
`,
}

// fleetHelp says, in the help of the commands that replay one fleet, what
// they replay when no fleet is described.
var fleetHelp = fmt.Sprintf(`Without --clients, --accept-rate and --down, on the command line or in a
--config file, the fleet is the demo's: %d clients, a server that accepts
%g requests a second, down for %s. A figure of that fleet says little of
yours: the summary then says on its first line which parts are the demo's
and how to describe yours, and the reports' reason names the default fleet.
`, sim.DefaultClients, sim.DefaultAcceptRate, kit.FormatDuration(sim.DefaultDown))

// outputsHelp says, in the help of the commands that write files, what a
// run leaves in them when it has no outcome to write.
var outputsHelp = map[string]string{
	"check": `The report is this run's or none. A run that ends without an outcome (a
program that breaks the exec protocol, bad input found once the work began,
a failure of jitterkit) or whose report cannot be written removes the report
an earlier run wrote to --report DIR, and says so on standard error, so that
it is not taken for this run's. Only the report's own files are removed,
never a file of yours beside them. A policy's defect is an outcome: the
report says that the policy failed, and why. Bad usage, refused before any
work, and an interrupted run leave the files as they were.
`,
	"replay": `The outputs are this run's or none. A run that ends without an outcome (a
program that breaks the exec protocol, bad input found once the work began,
a failure of jitterkit) removes the report an earlier run wrote to --report
DIR and the replay's JSON at --json FILE, and says so on standard error, so
that they are not taken for this run's; an output that cannot be written is
removed the same way. Only files jitterkit wrote are removed, never a file
of yours beside them. A policy's defect is an outcome: the report says that
the policy failed, and why; the replay it stopped has no figures, so the
replay's JSON at --json FILE is removed and none is written. Bad usage,
refused before any work, and an interrupted run leave the files as they
were.
`,
	"gate": `The report is this run's or none. A run that ends without an outcome (a
program that breaks the exec protocol, bad input found once the work began,
a failure of jitterkit) or whose report cannot be written removes the report
an earlier run wrote to --report DIR, and says so on standard error, so that
it is not taken for this run's. Only the report's own files are removed,
never a file of yours beside them. A policy's defect is an outcome: the
report says that the policy failed, and why. Bad usage, refused before any
work, and an interrupted run leave the files as they were.
`,
}

// commandTails close each command's help with its exit codes.
var commandTails = map[string]string{
	"check": `Exit codes: 0 pass, 1 a check failed, 2 bad usage or input, or no verdict
(a check could not gather its evidence), 3 jitterkit failed. See
"jitterkit help policies".
`,
	"replay": `Exit codes: 0 pass, 1 the peak ratio is over the threshold or a device's
policy failed, 2 bad usage or input, 3 jitterkit failed.
`,
	"gate": `Exit codes: 0 pass, 1 the policy failed the gate, 2 bad usage or input, or
no verdict (a check could not gather its evidence), 3 jitterkit failed.
`,
	"compare": `Exit codes: 0 done, 1 a policy's replay stopped on its own defect (such as a
NaN delay), 2 bad usage or input, 3 jitterkit failed.
`,
}

// commandHelp returns the help of command: its opening, its flags by
// group from the flag table with their defaults, and its exit codes.
func commandHelp(command string) string {
	var b strings.Builder
	b.WriteString(commandHeads[command])
	if command == "replay" || command == "gate" {
		b.WriteString("\n" + fleetHelp)
	}
	if text, ok := outputsHelp[command]; ok {
		b.WriteString("\n" + text)
	}
	for _, g := range []group{groupPolicy, groupChecks, groupScenario, groupOutput} {
		first := true
		for _, f := range flags {
			if f.group != g || !f.takes(command) {
				continue
			}
			if first {
				heading := string(g)
				if g == groupChecks && command == "compare" {
					// compare runs no checks: its --cap sets the
					// built-in strategies'.
					heading = "Built-in strategies"
				}
				fmt.Fprintf(&b, "\n%s:\n", heading)
				first = false
			}
			name := "--" + f.name
			if f.arg != "" {
				name += " " + f.arg
			}
			text := f.usage
			if f.def != "" {
				text += " (default " + f.def + ")"
			}
			lines := wrap(text, 78-27)
			fmt.Fprintf(&b, "  %-23s  %s\n", name, lines[0])
			for _, l := range lines[1:] {
				fmt.Fprintf(&b, "%27s%s\n", "", l)
			}
		}
	}
	b.WriteString("\n" + commandTails[command])
	return b.String()
}

// wrap breaks text into lines of at most width bytes, between words.
func wrap(text string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		if line != "" && len(line)+1+len(w) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	return append(lines, line)
}
