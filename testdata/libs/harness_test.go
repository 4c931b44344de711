package libs

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/failsafe-go/failsafe-go"
	"github.com/failsafe-go/failsafe-go/retrypolicy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/jitterkit/jitterkit/internal/prose"
	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/properties"
)

// Before the loop adapter (kit/loop), a library that only sleeps was
// checked through a harness built by hand for it: each device ran the
// library in a testing/synctest bubble of its own, the harness collected
// the delays the library scheduled (failsafe-go's OnRetryScheduled event,
// the instants of grpc-go's dials), and jitterkit was handed those fixed
// delays, one slice per device. TestHarnessAgreesWithLoopAdapter holds the
// adapter to what the harness concluded on the scoreboard's rows of those
// libraries, so that the adapter is known to read the libraries as the
// harness did.

// harnessDevices is how many devices both ways examine: the population
// the thresholds are derived for. failsafe-go's ±10% jitter has a CV of
// 0.0577 against spread's 0.05, six standard errors at 1000 devices but
// only three at 300, where the two ways, drawing from unseeded generators,
// would now and then disagree by chance. The loop adapter's run of grpc-go,
// which also observes every device id-populations, frozen-clock and
// reproducibility make, takes a few seconds at this size.
const harnessDevices = 1000

// harnessSeed is the seed of both runs.
const harnessSeed = 1

// harnessIDs returns n sequential serials, the population both ways
// examine: the harness can hand jitterkit only the devices it ran.
func harnessIDs(n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("dev-%06d", i+1)
	}
	return ids
}

// A harvest runs the library once per device, each in a bubble of its own,
// and returns the delays it scheduled, by device id.
type harvest func(t *testing.T, ids []string) map[string][]time.Duration

// failsafeHarvest collects the delays failsafe-go's executor schedules
// with the retry policy newBuilder makes, from its OnRetryScheduled event,
// for an operation that always fails. The policy is built per device: the
// listener writes to that device's slice.
func failsafeHarvest(newBuilder func() retrypolicy.Builder[any]) harvest {
	return func(t *testing.T, ids []string) map[string][]time.Duration {
		t.Helper()
		got := make(map[string][]time.Duration, len(ids))
		for _, id := range ids {
			var delays []time.Duration
			synctest.Test(t, func(t *testing.T) {
				rp := newBuilder().OnRetryScheduled(func(e failsafe.ExecutionScheduledEvent[any]) {
					delays = append(delays, e.Delay)
				}).Build()
				err := failsafe.With(rp).Run(func() error { return errUnavailable })
				require.Error(t, err, "%s: the executor gave up", id)
			})
			got[id] = delays
		}
		return got
	}
}

// grpcHarvest collects grpc-go's connection backoff with its defaults:
// per device, a ClientConn whose dialer records the instant of each dial
// on the bubble's clock and refuses it, and a health RPC that waits for
// the server (grpc.WaitForReady) so that the channel keeps reconnecting.
// The delays are the differences between consecutive dials, up to n of
// them; at dial n+1 the RPC is cancelled and the client closed.
func grpcHarvest(n int) harvest {
	return func(t *testing.T, ids []string) map[string][]time.Duration {
		t.Helper()
		got := make(map[string][]time.Duration, len(ids))
		for _, id := range ids {
			var (
				mu    sync.Mutex
				dials []time.Time
			)
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				dial := func(context.Context) error {
					mu.Lock()
					defer mu.Unlock()
					if len(dials) > n {
						return context.Canceled
					}
					dials = append(dials, time.Now())
					if len(dials) > n {
						cancel()
						return context.Canceled
					}
					return nil
				}
				var refused atomic.Int64
				cc, err := newGRPCClient(dial, &refused)
				require.NoError(t, err)
				defer cc.Close()
				_, err = healthpb.NewHealthClient(cc).Check(ctx, &healthpb.HealthCheckRequest{}, grpc.WaitForReady(true))
				require.ErrorIs(t, ctx.Err(), context.Canceled, "%s: the RPC returned %v before dial %d", id, err, n+1)
			})
			delays := make([]time.Duration, 0, n)
			for i := 1; i < len(dials); i++ {
				delays = append(delays, dials[i].Sub(dials[i-1]))
			}
			got[id] = delays
		}
		return got
	}
}

// harnessFactory hands jitterkit the harvested delays: each device's
// policy plays its slice back and then stops. A device the harness did not
// run has no delays to give, as a trace's Factory says of a device it does
// not hold: its policy fails, rather than stopping at once as an empty
// slice would, which the checks would take for a schedule.
func harnessFactory(delays map[string][]time.Duration) kit.Factory {
	return func(d kit.Device) kit.Policy {
		s, ok := delays[d.ID]
		if !ok {
			return notRun(d.ID)
		}
		return kit.FromSlice(s)
	}
}

// notRun is the policy of a device the harness did not run.
type notRun string

func (id notRun) Next() (time.Duration, error) {
	return 0, fmt.Errorf("the harness did not run device %q", string(id))
}

// scoreboardRow returns the row of entries for module whose configuration
// starts with config, so that both ways check the scoreboard's
// configuration at the scoreboard's cap.
func scoreboardRow(t *testing.T, module, config string) entry {
	t.Helper()
	for _, e := range entries {
		if e.module == module && strings.HasPrefix(e.config, config) {
			return e
		}
	}
	t.Fatalf("the scoreboard has no row %s: %s…", module, config)
	return entry{}
}

// remade are the checks that make devices the harness never ran, or make
// them again; every other check judges the harness's slices and the
// adapter's policies on the same evidence, the first delays and the later
// ones of the given devices, read once, and is compared both ways:
//
//   - id-populations has rapid draw new ids; the harness holds delays only
//     for the ids it ran.
//   - frozen-clock makes the devices again booted at one instant and a
//     second apart; the harness's slices were drawn before, whatever the
//     boot, so they could only repeat the spread check.
//   - reproducibility makes devices again and compares; the slices replay
//     identically by construction, while both libraries draw their jitter
//     from math/rand/v2's global generator, which the adapter sees (a
//     warning).
//
// The harness therefore runs as what it is, kit.SourceTrace, and these
// three report Skipped on its side; the test asserts that, so that a change
// in what properties does with a recording is noticed here. Of the checks
// compared, Recorded changes only cap-phase, which then also asks the
// recording to reach the cap: grpc-go's 20 delays do, and failsafe-go's
// two stop before any cap phase, both ways.
var remade = map[string]bool{
	properties.NameIDPopulations:   true,
	properties.NameFrozenClock:     true,
	properties.NameReproducibility: true,
}

func TestHarnessAgreesWithLoopAdapter(t *testing.T) {
	tests := []struct {
		module, config string
		harvest        harvest
	}{
		{
			"github.com/failsafe-go/failsafe-go", "retrypolicy.NewWithDefaults()",
			failsafeHarvest(retrypolicy.NewBuilder[any]),
		},
		{
			"github.com/failsafe-go/failsafe-go", "WithBackoff(1s, 30s).WithJitterFactor(.1)",
			failsafeHarvest(func() retrypolicy.Builder[any] {
				return retrypolicy.NewBuilder[any]().WithBackoff(time.Second, 30*time.Second).WithJitterFactor(.1)
			}),
		},
		{
			"google.golang.org/grpc", "grpc.NewClient defaults",
			grpcHarvest(observedDelays),
		},
	}
	for _, tt := range tests {
		t.Run(tt.module+"/"+tt.config, func(t *testing.T) {
			row := scoreboardRow(t, tt.module, tt.config)
			cfg := properties.Config{
				IDs:         harnessIDs(harnessDevices),
				Cap:         row.cap,
				CapAttempts: observedDelays,
				Seed:        harnessSeed,
			}

			start := time.Now()
			harvested := tt.harvest(t, cfg.IDs)
			recorded := cfg
			recorded.Source = kit.SourceTrace
			harnessOut, err := properties.Run(t.Context(), harnessFactory(harvested), recorded)
			require.NoError(t, err)
			require.NoError(t, harnessOut.Err, "the harness's slices")
			harnessTime := time.Since(start)

			start = time.Now()
			loopOut, err := properties.Run(t.Context(), row.factory(t), cfg)
			require.NoError(t, err)
			require.NoError(t, loopOut.Err, "the loop adapter could not observe the library")
			loopTime := time.Since(start)

			// Both ways see as many delays of a device: the harness did
			// not stop early or miss a retry.
			first := cfg.IDs[0]
			observed, err := kit.Delays(row.factory(t)(kit.Device{ID: first, Boot: properties.DefaultBoot}), observedDelays)
			require.NoError(t, err)
			require.Len(t, harvested[first], len(observed), "%s: the harness's delays %v; the loop adapter's %v", first, harvested[first], observed)

			require.Len(t, loopOut.Results, len(harnessOut.Results))
			capText := "none"
			if row.cap > 0 {
				capText = prose.FormatDuration(row.cap)
			}
			var table strings.Builder
			fmt.Fprintf(&table, "%d devices, cap %s, seed %d; harness %v, loop adapter %v\n", harnessDevices, capText, harnessSeed,
				harnessTime.Round(time.Millisecond), loopTime.Round(time.Millisecond))
			fmt.Fprintf(&table, "%-15s  %-22s  %-22s\n", "check", "harness", "loop adapter")
			for _, h := range harnessOut.Results {
				l := statusOf(loopOut, h.Name)
				require.Equal(t, h.Name, l.Name, "the loop adapter's outcome has every check of the harness's")
				fmt.Fprintf(&table, "%-15s  %-22s  %-22s\n", h.Name, statusFigure(h), statusFigure(l))
			}
			t.Log("\n" + table.String())

			for _, h := range harnessOut.Results {
				l := statusOf(loopOut, h.Name)
				if remade[h.Name] {
					assert.Equal(t, verdict.Skipped, h.Status, "%s on the harness's recorded slices: %s", h.Name, h.Detail)
				} else {
					assert.Equal(t, h.Status, l.Status, "%s: the harness says %s (%s); the loop adapter says %s (%s)", h.Name, h.Status, h.Detail, l.Status, l.Detail)
				}
			}
		})
	}
}

// statusFigure writes a result's status and its figure, when it has one.
func statusFigure(r properties.Result) string {
	if r.Unit == "" || r.Status == verdict.Skipped {
		return string(r.Status)
	}
	return fmt.Sprintf("%s %.3g %s", r.Status, r.Figure, r.Unit)
}
