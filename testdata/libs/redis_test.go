package libs

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/loop"
)

// redisLoop is a go-redis client (v9) with its default options whose
// every dial calls op and is refused, pinging its server until its context
// is cancelled. The server is named, not an address: NewClient resolves
// the name (to tell an internal endpoint from an external one) under the
// device's fake clock.
func redisLoop(ctx context.Context, op func(context.Context) error) error {
	c := redis.NewClient(&redis.Options{
		Addr: "redis.jitterkit.invalid:6379",
		Dialer: func(ctx context.Context, _, _ string) (net.Conn, error) {
			if err := op(ctx); errors.Is(err, context.Canceled) {
				return nil, err
			}
			return nil, errRefused
		},
	})
	defer c.Close()
	for ctx.Err() == nil {
		c.Ping(ctx)
	}
	return ctx.Err()
}

// go-redis's client resolves its server's name when it is made: under the
// loop adapter's fake clock, on several devices, it runs, and its own
// backoff between dials is what the devices wait. A Ping dials 5 times
// (DialerRetries) 100ms apart (DialerRetryTimeout, constant), and the
// next Ping dials again at once: go-redis does not retry a command whose
// connection could not be dialled.
func TestLoopRedisDials(t *testing.T) {
	const ms = time.Millisecond
	f := loop.Factory(t, each(redisLoop), loop.Config{MaxDelays: 12})
	for _, id := range []string{"dev-000001", "dev-000002"} {
		got, err := kit.Delays(f(kit.Device{ID: id}), 12)
		require.NoError(t, err, "device %s", id)
		assert.Equal(t, []time.Duration{100 * ms, 100 * ms, 100 * ms, 100 * ms, 0, 100 * ms, 100 * ms, 100 * ms, 100 * ms, 0, 100 * ms, 100 * ms}, got, "device %s", id)
	}
}
