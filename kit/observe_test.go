package kit

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestOutcomeString(t *testing.T) {
	tests := []struct {
		o    Outcome
		want string
	}{
		{Success, "success"},
		{Rejection, "rejection"},
		{Timeout, "timeout"},
		{Drop, "drop"},
		{0, "Outcome(0)"},
		{Drop + 1, "Outcome(5)"},
		{-1, "Outcome(-1)"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.o.String(), "Outcome(%d).String()", int(tt.o))
	}
}

// replay drives p as a replay does under the Observer contract: it
// observes each outcome in turn and, after each failure, reads the delay
// that follows it. It returns those delays.
func replay(p Observer, outcomes []Outcome) ([]time.Duration, error) {
	var out []time.Duration
	for _, o := range outcomes {
		p.Observe(o)
		if o == Success {
			continue
		}
		d, err := p.Next()
		if errors.Is(err, ErrStop) {
			break
		}
		if err != nil {
			return out, err
		}
		out = append(out, d)
	}
	return out, nil
}

// failures returns n failures, the three kinds in turn.
func failures(n int) []Outcome {
	out := make([]Outcome, n)
	for i := range out {
		out[i] = []Outcome{Rejection, Timeout, Drop}[i%3]
	}
	return out
}

// resetDevices returns fleet-like devices booted 1.5 s apart, so that
// devices seeded from the clock draw apart too.
func resetDevices(n int) []Device {
	boot := time.Date(2026, 3, 1, 4, 0, 0, 0, time.UTC)
	ds := make([]Device, n)
	for i, id := range deviceIDs(n) {
		ds[i] = Device{ID: id, Boot: boot.Add(time.Duration(i) * 1500 * time.Millisecond)}
	}
	return ds
}

// TestResetOnSuccessStartsOver holds what sim relies on: under on-success,
// delay j after a Success is delay j of a fresh policy of the same device,
// for every strategy and seed source, however many delays came before.
func TestResetOnSuccessStartsOver(t *testing.T) {
	const after = 12 // delays compared after each reset
	for _, st := range Strategies() {
		for _, seed := range []Seed{SeedDevice, SeedClock, SeedConstant} {
			spec := Spec{Strategy: st, Base: time.Second, Cap: time.Minute, Seed: seed, Reset: ResetOnSuccess}
			t.Run(spec.String(), func(t *testing.T) {
				f := spec.Factory()
				for _, d := range resetDevices(50) {
					fresh, err := Delays(f(d), after)
					require.NoError(t, err, "Delays(%q, %d)", d.ID, after)
					for _, before := range []int{1, 2, 7, 20} {
						outcomes := append(failures(before), Success)
						outcomes = append(outcomes, failures(after)...)
						p, ok := f(d).(Observer)
						require.True(t, ok, "the policy of %q is a %T; want a kit.Observer", d.ID, f(d))
						got, err := replay(p, outcomes)
						require.NoError(t, err, "replay(%q)", d.ID)
						// Each failure reads one delay: the delays after
						// the success start at got[before].
						assert.Equal(t, fresh, got[before:], "delays(%q) after %d failures, a success and a failure; want the delays of a fresh policy", d.ID, before)
					}
				}
			})
		}
	}
}

func TestOutcomesOtherThanAResetAreIgnored(t *testing.T) {
	tests := []struct {
		reset    ResetRule
		outcomes []Outcome
	}{
		{ResetNever, failures(30)},
		{ResetNever, append(append(failures(5), Success, Success), failures(25)...)},
		{ResetOnSuccess, failures(30)},
	}
	for _, tt := range tests {
		for _, st := range Strategies() {
			spec := Spec{Strategy: st, Base: time.Second, Cap: time.Minute, Reset: tt.reset}
			f := spec.Factory()
			for _, d := range resetDevices(20) {
				want, err := Delays(f(d), 30)
				require.NoError(t, err, "%s: Delays(%q, 30)", spec, d.ID)
				got, err := replay(f(d).(Observer), tt.outcomes)
				require.NoError(t, err, "%s: replay(%q)", spec, d.ID)
				assert.Equal(t, want, got, "%s: delays(%q) observing %v; want the delays read without observing", spec, d.ID, tt.outcomes)
			}
		}
	}
}

func TestResetRuleInStringRoundTrips(t *testing.T) {
	for _, st := range Strategies() {
		for _, r := range []ResetRule{"", ResetNever, ResetOnSuccess} {
			spec := Spec{Strategy: st, Reset: r}
			again, err := ParseSpec(spec.String())
			require.NoError(t, err, "ParseSpec(%q)", spec.String())
			assert.Equal(t, spec.withDefaults(), again.withDefaults(), "ParseSpec(%q), against the spec it was written from", spec.String())
			assert.Equal(t, r == ResetOnSuccess, spec.String() != fmt.Sprintf("%s:base=100ms,cap=10s", st), "%#v.String() = %q: reset is written only when it is on-success", spec, spec.String())
		}
	}
}
