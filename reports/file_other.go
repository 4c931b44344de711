//go:build !unix

package reports

import (
	"context"
	"io/fs"
	"os"
)

// openInPlace opens the device at path for writing, as it is. Without
// flock(2) and non-blocking opens, ctx is only checked first.
func openInPlace(ctx context.Context, path string, mode fs.FileMode) (*os.File, error) {
	if err := ctx.Err(); err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return os.OpenFile(path, os.O_WRONLY, 0)
}
