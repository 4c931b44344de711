package sim

import (
	"container/heap"
	"errors"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/kit"
)

// oracleContention replays run number run, of seed seed, of the
// contention c the obvious way, as the reference for contentionEngine:
// the simulator's structure, a server and clients exchanging messages,
// each message one event in a container/heap ordered by arrival time and
// then client, handled by the function it is sent to.
func oracleContention(c contention, f kit.Factory, run int, seed uint64) (contentionRun, error) {
	if err := c.validate(); err != nil {
		return contentionRun{}, err
	}
	rng := rand.New(rand.NewPCG(seed, splitmix64(seed)))
	net := func() int64 {
		return int64(math.Round(math.Abs(float64(c.NetMean) + float64(c.NetSD)*rng.NormFloat64())))
	}
	horizon := int64(c.Horizon)
	boot := bootTime(seed)
	r := contentionRun{Seed: seed}
	version := uint64(0)

	type client struct {
		attempts int
		policy   kit.Policy
	}
	clients := make([]client, c.Clients)
	if f != nil {
		for i := range clients {
			p, cause, err := makePolicy(f, kit.Device{ID: deviceID(seed, i), Boot: boot})
			if err != nil {
				return contentionRun{}, contentionError(run, seed, deviceID(seed, i), i, 0, 0, cause, err)
			}
			clients[i].policy = p
		}
	}

	var q ctOracleQueue
	var fail error
	send := func(t int64, i int, to func(t int64, i int, payload uint64), payload uint64) {
		heap.Push(&q, ctOracleMsg{t: t, client: i, to: to, payload: payload})
	}
	var readReply, writeReply func(t int64, i int, payload uint64)
	// The server.
	read := func(t int64, i int, _ uint64) {
		r.Reads++
		send(t+net(), i, readReply, version)
	}
	write := func(t int64, i int, v uint64) {
		r.Calls++
		ok := uint64(0)
		if v == version {
			version++
			ok = 1
		} else {
			r.Failures++
		}
		send(t+net(), i, writeReply, ok)
	}
	// The clients.
	readReply = func(t int64, i int, v uint64) {
		send(t+net(), i, write, v)
	}
	writeReply = func(t int64, i int, ok uint64) {
		if ok == 1 {
			r.Successes++
			r.LastSuccess = time.Duration(t)
			return
		}
		cl := &clients[i]
		n := net()
		var d time.Duration
		if cl.policy != nil {
			var err error
			d, err = callPolicy(cl.policy)
			if err == nil && d < 0 {
				err = negativeDelay(d)
			}
			switch {
			case errors.Is(err, kit.ErrStop):
				r.Stopped++
				return
			case err != nil:
				fail = contentionError(run, seed, deviceID(seed, i), i, cl.attempts+1, t, causeOf(err), err)
				return
			}
		}
		at := time.Duration(t+n) + d
		if t+n >= horizon || d >= time.Duration(horizon-t-n) {
			r.Unfinished++
			return
		}
		cl.attempts++
		send(int64(at), i, read, 0)
	}
	for i := range clients {
		clients[i].attempts = 1
		send(net(), i, read, 0)
	}
	for q.Len() > 0 && fail == nil {
		m := heap.Pop(&q).(ctOracleMsg)
		if m.t >= horizon {
			r.Unfinished += 1 + q.Len()
			break
		}
		r.Events++
		m.to(m.t, m.client, m.payload)
	}
	if fail != nil {
		return contentionRun{}, fail
	}
	return r, nil
}

type ctOracleMsg struct {
	t       int64
	client  int
	to      func(t int64, client int, payload uint64)
	payload uint64
}

type ctOracleQueue []ctOracleMsg

func (q ctOracleQueue) Len() int { return len(q) }
func (q ctOracleQueue) Less(i, j int) bool {
	return q[i].t < q[j].t || q[i].t == q[j].t && q[i].client < q[j].client
}
func (q ctOracleQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *ctOracleQueue) Push(x any)   { *q = append(*q, x.(ctOracleMsg)) }
func (q *ctOracleQueue) Pop() any {
	old := *q
	m := old[len(old)-1]
	*q = old[:len(old)-1]
	return m
}

// fixedDelays is a policy of the given delays, then kit.ErrStop.
type fixedDelays []time.Duration

func (p *fixedDelays) Next() (time.Duration, error) {
	if len(*p) == 0 {
		return 0, kit.ErrStop
	}
	d := (*p)[0]
	*p = (*p)[1:]
	return d, nil
}

func fixedFactory(ds ...time.Duration) kit.Factory {
	return func(kit.Device) kit.Policy {
		p := fixedDelays(append([]time.Duration(nil), ds...))
		return &p
	}
}

func replayContention(t *testing.T, c contention, f kit.Factory, seed uint64) contentionRun {
	t.Helper()
	e, err := newContentionEngine(c, f)
	require.NoError(t, err)
	r, err := e.replay(0, seed)
	require.NoError(t, err)
	o, err := oracleContention(c, f, 0, seed)
	require.NoError(t, err)
	require.Equal(t, o, r, "engine and oracle differ")
	return r
}

// TestContentionHandChecked checks runs worked out by hand, with fixed
// network delays (NetSD 0).
func TestContentionHandChecked(t *testing.T) {
	ms := time.Millisecond
	fixed := contention{Clients: 1, NetMean: 10 * ms, Horizon: time.Hour}

	t.Run("one client", func(t *testing.T) {
		// The read reaches the server at 10ms, its reply the client at
		// 20ms, the write the server at 30ms, its reply at 40ms.
		r := replayContention(t, fixed, nil, 1)
		assert.Equal(t, contentionRun{Seed: 1, Calls: 1, Reads: 1, Successes: 1, LastSuccess: 40 * ms, Events: 4}, r)
	})

	t.Run("two clients, one conflict", func(t *testing.T) {
		// Both read version 0 at 10ms; both writes reach the server at
		// 30ms, client 0's first: it succeeds (version 1), client 1's
		// fails. Client 1 learns so at 40ms, backs off 7ms, reads version
		// 1 at 57ms, writes at 77ms and learns its success at 87ms.
		c := fixed
		c.Clients = 2
		r := replayContention(t, c, fixedFactory(7*ms), 1)
		assert.Equal(t, contentionRun{Seed: 1, Calls: 3, Failures: 1, Reads: 3, Successes: 2, LastSuccess: 87 * ms, Events: 12}, r)
		// Without backoff, it reads again at 50ms.
		r = replayContention(t, c, nil, 1)
		assert.Equal(t, contentionRun{Seed: 1, Calls: 3, Failures: 1, Reads: 3, Successes: 2, LastSuccess: 80 * ms, Events: 12}, r)
		// The simulator's exponential backoff first waits twice its base.
		r = replayContention(t, c, awsBackoff(awsExponential, 5*ms, 2*time.Second), 1)
		assert.Equal(t, 90*ms, r.LastSuccess)
	})

	t.Run("three clients without backoff", func(t *testing.T) {
		// All read version 0 at 10ms and write at 30ms: client 0 wins.
		// Clients 1 and 2 read version 1 at 50ms and write at 70ms:
		// client 1 wins. Client 2 reads version 2 at 90ms, and learns its
		// success at 120ms. Writes: 3+2+1.
		c := fixed
		c.Clients = 3
		r := replayContention(t, c, nil, 1)
		assert.Equal(t, contentionRun{Seed: 1, Calls: 6, Failures: 3, Reads: 6, Successes: 3, LastSuccess: 120 * ms, Events: 24}, r)
	})

	t.Run("a client gives up", func(t *testing.T) {
		c := fixed
		c.Clients = 2
		r := replayContention(t, c, fixedFactory(), 1)
		assert.Equal(t, contentionRun{Seed: 1, Calls: 2, Failures: 1, Reads: 2, Successes: 1, Stopped: 1, LastSuccess: 40 * ms, Events: 8}, r)
	})

	t.Run("horizon", func(t *testing.T) {
		// Client 1's next read would reach the server at 40ms+10ms+1h.
		c := fixed
		c.Clients = 2
		r := replayContention(t, c, fixedFactory(time.Hour), 1)
		assert.Equal(t, contentionRun{Seed: 1, Calls: 2, Failures: 1, Reads: 2, Successes: 1, Unfinished: 1, LastSuccess: 40 * ms, Events: 8}, r)
		// A horizon of 35ms cuts both clients' write replies.
		c.Horizon = 35 * ms
		r = replayContention(t, c, nil, 1)
		assert.Equal(t, contentionRun{Seed: 1, Calls: 2, Failures: 1, Reads: 2, Unfinished: 2, Events: 6}, r)
	})
}

// TestContentionMatchesOracle replays several seeds, client counts and
// policies on the engine and on the oracle, and compares every figure.
func TestContentionMatchesOracle(t *testing.T) {
	ms := time.Millisecond
	factories := map[string]kit.Factory{
		"none":      nil,
		"kit-full":  kit.Spec{Strategy: kit.Full, Base: 5 * ms, Cap: 2 * time.Second}.Factory(),
		"kit-equal": general(kit.Spec{Strategy: kit.Equal, Base: 5 * ms, Cap: 2 * time.Second}.Factory()),
		"stops":     fixedFactory(1*ms, 0, 3*ms),
	}
	for s := awsExponential; s <= awsDecorrelated; s++ {
		factories["aws-"+s.String()] = awsBackoff(s, defaultContentionBase, defaultContentionCap)
	}
	for name, f := range factories {
		for _, n := range []int{1, 2, 3, 10, 57} {
			for _, net := range []struct{ mean, sd time.Duration }{{10 * ms, 2 * ms}, {10 * ms, 0}, {time.Microsecond, 3 * time.Microsecond}} {
				c := contention{Clients: n, NetMean: net.mean, NetSD: net.sd, Horizon: time.Hour}
				e, err := newContentionEngine(c, f)
				require.NoError(t, err)
				for run := range 4 {
					seed := runSeed(7, run)
					r, err := e.replay(run, seed)
					require.NoError(t, err)
					o, err := oracleContention(c, f, run, seed)
					require.NoError(t, err)
					require.Equal(t, o, r, "%s, %d clients, %v", name, n, net)
					require.Equal(t, n, r.Successes+r.Stopped+r.Unfinished)
				}
			}
		}
	}
}

// TestContentionPolicyErrors checks that a failing factory or policy stops
// the run with a DeviceError, the same on the engine and the oracle.
func TestContentionPolicyErrors(t *testing.T) {
	c := contention{Clients: 3, NetMean: 10 * time.Millisecond, Horizon: time.Hour}
	for _, tc := range []struct {
		name    string
		f       kit.Factory
		attempt int
		cause   StopCause
	}{
		{"nil policy", func(kit.Device) kit.Policy { return nil }, 0, StopSourceError},
		{"factory panics", func(kit.Device) kit.Policy { panic("no") }, 0, StopPanic},
		{"negative", failingFactory(1, func() (time.Duration, error) { return -1, nil }), 2, StopBadDelay},
		{"panics", failingFactory(1, func() (time.Duration, error) { panic("boom") }), 2, StopPanic},
		{"fails", failingFactory(1, func() (time.Duration, error) { return 0, errors.New("source") }), 2, StopSourceError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, err := newContentionEngine(c, tc.f)
			require.NoError(t, err)
			_, err = e.replay(3, 9)
			var de *DeviceError
			require.ErrorAs(t, err, &de)
			assert.Equal(t, tc.attempt, de.Attempt)
			assert.Equal(t, tc.cause, de.Cause)
			want := deviceID(9, 0)
			if tc.attempt > 0 {
				want = deviceID(9, 1) // client 0 succeeds; client 1 fails first
			}
			assert.Equal(t, want, de.Device)
			_, oerr := oracleContention(c, tc.f, 3, 9)
			assert.Equal(t, err.Error(), oerr.Error())
		})
	}
}

func TestContentionValidate(t *testing.T) {
	assert.NoError(t, defaultContention().validate())
	for _, c := range []contention{
		{Clients: 0, Horizon: time.Hour},
		{Clients: maxContentionClients + 1, Horizon: time.Hour},
		{Clients: 1, NetMean: -1, Horizon: time.Hour},
		{Clients: 1, NetSD: 2 * time.Hour, Horizon: time.Hour},
		{Clients: 1},
		{Clients: 1, Horizon: maxHorizon + 1},
	} {
		_, err := newContentionEngine(c, nil)
		var ce *kit.ConfigError
		assert.ErrorAs(t, err, &ce, "%+v", c)
	}
}

// TestAWSBackoff checks the simulator's strategies' delays from its
// attempt counter: expo(n) = min(cap, 2ⁿ·base) from n = 1.
func TestAWSBackoff(t *testing.T) {
	ms := time.Millisecond
	dev := kit.Device{ID: "dev-1"}
	assert.Nil(t, awsBackoff(awsNone, 5*ms, 2*time.Second))
	ds, err := kit.Delays(awsBackoff(awsExponential, 5*ms, 2*time.Second)(dev), 10)
	require.NoError(t, err)
	assert.Equal(t, []time.Duration{10 * ms, 20 * ms, 40 * ms, 80 * ms, 160 * ms, 320 * ms, 640 * ms, 1280 * ms, 2000 * ms, 2000 * ms}, ds)
	for _, s := range []awsStrategy{awsFullJitter, awsEqualJitter, awsDecorrelated} {
		p := awsBackoff(s, 5*ms, 2*time.Second)(dev)
		sleep := 5 * ms
		for n := 1; n <= 2000; n++ {
			d, err := p.Next()
			require.NoError(t, err)
			v := min(2*time.Second, 5*ms<<min(n, 20))
			switch s {
			case awsFullJitter:
				assert.True(t, d >= 0 && d <= v, "%v %d: %v", s, n, d)
			case awsEqualJitter:
				assert.True(t, d >= v/2 && d <= v, "%v %d: %v", s, n, d)
			case awsDecorrelated:
				assert.True(t, d >= 5*ms && d <= min(2*time.Second, 3*sleep), "%v %d: %v", s, n, d)
				sleep = d
			}
		}
	}
	// The same device draws the same delays.
	a, _ := kit.Delays(awsBackoff(awsFullJitter, 5*ms, 2*time.Second)(dev), 5)
	b, _ := kit.Delays(awsBackoff(awsFullJitter, 5*ms, 2*time.Second)(dev), 5)
	assert.Equal(t, a, b)
}

// TestContentionPublishedShape replays 30 runs of 100 clients with each of
// the simulator's strategies and checks the shape the blog published:
// without backoff the clients make the most calls; jitter roughly halves
// the calls of exponential backoff without jitter, and full jitter makes
// the fewest; exponential backoff without jitter takes the longest. The
// means over runSeed(1, 0..29), calls and time to the last success:
//
//	None         2427.2   2.016s
//	Exponential  1870.8  64.061s
//	FullJitter    796.7   4.947s
//	EqualJitter   812.0   6.642s
//	Decorr        996.5   4.586s
func TestContentionPublishedShape(t *testing.T) {
	const runs = 30
	c := defaultContention()
	calls := map[awsStrategy]float64{}
	times := map[awsStrategy]time.Duration{}
	for s := awsNone; s <= awsDecorrelated; s++ {
		e, err := newContentionEngine(c, awsBackoff(s, defaultContentionBase, defaultContentionCap))
		require.NoError(t, err)
		var sumCalls int
		var sumTime time.Duration
		for run := range runs {
			r, err := e.replay(run, runSeed(1, run))
			require.NoError(t, err)
			require.Equal(t, c.Clients, r.Successes)
			sumCalls += r.Calls
			sumTime += r.LastSuccess
		}
		calls[s] = float64(sumCalls) / runs
		times[s] = sumTime / runs
		t.Logf("%-12v calls %7.1f  time to last success %v", s, calls[s], times[s].Round(time.Millisecond))
	}
	for _, s := range []awsStrategy{awsFullJitter, awsEqualJitter, awsDecorrelated} {
		assert.Less(t, calls[s], 0.65*calls[awsExponential], s)
		assert.Less(t, calls[awsFullJitter], calls[s]+1, s)
		assert.Less(t, times[s], times[awsExponential], s)
	}
	assert.Greater(t, calls[awsNone], calls[awsExponential])
}

// TestAWSBackoffSeed checks that a policy's generator is seeded with the
// FNV-1a hash of the device's id.
func TestAWSBackoffSeed(t *testing.T) {
	h := fnv.New64a()
	h.Write([]byte("dev-5f0e2a91-0000017"))
	seed := h.Sum64()
	p := awsBackoff(awsFullJitter, time.Millisecond, time.Second)(kit.Device{ID: "dev-5f0e2a91-0000017"}).(*awsPolicy)
	want := rand.NewPCG(seed, splitmix64(seed))
	assert.Equal(t, *want, p.pcg)
}

// TestPow2 holds pow2 to math.Pow(2, n), bit for bit, over every n a
// policy's attempt counter can reach before 2ⁿ overflows, and past it.
func TestPow2(t *testing.T) {
	for n := range 1100 {
		require.Equal(t, math.Float64bits(math.Pow(2, float64(n))), math.Float64bits(pow2(n)), "n=%d", n)
	}
}

// TestRoundUp holds roundUp to math.Round, bit for bit, at the edges of a
// half (the largest double below a half, a half, the halves where the
// spacing of doubles reaches one) and at a million random delays.
func TestRoundUp(t *testing.T) {
	xs := []float64{0, 0.25, math.Nextafter(0.5, 0), 0.5, 1.5, 2.5, 1 << 23, 1<<23 - 0.5,
		math.Nextafter(1<<23-0.5, 0), 1<<52 - 0.5, 1 << 52, 1<<53 + 2, 1 << 62}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 1_000_000 {
		xs = append(xs, math.Abs(1e7+2e6*rng.NormFloat64()), rng.Float64()*float64(time.Hour)*13)
	}
	for _, x := range xs {
		require.Equal(t, int64(math.Round(x)), roundUp(x), "x=%v", x)
	}
}
