package reports_test

import (
	"bytes"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/reports"
	"github.com/jitterkit/jitterkit/testdata/kittest"
)

// A writer is one renderer, named by the extension of its golden files.
type writer struct {
	ext   string
	write func(io.Writer, reports.Report) error
}

// writers are the renderers: each of WriteDir's formats, in its order,
// by its file name less "report.", then the text summary.
var writers = func() []writer {
	var ws []writer
	for _, f := range reports.Formats() {
		ws = append(ws, writer{strings.TrimPrefix(string(f), "report."), func(w io.Writer, r reports.Report) error {
			return reports.WriteFormat(w, f, r)
		}})
	}
	return append(ws, writer{"txt", reports.WriteText})
}()

type fixture struct {
	name string
	r    reports.Report
}

// TestGolden renders each fixture in each format twice, from reports built
// twice: the bytes must be the same both times, and the same as the golden
// file.
func TestGolden(t *testing.T) {
	first := []fixture{{"outage-none", failingReport()}, {"outage-decorrelated", passingReport()}, {"storm-compare", stormComparison()}, {"hostile-strings", hostileReport()}}
	second := []fixture{{"outage-none", buildFailingReport()}, {"outage-decorrelated", buildPassingReport()}, {"storm-compare", stormComparison()}, {"hostile-strings", hostileReport()}}
	for i, fx := range first {
		for _, w := range writers {
			name := fx.name + "." + w.ext
			t.Run(name, func(t *testing.T) {
				var a, b bytes.Buffer
				require.NoError(t, w.write(&a, fx.r), "first render")
				require.NoError(t, w.write(&b, second[i].r), "second render")
				assert.Equal(t, a.String(), b.String(), "two renders of one report differ (-first +second)")
				kittest.Golden(t, filepath.Join("testdata", name), a.Bytes())
			})
		}
	}
}
