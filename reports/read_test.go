package reports_test

import (
	"context"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/reports"
)

// TestReadFile reads a file within its limit, refuses one past it, and
// says which wait a done context ended.
func TestReadFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	require.NoError(t, os.WriteFile(path, []byte("12345"), 0o644))
	readAll := func(got *string) func(io.Reader) error {
		return func(r io.Reader) error {
			b, err := io.ReadAll(r)
			*got = string(b)
			return err
		}
	}
	var got string
	require.NoError(t, reports.ReadFile(context.Background(), path, 5, readAll(&got)))
	assert.Equal(t, "12345", got)

	err := reports.ReadFile(context.Background(), path, 4, readAll(&got))
	assert.EqualError(t, err, "larger than 4 B")
	assert.ErrorAs(t, err, new(*reports.TooLargeError))

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err = reports.ReadFile(ctx, path, 5, readAll(&got))
	var pe *fs.PathError
	require.ErrorAs(t, err, &pe)
	assert.ErrorIs(t, err, context.Canceled)
}

// TestPaths names WriteDir's files in dir, in its order.
func TestPaths(t *testing.T) {
	var want []string
	for _, f := range reports.Formats() {
		want = append(want, filepath.Join("out", string(f)))
	}
	assert.Equal(t, want, reports.Paths("out"))
}
