package properties

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
)

// A seeding says how a simulated program seeds the one generator of each
// of its processes: from the clock when the process starts, from the
// operating system, or not at all (each device from its id).
type seeding int

const (
	clockSeeded seeding = iota
	osSeeded
	idSeeded
)

// fakeProcesses simulates a program in the processes of a fleet. A
// process started apart from the others (neither frozen nor sharing an
// instant) reads a clock of its own: distinct starts, counted. Under a
// frozen clock it reads its device's boot instant.
type fakeProcesses struct {
	seeding  seeding
	unfrozen string // what Unfrozen says
	err      error  // what Fresh fails with

	mu      sync.Mutex
	started uint64 // processes started, the clock of those not frozen
	asked   []int  // how many devices each call of Fresh asked, and frozen ones negative
}

// program returns the policy of device id drawn in a process whose
// generator has the given state.
func (fp *fakeProcesses) program(gen *rand.Rand, id string) kit.Policy {
	if fp.seeding == idSeeded {
		gen = rand.New(rand.NewPCG(kit.HashID(id), 0))
	}
	return &fullJitterOf{gen: gen}
}

// fullJitterOf draws full jitter (base 100ms, cap 10s) from gen.
type fullJitterOf struct {
	gen     *rand.Rand
	attempt int
}

func (p *fullJitterOf) Next() (time.Duration, error) {
	w := min(10*time.Second, 100*time.Millisecond<<min(p.attempt, 20))
	p.attempt++
	return time.Duration(p.gen.Int64N(int64(w))), nil
}

// process starts a process at the given clock reading.
func (fp *fakeProcesses) process(clock uint64) *rand.Rand {
	fp.mu.Lock()
	defer fp.mu.Unlock()
	fp.started++
	if fp.seeding == osSeeded {
		return rand.New(rand.NewPCG(fp.started, 0x05))
	}
	return rand.New(rand.NewPCG(clock, 0xc10c))
}

func (fp *fakeProcesses) Fresh(_ context.Context, devs []kit.Device, _ int, frozen bool) (kit.Factory, error) {
	fp.mu.Lock()
	fp.asked = append(fp.asked, map[bool]int{false: len(devs), true: -len(devs)}[frozen])
	fp.mu.Unlock()
	if fp.err != nil {
		return nil, fp.err
	}
	byID := map[string]kit.Policy{}
	for _, d := range devs {
		clock := uint64(d.Boot.UnixNano())
		if !frozen {
			clock = 1_000_000 + fp.started // each process its own instant
		}
		byID[d.ID] = fp.program(fp.process(clock), d.ID)
	}
	own := fp.process(7) // the long-running process
	return func(d kit.Device) kit.Policy {
		if p, ok := byID[d.ID]; ok {
			delete(byID, d.ID)
			return p
		}
		return fp.program(own, d.ID)
	}, nil
}

func (fp *fakeProcesses) Unfrozen() string { return fp.unfrozen }

// TestProcessesFrozenClock checks frozen clock on a program run as a
// fleet of processes: one seeded from its clock when its process starts
// fails, whatever the clock's resolution, with its lockstep named; one
// seeded per device or by the operating system passes; without a frozen
// clock the check is skipped, saying why.
func TestProcessesFrozenClock(t *testing.T) {
	for _, tc := range []struct {
		name     string
		fp       *fakeProcesses
		status   verdict.Status
		detail   string
		figure   float64
		frozenAt bool
	}{
		{"clock", &fakeProcesses{seeding: clockSeeded}, verdict.Fail, "are those of 16 of the 16 devices; booted a second apart, each process under its own frozen clock, the largest group holds 1: the delays follow the clock", 1, true},
		{"per device", &fakeProcesses{seeding: idSeeded}, verdict.Pass, "the largest group sharing the first 3 delays holds 1 of them; want at most half", 1.0 / 16, true},
		{"os", &fakeProcesses{seeding: osSeeded}, verdict.Pass, "holds 1 of them", 1.0 / 16, true},
		{"no faketime", &fakeProcesses{seeding: clockSeeded, unfrozen: "libfaketime.so.1 was not found"}, verdict.Skipped, "not run: no frozen clock reaches the program's processes: libfaketime.so.1 was not found", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := Run(context.Background(), tc.fp.Factory(), Config{Source: kit.SourceExec, Processes: tc.fp, CallTimeout: -1})
			require.NoError(t, err)
			require.NoError(t, out.Err)
			res := result(t, out, NameFrozenClock)
			assert.Equal(t, tc.status, res.Status, res.Detail)
			assert.Contains(t, res.Detail, tc.detail)
			assert.InDelta(t, tc.figure, res.Figure, 1e-9)
			assert.Equal(t, tc.frozenAt, res.ClockFrozen)
			if tc.status == verdict.Fail {
				require.NotNil(t, res.Counterexample)
				assert.Equal(t, 14, res.Counterexample.Others)
				assert.Equal(t, ClockSeed, res.Cause)
			}
			// The population's checks judged 32 devices of fresh
			// processes, and say so.
			spread := result(t, out, NameSpread)
			assert.Equal(t, 32, spread.Processes)
			assert.Contains(t, spread.Detail, "(32 of the 1000 devices each in a fresh process of its own, the others from one process)")
			want := []int{32}
			if tc.status != verdict.Skipped {
				want = append(want, -16, -16)
			}
			assert.Equal(t, want, tc.fp.asked)
		})
	}
}

// TestProcessesOtherSources checks that a policy that is not a program's,
// such as a built-in strategy a fix search checks with the gate's config,
// starts no process.
func TestProcessesOtherSources(t *testing.T) {
	fp := &fakeProcesses{seeding: idSeeded}
	out, err := Run(context.Background(), fp.Factory(), Config{Source: kit.SourceSpec, Processes: fp})
	require.NoError(t, err)
	assert.Empty(t, fp.asked)
	assert.Zero(t, result(t, out, NameSpread).Processes)
}

// TestProcessesFail checks that processes that fail are the run's source
// failure, never a verdict on the devices of one process, and that a
// program that broke the protocol in its first fresh processes is asked
// nothing more: no check runs, and no further process is started.
func TestProcessesFail(t *testing.T) {
	broke := errors.New(`exec "prog": device "dev-000001": it wrote a line nobody asked for`)
	fp := &fakeProcesses{seeding: idSeeded, err: broke}
	out, err := Run(context.Background(), fp.Factory(), Config{Source: kit.SourceExec, Processes: fp, CallTimeout: -1})
	require.NoError(t, err)
	assert.Equal(t, broke, out.Err)
	assert.Empty(t, out.Results, "no check judges a program that broke the protocol")
	assert.Equal(t, []int{32}, fp.asked, "the processes started")
}

// Factory returns the long-running process's factory.
func (fp *fakeProcesses) Factory() kit.Factory {
	own := fp.process(7)
	return func(d kit.Device) kit.Policy { return fp.program(own, d.ID) }
}

// result returns the result of the check named name.
func result(t *testing.T, out Outcome, name string) Result {
	t.Helper()
	for _, r := range out.Results {
		if r.Name == name {
			return r
		}
	}
	t.Fatalf("no result for %s", name)
	return Result{}
}
