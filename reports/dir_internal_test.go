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
	case "put":
		ops.put = func(w io.Writer, data []byte) error {
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
	case "link":
		ops.link = func(from, to string) error { return errInjected } // a file system without hard links
	}
	return ops, errInjected
}

// TestWriteSetFailsPartWay makes each step of a write fail in turn: a full
// disk while the temporary files are written, and each rename of the swap,
// with and without hard links. Every time the previous set must be left
// whole, with nothing else beside it.
func TestWriteSetFailsPartWay(t *testing.T) {
	all := []Format{JSON, Markdown, HTML, JUnit}
	type failure struct {
		name    string
		op      string // the operation that fails: put, rename, or link+rename when there are no hard links either
		n       int    // on its nth call
		formats []Format
	}
	tests := []failure{
		{"the second file's write", "put", 2, all},
		{"the fourth file's write", "put", 4, all},
	}
	// With hard links the swap renames each new file over the old: four
	// renames. Leaving out two formats removes their old files: still
	// four. Without hard links, each old file is first renamed to its
	// backup: eight.
	for n := 1; n <= 4; n++ {
		tests = append(tests,
			failure{fmt.Sprintf("rename %d", n), "rename", n, all},
			failure{fmt.Sprintf("rename %d of two formats, two removed", n), "rename", n, []Format{JUnit, JSON}})
	}
	for n := 1; n <= 8; n++ {
		tests = append(tests, failure{fmt.Sprintf("rename %d without hard links", n), "link+rename", n, all})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, oldSet)
			ops, errInjected := failing(strings.TrimPrefix(tt.op, "link+"), tt.n)
			if strings.HasPrefix(tt.op, "link+") {
				ops.link = func(from, to string) error { return errors.New("no hard links here") }
			}
			err := writeSet(t.Context(), dir, newSet(tt.formats...), ops)
			require.ErrorIs(t, err, errInjected)
			assert.Equal(t, oldSet, kittest.ReadFiles(t, dir), "the files after a failed write")
		})
	}
}

// TestWriteSetUndoFails fails a rename of the swap, then the rename that
// would undo it: the error says so, and names where the old file is kept.
func TestWriteSetUndoFails(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, oldSet)
	ops := osFS
	renames := 0
	ops.rename = func(from, to string) error {
		renames++
		if renames == 2 || strings.HasSuffix(from, ".old") {
			return errors.New("injected failure")
		}
		return os.Rename(from, to)
	}
	err := writeSet(t.Context(), dir, newSet(JSON, Markdown, HTML, JUnit), ops)
	require.Error(t, err)
	require.Contains(t, err.Error(), "undoing the swap failed too")
	backup := strings.TrimSuffix(strings.SplitN(err.Error(), "kept as ", 2)[1], ")")
	backup = strings.SplitN(backup, ",", 2)[0]
	backup = strings.SplitN(backup, ")", 2)[0]
	got, rerr := os.ReadFile(backup)
	require.NoError(t, rerr, "the backup named by %q", err)
	assert.Equal(t, oldSet["report.json"], string(got))
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
	for n := 1; n <= len(oldSet); n++ {
		t.Run(fmt.Sprintf("rename %d", n), func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, oldSet)
			ops, errInjected := failing("rename", n)
			steps, err := swapSet(t.Context(), dir, nil, ops)
			require.ErrorIs(t, err, errInjected)
			assert.Empty(t, steps, "the steps of a failed removal")
			assert.Equal(t, oldSet, kittest.ReadFiles(t, dir), "the files after a failed removal")
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
