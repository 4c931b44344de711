package reports_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/reports"
	"github.com/jitterkit/jitterkit/sim"
	"github.com/jitterkit/jitterkit/testdata/kittest"
	"github.com/jitterkit/jitterkit/testdata/kittest/fleets"
)

// digestCount is how many random configurations TestReportsDigest
// renders; 0 is the suite's count.
var digestCount = flag.Int("digest.n", 0, "render the reports of `N` random configurations in TestReportsDigest (0: 40, or 12 under -short)")

// TestReportsDigest replays random configurations of every kind, server,
// budget and built-in strategy (fleets.Random), renders each replay's
// report in every format (text, Markdown, HTML with its charts, JUnit XML
// and JSON), and compares the SHA-256 of all of it with the digest
// recorded for that many configurations in testdata/digest/N.sha256. A
// change that must keep every report, such as a refactor of the charts
// or of how a model is rendered, keeps every digest: go test -run
// 'TestReportsDigest$' -digest.n 1000 checks it over a thousand, once
// -update has recorded that count's digest before the change.
func TestReportsDigest(t *testing.T) {
	n := *digestCount
	switch {
	case n > 0:
	case testing.Short():
		n = 12
	default:
		n = 40
	}
	writers := []struct {
		name  string
		write func(io.Writer, reports.Report) error
	}{
		{"text", reports.WriteText},
		{"markdown", reports.WriteMarkdown},
		{"html", reports.WriteHTML},
		{"junit", reports.WriteJUnit},
		{"json", reports.WriteJSON},
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
		var r reports.Report
		r.Policy = reports.Policy{Name: f.Spec, Spec: f.Spec, Source: kit.SourceSpec}
		r.AddReplay(res)
		for _, w := range writers {
			var b bytes.Buffer
			require.NoError(t, w.write(&b, r), "configuration %d (%s, %s): %s", i, f.Spec, f.Scenario.Kind, w.name)
			fmt.Fprintf(h, "%s %d\n", w.name, b.Len())
			h.Write(b.Bytes())
		}
	}
	got := hex.EncodeToString(h.Sum(nil)) + "\n"
	kittest.Golden(t, filepath.Join("testdata", "digest", strconv.Itoa(n)+".sha256"), []byte(got))
}
