package reports

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/testdata/kittest"
)

// oldSet is a previous report in all four formats, as WriteDir wrote it:
// each file begins as its format's report does.
var oldSet = map[string]string{
	"report.json": "{\n  \"schema\": \"jitterkit.report/v1\",\n  \"verdict\": \"fail\",\n  \"policy\": \"old\"\n}\n",
	"report.md":   "# jitterkit: FAIL for old\n",
	"report.html": "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<title>jitterkit FAIL: old</title>\n",
	"junit.xml":   "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"jitterkit\" tests=\"1\">old</testsuites>\n",
}

// newSet is the next report in the formats asked for.
func newSet(formats ...Format) []dirFile {
	var files []dirFile
	for _, f := range formats {
		files = append(files, dirFile{format: f, data: []byte("new " + string(f) + ", long enough to be cut in half\n")})
	}
	return files
}

// failing returns osFS whose operation op fails on its nth call.
func failing(op string, n int) (fsOps, error) {
	errInjected := errors.New("injected failure")
	ops := osFS
	calls := 0
	fail := func() bool { calls++; return calls == n }
	switch op {
	case "write":
		ops.write = func(w io.Writer, data []byte) error {
			if fail() {
				w.Write(data[:len(data)/2])
				return errInjected
			}
			return copyData(w, data)
		}
	case "rename":
		ops.rename = func(from, to string) error {
			if fail() {
				return errInjected
			}
			return os.Rename(from, to)
		}
	}
	return ops, errInjected
}

// renames is how many renames put a new set in place of an old one: the
// new directory's rename that finds the old one there, the old one's
// rename aside, and the new one's again.
const renames = 3

// TestWriteSetFailsPartWay makes each step of a write fail in turn: a full
// disk while the files are written, and each rename that puts them in
// place, into a directory of reports alone and, for the writes, one that
// holds a user's file too. Every time the previous set must be left whole,
// with nothing else beside it.
func TestWriteSetFailsPartWay(t *testing.T) {
	all := []Format{JSON, Markdown, HTML, JUnit}
	type failure struct {
		name    string
		op      string // the operation that fails: write or rename
		n       int    // on its nth call
		formats []Format
		others  map[string]string // files of the user's beside the report
	}
	notes := map[string]string{"notes.txt": "mine\n"}
	tests := []failure{
		{"the second file's write", "write", 2, all, nil},
		{"the fourth file's write", "write", 4, all, nil},
		{"the second file's write beside a user's file", "write", 2, all, notes},
		{"the fourth file's write beside a user's file", "write", 4, all, notes},
	}
	for n := 1; n <= renames; n++ {
		tests = append(tests,
			failure{fmt.Sprintf("rename %d", n), "rename", n, all, nil},
			failure{fmt.Sprintf("rename %d of two formats, two removed", n), "rename", n, []Format{JUnit, JSON}, nil})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, oldSet)
			writeFiles(t, dir, tt.others)
			want := kittest.ReadFiles(t, dir)
			ops, errInjected := failing(tt.op, tt.n)
			_, err := writeSet(t.Context(), dir, newSet(tt.formats...), ops)
			require.ErrorIs(t, err, errInjected)
			assert.Equal(t, want, kittest.ReadFiles(t, dir), "the files after a failed write")
			assertAlone(t, dir)
		})
	}
}

// assertAlone fails unless the parent of dir holds dir alone: no new or
// old directory of a write is left beside it.
func assertAlone(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(filepath.Dir(dir))
	require.NoError(t, err)
	require.Len(t, entries, 1, "the directory beside %s", dir)
	assert.Equal(t, filepath.Base(dir), entries[0].Name())
}

// TestWriteSetUndoFails fails the rename that puts the new set in place,
// then the rename that would put the old one back: the error says so, and
// names where the old set is kept.
func TestWriteSetUndoFails(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, oldSet)
	ops := osFS
	calls := 0
	ops.rename = func(from, to string) error {
		calls++
		if calls == renames || strings.HasSuffix(from, ".old") {
			return errors.New("injected failure")
		}
		return os.Rename(from, to)
	}
	_, err := writeSet(t.Context(), dir, newSet(JSON, Markdown, HTML, JUnit), ops)
	require.Error(t, err)
	require.Contains(t, err.Error(), "as putting it back failed too")
	kept := strings.SplitN(strings.SplitN(err.Error(), "kept in ", 2)[1], ", as", 2)[0]
	assert.Equal(t, oldSet, kittest.ReadFiles(t, kept), "the directory named by %q", err)
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, data := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644))
	}
}

// TestClearSetFailsPartWay makes each rename of a removal fail in turn:
// every time the previous set must be left whole, with nothing beside it.
func TestClearSetFailsPartWay(t *testing.T) {
	for n := 1; n <= renames; n++ {
		t.Run(fmt.Sprintf("rename %d", n), func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, oldSet)
			ops, errInjected := failing("rename", n)
			_, err := writeSet(t.Context(), dir, nil, ops)
			require.ErrorIs(t, err, errInjected)
			assert.Equal(t, oldSet, kittest.ReadFiles(t, dir), "the files after a failed removal")
			assertAlone(t, dir)
		})
	}
}

// TestOrderedRefusesBadRows feeds ordered the rows a format's file could
// get wrong: each must panic with a message naming the format.
func TestOrderedRefusesBadRows(t *testing.T) {
	row := func(file Format, position int) format {
		return format{file: file, position: position,
			render:  func(Report) ([]byte, error) { return nil, nil },
			written: func([]byte) bool { return false }}
	}
	tests := []struct {
		name string
		rows []format
		want string
	}{
		{"a file twice", []format{row("a", 10), row("a", 20)}, `reports: format "a" is registered twice`},
		{"a shared position", []format{row("a", 10), row("b", 10)}, `reports: formats "a" and "b" share position 10`},
		{"no file", []format{row("", 10)}, "reports: a format at position 10 has no file"},
		{"no written", []format{{file: "a", position: 10, render: row("", 0).render}}, `reports: format "a" has no render or no written`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.PanicsWithValue(t, tt.want, func() { ordered(tt.rows) })
		})
	}
	got := ordered([]format{row("b", 20), row("a", 10)})
	assert.Equal(t, []Format{"a", "b"}, []Format{got[0].file, got[1].file}, "rows by position, whatever order they were registered in")
}
