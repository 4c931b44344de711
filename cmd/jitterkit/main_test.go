package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// result is what one run of the command wrote and its exit code.
type result struct {
	stdout, stderr string
	code           int
}

// jitterkit runs the command with args in dir, as main would, and returns
// its output and exit code.
func jitterkit(t *testing.T, ctx context.Context, args ...string) result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	err := run(ctx, args, strings.NewReader(""), &stdout, &stderr)
	code := exitCode(err, &stderr)
	return result{stdout.String(), stderr.String(), code}
}

// golden compares got with the file testdata/name, or rewrites the file
// under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs (-want +got):\n%s", path, diff(string(want), got))
	}
}

// diff returns a line diff of want and got: unchanged lines indented by
// two spaces, removed ones marked -, added ones +.
func diff(want, got string) string {
	a, b := strings.Split(want, "\n"), strings.Split(got, "\n")
	// lcs[i][j] is the length of the longest common subsequence of a[i:]
	// and b[j:].
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out strings.Builder
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			fmt.Fprintf(&out, "  %s\n", a[i])
			i, j = i+1, j+1
		case j < len(b) && (i == len(a) || lcs[i][j+1] >= lcs[i+1][j]):
			fmt.Fprintf(&out, "+ %s\n", b[j])
			j++
		default:
			fmt.Fprintf(&out, "- %s\n", a[i])
			i++
		}
	}
	return out.String()
}

func TestDiff(t *testing.T) {
	got := diff("a\nb\nc", "a\nx\nc")
	want := "  a\n+ x\n- b\n  c\n"
	if got != want {
		t.Errorf("diff = %q; want %q", got, want)
	}
}
