package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

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
