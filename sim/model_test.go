package sim

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// fleetKinds are the kinds the fleet's engine replays.
var fleetKinds = func() []Kind {
	var kinds []Kind
	for _, k := range Kinds() {
		if !k.ServerModel() {
			kinds = append(kinds, k)
		}
	}
	return kinds
}()

// Every kind has one model, which names it, and the zero Kind is an
// Outage; a kind that is none of them has none and is refused.
func TestModels(t *testing.T) {
	seen := map[Kind]bool{}
	for _, k := range Kinds() {
		m, ok := k.registered()
		if assert.True(t, ok, k) {
			assert.Equal(t, k, m.kind())
		}
		assert.False(t, seen[k], "%s is listed twice", k)
		seen[k] = true
	}
	assert.Equal(t, Outage, Kind("").model().kind())
	_, ok := Kind("bogus").registered()
	assert.False(t, ok)
	assert.Equal(t, []Kind{Outage, LongOutage, Storm, Periodic, PeriodicAligned}, fleetKinds)
	err := Scenario{Kind: "bogus"}.validateFields()
	assert.ErrorContains(t, err, `unknown scenario "bogus"`)
}
