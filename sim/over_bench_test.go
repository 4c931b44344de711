package sim

import (
	"context"
	"testing"
	"time"

	"github.com/jitterkit/jitterkit/kit"
)

// BenchmarkOver tells whether one run of a fleet is over the comfortable
// peak ratio, with Over and with a whole Replay of the run, on a million
// devices against 50,000 accepted a second, down 30s: under plain
// exponential backoff (none), every run is over in its first retry wave,
// and Over stops there; under full jitter with a 75s base and cap, every
// run is within the limit, and Over replays it whole.
//
//	go test -run='^$' -bench='^BenchmarkOver$' -benchtime=3x -count=3 ./sim
func BenchmarkOver(b *testing.B) {
	s := Scenario{Clients: 1_000_000, AcceptRate: 50_000, Down: 30 * time.Second}
	for _, c := range []struct {
		name string
		spec kit.Spec
	}{
		{"none", kit.Spec{Strategy: kit.None, Base: time.Second, Cap: 30 * time.Second}},
		{"full", kit.Spec{Strategy: kit.Full, Base: 75 * time.Second, Cap: 75 * time.Second}},
	} {
		f := c.spec.Factory()
		cfg := Config{Workers: 1}
		limit := s.WithDefaults().Threshold
		b.Run(c.name+"/over", func(b *testing.B) {
			if testing.Short() {
				b.Skip("a million devices are skipped under -short")
			}
			for i := 0; b.Loop(); i++ {
				if _, err := Over(context.Background(), f, s, cfg, limit, i%20, i%20+1); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(c.name+"/replay", func(b *testing.B) {
			if testing.Short() {
				b.Skip("a million devices are skipped under -short")
			}
			for i := 0; b.Loop(); i++ {
				cfg := cfg
				cfg.Runs, cfg.Seed = 1, uint64(i)
				if _, err := Replay(context.Background(), f, s, cfg); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
