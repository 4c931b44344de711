//go:build unix

package reports_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/properties"
	"github.com/jitterkit/jitterkit/reports"
	"github.com/jitterkit/jitterkit/testdata/kittest"
)

// writerReport is a small report that names its writer in every format.
func writerReport(writer string) reports.Report {
	return reports.Report{
		Verdict:    verdict.Pass,
		Policy:     reports.Policy{Name: writer, Spec: "full:base=1s,cap=30s", Source: "spec"},
		KitVersion: "v0.1.0",
		Checks:     []properties.Result{{Name: "spread", Status: verdict.Pass, Figure: 0.577, Threshold: 0.1, Detail: "written by " + writer}},
	}
}

// writersOf returns the writer that each report file in dir names.
func writersOf(dir fs.FS, writers int) (map[string]string, error) {
	got := map[string]string{}
	for _, f := range reports.Formats() {
		b, err := fs.ReadFile(dir, string(f))
		if err != nil {
			return nil, err
		}
		for i := range writers {
			if strings.Contains(string(b), fmt.Sprintf("writer-%02d ", i)) {
				got[string(f)] = fmt.Sprintf("writer-%02d", i)
			}
		}
	}
	return got, nil
}

// assertWhole fails unless the four report files of dir name one writer.
// It does not stop the test, and can be called from any goroutine.
func assertWhole(t *testing.T, dir string, writers int) bool {
	t.Helper()
	sets, err := writersOf(os.DirFS(dir), writers)
	return assertOneWriter(t, sets, err)
}

// assertOneWriter fails unless sets, read from a directory with err, name
// one writer for every report file.
func assertOneWriter(t *testing.T, sets map[string]string, err error) bool {
	t.Helper()
	if !assert.NoError(t, err) || !assert.Len(t, sets, len(reports.Formats()), "report files that name a writer: %v", sets) {
		return false
	}
	for f, w := range sets {
		if !assert.Equal(t, sets[string(reports.JSON)], w, "%s is from another writer than report.json: %v", f, sets) {
			return false
		}
	}
	return true
}

// TestWriteDirConcurrent has 20 goroutines write different reports into
// one directory at once, many times, while a reader reads the set through
// the directory it opened: the reader only ever sees whole sets, or files
// gone from a set that another took the place of, and the last set is
// whole.
func TestWriteDirConcurrent(t *testing.T) {
	const writers, rounds = 20, 5
	dir := t.TempDir()
	require.NoError(t, reports.WriteDir(t.Context(), dir, writerReport("writer-00 ")))

	ctx, stop := context.WithCancel(t.Context())
	reads := 0
	var reader sync.WaitGroup
	reader.Go(func() {
		for ctx.Err() == nil {
			time.Sleep(time.Millisecond) // a reader that never lets go would starve the writers
			root, err := os.OpenRoot(dir)
			if errors.Is(err, fs.ErrNotExist) {
				continue // between the two renames of a new set
			}
			if !assert.NoError(t, err) {
				return
			}
			sets, err := writersOf(root.FS(), writers)
			root.Close()
			if errors.Is(err, fs.ErrNotExist) {
				continue // a set removed once another took its place
			}
			if !assertOneWriter(t, sets, err) {
				return
			}
			reads++
		}
	})
	var wg sync.WaitGroup
	for i := range writers {
		wg.Go(func() {
			for range rounds {
				assert.NoError(t, reports.WriteDir(t.Context(), dir, writerReport(fmt.Sprintf("writer-%02d ", i))))
			}
		})
	}
	wg.Wait()
	stop()
	reader.Wait()
	t.Logf("%d whole sets read while %d writers wrote", reads, writers)
	assertWhole(t, dir, writers)
	assertOnly(t, dir, allFiles()...)
}

// TestWriteDirConcurrentProcesses does the same from 8 processes, which
// is how two CI jobs meet.
func TestWriteDirConcurrentProcesses(t *testing.T) {
	if w := os.Getenv("JITTERKIT_TEST_WRITER"); w != "" {
		dir := os.Getenv("JITTERKIT_TEST_DIR")
		for range 10 {
			if err := reports.WriteDir(context.Background(), dir, writerReport(w)); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
		}
		os.Exit(0)
	}
	if testing.Short() {
		t.Skip("starts processes")
	}
	const writers = 8
	dir := t.TempDir()
	var cmds []*exec.Cmd
	for i := range writers {
		cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestWriteDirConcurrentProcesses$")
		cmd.Env = append(os.Environ(), fmt.Sprintf("JITTERKIT_TEST_WRITER=writer-%02d ", i), "JITTERKIT_TEST_DIR="+dir)
		cmd.Stderr = os.Stderr
		require.NoError(t, cmd.Start())
		cmds = append(cmds, cmd)
	}
	for _, cmd := range cmds {
		require.NoError(t, cmd.Wait())
	}
	assertWhole(t, dir, writers)
	assertOnly(t, dir, allFiles()...)
}

// TestWriteDirStopsWithTheContext stops before it puts the files in place
// when the context is done, in a directory of reports and in one that
// holds a user's file too, and leaves the directory as it was.
func TestWriteDirStopsWithTheContext(t *testing.T) {
	for _, others := range []map[string]string{nil, {"notes.txt": "mine"}} {
		dir := t.TempDir()
		require.NoError(t, reports.WriteDir(t.Context(), dir, writerReport("writer-00 ")))
		for name, data := range others {
			require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644))
		}
		before := kittest.ReadFiles(t, dir)

		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		err := reports.WriteDir(ctx, dir, writerReport("writer-01 "))
		assert.ErrorIs(t, err, context.Canceled)
		assert.Equal(t, "write "+dir+": context canceled", err.Error())
		assert.Equal(t, before, kittest.ReadFiles(t, dir))
	}
}

// TestWriteDirTargetNotReport puts in the place of report.html what WriteDir
// did not write: it names it, writes nothing, and leaves the previous set
// and the thing in its place as they were.
func TestWriteDirTargetNotReport(t *testing.T) {
	tests := []struct {
		name  string
		place func(t *testing.T, path string)
		what  string
	}{
		{"a non-empty directory", func(t *testing.T, path string) {
			require.NoError(t, os.Mkdir(path, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(path, "index.html"), []byte("mine"), 0o644))
		}, "a directory"},
		{"the user's own file", func(t *testing.T, path string) {
			require.NoError(t, os.WriteFile(path, []byte("<!DOCTYPE html>\n<title>my page</title>\n"), 0o644))
		}, "a file that is not a jitterkit report"},
		{"an empty file", func(t *testing.T, path string) {
			require.NoError(t, os.WriteFile(path, nil, 0o644))
		}, "a file that is not a jitterkit report"},
		{"a link to a report", func(t *testing.T, path string) {
			other := filepath.Join(t.TempDir(), "report.html")
			var b strings.Builder
			require.NoError(t, reports.WriteHTML(&b, writerReport("elsewhere")))
			require.NoError(t, os.WriteFile(other, []byte(b.String()), 0o644))
			require.NoError(t, os.Symlink(other, path))
		}, "a symbolic link"},
		{"a named pipe", func(t *testing.T, path string) {
			require.NoError(t, syscall.Mkfifo(path, 0o600))
		}, "a named pipe"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, reports.WriteDir(t.Context(), dir, writerReport("writer-00 "), reports.JSON, reports.Markdown, reports.JUnit))
			target := filepath.Join(dir, string(reports.HTML))
			tt.place(t, target)
			before := snapshot(t, dir)

			err := reports.WriteDir(t.Context(), dir, writerReport("writer-01 "))
			require.Error(t, err)
			assert.Equal(t, "replace "+target+": not a report file: it is "+tt.what+", which a report never replaces; nothing was written", err.Error())
			assert.Equal(t, before, snapshot(t, dir), "the directory after a refused write")
		})
	}
}

// TestWriteDirLeavesOtherFiles writes reports twice into a directory that
// holds other files, and into the current directory: the other files stay
// as they were, and so does a stale format's file that is not a report.
func TestWriteDirLeavesOtherFiles(t *testing.T) {
	for _, cwd := range []bool{false, true} {
		t.Run(fmt.Sprintf("current directory %v", cwd), func(t *testing.T) {
			dir := t.TempDir()
			others := map[string]string{
				"notes.txt":       "mine",
				".hidden":         "mine too",
				"report.md.bak":   "# jitterkit: an old copy",
				"sub/report.json": "{}",
				"junit.xml":       "<testsuites name=\"other tool\"/>",
			}
			for name, data := range others {
				require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755))
				require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(data), 0o600))
			}
			before := snapshot(t, dir)
			target := dir
			if cwd {
				t.Chdir(dir)
				target = "."
			}
			formats := []reports.Format{reports.JSON, reports.Markdown, reports.HTML}
			require.NoError(t, reports.WriteDir(t.Context(), target, writerReport("writer-00 "), formats...))
			require.NoError(t, reports.WriteDir(t.Context(), target, writerReport("writer-01 "), formats...))
			after := snapshot(t, dir)
			for name := range before {
				assert.Equal(t, before[name], after[name], "%s changed", name)
			}
			for _, f := range formats {
				assert.Contains(t, after[string(f)].data, "writer-01 ")
			}
			assert.Len(t, after, len(before)+len(formats))
		})
	}
}

// A file as snapshot keeps it: its content, mode and inode, and for a
// directory, its entries.
type file struct {
	data  string
	mode  os.FileMode
	inode uint64
}

// snapshot returns every file under dir, by its path from dir.
func snapshot(t *testing.T, dir string) map[string]file {
	t.Helper()
	files := map[string]file{}
	require.NoError(t, filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		require.NoError(t, err)
		if path == dir {
			return nil
		}
		fi, err := os.Lstat(path)
		require.NoError(t, err)
		f := file{mode: fi.Mode(), inode: fi.Sys().(*syscall.Stat_t).Ino}
		if fi.Mode().IsRegular() {
			b, err := os.ReadFile(path)
			require.NoError(t, err)
			f.data = string(b)
		}
		rel, _ := filepath.Rel(dir, path)
		files[rel] = f
		return nil
	}))
	return files
}
