package sim

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/jitterkit/jitterkit/internal/prose"
	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/testdata/kittest"
)

// Sampling: does 1/k of a fleet against 1/k of its accept rate give the
// whole fleet's figures? It replays for minutes, so it runs only when
// asked:
//
//	go test -run='^TestSampling$' -sampling -v -timeout=2h ./sim
//	go test -run='^TestLargestFleet$' -largest=100000000 -v -timeout=1h ./sim
var (
	sampling      = flag.Bool("sampling", false, "run TestSampling, which replays a fleet of -sampling.fleet devices and its samples")
	samplingFleet = flag.Int("sampling.fleet", 1_000_000, "the whole fleet of TestSampling; its accept rate is an eighth of it a second")
	samplingKinds = flag.String("sampling.kinds", "outage,long-outage,storm", "the scenarios TestSampling replays, comma-separated")
	largest       = flag.Int("largest", 0, "run TestLargestFleet with this many devices")
	largestLimit  = flag.Int64("largest.limit", 24<<30, "the memory limit of TestLargestFleet's replay: the machine's memory, or more to replay past the estimate")
)

// samplingDivisors are the k that TestSampling replays: the whole fleet, a
// tenth and a hundredth.
var samplingDivisors = []int{1, 10, 100}

// TestSampling replays the default outage scaled to -sampling.fleet devices
// (an accept rate of an eighth of the fleet a second), its long outage and
// its storm, under each strategy's default spec, 20 runs each, for the
// whole fleet and for 1/10 and 1/100 of it against 1/10 and 1/100 of the
// accept rate, and prints a table of the median peak ratio and time until
// all are served, their 95% intervals, the range of the 20 runs, and each
// sample's median over the whole fleet's. It checks nothing: it is the
// measurement behind a --sample option.
func TestSampling(t *testing.T) {
	if !*sampling {
		t.Skip("a measurement of several minutes: run with -sampling")
	}
	n := *samplingFleet
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "kind\tstrategy\tk\tdevices\trate/s\tpeak ratio [95% CI]\trange of runs\tvs whole\tall served s [95% CI]\trange of runs\tvs whole\tattempts/device\ttime\t")
	for _, kind := range strings.Split(*samplingKinds, ",") {
		for _, st := range kit.Strategies() {
			f := kit.Spec{Strategy: st}.Factory()
			var whole Result
			for _, k := range samplingDivisors {
				s := Scenario{Kind: Kind(kind), Clients: n / k, AcceptRate: float64(n) / 8 / float64(k), MemoryLimit: 16 << 30}
				start := time.Now()
				r, err := Replay(context.Background(), f, s, Config{Runs: 20, Seed: 1})
				if err != nil {
					t.Fatalf("%s %s k=%d: %v", kind, st, k, err)
				}
				if k == 1 {
					whole = r
				}
				p, a := r.Summary[PeakRatio], r.Summary[AllServed]
				lo, hi := runRange(r, PeakRatio)
				served := "—\t—\t—"
				if Kind(kind) != Storm {
					alo, ahi := runRange(r, AllServed)
					served = fmt.Sprintf("%.1f [%.1f, %.1f]\t%.1f–%.1f\t%.3f", a.Median, a.Low, a.High, alo, ahi, a.Median/whole.Summary[AllServed].Median)
				}
				row := fmt.Sprintf("%s\t%s\t%d\t%d\t%g\t%.3f [%.3f, %.3f]\t%.3f–%.3f\t%.3f\t%s\t%.2f\t%.1fs\t",
					kind, st, k, s.Clients, s.AcceptRate, p.Median, p.Low, p.High, lo, hi, p.Median/whole.Summary[PeakRatio].Median,
					served, r.Summary[Attempts].Median/float64(s.Clients), time.Since(start).Seconds())
				t.Log(strings.ReplaceAll(row, "\t", " "))
				fmt.Fprintln(w, row)
			}
		}
	}
	w.Flush()
	fmt.Fprint(os.Stdout, b.String())
}

// runRange returns the smallest and the largest figure of r's runs.
func runRange(r Result, fig Figure) (lo, hi float64) {
	x := make([]float64, len(r.Runs))
	for i, run := range r.Runs {
		x[i] = fig.Of(run, r.Scenario)
	}
	return slices.Min(x), slices.Max(x)
}

// TestLargestFleet prints the largest fleet whose replay of the default
// outage (an accept rate of an eighth of the fleet a second, default
// configuration) fits in this machine's memory by the estimate, and, with
// -largest, replays one run of that many devices and prints the time it
// took and the most heap it held. -largest.limit raises the replay's
// memory limit past the machine's, to replay more than the estimate
// allows.
func TestLargestFleet(t *testing.T) {
	if *largest == 0 {
		t.Skip("replays a fleet of tens of millions: run with -largest=DEVICES")
	}
	const machine = 24 << 30
	full := kit.Spec{Strategy: kit.Full}.Factory()
	fits := func(n int, cfg Config) bool {
		s := Scenario{Clients: n, AcceptRate: float64(n) / 8, MemoryLimit: machine}
		return s.Validate(full, cfg) == nil
	}
	for _, cfg := range []Config{{}, {Runs: 1}} {
		lo, hi := 1, maxClients
		for lo < hi {
			mid := lo + (hi-lo+1)/2
			if fits(mid, cfg) {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		s := Scenario{Clients: lo, AcceptRate: float64(lo) / 8, MemoryLimit: machine}
		t.Logf("largest fleet within %s by the estimate, %+v: %s devices (estimate %s)", prose.FormatBytes(machine), cfg, prose.FormatCount(int64(lo)), prose.FormatBytes(s.Memory(full, cfg)))
	}

	n := *largest
	s := Scenario{Clients: n, AcceptRate: float64(n) / 8, MemoryLimit: *largestLimit}
	cfg := Config{Runs: 1, Workers: 1}
	var r Result
	var err error
	start := time.Now()
	used := kittest.PeakHeap(time.Millisecond, func() { r, err = Replay(context.Background(), full, s, cfg) })
	elapsed := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	run := r.Runs[0]
	t.Logf("%s devices, one run: %v, %s attempts (%.1f ns each), peak heap %s (%.1f B/device), estimate %s, process heap obtained from the OS %s; all served after %.1fs, peak ratio %.3f",
		prose.FormatCount(int64(n)), elapsed.Round(time.Millisecond), prose.FormatCount(int64(run.Attempts)), float64(elapsed.Nanoseconds())/float64(run.Attempts),
		prose.FormatBytes(used), float64(used)/float64(n), prose.FormatBytes(s.Memory(full, cfg)), prose.FormatBytes(int64(m.HeapSys)), run.AllServed.Seconds(), run.PeakRatio)
	if math.IsNaN(run.PeakRatio) {
		t.Error("peak ratio NaN")
	}
}
