package sim_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/sim"
	"github.com/jitterkit/jitterkit/testdata/kittest"
	"github.com/jitterkit/jitterkit/testdata/kittest/fleets"
)

// digestCount is how many random configurations TestFiguresDigest
// replays; 0 is the suite's count.
var digestCount = flag.Int("digest.n", 0, "replay `N` random configurations in TestFiguresDigest (0: 60, or 20 under -short)")

// TestFiguresDigest replays random configurations of every kind, server,
// budget and built-in strategy, and compares the SHA-256 of everything
// they return (each Result as JSON, or the error's text) with the digest
// recorded for that many configurations in testdata/digest/N.sha256. A
// change that keeps the package's behaviour, such as a refactor of its
// engines, keeps every digest: go test -run 'TestFiguresDigest$'
// -digest.n 3000 checks it over thousands of configurations, once
// -update has recorded that count's digest before the change.
func TestFiguresDigest(t *testing.T) {
	n := *digestCount
	switch {
	case n > 0:
	case testing.Short():
		n = 20
	default:
		n = 60
	}
	h := sha256.New()
	for i := range n {
		f := fleets.Random(uint64(i))
		fmt.Fprintf(h, "%d %s %s\n", i, f.Spec, f.Scenario.Kind)
		res, err := sim.Replay(context.Background(), f.Policy.Factory(), f.Scenario, f.Config)
		if err != nil {
			fmt.Fprintf(h, "error: %v\n", err)
			continue
		}
		b, err := json.Marshal(res)
		require.NoError(t, err, "configuration %d", i)
		h.Write(b)
		h.Write([]byte{'\n'})
	}
	got := hex.EncodeToString(h.Sum(nil)) + "\n"
	kittest.Golden(t, filepath.Join("testdata", "digest", strconv.Itoa(n)+".sha256"), []byte(got))
}
