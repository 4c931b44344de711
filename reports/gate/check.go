package gate

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jitterkit/jitterkit/internal/bubble"
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
// report's files there, as reports.Outputs writes them; a directory they
// cannot be written to fails t before any work. A configuration out of
// range or a failure of the policy's source fails t at once, and so does
// a call inside a testing/synctest bubble (see RunFrozen); a report an
// earlier run wrote to cfg.ReportDir is then removed
// (reports.Outputs.Retire), so that it is not taken for this run's. A gate without a seed takes go
// test's -rapid.seed when it is set, so that the seed a counterexample
// names, gate.Config{Seed: 7}, is also -rapid.seed=7. Check returns the
// report.
//
// A policy whose factory or Next does not return is named as hung, with
// its device and attempt, whatever go test's -timeout: the checks time
// each call (properties.Config.CallTimeout; when it is left zero, for no
// more than a quarter of the time go test leaves, so that the hang is
// found before the deadline), and once they found a hang nothing else is
// run, since a replay would wait on the same call. The replay times each
// call the same way (sim.Config.CallTimeout), so a gate that runs only the
// replay names the hang too, with -timeout 0 as with any other.
func Check(t *testing.T, p Policy, cfg Config) reports.Report {
	t.Helper()
	if cfg.Seed == 0 {
		cfg.Seed = rapidSeed()
	}
	if err := (reports.Outputs{Dir: cfg.ReportDir}).Check(false); err != nil {
		t.Fatalf("gate: %v", err)
	}
	rep, err := RunFrozen(t, p, cfg)
	if err != nil {
		if !strings.HasPrefix(err.Error(), "gate: ") {
			err = fmt.Errorf("gate: %w", err)
		}
		// A run without a report must not leave the last run's looking
		// like its own.
		logNotes(t, reports.Outputs{Dir: cfg.ReportDir}.Retire(t.Context()))
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
	notes, err := reports.Outputs{Dir: cfg.ReportDir}.Write(t.Context(), rep, p.Name)
	logNotes(t, notes)
	if err != nil {
		t.Errorf("gate: %v", err)
	}
	return rep
}

// logNotes logs what became of the report's files.
func logNotes(t *testing.T, notes []reports.OutputNote) {
	t.Helper()
	for _, n := range notes {
		if n.Retired {
			t.Logf("gate: %s: %s", n.Path, n.Text)
		} else {
			t.Log(n.Text)
		}
	}
}

// RunFrozen is Run as Check runs it: the frozen-clock check makes its
// devices inside a testing/synctest bubble (see properties.RunFrozen), so
// a policy seeded from time.Now is caught. It returns the report, or Run's
// errors, and leaves t alone and writes no files, for tests that look at
// the verdicts themselves, such as a table of many policies' verdicts.
// Unlike Check, it takes cfg.Seed as given and never reads -rapid.seed.
//
// It stops shortly before go test's deadline, so that a policy that never
// returns is named, with its device, rather than found in a dump of every
// goroutine, and with the default CallTimeout it times each call of the
// checks for no more than a quarter of the time go test leaves (see
// hangBudget), and the replay's calls likewise when cfg.Replay.CallTimeout
// is zero. Called inside a testing/synctest bubble it runs nothing and
// returns an *InputError saying why: the bubble's clock is fake, so no
// call of the policy could be timed and one that never returns would
// deadlock the bubble, and go test's deadline cannot be read there.
func RunFrozen(t *testing.T, p Policy, cfg Config) (reports.Report, error) {
	if bubble.In(t) {
		return reports.Report{}, &InputError{errBubble}
	}
	ctx := t.Context()
	var left time.Duration // until the gate stops, when go test has a deadline
	if d, ok := t.Deadline(); ok {
		var cancel context.CancelFunc
		stop := d.Add(-deadlineMargin)
		ctx, cancel = context.WithDeadlineCause(ctx, stop, errTestDeadline)
		defer cancel()
		left = time.Until(stop)
	}
	callTimeout := properties.DefaultCallTimeout
	if left > 0 {
		callTimeout = max(min(callTimeout, (left/hangBudget).Truncate(100*time.Millisecond)), minCallTimeout)
	}
	if cfg.Replay.CallTimeout == 0 {
		cfg.Replay.CallTimeout = callTimeout
	}
	frozen := func(_ context.Context, f kit.Factory, c properties.Config) (properties.Outcome, error) {
		if c.CallTimeout == 0 {
			c.CallTimeout = callTimeout
		}
		return properties.RunFrozen(t, f, c)
	}
	return run(ctx, p, cfg, frozen)
}

// hangBudget is how many call timeouts RunFrozen fits in the time go test
// leaves the gate: with the default CallTimeout, it times each call for at
// most that time over hangBudget, so that the checks name a hang before go
// test's deadline rather than the deadline cutting them short.
// The checks stop after three hangs, each found within a quarter more
// than the call timeout, so three take at most 3.75 call timeouts. With
// go test's default -timeout of ten minutes the default CallTimeout stands.
const hangBudget = 4

// minCallTimeout is the least call timeout RunFrozen sets: thousands of
// times what a policy's Next takes, on a machine however loaded.
const minCallTimeout = time.Second

// errTestDeadline is the cause of the end of a gate that RunFrozen stopped
// before go test's deadline. It is a deadline, as the checks and the
// replay read it, and the gate reports what it found by then rather than
// an interruption: a call that never returned is the policy's defect.
var errTestDeadline = fmt.Errorf("go test's -timeout is less than %v away: %w", deadlineMargin, context.DeadlineExceeded)

// errBubble is why the gate does not run inside a testing/synctest bubble.
var errBubble = errors.New("gate: cannot run inside a testing/synctest bubble: its clock is fake, so no call of the policy can be timed (one that never returns would deadlock the bubble) and go test's deadline cannot be read; call gate.Check outside synctest.Test: its frozen-clock check makes a bubble of its own")

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
