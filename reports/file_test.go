//go:build unix

package reports_test

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/reports"
)

// TestWriteFileReplaces replaces a regular file, or a missing one, through
// a temporary file, and the file at the end of symbolic links, which stay
// links.
func TestWriteFileReplaces(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string) (path, file string) // the path given, the file written
		perm  fs.FileMode
	}{
		{"a new file", func(t *testing.T, dir string) (string, string) {
			p := filepath.Join(dir, "replay.json")
			return p, p
		}, 0o644},
		{"a regular file keeps its mode", func(t *testing.T, dir string) (string, string) {
			p := filepath.Join(dir, "replay.json")
			require.NoError(t, os.WriteFile(p, []byte("old\n"), 0o600))
			require.NoError(t, os.Chmod(p, 0o600))
			return p, p
		}, 0o600},
		{"a link to a file", func(t *testing.T, dir string) (string, string) {
			file := filepath.Join(dir, "real.json")
			require.NoError(t, os.WriteFile(file, []byte("old\n"), 0o644))
			link := filepath.Join(dir, "link.json")
			require.NoError(t, os.Symlink("real.json", link))
			return link, file
		}, 0o644},
		{"a chain of links, relative, into another directory", func(t *testing.T, dir string) (string, string) {
			require.NoError(t, os.Mkdir(filepath.Join(dir, "a"), 0o755))
			require.NoError(t, os.Mkdir(filepath.Join(dir, "b"), 0o755))
			file := filepath.Join(dir, "b", "real.json")
			require.NoError(t, os.WriteFile(file, []byte("old\n"), 0o640))
			require.NoError(t, os.Chmod(file, 0o640))
			require.NoError(t, os.Symlink("../b/real.json", filepath.Join(dir, "a", "second")))
			require.NoError(t, os.Symlink("a/second", filepath.Join(dir, "first")))
			return filepath.Join(dir, "first"), file
		}, 0o640},
		{"a dangling link", func(t *testing.T, dir string) (string, string) {
			link := filepath.Join(dir, "link.json")
			require.NoError(t, os.Symlink(filepath.Join(dir, "new.json"), link))
			return link, filepath.Join(dir, "new.json")
		}, 0o644},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path, file := tt.setup(t, dir)
			var links []string
			for p := path; p != file; {
				links = append(links, p)
				target, err := os.Readlink(p)
				require.NoError(t, err)
				if !filepath.IsAbs(target) {
					target = filepath.Join(filepath.Dir(p), target)
				}
				p = target
			}
			require.NoError(t, reports.WriteFile(t.Context(), path, []byte("new\n")))

			got, err := os.ReadFile(file)
			require.NoError(t, err)
			assert.Equal(t, "new\n", string(got))
			fi, err := os.Lstat(file)
			require.NoError(t, err)
			assert.True(t, fi.Mode().IsRegular(), "%s is %v; want a regular file", file, fi.Mode())
			assert.Equal(t, tt.perm, fi.Mode().Perm())
			for _, l := range links {
				fi, err := os.Lstat(l)
				require.NoError(t, err)
				assert.NotZero(t, fi.Mode()&fs.ModeSymlink, "%s is no longer a link", l)
			}
			assertNoTemp(t, dir)
		})
	}
}

// TestWriteFileInPlace writes through devices and pipes where they are:
// they stay what they were, and a write error names the path.
func TestWriteFileInPlace(t *testing.T) {
	dir := t.TempDir()
	null := charDevice(t, dir, "null", 1, 3)
	full := charDevice(t, dir, "full", 1, 7)

	require.NoError(t, reports.WriteFile(t.Context(), null, []byte("discarded\n")))
	assertMode(t, null, fs.ModeDevice|fs.ModeCharDevice)

	err := reports.WriteFile(t.Context(), full, []byte("{}\n"))
	require.Error(t, err)
	assert.ErrorIs(t, err, syscall.ENOSPC)
	assert.Equal(t, "write "+full+": no space left on device", err.Error())
	assertMode(t, full, fs.ModeDevice|fs.ModeCharDevice)

	// A link to a device writes through both.
	link := filepath.Join(dir, "null-link")
	require.NoError(t, os.Symlink(null, link))
	require.NoError(t, reports.WriteFile(t.Context(), link, []byte("discarded\n")))
	assertMode(t, link, fs.ModeSymlink)
	assertMode(t, null, fs.ModeDevice|fs.ModeCharDevice)

	// A pipe with a reader: the reader gets the data, the pipe stays.
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	read := make(chan string)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			read <- err.Error()
			return
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		read <- string(b)
	}()
	data := strings.Repeat("0123456789abcdef", 1<<14) // 256 kB, more than a pipe holds
	require.NoError(t, reports.WriteFile(t.Context(), fifo, []byte(data)))
	assert.Equal(t, data, <-read)
	assertMode(t, fifo, fs.ModeNamedPipe)
	assertNoTemp(t, dir)
}

// TestWriteFileWaits stops waiting for a pipe's reader, or for a reader
// that does not read, when the context is done.
func TestWriteFileWaits(t *testing.T) {
	tests := []struct {
		name   string
		reader bool // a reader opens the pipe, and never reads
		op     string
	}{
		{"no reader", false, "open"},
		{"a reader that does not read", true, "write"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fifo := filepath.Join(t.TempDir(), "fifo")
			require.NoError(t, syscall.Mkfifo(fifo, 0o600))
			if tt.reader {
				r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
				require.NoError(t, err)
				defer r.Close()
			}
			ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
			defer cancel()
			start := time.Now()
			err := reports.WriteFile(ctx, fifo, bytes.Repeat([]byte("x"), 1<<20))
			assert.ErrorIs(t, err, context.DeadlineExceeded)
			assert.True(t, strings.HasPrefix(err.Error(), tt.op+" "+fifo+": "), "error %q; want it to name the pipe", err)
			assert.Less(t, time.Since(start), 10*time.Second)
			assertMode(t, fifo, fs.ModeNamedPipe)
		})
	}
}

// TestWriteFileRefuses names the path of what cannot be written, and
// changes nothing.
func TestWriteFileRefuses(t *testing.T) {
	dir := t.TempDir()
	sock := filepath.Join(dir, "sock")
	l, err := net.Listen("unix", sock)
	require.NoError(t, err)
	defer l.Close()
	loop := filepath.Join(dir, "loop")
	require.NoError(t, os.Symlink("loop", loop))
	sub := filepath.Join(dir, "sub")
	require.NoError(t, os.Mkdir(sub, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(sub, "keep"), []byte("keep"), 0o644))

	tests := []struct {
		name, path, want string
	}{
		{"a directory", sub, "write " + sub + ": is a directory; name a file"},
		{"a missing directory", filepath.Join(dir, "missing", "r.json"), "create " + filepath.Join(dir, "missing", "r.json") + ": no such file or directory"},
		{"a socket", sock, "open " + sock + ": no such device or address"},
		{"a loop of links", loop, "open " + loop + ": too many levels of symbolic links"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := reports.WriteFile(t.Context(), tt.path, []byte("x"))
			require.Error(t, err)
			assert.Equal(t, tt.want, err.Error())
			assert.ErrorAs(t, err, new(*fs.PathError))
		})
	}
	assertMode(t, sock, fs.ModeSocket)
	assertMode(t, sub, fs.ModeDir)
	assertNoTemp(t, dir)
	assertNoTemp(t, sub)
}

// charDevice makes a character device like /dev/null (1, 3) or /dev/full
// (1, 7) in dir, so that a mistake in the test cannot replace the
// machine's own; without the right to, it returns the machine's, which a
// user who is not root cannot replace either.
func charDevice(t *testing.T, dir, name string, major, minor uint32) string {
	t.Helper()
	path := filepath.Join(dir, name)
	err := mknod(path, major, minor)
	if err == nil {
		if f, err := os.OpenFile(path, os.O_WRONLY, 0); err == nil {
			f.Close()
			return path
		}
		os.Remove(path) // a file system mounted nodev
	}
	if os.Geteuid() == 0 {
		t.Skipf("cannot make or open a device in %s: %v", dir, err)
	}
	dev := "/dev/" + name
	if _, err := os.Stat(dev); err != nil {
		t.Skip(err)
	}
	return dev
}

// assertMode fails unless path is of the type of mode.
func assertMode(t *testing.T, path string, mode fs.FileMode) {
	t.Helper()
	fi, err := os.Lstat(path)
	require.NoError(t, err)
	assert.Equal(t, mode, fi.Mode().Type(), "%s is %v", path, fi.Mode())
}

// assertNoTemp fails if dir holds a temporary or backup file of this
// package.
func assertNoTemp(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		assert.False(t, strings.HasSuffix(e.Name(), ".tmp") || strings.HasSuffix(e.Name(), ".old"), "%s holds %s", dir, e.Name())
	}
}
