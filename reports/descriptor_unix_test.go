//go:build unix

package reports_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/reports"
)

// TestWriteFileToADescriptor writes through /dev/fd/N, as --json
// /dev/stdout does: to a pipe, and to a file, after what the process wrote
// there, which is kept rather than replaced.
func TestWriteFileToADescriptor(t *testing.T) {
	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer r.Close()
	require.NoError(t, reports.WriteFile(context.Background(), "/dev/fd/"+strconv.Itoa(int(w.Fd())), []byte("through the pipe\n")))
	w.Close()
	got, err := io.ReadAll(r)
	require.NoError(t, err)
	assert.Equal(t, "through the pipe\n", string(got), "the pipe's reader")

	path := filepath.Join(t.TempDir(), "stdout.txt")
	f, err := os.Create(path)
	require.NoError(t, err)
	defer f.Close()
	_, err = f.WriteString("the summary\n")
	require.NoError(t, err)
	require.NoError(t, reports.WriteFile(context.Background(), "/proc/self/fd/"+strconv.Itoa(int(f.Fd())), []byte("the JSON\n")))
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "the summary\nthe JSON\n", string(b), "the redirected file")
}
