package libs

import (
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/properties"
	"github.com/jitterkit/jitterkit/reports/gate"
	"github.com/jitterkit/jitterkit/sim"
)

// The README's quick start, as a user pastes it: the code between the
// markers is the README's Go block without its imports, which
// TestReadmeIsThisCode holds to.

// readme:begin

// The policy under test: one instance per device. Its delays reach
// MaxInterval·(1+RandomizationFactor) = 90s, the cap to declare.
func factory(d kit.Device) kit.Policy {
	return kit.FromNextBackOff(backoff.NewExponentialBackOff())
}

// The whole gate, as jitterkit gate runs it: the property checks, a fleet of
// 1,000 devices against a server that accepts 2,500 requests a second and is
// down for 30s, the built-in strategies beside it, one verdict and what to
// change. With JITTERKIT_REPORT_DIR set, it writes report.json, report.md,
// report.html and junit.xml there for a design review.
func TestRetryPolicyGate(t *testing.T) {
	gate.Check(t, gate.GoPolicy("backoff v4 defaults", factory), gate.Config{
		Checks:    properties.Config{Cap: 90 * time.Second},
		Scenario:  sim.Scenario{Clients: 1000, AcceptRate: 2500, Down: 30 * time.Second},
		ReportDir: os.Getenv("JITTERKIT_REPORT_DIR"),
	})
}

// Or one step on its own: the property checks, each a subtest.
func TestRetryPolicySpreads(t *testing.T) {
	properties.Check(t, factory, properties.Config{Cap: 90 * time.Second})
}

// readme:end

// TestReadmeIsThisCode fails when the README's quick start and the code
// above part: what the README shows is what this package runs.
func TestReadmeIsThisCode(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	block := regexp.MustCompile("(?s)```go\n(.*?)```").FindSubmatch(readme)
	require.NotNil(t, block, "README.md has no Go block")
	code := string(block[1])
	_, body, ok := strings.Cut(code, "\n)\n")
	require.True(t, ok, "the README's Go block starts with its imports")

	self, err := os.ReadFile("readme_test.go")
	require.NoError(t, err)
	_, rest, _ := strings.Cut(string(self), "// readme:begin\n")
	mine, _, _ := strings.Cut(rest, "// readme:end\n")
	assert.Equal(t, strings.TrimSpace(body), strings.TrimSpace(mine))
}
