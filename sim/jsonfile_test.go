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

// TestJSONPath accepts for a replay's JSON only a path that holds nothing
// of someone else's, and removes only a replay's JSON.
func TestJSONPath(t *testing.T) {
	dir := t.TempDir()
	var replay bytes.Buffer
	require.NoError(t, sim.Result{Scenario: sim.Scenario{}.WithDefaults(), Config: sim.Config{}.WithDefaults()}.WriteJSON(&replay, "full"))
	files := map[string]string{"replay.json": replay.String(), "script.sh": "while read -r line; do echo '[1]'; done\n", "empty.json": ""}
	for name, body := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644))
	}
	require.NoError(t, os.Symlink("replay.json", filepath.Join(dir, "link.json")))
	tests := []struct {
		name    string
		err     string
		removed bool
	}{
		{"absent.json", "", false},
		{"empty.json", "", false},
		{"replay.json", "", true},
		{"link.json", "", true},
		{"script.sh", filepath.Join(dir, "script.sh") + " holds a file that is not a replay's JSON, which is never replaced; write it elsewhere", false},
		{".", dir + "/. is a directory; name a file", false},
	}
	for _, tt := range tests {
		path := filepath.Join(dir, tt.name)
		if tt.name == "." {
			path = dir + "/."
		}
		err := sim.CheckJSONPath(path)
		if tt.err != "" {
			assert.EqualError(t, err, tt.err, tt.name)
		} else {
			assert.NoError(t, err, tt.name)
		}
		if tt.name == "." {
			continue
		}
		// The link is checked before the file it names is removed.
		if tt.name == "replay.json" {
			continue
		}
		removed, err := sim.RemoveJSON(path)
		require.NoError(t, err, tt.name)
		assert.Equal(t, tt.removed, removed, "RemoveJSON(%s)", tt.name)
	}
	assert.NoFileExists(t, filepath.Join(dir, "replay.json"), "the replay's JSON the link named")
	assert.FileExists(t, filepath.Join(dir, "script.sh"))
	assert.FileExists(t, filepath.Join(dir, "empty.json"))
}
