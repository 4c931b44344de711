// Package verdict names the outcomes jitterkit gives: of one property
// check, of a fleet replay, and of a whole gate. One Status type serves all
// three, so that a check's outcome reaches a report unchanged.
//
// A Status says what the evidence showed, and only that:
//
//	pass          the property held on all the evidence asked for
//	fail          a finding: the property broke, shown by a counterexample
//	warn          a real finding that fails only when the user asks it to
//	inconclusive  the evidence asked for was not gathered (a deadline, a
//	              source that failed, too few devices): never a pass
//	skipped       the check does not apply to the policy's source, such as
//	              a recorded trace, which cannot be made again
//
// Inconclusive and skipped outcomes never produce advice: there is no
// finding to act on.
package verdict

// A Status is the outcome of a check, of a replay or of a whole gate.
type Status string

// The outcomes.
const (
	// Pass: the property held on all the evidence the check asks for.
	Pass Status = "pass"
	// Fail: the property broke; the detail and counterexample show where.
	Fail Status = "fail"
	// Warn: a real finding that fails only when the user asks it to, such
	// as delays that a restart does not reproduce.
	Warn Status = "warn"
	// Inconclusive: the check could not gather the evidence it needs; its
	// detail says why and how much it had. It is never a pass.
	Inconclusive Status = "inconclusive"
	// Skipped: the check does not apply to the policy's source; its detail
	// says why.
	Skipped Status = "skipped"
)

// Valid reports whether s is one of the outcomes.
func (s Status) Valid() bool {
	switch s {
	case Pass, Fail, Warn, Inconclusive, Skipped:
		return true
	}
	return false
}

// Finding reports whether s is a finding to act on: Fail or Warn.
func (s Status) Finding() bool { return s == Fail || s == Warn }

// severity orders the outcomes from the least to the most serious for
// Combine; Skipped carries no evidence and ranks below everything.
func (s Status) severity() int {
	switch s {
	case Skipped:
		return 0
	case Pass:
		return 1
	case Warn:
		return 2
	case Inconclusive:
		return 3
	case Fail:
		return 4
	}
	return 5
}

// Combine returns the outcome of a whole made of parts: Fail if any part
// failed; else Inconclusive if any part was, or if every part was skipped
// (or there are none), since no evidence was then gathered; else Warn if
// any part warned; else Pass. Skipped parts do not count.
func Combine(parts ...Status) Status {
	worst := Skipped
	for _, s := range parts {
		if s.severity() > worst.severity() {
			worst = s
		}
	}
	if worst == Skipped {
		return Inconclusive
	}
	return worst
}

// Gate returns the verdict of a gate whose parts are given: Combine's
// outcome, with a warning counted as a pass. It is Pass, Fail or
// Inconclusive.
func Gate(parts ...Status) Status {
	if s := Combine(parts...); s != Warn {
		return s
	}
	return Pass
}
