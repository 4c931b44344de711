package kit

// A ConfigError reports a field of a configuration out of range, or a run
// that would need more memory than its limit. The packages that run a
// policy (properties' checks, sim's replay) return it from their Validate
// and refuse to run with it, so one errors.As finds the refusal of either.
type ConfigError struct {
	// Package names the package that refused the configuration, as in
	// "sim" or "properties"; the message starts with it.
	Package string
	// Err says what is wrong, without the package's prefix: which field,
	// what it holds and what is allowed.
	Err error
	// Memory is set when the run would need more memory than the
	// configuration's MemoryLimit: raising the limit is one remedy.
	Memory bool
}

func (e *ConfigError) Error() string { return e.Package + ": " + e.Err.Error() }

func (e *ConfigError) Unwrap() error { return e.Err }
