package properties

import (
	"strings"
	"testing"
)

func TestPopulationDistinctAtAnySize(t *testing.T) {
	for _, n := range []int{1, 5, 1000, 20000} {
		ids := population(7, n)
		if len(ids) != n {
			t.Fatalf("population(7, %d) has %d ids", n, len(ids))
		}
		seen := map[string]bool{}
		for _, id := range ids {
			if seen[id] {
				t.Fatalf("population(7, %d): %q twice", n, id)
			}
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
		if got := shapeIDs(tt.shape, 3, 17, 1)[0]; got != tt.first {
			t.Errorf("%s: first id %q; want %q", tt.shape, got, tt.first)
		}
	}
	uuid := shapeIDs(shapeUUID, 1, 0, 1)[0]
	if len(uuid) != 36 || uuid[14] != '4' || !strings.ContainsRune("89ab", rune(uuid[19])) {
		t.Errorf("UUID %q is not a version-4 RFC 4122 UUID", uuid)
	}
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
		if !found {
			t.Fatalf("%q is not one character from any earlier id", id)
		}
	}
	short := shapeIDs(shapeShort, maxShort, 0, 0)
	if short[61] != "Z" || short[62] != "00" || len(short[maxShort-1]) != 3 {
		t.Errorf("short ids run %q, %q ... %q; want 1, then 2, then 3 characters", short[61], short[62], short[maxShort-1])
	}
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
