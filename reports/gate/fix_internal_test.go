package gate

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/jitterkit/jitterkit/kit"
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
