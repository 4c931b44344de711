package reports_test

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jitterkit/jitterkit/reports"
)

// TestWriteDir writes the four files and checks each holds what its
// writer renders.
func TestWriteDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	r := failingReport()
	if err := reports.WriteDir(dir, r); err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct {
		format reports.Format
		write  func(*bytes.Buffer) error
	}{
		{reports.JSON, func(b *bytes.Buffer) error { return reports.WriteJSON(b, r) }},
		{reports.Markdown, func(b *bytes.Buffer) error { return reports.WriteMarkdown(b, r) }},
		{reports.HTML, func(b *bytes.Buffer) error { return reports.WriteHTML(b, r) }},
		{reports.JUnit, func(b *bytes.Buffer) error { return reports.WriteJUnit(b, r) }},
	} {
		got, err := os.ReadFile(filepath.Join(dir, string(f.format)))
		if err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		if err := f.write(&want); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want.Bytes()) {
			t.Errorf("%s differs from its writer's output (-want +got):\n%s", f.format, diff(want.String(), string(got)))
		}
	}
	assertOnly(t, dir, "junit.xml", "report.html", "report.json", "report.md")
}

// TestWriteDirKeepsOldReport writes a report, then one that cannot be
// rendered: the first report's files must stay as they were, whole.
func TestWriteDirKeepsOldReport(t *testing.T) {
	dir := t.TempDir()
	if err := reports.WriteDir(dir, passingReport()); err != nil {
		t.Fatal(err)
	}
	before := readAll(t, dir)

	bad := failingReport()
	bad.Checks[0].Counterexample.Devices[0].DelaysS[1] = math.NaN()
	err := reports.WriteDir(dir, bad)
	if err == nil {
		t.Fatal("WriteDir of a report holding NaN succeeded; want an error")
	}
	if want := `device "dev-000000": value 1 is NaN`; !strings.Contains(err.Error(), want) {
		t.Errorf("WriteDir error = %q; want it to contain %q", err, want)
	}
	if after := readAll(t, dir); !mapsEqual(before, after) {
		t.Errorf("the old report changed after a failed WriteDir")
	}
	assertOnly(t, dir, "junit.xml", "report.html", "report.json", "report.md")

	if err := reports.WriteDir(dir, passingReport(), "report.pdf"); err == nil || !strings.Contains(err.Error(), `unknown format "report.pdf"`) {
		t.Errorf("WriteDir with format report.pdf: error %v; want unknown format", err)
	}
}

// TestWriteDirFormats writes only the formats asked for.
func TestWriteDirFormats(t *testing.T) {
	dir := t.TempDir()
	if err := reports.WriteDir(dir, passingReport(), reports.JUnit, reports.JSON); err != nil {
		t.Fatal(err)
	}
	assertOnly(t, dir, "junit.xml", "report.json")
}

// assertOnly fails unless dir holds exactly the named files: no temporary
// file is left behind.
func assertOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if strings.Join(got, " ") != strings.Join(names, " ") {
		t.Errorf("%s holds %q; want %q", dir, got, names)
	}
}

func readAll(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = string(b)
	}
	return files
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || v != w {
			return false
		}
	}
	return true
}
