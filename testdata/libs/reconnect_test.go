package libs

import (
	"bufio"
	"context"
	"errors"
	"net"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"
	"github.com/eclipse/paho.mqtt.golang/packets"
	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/loop"
)

// Clients that reconnect on their own, observed by the loop adapter under
// a fake clock of each device's own. Their servers live in memory, inside
// the device's bubble: a net.Pipe for the one connection that succeeds,
// and a dialer that calls op and fails for every attempt after the server
// goes down. No socket is opened and no name is looked up, so nothing a
// device does waits on the world outside its bubble.

// grpcWaitingLoop is a gRPC client with its default options whose server
// refuses every connection, and one RPC that waits for the server
// (grpc.WaitForReady), as a device that cannot work without it does: the
// waiting RPC keeps the channel out of idleness, so grpc-go reconnects with
// its connection backoff for as long as the device waits. Each dial calls
// op; the first is the device's attempt at t0.
func grpcWaitingLoop(ctx context.Context, op func(context.Context) error) error {
	var dials atomic.Int64
	cc, err := newGRPCClient(op, &dials)
	if err != nil {
		return err
	}
	defer cc.Close()
	_, err = healthpb.NewHealthClient(cc).Check(ctx, &healthpb.HealthCheckRequest{}, grpc.WaitForReady(true))
	return err
}

// A downServer is an in-memory server that accepts the first connection,
// lets handshake complete it, and then goes down: it closes that
// connection and refuses every later one. The moment it drops the
// connection is t0 of the fleet's failure.
type downServer struct {
	// handshake speaks the server's side of the protocol on the first
	// connection until the client is connected.
	handshake func(server net.Conn) error

	mu    sync.Mutex
	dials int
}

// dial is the client's dialer: the first call returns the client's end of
// a pipe whose server end runs handshake and then closes; every later call
// calls op, the attempt the adapter records, and fails with errRefused.
func (s *downServer) dial(ctx context.Context, op func(context.Context) error) (net.Conn, error) {
	s.mu.Lock()
	s.dials++
	first := s.dials == 1
	s.mu.Unlock()
	if !first {
		if err := op(ctx); errors.Is(err, context.Canceled) {
			return nil, err
		}
		return nil, errRefused
	}
	client, server := net.Pipe()
	go func() {
		defer server.Close()
		if s.handshake(server) != nil {
			return
		}
		// The connection stays up for a moment of the fake clock before
		// the server goes down, so that the client has finished
		// connecting when it loses the connection.
		time.Sleep(time.Second)
	}()
	return client, nil
}

// mqttHandshake is an MQTT broker's side of a connection: it reads CONNECT
// and accepts it.
func mqttHandshake(server net.Conn) error {
	if _, err := packets.ReadPacket(server); err != nil {
		return err
	}
	ack := packets.NewControlPacket(packets.Connack).(*packets.ConnackPacket)
	ack.ReturnCode = packets.Accepted
	return ack.Write(server)
}

// pahoLoop is an eclipse/paho.mqtt.golang client with the default options
// (AutoReconnect on, MaxReconnectInterval 10 minutes), plus opts, whose
// broker accepts its connection and then goes down. The connection lost
// is the device's attempt at t0 (op is called from the client's
// connection-lost handler), and every reconnection attempt after it dials
// the broker and calls op.
func pahoLoop(opts func(*mqtt.ClientOptions)) loop.Loop {
	return func(ctx context.Context, op func(context.Context) error) error {
		broker := &downServer{handshake: mqttHandshake}
		o := mqtt.NewClientOptions().AddBroker("tcp://192.0.2.1:1883").SetClientID("device")
		o.SetCustomOpenConnectionFn(func(*url.URL, mqtt.ClientOptions) (net.Conn, error) {
			return broker.dial(ctx, op)
		})
		o.SetConnectionLostHandler(func(mqtt.Client, error) { _ = op(ctx) })
		if opts != nil {
			opts(o)
		}
		c := mqtt.NewClient(o)
		if tok := c.Connect(); tok.Wait() && tok.Error() != nil {
			return tok.Error()
		}
		<-ctx.Done()
		c.Disconnect(0)
		return ctx.Err()
	}
}

// natsHandshake is a NATS server's side of a connection: it sends INFO,
// reads the client's CONNECT, and answers its PING.
func natsHandshake(server net.Conn) error {
	const info = `INFO {"server_id":"jitterkit","version":"2.10.0","proto":1,"max_payload":1048576}` + "\r\n"
	if _, err := server.Write([]byte(info)); err != nil {
		return err
	}
	r := bufio.NewReader(server)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return err
		}
		if strings.HasPrefix(line, "PING") {
			_, err := server.Write([]byte("PONG\r\n"))
			return err
		}
	}
}

// natsDialer is a nats.CustomDialer onto a downServer.
type natsDialer struct {
	server *downServer
	ctx    context.Context
	op     func(context.Context) error
}

func (d natsDialer) Dial(_, _ string) (net.Conn, error) { return d.server.dial(d.ctx, d.op) }

// natsLoop is a nats.go connection with the default options (ReconnectWait
// 2s, ReconnectJitter 100ms, MaxReconnects 60), plus opts, whose server
// accepts it and then goes down. The disconnection is the device's attempt
// at t0 (op is called from the connection's disconnect handler), and every
// reconnection attempt after it dials the server and calls op. The loop
// returns when the connection closes, having given up.
func natsLoop(opts ...nats.Option) loop.Loop {
	return func(ctx context.Context, op func(context.Context) error) error {
		closed := make(chan struct{})
		all := append([]nats.Option{
			nats.SetCustomDialer(natsDialer{server: &downServer{handshake: natsHandshake}, ctx: ctx, op: op}),
			nats.DisconnectErrHandler(func(*nats.Conn, error) { _ = op(ctx) }),
			nats.ClosedHandler(func(*nats.Conn) { close(closed) }),
		}, opts...)
		// An address, not a name: a name would be looked up, and the
		// resolver keeps state of its own outside any one bubble.
		nc, err := nats.Connect("nats://192.0.2.1:4222", all...)
		if err != nil {
			return err
		}
		select {
		case <-closed:
			return nats.ErrNoServers
		case <-ctx.Done():
			nc.Close()
			<-closed
			return ctx.Err()
		}
	}
}

// perDevice returns loops as a function of the device, for loop.Factory.
func perDevice(l loop.Loop) func(kit.Device) loop.Loop {
	return func(kit.Device) loop.Loop { return l }
}

// The observed schedules are the libraries' own: paho dials again at
// once, then doubles from 1s to its MaxReconnectInterval; nats waits
// ReconnectWait plus up to ReconnectJitter before each dial; grpc-go,
// with an RPC waiting, backs off from 1s by 1.6 ±20% to 120s, as it does
// with idleness turned off (TestLoopGRPCConnectionBackoff).
func TestReconnectSchedules(t *testing.T) {
	delays := func(l loop.Loop, n int) []time.Duration {
		f := loop.Factory(t, perDevice(l), loop.Config{})
		got, err := kit.Delays(f(kit.Device{ID: "dev-000001"}), n)
		require.NoError(t, err)
		return got
	}

	s := time.Second
	assert.Equal(t, []time.Duration{0, s, 2 * s, 4 * s, 8 * s, 16 * s, 32 * s, 64 * s, 128 * s, 256 * s, 512 * s, 600 * s, 600 * s},
		delays(pahoLoop(nil), 13), "paho: at once, then 1s doubling to MaxReconnectInterval (10m)")

	for i, d := range delays(natsLoop(), 10) {
		assert.True(t, d >= 2*s && d < 2*s+100*time.Millisecond, "nats delay %d = %v; want ReconnectWait 2s + [0, 100ms)", i+1, d)
	}
	assert.Equal(t, []time.Duration{2 * s, 2 * s, 2 * s}, delays(natsLoop(nats.ReconnectJitter(0, 0)), 3), "nats without jitter")

	got := delays(grpcWaitingLoop, 20)
	assert.Equal(t, s, got[0], "grpc's first backoff is BaseDelay, without jitter")
	for i, d := range got[12:] {
		assert.InDelta(t, 120, d.Seconds(), 24, "grpc delay %d at the cap: 120s ± 20%%", i+13)
	}
}

// nats gives up after MaxReconnects failed attempts, and the loop ends.
func TestReconnectNATSGivesUp(t *testing.T) {
	f := loop.Factory(t, perDevice(natsLoop(nats.MaxReconnects(3))), loop.Config{})
	got, err := kit.Delays(f(kit.Device{ID: "dev-000001"}), 10)
	require.NoError(t, err, "the loop returned on its own: the policy stops")
	assert.Len(t, got, 3, "the disconnection, then 3 attempts: 3 delays")
}
