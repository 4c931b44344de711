//go:build unix

package execpolicy

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAskFresh checks that each device is asked of a process of its own,
// with its own environment, that at most atOnce of them run at a time, and
// that the replies come back in the order of the devices.
func TestAskFresh(t *testing.T) {
	dir := t.TempDir()
	// Each process marks itself live, counts the live ones and answers
	// that count beside its DELAY; a count can only undercount the
	// processes alive, so the bound it shows holds whatever the timing.
	command := fmt.Sprintf(`read -r line; touch '%[1]s'/$$; n=$(ls '%[1]s' | wc -l); sleep 0.05; rm '%[1]s'/$$; echo "[$DELAY, $n]"`, dir)
	var asks []Fresh
	for i := range 12 {
		asks = append(asks, Fresh{Device: fmt.Sprintf("dev-%d", i), Env: []string{fmt.Sprintf("DELAY=%d", i)}})
	}
	const atOnce = 3
	replies, err := AskFresh(context.Background(), command, Options{}, asks, 2, atOnce)
	require.NoError(t, err)
	require.Len(t, replies, len(asks))
	for i, r := range replies {
		require.Len(t, r, 2)
		assert.Equal(t, float64(i), r[0], "the reply of device %d", i)
		assert.LessOrEqual(t, r[1], float64(atOnce), "live processes seen by device %d", i)
	}
}

// TestAskFreshProtocolError checks that a process that breaks the protocol
// fails the whole call with its device and line, including a line too many
// that only closing the process finds, naming the device.
func TestAskFreshProtocolError(t *testing.T) {
	tests := []struct {
		name    string
		command string
		want    string
	}{{
		name:    "garbage",
		command: `read -r line; if [ "$BAD" = 1 ]; then echo hello; else echo '[0.1]'; fi`,
		want:    `device "dev-3": the reply is not a JSON array of numbers: "hello"`,
	}, {
		name:    "a line too many",
		command: `read -r line; echo '[0.1]'; if [ "$BAD" = 1 ]; then echo '[0.2]'; fi`,
		// Caught as it arrives, or by Close: the words depend on which.
		want: `device "dev-3"`,
	}, {
		name:    "exits without answering",
		command: `read -r line; if [ "$BAD" = 1 ]; then exit 4; fi; echo '[0.1]'`,
		want:    `device "dev-3": it exited (exit status 4) without answering`,
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var asks []Fresh
			for i := range 8 {
				a := Fresh{Device: fmt.Sprintf("dev-%d", i)}
				if i == 3 {
					a.Env = []string{"BAD=1"}
				}
				asks = append(asks, a)
			}
			replies, err := AskFresh(context.Background(), tc.command, Options{}, asks, 1, 2)
			assert.Nil(t, replies)
			var pe *ProtocolError
			require.True(t, errors.As(err, &pe), "%v", err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// TestAskFreshCanceled checks that the end of the context stops the
// processes and is the error, never a reply.
func TestAskFreshCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	asks := []Fresh{{Device: "dev-0"}, {Device: "dev-1"}}
	replies, err := AskFresh(ctx, `read -r line; echo '[0.1]'`, Options{}, asks, 1, 1)
	assert.Nil(t, replies)
	require.ErrorIs(t, err, context.Canceled)
}
