package kittest

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// childEnv names the test a child process of RunChild runs as the child.
const childEnv = "KITTEST_CHILD"

// InChild reports whether t runs in a child process that RunChild(t)
// started: the test then does what must fail or exit, and returns.
func InChild(t testing.TB) bool { return os.Getenv(childEnv) == t.Name() }

// RunChild runs the test t alone, again, in a process of its own in which
// InChild(t) is true, and returns its verbose output and whether it
// failed: a way to watch a test fail, or a process exit, without failing
// or ending this one. flags are passed on to the child, such as
// "-test.timeout=20s".
func RunChild(t testing.TB, flags ...string) (out string, failed bool) {
	t.Helper()
	parts := strings.Split(t.Name(), "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	cmd := exec.Command(os.Args[0], append([]string{"-test.run=" + strings.Join(parts, "/"), "-test.v"}, flags...)...)
	cmd.Env = append(os.Environ(), childEnv+"="+t.Name())
	b, err := cmd.CombinedOutput()
	return string(b), err != nil
}
