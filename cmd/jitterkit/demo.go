package main

import (
	"fmt"
	"io"
	"time"

	"github.com/jitterkit/jitterkit/internal/cli"
	"github.com/jitterkit/jitterkit/internal/progress"
	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/reports"
	"github.com/jitterkit/jitterkit/reports/gate"
)

// demoSpec is the default policy the demo gates: decorrelated jitter with a
// base long enough to spread the first retries of 400 devices below the
// threshold of a server that accepts 50 a second.
var demoSpec = kit.Spec{Strategy: kit.Decorrelated, Base: 15 * time.Second, Cap: 300 * time.Second}

// demo shows the main job on the default scenario (400 clients, a server
// accepting 50 a second, down for 2s): the four strategies side by side at
// a short backoff, then a gate of the default policy. Its exit code is the
// gate's verdict, as for jitterkit gate.
func demo(e *env) error {
	fmt.Fprintf(e.stdout, "jitterkit: does a retry policy's jitter de-synchronise a fleet?\n\n")
	fmt.Fprintf(e.stdout, "1. The four strategies, each replayed on fleets that fail together.\n\n")
	fmt.Fprintf(e.stdout, "%s", demoIntro)
	cs, err := gate.Compare(e.ctx, nil, nil, gate.Config{Progress: progress.On(e.stderr)})
	if err != nil {
		return gateError(e, err)
	}
	if err := reports.WriteComparisons(e.stdout, cs); err != nil {
		return kitError(err)
	}
	fmt.Fprintln(e.stdout)
	io.WriteString(e.stdout, reports.Reading(cs))

	fmt.Fprintf(e.stdout, "\n2. A gate of %s: the property checks and the replay, one verdict.\n\n", demoSpec)
	o := &options{command: "gate", given: map[string]bool{}, specs: []kit.Spec{demoSpec}}
	o.cfg.Steps, o.cfg.Progress = gate.Checks|gate.Replay, progress.On(e.stderr)
	o.cfg.Reproduce = reproduce(o)
	err = evaluate(e, o)
	fmt.Fprintf(e.stdout, "%s", glossary)
	fmt.Fprintf(e.stdout, "\nNext: jitterkit gate --policy SPEC (or --exec CMD, --trace FILE); see \"jitterkit help\".\n")
	return err
}

// demoIntro says what the comparison measures, before it is shown.
var demoIntro = cli.WrapLines(`400 devices lose their server at once. It is down for 2s, then accepts 50 requests a second. Each device retries on its policy: no jitter, or full, equal or decorrelated jitter, from a base of 100ms up to a cap of 10s. The peak ratio is the most retries that arrive in one second over the 50 the server accepts in a second: under 0.6 is comfortable, above 1 the server turns devices away and they retry again. Each cell is the median of up to 20 fleets, fewer once its verdict is decided, with its 95% interval.

`, 75)

// glossary explains the words of the checks' table.
var glossary = cli.WrapLines(`
Reading the checks: CV is the coefficient of variation of the devices' delays, their spread over their mean: 0 means every device waits alike, full jitter gives 0.58, and below 0.05 a fleet stays in waves. A warning is a finding that fails only when asked; inconclusive means the check could not gather its evidence, and is never a pass.
`, 76)
