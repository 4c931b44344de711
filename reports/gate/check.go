package gate

import (
	"context"
	"strings"
	"testing"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/properties"
	"github.com/jitterkit/jitterkit/reports"
)

// Check runs the gate on p inside a test, as Run does, and fails t with the
// summary the CLI prints (the verdict, the checks, the replay, the
// comparison and what to change) unless the policy passed; a passing
// summary is logged. The frozen-clock check makes its devices inside a
// testing/synctest bubble (see properties.RunFrozen), so a policy seeded
// from time.Now is caught. When cfg.ReportDir is set, Check writes the
// report's files there. A configuration out of range or a failure of the
// policy's source fails t at once. Check returns the report.
func Check(t *testing.T, p Policy, cfg Config) reports.Report {
	t.Helper()
	rep, err := RunFrozen(t, p, cfg)
	if err != nil {
		t.Fatalf("gate: %v", err)
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
		}
	}
	return rep
}

// RunFrozen is Run as Check runs it: the frozen-clock check makes its
// devices inside a testing/synctest bubble (see properties.RunFrozen), so
// a policy seeded from time.Now is caught. It returns the report, or Run's
// errors, and leaves t alone and writes no files, for tests that look at
// the verdicts themselves, such as a table of many policies' verdicts.
func RunFrozen(t *testing.T, p Policy, cfg Config) (reports.Report, error) {
	frozen := func(_ context.Context, f kit.Factory, c properties.Config) (properties.Outcome, error) {
		return properties.RunFrozen(t, f, c)
	}
	return run(t.Context(), p, cfg, frozen)
}
