package gate_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/properties"
	"github.com/jitterkit/jitterkit/reports/gate"
)

// TestCloseAll closes every policy, past a failure, and returns the first.
func TestCloseAll(t *testing.T) {
	var closed []string
	closer := func(name string, err error) gate.Policy {
		p := gate.SpecPolicy(kit.Spec{Strategy: kit.Full})
		p.Close = func() error { closed = append(closed, name); return err }
		return p
	}
	first, second := errors.New("first"), errors.New("second")
	err := gate.CloseAll([]gate.Policy{closer("a", nil), gate.SpecPolicy(kit.Spec{Strategy: kit.None}), closer("b", first), closer("c", second)})
	assert.Equal(t, first, err)
	assert.Equal(t, []string{"a", "b", "c"}, closed)
}

// TestOpenTrace reads a trace by path, and names the file and the line of
// one that is not a trace, and the limit of one too large.
func TestOpenTrace(t *testing.T) {
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "good.csv"), filepath.Join(dir, "bad.csv")
	require.NoError(t, os.WriteFile(good, []byte("device,attempt,delay_s\ndev-1,1,0.5\n"), 0o644))
	require.NoError(t, os.WriteFile(bad, []byte("device,attempt,delay_s\ndev-1,1,soon\n"), 0o644))

	p, err := gate.OpenTrace(context.Background(), good, 0)
	require.NoError(t, err)
	assert.Equal(t, good, p.Name)
	assert.Equal(t, kit.SourceTrace, p.Source)

	_, err = gate.OpenTrace(context.Background(), bad, 0)
	assert.ErrorAs(t, err, new(*gate.InputError))
	assert.ErrorContains(t, err, bad+":2: delay_s: ")

	_, err = gate.OpenTrace(context.Background(), good, 64*16)
	assert.EqualError(t, err, "larger than 16 B")
}

// TestTraceDevicesRefused refuses a number of devices to check beside a
// recorded trace, whose own devices are the ones checked, before any work
// and again when the gate runs.
func TestTraceDevicesRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.csv")
	require.NoError(t, os.WriteFile(path, []byte("device,attempt,delay_s\ndev-1,1,0.5\n"), 0o644))
	cfg := gate.Config{Steps: gate.Checks, Checks: properties.Config{Devices: 5000}}
	const want = "devices does not apply to a recorded trace: its own devices are checked"
	assert.EqualError(t, cfg.Validate(gate.Policy{Source: kit.SourceTrace}), want, "Validate")
	p, err := gate.OpenTrace(context.Background(), path, 0)
	require.NoError(t, err)
	_, err = gate.Run(context.Background(), p, cfg)
	assert.EqualError(t, err, want, "Run")
	assert.NoError(t, cfg.Validate(gate.SpecPolicy(kit.Spec{Strategy: kit.Full})), "a spec's devices are the checks' to choose")
}
