package main

import (
	"fmt"
	"time"

	"github.com/jitterkit/jitterkit/kit"
)

// demoSpec is the default policy the demo gates: full jitter on the lab's
// backoff.
var demoSpec = kit.Spec{Strategy: kit.Full, Base: 100 * time.Millisecond, Cap: 10 * time.Second}

// demo shows the main job on the lab's scenario (400 clients, a server
// accepting 50 a second, down for 2s): the four strategies side by side,
// then a gate of full jitter with its verdict.
func demo(e *env) error {
	o := &options{given: map[string]bool{}}
	fmt.Fprintf(e.stdout, "jitterkit: does a retry policy's jitter de-synchronise a fleet?\n\n")
	fmt.Fprintf(e.stdout, "1. The four strategies, each replayed on the same fleet failing together.\n\n")
	srcs := specSources(builtinSpecs(nil, o))
	tables, err := comparisons(e, o, srcs)
	if err != nil {
		return err
	}
	writeComparisons(e.stdout, o, srcs, tables)

	fmt.Fprintf(e.stdout, "\n2. A gate of %s: the property checks and the replay, one verdict.\n\n", demoSpec)
	o.policies, o.specs = []string{demoSpec.String()}, []kit.Spec{demoSpec}
	err = gateOne(e, o, false)
	fmt.Fprintf(e.stdout, "\nNext: jitterkit gate --policy SPEC | --exec CMD | --trace FILE  (see \"jitterkit help\")\n")
	return err
}
