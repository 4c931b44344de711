package properties

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestSuiteInPositionOrder checks that the suite, and Checks, list every
// registered check once, by position.
func TestSuiteInPositionOrder(t *testing.T) {
	assert.Len(t, suite, len(registered), "checks in the suite")
	assert.True(t, slices.IsSortedFunc(suite, func(a, b check) int { return a.position - b.position }), "suite sorted by position")
	infos := Checks()
	for i, c := range suite {
		assert.Equal(t, Info{Name: c.name, Why: c.why}, infos[i], "Checks()[%d]", i)
	}
}

// TestOrderedRefusesBadRows feeds ordered the rows a check's file could
// get wrong: each must panic with a message naming the check.
func TestOrderedRefusesBadRows(t *testing.T) {
	row := func(name string, position int, after ...string) check {
		return check{name: name, position: position, after: after,
			run:   func(*runner) Result { return Result{} },
			cause: func(*runner, *Result) Cause { return SmallJitter }}
	}
	tests := []struct {
		name string
		rows []check
		want string
	}{
		{"a name twice", []check{row("a", 10), row("a", 20)}, `properties: check "a" is registered twice`},
		{"a shared position", []check{row("a", 10), row("b", 10)}, `properties: checks "a" and "b" share position 10`},
		{"no name", []check{row("", 10)}, "properties: a check at position 10 has no name"},
		{"no run", []check{{name: "a", position: 10, cause: row("", 0).cause}}, `properties: check "a" has no run or no cause`},
		{"an unknown after", []check{row("a", 10), row("b", 20, "c")}, `properties: check "b" runs after "c", which is no check`},
		{"after itself", []check{row("a", 10, "a")}, `properties: check "a" runs after itself`},
		{"after itself through another", []check{row("a", 10, "b"), row("b", 20, "a")}, `properties: check "a" runs after itself`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.PanicsWithValue(t, tt.want, func() { ordered(tt.rows) })
		})
	}
	got := ordered([]check{row("b", 20, "a"), row("a", 10)})
	assert.Equal(t, []string{"a", "b"}, []string{got[0].name, got[1].name}, "rows by position, whatever order they were registered in")
}
