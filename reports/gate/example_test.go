package gate_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/properties"
	"github.com/jitterkit/jitterkit/reports"
	"github.com/jitterkit/jitterkit/reports/gate"
	"github.com/jitterkit/jitterkit/sim"
)

// A gate of full jitter from a base of 10s on a fleet of 50,000 devices
// against a server that accepts 3,000 requests a second and is down for a
// minute: the first retries still crowd the server.
func ExampleRun() {
	spec, err := kit.ParseSpec("full:base=10s,cap=120s")
	if err != nil {
		panic(err)
	}
	rep, err := gate.Run(context.Background(), gate.SpecPolicy(spec), gate.Config{
		Scenario: sim.Scenario{Clients: 50_000, AcceptRate: 3000, Down: time.Minute},
		Replay:   sim.Config{Runs: 5},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(rep.Verdict)
	passed := 0
	for _, c := range rep.Checks {
		if c.Status == verdict.Pass {
			passed++
		}
	}
	fmt.Println("every check passed:", passed == len(rep.Checks))
	fmt.Printf("replay %s, peak ratio %.2f\n", rep.Replay.Status, rep.Replay.Summary[sim.PeakRatio].Median)
	// Output:
	// fail
	// every check passed: true
	// replay fail, peak ratio 2.56
}

// In a test, Check runs the same gate, fails the test with the summary the
// CLI prints unless the policy passes, and writes the report's files when
// asked: a design review can take report.html as it is.
func ExampleCheck() {
	_ = func(t *testing.T) {
		factory := func(d kit.Device) kit.Policy {
			return kit.Spec{Strategy: kit.Decorrelated, Base: 15 * time.Second, Cap: 5 * time.Minute}.Factory()(d)
		}
		gate.Check(t, gate.GoPolicy("client backoff", factory), gate.Config{
			Checks:    properties.Config{Cap: 5 * time.Minute},
			Scenario:  sim.Scenario{Clients: 400, AcceptRate: 50},
			ReportDir: t.TempDir(),
		})
	}
}

// The report of a gate, written for a design review as report.md and
// report.html beside report.json and junit.xml.
func ExampleRun_report() {
	spec := kit.Spec{Strategy: kit.Decorrelated, Base: 15 * time.Second, Cap: 5 * time.Minute}
	rep, err := gate.Run(context.Background(), gate.SpecPolicy(spec), gate.Config{Replay: sim.Config{Runs: 5}})
	if err != nil {
		panic(err)
	}
	dir, err := os.MkdirTemp("", "review")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	if err := reports.WriteDir(context.Background(), dir, rep); err != nil {
		panic(err)
	}
	_, err = os.Stat(filepath.Join(dir, string(reports.HTML)))
	fmt.Println(rep.Verdict, "report.html written:", err == nil)
	// Output:
	// pass report.html written: true
}
