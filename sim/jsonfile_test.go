package sim_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/sim"
)

// TestCheckJSONPath accepts for a replay's JSON only a path that holds
// nothing of someone else's: a replay's JSON as WriteJSON writes it, an
// empty file, or nothing.
func TestCheckJSONPath(t *testing.T) {
	dir := t.TempDir()
	var replay bytes.Buffer
	require.NoError(t, sim.Result{Scenario: sim.Scenario{}.WithDefaults(), Config: sim.Config{}.WithDefaults()}.WriteJSON(&replay, "full"))
	files := map[string]string{"replay.json": replay.String(), "script.sh": "while read -r line; do echo '[1]'; done\n", "empty.json": ""}
	for name, body := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644))
	}
	tests := []struct{ path, err string }{
		{filepath.Join(dir, "absent.json"), ""},
		{filepath.Join(dir, "empty.json"), ""},
		{filepath.Join(dir, "replay.json"), ""},
		{filepath.Join(dir, "script.sh"), filepath.Join(dir, "script.sh") + " holds a file that is not a replay's JSON, which is never replaced; write it elsewhere"},
		{dir, dir + " is a directory; name a file"},
	}
	for _, tt := range tests {
		err := sim.CheckJSONPath(tt.path)
		if tt.err == "" {
			assert.NoError(t, err, tt.path)
			continue
		}
		assert.EqualError(t, err, tt.err, tt.path)
	}
}
