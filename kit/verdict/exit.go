package verdict

import "fmt"

// An ExitCode is how the jitterkit command ends, for the CI script around
// it. The codes are a contract, each code saying one thing; this is its
// version 2, which moved "no verdict" from exit 2 to exit 4. [ExitCodes]
// gives the table with its version.
type ExitCode int

// The exit codes.
const (
	ExitPass  ExitCode = 0 // the policy passed
	ExitFail  ExitCode = 1 // the policy failed: a check, the replay or the gate
	ExitUsage ExitCode = 2 // bad usage or bad input
	ExitKit   ExitCode = 3 // the kit itself failed
	// ExitNoVerdict is a run that gathered too little evidence to judge:
	// never a pass, and never bad usage, whose 2 it shared in version 1
	// of the codes.
	ExitNoVerdict   ExitCode = 4
	ExitInterrupted ExitCode = 130 // stopped by a signal, as shells report SIGINT
)

// exitCodesVersion is the version of the exit codes' contract: version 2
// moved "no verdict" from exit 2 to exit 4.
const exitCodesVersion = 2

// ExitCodes returns the table of the exit codes, the same text in the
// command's every help, its documentation and the README.
func ExitCodes() string {
	return fmt.Sprintf(`Exit codes (version %d of this contract; version 1 exited 2 for no verdict):
  %-3d  the policy passed
  %-3d  the policy failed: a check, the replay or the gate, or a defect
       that stopped a replay
  %-3d  bad usage or bad input: a spec, config or trace; a program that
       cannot be started or breaks the exec protocol
  %-3d  jitterkit itself failed
  %-3d  no verdict: too little evidence to judge, never a pass
  %-3d  interrupted
`, exitCodesVersion, ExitPass, ExitFail, ExitUsage, ExitKit, ExitNoVerdict, ExitInterrupted)
}

// ExitCode returns the exit code of a whole run whose verdict is s: a
// pass, or a warning, which fails only when asked, passes; a failure
// fails; a run that gathered no evidence (inconclusive, or skipped
// whole) has no verdict; and a status that is none of the outcomes is
// the kit's own failure.
func (s Status) ExitCode() ExitCode {
	switch s {
	case Pass, Warn:
		return ExitPass
	case Fail:
		return ExitFail
	case Inconclusive, Skipped:
		return ExitNoVerdict
	}
	return ExitKit
}
