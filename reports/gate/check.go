package gate

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/properties"
	"github.com/jitterkit/jitterkit/reports"
	"github.com/jitterkit/jitterkit/sim"
)

// Check runs the gate on p inside a test, as Run does, and fails t with the
// summary the CLI prints (the verdict, the checks, the replay, the
// comparison and what to change) unless the policy passed; a passing
// summary is logged. The frozen-clock check makes its devices inside a
// testing/synctest bubble (see properties.RunFrozen), so a policy seeded
// from time.Now is caught. When cfg.ReportDir is set, Check writes the
// report's files there. A configuration out of range or a failure of the
// policy's source fails t at once. A gate without a seed takes go test's
// -rapid.seed when it is set, so that the seed a counterexample names,
// gate.Config{Seed: 7}, is also -rapid.seed=7. Check returns the report.
func Check(t *testing.T, p Policy, cfg Config) reports.Report {
	t.Helper()
	if cfg.Seed == 0 {
		cfg.Seed = rapidSeed()
	}
	rep, err := RunFrozen(t, p, cfg)
	if err != nil {
		if !strings.HasPrefix(err.Error(), "gate: ") {
			err = fmt.Errorf("gate: %w", err)
		}
		t.Fatal(err)
	}
	var b strings.Builder
	if err := reports.WriteText(&b, rep); err != nil {
		t.Fatalf("gate: %v", err)
	}
	if rep.Verdict == verdict.Pass {
		t.Log("\n" + b.String())
	} else {
		t.Error("\n" + b.String())
	}
	if cfg.ReportDir != "" {
		if err := reports.WriteDir(t.Context(), cfg.ReportDir, rep); err != nil {
			t.Errorf("gate: %v", err)
		} else {
			var files []string
			for _, f := range reports.Formats() {
				files = append(files, filepath.Join(cfg.ReportDir, string(f)))
			}
			t.Logf("report: %s", strings.Join(files, ", "))
		}
	}
	return rep
}

// RunFrozen is Run as Check runs it: the frozen-clock check makes its
// devices inside a testing/synctest bubble (see properties.RunFrozen), so
// a policy seeded from time.Now is caught. It returns the report, or Run's
// errors, and leaves t alone and writes no files, for tests that look at
// the verdicts themselves, such as a table of many policies' verdicts.
// Unlike Check, it takes cfg.Seed as given and never reads -rapid.seed.
func RunFrozen(t *testing.T, p Policy, cfg Config) (reports.Report, error) {
	frozen := func(_ context.Context, f kit.Factory, c properties.Config) (properties.Outcome, error) {
		return properties.RunFrozen(t, f, c)
	}
	ctx := t.Context()
	if d, ok := t.Deadline(); ok {
		// Stop before go test's -timeout ends the whole binary, so that a
		// policy that never returns is named, with its device, rather
		// than found in a dump of every goroutine.
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, d.Add(-deadlineMargin))
		defer cancel()
	}
	return run(ctx, p, cfg, frozen)
}

// deadlineMargin is how long before go test's deadline RunFrozen stops: the
// time for a replay to find the policy that does not return (sim.StuckGrace)
// and to report it.
const deadlineMargin = sim.StuckGrace + 3*time.Second

// rapidSeed returns the seed go test's -rapid.seed flag sets, or 0: the
// flag that finds a run of the property checks again finds a gate again.
func rapidSeed() uint64 {
	if f := flag.Lookup("rapid.seed"); f != nil {
		if v, err := strconv.ParseUint(f.Value.String(), 10, 64); err == nil {
			return v
		}
	}
	return 0
}
