package properties

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOutsideGoTest builds a program that calls Run the way the CLI does,
// with its own flag set, and runs it outside go test: rapid must run with
// the program's seed, and must not write fail files into the working
// directory.
func TestOutsideGoTest(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program: skipped under -short")
	}
	bin := filepath.Join(t.TempDir(), "outside")
	build := exec.Command("go", "build", "-o", bin, "./testdata/outside")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "go build:\n%s", out)
	dir := t.TempDir()
	cmd := exec.Command(bin, "-seed", "42")
	cmd.Dir = dir
	out, err = cmd.CombinedOutput()
	require.NoError(t, err, "outside:\n%s", out)
	got := string(out)
	for _, want := range []string{"clusters fail\n", "id-populations fail\n", "replay: Config.Seed = 42, or -rapid.seed=42\n", "reproducibility pass\n"} {
		assert.Contains(t, got, want, "the output of outside")
	}
	_, err = os.Stat(filepath.Join(dir, "testdata"))
	assert.ErrorIs(t, err, fs.ErrNotExist, "rapid wrote under %s/testdata; want no fail files", dir)
}
