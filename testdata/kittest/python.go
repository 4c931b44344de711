package kittest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// RunWithoutShims runs the package's tests m, as a TestMain does, with
// python3 on PATH the interpreter itself rather than a version manager's
// shim, and returns the code for os.Exit. A shim (pyenv's is a shell script
// that runs several more before the interpreter) can take most of a second
// to start on a loaded machine, against some 20ms for the interpreter, and
// the exec policies of the tests start python3 hundreds of times: a fleet's
// devices each in a fresh process, again for every check and every change
// gated again. The interpreter the shim would have run is the one that
// runs, so the programs behave as they would through the shim.
func RunWithoutShims(m *testing.M) int {
	dir, err := pythonWithoutShim()
	if err == nil && dir != "" {
		defer os.RemoveAll(dir)
		os.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	}
	return m.Run()
}

// pythonWithoutShim returns a new directory holding python3, a link to the
// interpreter that python3 on PATH runs, when that python3 is a script; it
// returns "" when python3 is missing or already an executable of its own.
func pythonWithoutShim() (string, error) {
	path, err := exec.LookPath("python3")
	if err != nil {
		return "", nil
	}
	head := make([]byte, 2)
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	_, err = f.Read(head)
	f.Close()
	if err != nil || !bytes.Equal(head, []byte("#!")) {
		return "", err
	}
	out, err := exec.Command(path, "-c", "import sys; print(sys.executable)").Output()
	if err != nil {
		return "", err
	}
	interpreter := strings.TrimSpace(string(out))
	if !filepath.IsAbs(interpreter) {
		return "", nil
	}
	dir, err := os.MkdirTemp("", "kittest-python-")
	if err != nil {
		return "", err
	}
	if err := os.Symlink(interpreter, filepath.Join(dir, "python3")); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	return dir, nil
}
