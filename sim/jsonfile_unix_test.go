//go:build unix

package sim_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/sim"
)

// TestRemoveJSON removes only a replay's JSON, at the end of the path's
// links, and leaves every other file as it is.
func TestRemoveJSON(t *testing.T) {
	const replayJSON = "{\n  \"schema\": \"jitterkit.replay/v1\",\n  \"status\": \"pass\"\n}\n"
	tests := []struct {
		name    string
		make    func(t *testing.T, dir string) // makes dir/r.json
		removed bool
		left    map[string]string // what dir holds afterwards (see filesIn)
	}{
		{"nothing", func(t *testing.T, dir string) {}, false, map[string]string{}},
		{"a replay's JSON", func(t *testing.T, dir string) { write(t, dir, "r.json", replayJSON) }, true, map[string]string{}},
		{"a user's file", func(t *testing.T, dir string) { write(t, dir, "r.json", "notes\n") }, false, map[string]string{"r.json": "notes\n"}},
		{"an empty file", func(t *testing.T, dir string) { write(t, dir, "r.json", "") }, false, map[string]string{"r.json": ""}},
		{"a link to a replay's JSON", func(t *testing.T, dir string) {
			write(t, dir, "target.json", replayJSON)
			require.NoError(t, os.Symlink("target.json", filepath.Join(dir, "r.json")))
		}, true, map[string]string{"r.json": "-> target.json"}},
		{"a link to a user's file", func(t *testing.T, dir string) {
			write(t, dir, "target.json", "notes\n")
			require.NoError(t, os.Symlink("target.json", filepath.Join(dir, "r.json")))
		}, false, map[string]string{"r.json": "-> target.json", "target.json": "notes\n"}},
		{"a link that dangles", func(t *testing.T, dir string) {
			require.NoError(t, os.Symlink("missing.json", filepath.Join(dir, "r.json")))
		}, false, map[string]string{"r.json": "-> missing.json"}},
		{"a FIFO", func(t *testing.T, dir string) {
			if err := syscall.Mkfifo(filepath.Join(dir, "r.json"), 0o600); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
		}, false, map[string]string{"r.json": "a named pipe"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			tt.make(t, dir)
			removed, err := sim.RemoveJSON(filepath.Join(dir, "r.json"))
			require.NoError(t, err)
			assert.Equal(t, tt.removed, removed, "removed")
			assert.Equal(t, tt.left, filesIn(t, dir), "the files left")
		})
	}
}

// filesIn returns what dir holds, by name: a regular file's contents, a
// symbolic link's "-> target", "a named pipe" for a FIFO.
func filesIn(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	files := map[string]string{}
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		switch e.Type() {
		case 0:
			b, err := os.ReadFile(path)
			require.NoError(t, err)
			files[e.Name()] = string(b)
		case os.ModeSymlink:
			target, err := os.Readlink(path)
			require.NoError(t, err)
			files[e.Name()] = "-> " + target
		case os.ModeNamedPipe:
			files[e.Name()] = "a named pipe"
		default:
			files[e.Name()] = e.Type().String()
		}
	}
	return files
}

// write writes data to the file name in dir.
func write(t *testing.T, dir, name, data string) {
	t.Helper()
	require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644))
}
