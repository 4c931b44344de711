//go:build unix

package gate_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/reports/gate"
)

// TestExecPolicy starts exec programs as gate policies: one that answers
// gives its delays from the first process and from the one Again starts;
// one that breaks the protocol is named by Err and by Close; one that stays
// silent past its timeout wraps ErrExecTimeout.
func TestExecPolicy(t *testing.T) {
	ctx := context.Background()
	p, err := gate.ExecPolicy(ctx, `while read -r line; do echo '[0.1, 0.2]'; done`, 0)
	require.NoError(t, err)
	assert.Equal(t, kit.SourceExec, p.Source)
	for _, f := range []func() (kit.Factory, error){func() (kit.Factory, error) { return p.Factory, nil }, p.Again} {
		fac, err := f()
		require.NoError(t, err)
		delays, err := kit.Delays(fac(kit.Device{ID: "dev-000017"}), 5)
		require.NoError(t, err)
		assert.Equal(t, []time.Duration{100 * time.Millisecond, 200 * time.Millisecond}, delays)
	}
	assert.NoError(t, p.Err())
	assert.NoError(t, p.Close())
	assert.NoError(t, p.Close(), "a second Close")

	p, err = gate.ExecPolicy(ctx, `while read -r line; do echo hello; done`, 0)
	require.NoError(t, err)
	_, err = p.Factory(kit.Device{ID: "dev-000017"}).Next()
	require.Error(t, err)
	assert.EqualError(t, p.Err(), `exec "while read -r line; do echo hello; done": device "dev-000017": the reply is not a JSON array of numbers: "hello"`)
	assert.EqualError(t, p.Close(), p.Err().Error())

	p, err = gate.ExecPolicy(ctx, `while read -r line; do :; done`, 100*time.Millisecond)
	require.NoError(t, err)
	_, err = p.Factory(kit.Device{ID: "dev-000017"}).Next()
	assert.True(t, errors.Is(err, gate.ErrExecTimeout), "the error of a silent program %v wraps ErrExecTimeout", err)
	p.Close()
}
