//go:build !unix

package reports

import (
	"context"
	"io/fs"
	"os"
)

// headFlags open a file that Lstat found regular, to read its first bytes.
const headFlags = os.O_RDONLY

// openInPlace opens the device at path for writing, as it is. Without
// non-blocking opens, ctx is only checked first.
func openInPlace(ctx context.Context, path string, mode fs.FileMode) (*os.File, error) {
	if err := ctx.Err(); err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return os.OpenFile(path, os.O_WRONLY, 0)
}

// canCreateIn reports why no file can be created in the directory dir.
// Without access(2) it cannot tell, and says nothing: a write that fails
// shows it.
func canCreateIn(dir string) error { return nil }

// descriptor reports no path as naming an open file descriptor: without
// dup(2), such a path is written as any other.
func descriptor(path string) (int, bool) { return 0, false }

// writeDescriptor is never called without descriptor.
func writeDescriptor(ctx context.Context, path string, fd int, data []byte) error {
	panic("reports: no file descriptors to write")
}

// canReplace reports why the file at path cannot be replaced. Without the
// owners of files it cannot tell, and says nothing: a write that fails
// shows it.
func canReplace(dir, path string) error { return nil }
