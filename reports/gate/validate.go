package gate

import (
	"errors"

	"github.com/jitterkit/jitterkit/kit"
)

// Validate refuses, before any source is opened, what Run and Compare
// would refuse of c for the policy p: the property checks'
// configuration, and the replay's scenario at each fleet size of sizes
// (none for the configured fleet), sampled as c.Sample says, with the
// replications c.Replay sets. p may name its Source alone, without a
// Factory, when its source is not open yet (a program, a recording); the
// replay's memory is then that of any factory, where a spec's (SpecPolicy)
// needs less. A recording (Source Trace) has its devices checked, and its
// own fleet replayed, once it is read: Validate leaves those to Run, and
// refuses a sample of one, which Run would ignore (a recording is replayed
// whole). The error is an *InputError in the words of the package that
// refused, such as sim's memory estimate.
func (c Config) Validate(p Policy, sizes ...int) error {
	if err := c.oneSeed(); err != nil {
		return err
	}
	c = c.withDefaults()
	if c.Sample > 1 && p.Source == kit.SourceTrace && c.Steps&Replay != 0 {
		return &InputError{errors.New("a sample does not apply to a recording, which is replayed whole")}
	}
	g := &gate{p: p, cfg: c}
	return g.validate(sizes...)
}

// ValidateNamed validates, as Validate does, the policies a caller names
// before it opens any: each of specs, or, when there are none, the
// built-in strategies a comparison replays in their place (see Compare);
// a program or a recording (src Exec or Trace) by its source alone.
func (c Config) ValidateNamed(src kit.Source, specs []kit.Spec, sizes ...int) error {
	policies := []Policy{{Source: src}}
	switch {
	case src == kit.SourceSpec && len(specs) == 0:
		policies = builtinPolicies(c)
	case src == kit.SourceSpec:
		policies = policies[:0]
		for _, s := range specs {
			policies = append(policies, SpecPolicy(s))
		}
	}
	for _, p := range policies {
		if err := c.Validate(p, sizes...); err != nil {
			return err
		}
	}
	return nil
}
