package sim

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/testdata/kittest"
)

// memoryCase is a replay whose memory BenchmarkMemory measures beside its
// estimate.
type memoryCase struct {
	name string
	f    kit.Factory
	s    Scenario
	cfg  Config
	// million says whether the case is measured at a million devices
	// too; the kinds whose runs take minutes there are not.
	million bool
}

// memoryCases returns the replays BenchmarkMemory measures at a fleet of
// n devices: an outage of 30s against an accept rate of a twentieth of the
// fleet, under no jitter and full jitter from 1s to 30s, on the compact
// path of a kit.Spec's factory at the default runs two at a time, and on
// the general path, and one run of it on one worker; and two runs of each
// other kind the estimate covers, the server models at their default
// fleets, whatever n.
func memoryCases(n int) []memoryCase {
	none := kit.Spec{Strategy: kit.None, Base: time.Second, Cap: 30 * time.Second}.Factory()
	full := kit.Spec{Strategy: kit.Full, Base: time.Second, Cap: 30 * time.Second}.Factory()
	outage := Scenario{Clients: n, AcceptRate: float64(n) / 20, Down: 30 * time.Second}
	runs := Config{Runs: defaultRuns, Workers: 2}
	return []memoryCase{
		{"outage/none", none, outage, runs, true},
		{"outage/full", full, outage, runs, true},
		{"outage/none/one-run", none, outage, Config{Runs: 1, Workers: 1}, true},
		{"outage/full/general", general(full), outage, Config{Runs: 4, Workers: 2}, true},
		{"long-outage/full", full, Scenario{Kind: LongOutage, Clients: n, AcceptRate: float64(n) / 8}, Config{Runs: 2, Workers: 2}, false},
		{"outage/full/token-bucket", full, Scenario{Server: TokenBucket, Clients: n, AcceptRate: float64(n) / 8}, Config{Runs: 2, Workers: 2}, true},
		{"periodic/full", full, Scenario{Kind: Periodic, Clients: n, AcceptRate: float64(n) / 100, Period: 10 * time.Second}, Config{Runs: 2, Workers: 2}, true},
		{"storm/full", full, Scenario{Kind: Storm, Clients: n}, Config{Runs: 2, Workers: 2}, true},
		{"storm/full/general", general(full), Scenario{Kind: Storm, Clients: n}, Config{Runs: 2, Workers: 2}, true},
		{"reconnect/full", full, Scenario{Kind: Reconnect, Clients: n, CPU: float64(n)}, Config{Runs: 2, Workers: 2}, false},
		{"overload/none", kit.Spec{Strategy: kit.None, Base: 100 * time.Millisecond}.Factory(), Scenario{Kind: Overload}, Config{Runs: 2, Workers: 2}, false},
		{"contention/full", full, Scenario{Kind: Contention}, Config{Runs: 2, Workers: 2}, false},
	}
}

// BenchmarkMemory replays each of memoryCases at fleets of 100,000 and,
// where the case says, a million devices, and reports the most heap the
// replay held (kittest.PeakHeap, sampled every millisecond, with the
// collector at GOGC=100) and the estimate (Scenario.Memory) in bytes a
// device, and the estimate over the peak, which must be at least 1.
//
//	go test -run='^$' -bench=Memory -benchtime=1x ./sim
func BenchmarkMemory(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		for _, c := range memoryCases(n) {
			clients := c.s.WithDefaults().Clients
			b.Run(fmt.Sprintf("%s/devices=%d", c.name, clients), func(b *testing.B) {
				if n > 100_000 && (testing.Short() || !c.million) {
					b.Skip("large fleets are skipped under -short, and for the kinds slow to replay")
				}
				if err := c.s.Validate(c.f, c.cfg); err != nil {
					b.Fatal(err)
				}
				need := c.s.Memory(c.f, c.cfg)
				var peak int64
				for range b.N {
					var err error
					used := kittest.PeakHeap(time.Millisecond, func() { _, err = Replay(context.Background(), c.f, c.s, c.cfg) })
					if err != nil {
						b.Fatal(err)
					}
					peak = max(peak, used)
				}
				b.ReportMetric(float64(peak)/float64(clients), "peak-B/device")
				b.ReportMetric(float64(need)/float64(clients), "estimate-B/device")
				b.ReportMetric(float64(need)/float64(peak), "estimate/peak")
			})
		}
	}
}
