package reports_test

import (
	"bytes"
	"fmt"
	"io"
	"testing"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/reports"
	"github.com/jitterkit/jitterkit/sim"
	"github.com/jitterkit/jitterkit/testdata/kittest/fleets"
)

// TestReportsDigest replays random configurations of every kind, server,
// budget and built-in strategy (fleets.Random), renders each replay's
// report in every format (text, Markdown, HTML with its charts, JUnit XML
// and JSON), and compares the SHA-256 of all of it with the digest
// recorded for that many configurations in testdata/digest/N.sha256: 40,
// or 12 under -short. A change that must keep every report, such as a
// refactor of the charts or of how a model is rendered, keeps every
// digest: go test -run 'TestReportsDigest$' -digest.n 400 checks it over
// 400, once -update has recorded that count's digest before the change.
func TestReportsDigest(t *testing.T) {
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
	fleets.Digest(t, "digest", 12, 40, func(w io.Writer, f fleets.Fleet, res sim.Result) error {
		var r reports.Report
		r.Policy = reports.Policy{Name: f.Spec, Spec: f.Spec, Source: kit.SourceSpec}
		r.AddReplay(res)
		for _, wr := range writers {
			var b bytes.Buffer
			if err := wr.write(&b, r); err != nil {
				return fmt.Errorf("%s: %w", wr.name, err)
			}
			fmt.Fprintf(w, "%s %d\n", wr.name, b.Len())
			if _, err := w.Write(b.Bytes()); err != nil {
				return err
			}
		}
		return nil
	})
}
