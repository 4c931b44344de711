package properties

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
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
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	dir := t.TempDir()
	cmd := exec.Command(bin, "-seed", "42")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("outside: %v\n%s", err, out)
	}
	got := string(out)
	for _, want := range []string{"clusters fail\n", "id-populations fail\n", "replay: Config.Seed = 42, or -rapid.seed=42\n", "spread pass\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "testdata")); !os.IsNotExist(err) {
		t.Errorf("rapid wrote under %s/testdata (stat: %v); want no fail files", dir, err)
	}
}
