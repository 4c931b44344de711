package reports_test

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/properties"
	"github.com/jitterkit/jitterkit/reports"
	"github.com/jitterkit/jitterkit/testdata/kittest"
)

// TestWriteDir writes the four files and checks each holds what its
// writer renders.
func TestWriteDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	r := failingReport()
	require.NoError(t, reports.WriteDir(t.Context(), dir, r))
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
		require.NoError(t, err)
		var want bytes.Buffer
		require.NoError(t, f.write(&want))
		assert.Equal(t, want.String(), string(got), "%s differs from its writer's output (-want +got)", f.format)
	}
	assertOnly(t, dir, allFiles()...)
}

// TestWriteDirKeepsOldReport writes a report, then one that cannot be
// rendered: the first report's files must stay as they were, whole.
func TestWriteDirKeepsOldReport(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, reports.WriteDir(t.Context(), dir, passingReport()))
	before := kittest.ReadFiles(t, dir)

	bad := failingReport()
	checkNamed(t, &bad, properties.NameSpread).Figure = math.NaN()
	err := reports.WriteDir(t.Context(), dir, bad)
	require.Error(t, err, "WriteDir of a report holding NaN")
	assert.ErrorContains(t, err, `checks[0] (spread): value 0 is NaN`)
	assert.Equal(t, before, kittest.ReadFiles(t, dir), "the old report after a failed WriteDir")
	assertOnly(t, dir, allFiles()...)

	err = reports.WriteDir(t.Context(), dir, passingReport(), "report.pdf")
	assert.ErrorContains(t, err, `unknown format "report.pdf"`, "WriteDir with format report.pdf")
}

// TestWriteDirFormats writes only the formats asked for, once each, and
// removes the reports of the other formats that an earlier call wrote, so
// that the directory never holds files of two runs.
func TestWriteDirFormats(t *testing.T) {
	tests := []struct {
		name    string
		first   []reports.Format // written before, none when nil
		formats []reports.Format
		want    []string
	}{
		{"two formats into an empty directory", nil, []reports.Format{reports.JUnit, reports.JSON}, []string{"junit.xml", "report.json"}},
		{"a format twice", nil, []reports.Format{reports.JSON, reports.JSON}, []string{"report.json"}},
		{"two formats after all", reports.Formats(), []reports.Format{reports.JUnit, reports.JSON}, []string{"junit.xml", "report.json"}},
		{"all after one", []reports.Format{reports.Markdown}, nil, allFiles()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.first != nil {
				require.NoError(t, reports.WriteDir(t.Context(), dir, failingReport(), tt.first...))
			}
			require.NoError(t, reports.WriteDir(t.Context(), dir, passingReport(), tt.formats...))
			assertOnly(t, dir, tt.want...)
			for _, name := range tt.want {
				b, err := os.ReadFile(filepath.Join(dir, name))
				require.NoError(t, err)
				assert.Contains(t, string(b), "decorrelated", "%s is from the second report", name)
			}
		})
	}
}

// allFiles are the files of every format, in the order a directory lists
// them.
func allFiles() []string {
	var names []string
	for _, f := range reports.Formats() {
		names = append(names, string(f))
	}
	slices.Sort(names)
	return names
}

// assertOnly fails unless dir holds exactly the named files: no temporary
// file is left behind.
func assertOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	assert.Equal(t, names, got, "the files %s holds", dir)
}

// TestWriteDirRewrites writes each fixture over itself: WriteDir knows its
// own files, whatever the report holds.
func TestWriteDirRewrites(t *testing.T) {
	custom := passingReport()
	custom.Schema = "custom/v9"
	long := hostileReport()
	long.Schema = strings.Repeat("\u202e", 1000)
	long.Verdict = verdict.Status(strings.Repeat("\x00", 1000))
	for _, fx := range []fixture{{"outage-none", failingReport()}, {"storm-compare", stormComparison()}, {"hostile-strings", hostileReport()},
		{"a schema of its own", custom}, {"a long schema and verdict", long}} {
		t.Run(fx.name, func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, reports.WriteDir(t.Context(), dir, fx.r))
			require.NoError(t, reports.WriteDir(t.Context(), dir, fx.r))
			assertOnly(t, dir, allFiles()...)
		})
	}
}

// TestClearDir removes the report WriteDir wrote, and nothing else: a
// user's notes and their own report.md stay, and a directory that does
// not exist holds nothing to remove.
func TestClearDir(t *testing.T) {
	tests := []struct {
		name    string
		formats []reports.Format  // the report written first; none when nil
		others  map[string]string // files of the user's beside it
		removed []reports.Format  // what ClearDir says it removed
		left    []string          // what dir holds after it
	}{
		{"a whole report", reports.Formats(), nil, reports.Formats(), nil},
		{"two formats", []reports.Format{reports.JUnit, reports.JSON}, nil, []reports.Format{reports.JSON, reports.JUnit}, nil},
		{"a report beside a user's notes", reports.Formats(), map[string]string{"notes.txt": "mine\n"}, reports.Formats(), []string{"notes.txt"}},
		{"a user's own report.md", []reports.Format{reports.JSON}, map[string]string{"report.md": "# my own report\n"}, []reports.Format{reports.JSON}, []string{"report.md"}},
		{"no report", nil, map[string]string{"report.json": "{}\n"}, nil, []string{"report.json"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.formats != nil {
				require.NoError(t, reports.WriteDir(t.Context(), dir, passingReport(), tt.formats...))
			}
			for name, data := range tt.others {
				require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644))
			}
			removed, err := reports.ClearDir(t.Context(), dir)
			require.NoError(t, err)
			assert.Equal(t, tt.removed, removed, "the formats removed")
			assertOnly(t, dir, tt.left...)
			for name, data := range tt.others {
				b, err := os.ReadFile(filepath.Join(dir, name))
				require.NoError(t, err)
				assert.Equal(t, data, string(b), "the user's %s", name)
			}
		})
	}

	removed, err := reports.ClearDir(t.Context(), filepath.Join(t.TempDir(), "missing"))
	assert.NoError(t, err, "ClearDir of a directory that does not exist")
	assert.Empty(t, removed, "ClearDir of a directory that does not exist")

	file := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(file, []byte("mine\n"), 0o644))
	_, err = reports.ClearDir(t.Context(), file)
	assert.ErrorContains(t, err, file+": not a directory", "ClearDir of a file")
}
