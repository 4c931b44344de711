// Command outside runs the property suite outside go test, as the CLI does,
// on a policy seeded from the last character of the device id. It prints
// each check's verdict and the id-populations counterexample's replay.
package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"time"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/properties"
)

func main() {
	// A program keeps its own flags on a flag set of its own; rapid's stay
	// on the standard one.
	fs := flag.NewFlagSet("outside", flag.ExitOnError)
	seed := fs.Uint64("seed", 1, "the run's seed")
	_ = fs.Parse(os.Args[1:])

	lastChar := func(d kit.Device) kit.Policy {
		rng := rand.New(rand.NewPCG(uint64(d.ID[len(d.ID)-1]), 0))
		w := 100 * time.Millisecond
		return kit.FromFunc(func(int) time.Duration {
			v := time.Duration(rng.Float64() * float64(w))
			w = min(2*w, 10*time.Second)
			return v
		})
	}
	out, err := properties.Run(context.Background(), lastChar, properties.Config{Seed: *seed})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	for _, r := range out.Results {
		fmt.Printf("%s %s\n", r.Name, r.Status)
		if r.Name == properties.NameIDPopulations && r.Counterexample != nil {
			fmt.Printf("replay: %s\n", r.Counterexample.Replay)
		}
	}
}
