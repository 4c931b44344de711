package properties_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/properties"
)

// Run returns a verdict per check; this policy never jitters, so the
// checks of spread fail while its delays stay in bounds.
func ExampleRun() {
	spec, err := kit.ParseSpec("none:base=1s,cap=30s")
	if err != nil {
		panic(err)
	}
	out, err := properties.Run(context.Background(), spec.Factory(), properties.Config{})
	if err != nil {
		panic(err)
	}
	fmt.Println(out.Status())
	for _, r := range out.Results {
		switch r.Name {
		case properties.NameSpread, properties.NameClusters, properties.NameCapPhase, properties.NameBounds:
			fmt.Printf("%-9s %s\n", r.Name, r.Status)
		}
	}
	for _, r := range out.Results {
		if r.Name == properties.NameSpread {
			fmt.Println(r.Detail)
		}
	}
	// Output:
	// fail
	// spread    fail
	// clusters  fail
	// cap-phase fail
	// bounds    pass
	// delay 1 of "01b53362-41b8-4125-8781-742b4583b6dc" = 1s for 1000 of 1000 devices, CV 0; want spread (CV ≥ 0.05)
}

// A policy from a retry library, wrapped by a kit adapter, checked over the
// devices of a recorded fleet with its cap declared.
func ExampleRun_declaredCap() {
	spec, _ := kit.ParseSpec("full:base=100ms,cap=10s")
	ids := make([]string, 1000)
	for i := range ids {
		ids[i] = fmt.Sprintf("meter-%04d", i)
	}
	out, err := properties.Run(context.Background(), spec.Factory(), properties.Config{
		IDs:   ids,
		Cap:   10 * time.Second,
		Claim: &spec,
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(out.Status())
	// Output: pass
}

// In a test, Check runs each check as a subtest and fails the test with the
// smallest counterexample.
func ExampleCheck() {
	_ = func(t *testing.T) {
		spec, _ := kit.ParseSpec("decorrelated:base=1s,cap=300s")
		properties.Check(t, spec.Factory(), properties.Config{Cap: 300 * time.Second, Claim: &spec})
	}
}

// The thresholds start from their documented defaults; a field left zero
// keeps its default.
func ExampleDefaultThresholds() {
	th := properties.DefaultThresholds()
	fmt.Println(th.MinCV, th.ClusterAlpha, th.ArrivalRatio, th.KSAlpha)
	// Output: 0.05 1e-07 4 1e-06
}
