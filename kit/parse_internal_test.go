package kit

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSplitSpecsIsLinear splits a list of 200,000 key=value pairs, which a
// split that grows one string by concatenation takes quadratic time over.
func TestSplitSpecsIsLinear(t *testing.T) {
	v := "full:" + strings.Repeat("base=1s,", 200_000) + "cap=2s"
	allocs := testing.AllocsPerRun(1, func() { splitSpecs(v) })
	// Lengths, not the values: a failure would print 1.6 MB.
	got := splitSpecs(v)
	require.Equal(t, 1, len(got), "specs splitSpecs gave")
	require.Equal(t, len(v), len(got[0]), "the length of the one spec")
	// Linear: a few allocations per part at most, not one string per part
	// grown to the whole length.
	assert.LessOrEqual(t, allocs, 100.0, "allocations of splitSpecs for one spec of 200,000 parts; want a few")
}
