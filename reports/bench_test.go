package reports_test

import (
	"bytes"
	"testing"
)

// BenchmarkWrite renders the failing report of the fixtures, with its three charts,
// in each format, and reports the size of the output.
func BenchmarkWrite(b *testing.B) {
	r := failingReport()
	for _, w := range writers {
		b.Run(w.ext, func(b *testing.B) {
			var out bytes.Buffer
			for b.Loop() {
				out.Reset()
				if err := w.write(&out, r); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(out.Len()), "bytes/report")
		})
	}
}
