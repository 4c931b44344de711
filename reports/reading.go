package reports

import (
	"errors"
	"io"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/sim"
)

// Inconclusive returns the parts of r that could not gather the evidence
// they need, as the verdict's reason names them: the inconclusive checks
// by name, in the order they ran, then "replay" when the replay was
// inconclusive. It is empty when every part reached a verdict.
func (r Report) Inconclusive() []string {
	var parts []string
	for _, c := range r.Checks {
		if c.Status == verdict.Inconclusive {
			parts = append(parts, c.Name)
		}
	}
	if r.Replay != nil && r.Replay.Status == verdict.Inconclusive {
		parts = append(parts, "replay")
	}
	return parts
}

// ErrNoFigures is the error of writing the JSON of a replay that a
// policy's defect stopped before any run's figures: the replay's JSON has
// no shape for none.
var ErrNoFigures = errors.New("the replay stopped before any run's figures")

// WriteJSON writes the replay as sim's JSON (sim.Result.WriteJSON), the
// shape of jitterkit replay --json, naming policy as the replayed policy.
// A stopped replay, or none (a nil Replay), is ErrNoFigures.
func (p *Replay) WriteJSON(w io.Writer, policy string) error {
	if p == nil || p.Stopped != nil {
		return ErrNoFigures
	}
	return p.result().WriteJSON(w, policy)
}

// Strategy returns the cell of row for the built-in strategy s: the column
// of the policy that is a spec of s, found by its name, wherever the
// comparison put it. It reports false when no column is one, or the row
// does not exist.
func (c Comparison) Strategy(row int, s kit.Strategy) (sim.Estimate, bool) {
	if row < 0 || row >= len(c.Rows) {
		return sim.Estimate{}, false
	}
	for i, name := range c.Policies {
		spec, err := kit.ParseSpec(name)
		if err == nil && spec.Strategy == s && i < len(c.Rows[row].Cells) {
			return c.Rows[row].Cells[i], true
		}
	}
	return sim.Estimate{}, false
}
