package gate

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/sim"
)

// TestLockstep holds lockstep to what the changed policies draw: a
// family's change is lockstep exactly when the first ten delays of fifty
// devices are all one value, for each family of decorrelated and full
// jitter at factors from 1 to 1,024.
func TestLockstep(t *testing.T) {
	g := &gate{}
	for _, s := range []kit.Spec{
		{Strategy: kit.Decorrelated, Base: time.Second, Cap: 30 * time.Second, Seed: kit.SeedDevice},
		{Strategy: kit.Full, Base: time.Second, Cap: 30 * time.Second, Seed: kit.SeedDevice},
		{Strategy: kit.Decorrelated, Base: 40 * time.Second, Cap: 30 * time.Second, Seed: kit.SeedDevice},
		{Strategy: kit.Decorrelated, Base: time.Second, Cap: 10 * time.Second, Multiplier: 1, Seed: kit.SeedDevice},
		{Strategy: kit.Full, Base: time.Second, Cap: 10 * time.Second, Multiplier: 1, Seed: kit.SeedDevice},
	} {
		for _, f := range g.specFamilies(s) {
			for k := 1.0; k <= 1024; k *= 2 {
				factory := f.spec(k).Factory()
				delays := map[time.Duration]bool{}
				for d := range 50 {
					p := factory(kit.Device{ID: fmt.Sprintf("device-%d", d)})
					for range 10 {
						next, err := p.Next()
						if err != nil {
							t.Fatal(err)
						}
						delays[next] = true
					}
				}
				assert.Equal(t, len(delays) == 1, f.lockstep(k), "%s at k=%v: %s draws %d delays", f.name, k, f.spec(k), len(delays))
			}
		}
	}
}

// TestServerChangesAreValid applies every change offered to a failing
// reconnect to the user's own scenario, with each drop rule, a cold drop
// of its own and a broker that already refuses until warm: the scenario so
// changed is valid every time, and a refusing broker, which drops no
// session, is offered no rule for a drop.
func TestServerChangesAreValid(t *testing.T) {
	var users []sim.Scenario
	for _, od := range []sim.DropRule{"", sim.DropReset, sim.DropResetJitter, sim.DropContinue} {
		for _, refuse := range []bool{false, true} {
			for _, cold := range []time.Duration{0, time.Second} {
				users = append(users, sim.Scenario{Kind: sim.Reconnect, OnDrop: od, RefuseCold: refuse, ColdDrop: cold})
			}
		}
	}
	for _, u := range users {
		require.NoError(t, u.Validate(nil, sim.Config{}), "%+v", u)
		for _, c := range u.ServerChanges() {
			changed := u
			c.Apply(&changed)
			assert.NoError(t, changed.Validate(nil, sim.Config{}), "%s on %+v", c.Flags, u)
			if u.RefuseCold {
				assert.NotContains(t, c.Flags, "--on-drop", "a refusing broker drops no session")
			}
		}
	}
}

// TestRefused tells a configuration the scenario refuses from one too
// large for the memory limit, and from any other error.
func TestRefused(t *testing.T) {
	why, ok := refused(fmt.Errorf("replay: %w", &kit.ConfigError{Package: "sim", Err: errors.New("on-drop is wrong")}))
	assert.True(t, ok)
	assert.Equal(t, "on-drop is wrong", why)
	_, ok = refused(&kit.ConfigError{Package: "sim", Err: errors.New("too big"), Memory: true})
	assert.False(t, ok, "the memory limit")
	_, ok = refused(errors.New("a device panicked"))
	assert.False(t, ok, "another error")
	_, ok = refused(nil)
	assert.False(t, ok, "no error")
}
