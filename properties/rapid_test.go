package properties

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/testdata/kittest"
)

// TestShortModeIsAMode runs id-populations in a child process under the
// flags a user may give go test, -short among them, under which rapid
// draws a fifth of the cases it is asked for: the check draws the count
// -rapid.checks asks (100 unless set) in every mode, and judges on it.
func TestShortModeIsAMode(t *testing.T) {
	if kittest.InChild(t) {
		out := mustRun(t, context.Background(), spec(t, "full:base=100ms,cap=10s"), Config{})
		r := resultNamed(t, out, NameIDPopulations)
		require.Equal(t, NameIDPopulations, r.Name)
		t.Logf("short %v: id-populations %s: %s", testing.Short(), r.Status, r.Detail)
		return
	}
	tests := []struct {
		flags  []string
		status verdict.Status
		detail string
	}{
		{nil, verdict.Pass, "short false: id-populations pass: 100 populations of up to 64 ids"},
		{[]string{"-test.short"}, verdict.Pass, "short true: id-populations pass: 100 populations of up to 64 ids"},
		{[]string{"-test.short", "-rapid.checks=7"}, verdict.Pass, "short true: id-populations pass: 7 populations of up to 64 ids"},
		{[]string{"-rapid.checks=0"}, verdict.Inconclusive, "short false: id-populations inconclusive: not run: -rapid.checks=0 asks rapid for no population; want at least 1 (the default is 100)"},
	}
	for _, tt := range tests {
		out, failed := kittest.RunChild(t, tt.flags...)
		require.False(t, failed, "%v:\n%s", tt.flags, out)
		assert.Contains(t, out, tt.detail, "%v", tt.flags)
	}
}

// TestCheckUnderShortPasses runs Check on policies that must pass, in a
// child process under -test.short, as a CI pipeline that runs go test
// -short does: every check passes, id-populations with it.
func TestCheckUnderShortPasses(t *testing.T) {
	if kittest.InChild(t) {
		require.True(t, testing.Short(), "the child runs under -test.short")
		switch os.Getenv("CHECK_CASE") {
		case "full":
			s, _ := kit.ParseSpec("full:base=100ms,cap=10s")
			Check(t, s.Factory(), Config{Claim: &s, Cap: s.Cap})
		case "decorrelated":
			s, _ := kit.ParseSpec("decorrelated:base=1s,cap=300s")
			Check(t, s.Factory(), Config{Claim: &s, Cap: s.Cap})
		}
		return
	}
	for _, c := range []string{"full", "decorrelated"} {
		t.Setenv("CHECK_CASE", c)
		out, failed := kittest.RunChild(t, "-test.short")
		require.False(t, failed, "%s under -short:\n%s", c, out)
		assert.Contains(t, out, "--- PASS: TestCheckUnderShortPasses/id-populations", c)
		assert.NotContains(t, out, "(inconclusive)", c)
		assert.Equal(t, 0, strings.Count(out, "--- FAIL"), c)
	}
}
