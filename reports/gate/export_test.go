package gate

// Undominated is undominated, for the external tests.
var Undominated = undominated

// Clear is clear, for the external tests.
var Clear = clear

// WithoutReuse returns p with none of its program's replies reused, as a
// policy of an external program was before its replies could be.
func WithoutReuse(p Policy) Policy {
	p.reuse = nil
	return p
}
