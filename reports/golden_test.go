package reports_test

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jitterkit/jitterkit/reports"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// writers are the five renderers, by the extension of their golden files.
var writers = []struct {
	ext   string
	write func(io.Writer, reports.Report) error
}{
	{"json", reports.WriteJSON},
	{"md", reports.WriteMarkdown},
	{"html", reports.WriteHTML},
	{"junit.xml", reports.WriteJUnit},
	{"txt", reports.WriteText},
}

type fixture struct {
	name string
	r    reports.Report
}

// TestGolden renders each fixture in each format twice, from reports built
// twice: the bytes must be the same both times, and the same as the golden
// file.
func TestGolden(t *testing.T) {
	first := []fixture{{"lab-none", failingReport()}, {"lab-decorrelated", passingReport()}, {"storm-compare", stormComparison()}, {"hostile-strings", hostileReport()}}
	second := []fixture{{"lab-none", buildFailingReport()}, {"lab-decorrelated", buildPassingReport()}, {"storm-compare", stormComparison()}, {"hostile-strings", hostileReport()}}
	for i, fx := range first {
		for _, w := range writers {
			name := fx.name + "." + w.ext
			t.Run(name, func(t *testing.T) {
				var a, b bytes.Buffer
				if err := w.write(&a, fx.r); err != nil {
					t.Fatalf("first render: %v", err)
				}
				if err := w.write(&b, second[i].r); err != nil {
					t.Fatalf("second render: %v", err)
				}
				if !bytes.Equal(a.Bytes(), b.Bytes()) {
					t.Errorf("two renders of one report differ (-first +second):\n%s", diff(a.String(), b.String()))
				}
				golden(t, name, a.Bytes())
			})
		}
	}
}

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("%s differs (-want +got; go test -update rewrites it):\n%s", path, diff(string(want), string(got)))
	}
}

// diff shows the lines where want and got part, with two lines of context
// either side, as -want and +got.
func diff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	start := 0
	for start < len(w) && start < len(g) && w[start] == g[start] {
		start++
	}
	ew, eg := len(w), len(g)
	for ew > start && eg > start && w[ew-1] == g[eg-1] {
		ew, eg = ew-1, eg-1
	}
	var b strings.Builder
	fmt.Fprintf(&b, "@@ line %d @@\n", start+1)
	for _, l := range w[max(0, start-2):start] {
		fmt.Fprintf(&b, "  %s\n", l)
	}
	show := func(prefix string, lines []string) {
		n := min(len(lines), 20)
		for _, l := range lines[:n] {
			fmt.Fprintf(&b, "%s %s\n", prefix, l)
		}
		if len(lines) > n {
			fmt.Fprintf(&b, "%s … %d more lines\n", prefix, len(lines)-n)
		}
	}
	show("-", w[start:ew])
	show("+", g[start:eg])
	for _, l := range w[ew:min(len(w), ew+2)] {
		fmt.Fprintf(&b, "  %s\n", l)
	}
	return b.String()
}
