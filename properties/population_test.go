package properties

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPopulationDistinctAtAnySize(t *testing.T) {
	for _, n := range []int{1, 5, 1000, 20000} {
		ids := population(7, n)
		require.Len(t, ids, n, "population(7, %d)", n)
		seen := map[string]bool{}
		for _, id := range ids {
			require.False(t, seen[id], "population(7, %d): %q twice", n, id)
			seen[id] = true
		}
	}
}

func TestShapes(t *testing.T) {
	tests := []struct {
		shape idShape
		first string
	}{
		{shapeSerial, "dev-000017"},
		{shapeMAC, "02:1a:7f:00:00:11"},
		{shapeLongPrefix, "eu-west-1/site-0017/rack-17/gateway-0000"},
		{shapeShort, "h"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.first, shapeIDs(tt.shape, 3, 17, 1)[0], "%s: first id", tt.shape)
	}
	uuid := shapeIDs(shapeUUID, 1, 0, 1)[0]
	assert.True(t, len(uuid) == 36 && uuid[14] == '4' && strings.ContainsRune("89ab", rune(uuid[19])), "UUID %q is not a version-4 RFC 4122 UUID", uuid)
	// Ids one apart: every id after the first differs from an earlier one
	// in exactly one character, far beyond the 12·61 single changes of one
	// base.
	ids := shapeIDs(shapeOneApart, 3000, 0, 1)
	for i, id := range ids[1:] {
		found := false
		for _, prev := range ids[:i+1] {
			if oneApart(id, prev) {
				found = true
				break
			}
		}
		require.True(t, found, "%q is not one character from any earlier id", id)
	}
	short := shapeIDs(shapeShort, maxShort, 0, 0)
	assert.Equal(t, "Z", short[61], "the last short id of 1 character")
	assert.Equal(t, "00", short[62], "the first short id of 2 characters")
	assert.Len(t, short[maxShort-1], 3, "the last short id")
}

func oneApart(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	diff := 0
	for i := range a {
		if a[i] != b[i] {
			diff++
		}
	}
	return diff == 1
}
