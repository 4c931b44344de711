package kit

// A Source is where a policy comes from: the gate takes it with the policy,
// the property checks read from it which checks apply (a program outside
// the process is never told a device's boot instant, and a recording
// cannot be made again), and a report names it. Its value is the word a
// report writes.
type Source string

// The sources of a policy.
const (
	// SourceGo is a factory of the caller's, in this process: every check
	// applies. The zero Source means it too.
	SourceGo Source = "go"
	// SourceSpec is one of the built-in strategies, described by a Spec,
	// in this process: every check applies.
	SourceSpec Source = "spec"
	// SourceExec is a program outside the process, speaking the exec
	// protocol. It is never told a device's boot instant and its clock
	// cannot be frozen, so frozen-clock does not apply: a program seeded
	// from its own clock shows in spread and clusters instead.
	SourceExec Source = "exec"
	// SourceTrace is delays recorded from real devices. It holds only its
	// own devices and their recorded delays, so the checks that make new
	// devices (id-populations), make them again (reproducibility) or make
	// them at a frozen instant (frozen-clock) do not apply, and cap-phase
	// applies only when the recording reaches past the first delays.
	SourceTrace Source = "trace"
)

// OrGo returns s, or SourceGo for the zero Source.
func (s Source) OrGo() Source {
	if s == "" {
		return SourceGo
	}
	return s
}

// Known reports whether s is the zero Source or one of the four sources.
func (s Source) Known() bool {
	switch s {
	case "", SourceGo, SourceSpec, SourceExec, SourceTrace:
		return true
	}
	return false
}
