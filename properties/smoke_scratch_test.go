package properties

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jitterkit/jitterkit/kit"
)

func TestSmokeScratch(t *testing.T) {
	for _, s := range []string{"full", "equal", "decorrelated", "none", "full:seed=clock", "full:seed=constant"} {
		spec, _ := kit.ParseSpec(s)
		start := time.Now()
		out := Run(context.Background(), spec.Factory(), Config{Claim: &spec})
		fmt.Println("==", s, out.Status(), time.Since(start), out.Err)
		for _, r := range out.Results {
			fmt.Printf("  %-16s %s %.4g/%.4g %s\n", r.Name, r.Status, r.Figure, r.Threshold, r.Detail)
			if r.Counterexample != nil && r.Status != Pass {
				fmt.Print(r.Counterexample)
			}
		}
	}
}
