package loop_test

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/loop"
	"github.com/jitterkit/jitterkit/testdata/kittest"
)

// noDNS is a resolver that reads the system's configuration as the
// default one does, and whose DNS queries fail at once: a lookup of a
// name that /etc/hosts does not hold goes as far as the network without
// reaching it.
var noDNS = &net.Resolver{PreferGo: true, Dial: func(context.Context, string, string) (net.Conn, error) {
	return nil, errors.New("no DNS server in this test")
}}

// TestALoopThatUsesTheNetwork runs loops that resolve names or dial a
// loopback listener before they retry, as a client library does when it
// is made (go-redis's NewClient dials its address), on two devices, and
// then live, and resolves a name outside every bubble after them. Package
// net makes its resolver's state on the first lookup, with channels that
// every later lookup uses: made in the first device's bubble, they would
// be sent on from the second's, a fatal error of the runtime that ends the
// test binary. Each case runs in a process of its own, whose first lookup
// is the loop's.
func TestALoopThatUsesTheNetwork(t *testing.T) {
	cases := []struct {
		name string
		call func(ctx context.Context, addr string) error
	}{
		{"LookupHost of localhost", func(ctx context.Context, _ string) error {
			_, err := net.DefaultResolver.LookupHost(ctx, "localhost")
			return err
		}},
		{"LookupHost of a name", func(ctx context.Context, _ string) error {
			_, err := noDNS.LookupHost(ctx, "redis.jitterkit.invalid")
			if err == nil {
				return errors.New("resolved a name under .invalid")
			}
			return nil
		}},
		{"Dial of localhost", func(ctx context.Context, addr string) error {
			_, port, _ := net.SplitHostPort(addr)
			c, err := net.Dial("tcp", net.JoinHostPort("localhost", port))
			if err == nil {
				c.Close()
			}
			return err
		}},
		{"Dial of 127.0.0.1", func(ctx context.Context, addr string) error {
			c, err := (&net.Dialer{Timeout: time.Minute}).DialContext(ctx, "tcp", addr)
			if err == nil {
				c.Close()
			}
			return err
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !kittest.InChild(t) {
				out, failed := kittest.RunChild(t, "-test.timeout=2m")
				assert.NotContains(t, out, "fatal error")
				assert.False(t, failed, "the child failed:\n%s", out)
				return
			}
			l, err := net.Listen("tcp", "127.0.0.1:0")
			require.NoError(t, err)
			t.Cleanup(func() { l.Close() })
			go func() {
				for {
					conn, err := l.Accept()
					if err != nil {
						return
					}
					conn.Close()
				}
			}()
			client := func(ctx context.Context, op func(context.Context) error) error {
				if err := c.call(ctx, l.Addr().String()); err != nil {
					return err
				}
				for i := 0; ; i++ {
					if op(ctx) == nil {
						return nil
					}
					time.Sleep(time.Duration(i+1) * time.Second)
				}
			}
			f := loop.Factory(t, each(client), loop.Config{MaxDelays: 3})
			for _, id := range []string{"dev-1", "dev-2"} {
				got, err := kit.Delays(f(kit.Device{ID: id}), 3)
				require.NoError(t, err, "device %s", id)
				assert.Equal(t, []time.Duration{time.Second, 2 * time.Second, 3 * time.Second}, got, "device %s", id)
			}
			got, err := drive(t, f(kit.Device{ID: "dev-3"}), []kit.Outcome{kit.Rejection, kit.Rejection})
			require.NoError(t, err)
			assert.Equal(t, []time.Duration{time.Second, 2 * time.Second}, got)
			_, err = net.DefaultResolver.LookupHost(t.Context(), "localhost")
			assert.NoError(t, err, "a lookup outside every bubble, after them")
		})
	}
}
