package sim_test

import (
	"encoding/json"
	"fmt"
	"io"
	"testing"

	"github.com/jitterkit/jitterkit/sim"
	"github.com/jitterkit/jitterkit/testdata/kittest/fleets"
)

// TestFiguresDigest replays random configurations of every kind, server,
// budget and built-in strategy, and compares the SHA-256 of everything
// they return (each Result as JSON, or the error's text) with the digest
// recorded for that many configurations in testdata/digest/N.sha256: 60,
// or 20 under -short. A change that keeps the package's behaviour, such
// as a refactor of its engines, keeps every digest: go test -run
// 'TestFiguresDigest$' -digest.n 3000 checks it over thousands of
// configurations, once -update has recorded that count's digest before
// the change.
func TestFiguresDigest(t *testing.T) {
	fleets.Digest(t, "digest", 20, 60, func(w io.Writer, _ fleets.Fleet, res sim.Result) error {
		b, err := json.Marshal(res)
		if err != nil {
			return err
		}
		_, err = w.Write(append(b, '\n'))
		return err
	})
}

// TestVerdictsDigest is TestFiguresDigest for the verdicts of the same
// configurations: each Result's status, warnings, detail and why it
// judged nothing, recorded in testdata/verdict-digest.
func TestVerdictsDigest(t *testing.T) {
	fleets.Digest(t, "verdict-digest", 20, 60, func(w io.Writer, _ fleets.Fleet, res sim.Result) error {
		_, err := fmt.Fprintf(w, "%s %v %q %q\n", res.Status(), res.Warnings(), res.Detail(), res.Unjudged())
		return err
	})
}
