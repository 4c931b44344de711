//go:build unix

package execpolicy

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/kit"
)

// TestKeptBytes checks that keptBytes counts at least the memory a kept
// reply takes, on the heap after a collection, at sizes of the map just
// after it grew (where its spare slots are the most) and between.
func TestKeptBytes(t *testing.T) {
	for _, n := range []int{1000, 61_416, 100_000, 121_590} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			k := &kept{room: 1 << 40, replies: make(map[keptKey][]float64)}
			var counted int64
			for i := range n {
				id := fmt.Sprintf("dev-5f0e2a91-%07d", i)
				d := make([]float64, DefaultAttempts)
				k.put(id, DefaultAttempts, d)
				counted += keptBytes(id, d)
			}
			runtime.GC()
			runtime.ReadMemStats(&after)
			taken := int64(after.HeapAlloc) - int64(before.HeapAlloc)
			runtime.KeepAlive(k)
			assert.LessOrEqual(t, taken, counted, "the heap taken by %d kept replies; want at most what keptBytes counts", n)
		})
	}
}

// TestReusing checks that a Reusing factory asks the program each request
// once, while the replies fit in its budget, and that Factory still asks
// every time: the program logs each request, and answers each device with
// a delay of its own.
func TestReusing(t *testing.T) {
	reply := keptBytes("dev-1", make([]float64, 0, 4))
	tests := []struct {
		name   string
		budget int64
		asks   []string // the devices' requests, in order
		want   []string // the requests that reach the program
	}{{
		name:   "each request once",
		budget: 1 << 20,
		asks:   []string{"dev-1", "dev-2", "dev-1", "dev-2", "dev-1"},
		want:   []string{"dev-1", "dev-2"},
	}, {
		name:   "a budget of one reply keeps the first",
		budget: reply,
		asks:   []string{"dev-1", "dev-2", "dev-1", "dev-2"},
		want:   []string{"dev-1", "dev-2", "dev-2"},
	}, {
		name:   "no budget keeps nothing",
		budget: 0,
		asks:   []string{"dev-1", "dev-1"},
		want:   []string{"dev-1", "dev-1"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			log := filepath.Join(t.TempDir(), "requests")
			p := start(t, `exec python3 -c '
import json, sys
log = open(sys.argv[1], "w")
for line in sys.stdin:
    req = json.loads(line)
    log.write(req["device"] + "\n"); log.flush()
    n = int(req["device"][len("dev-"):])
    print(json.dumps([float(n)] * req["attempts"]), flush=True)
' `+log, Options{Attempts: 4})
			f := p.Reusing(tt.budget)
			for _, id := range tt.asks {
				// Each device uses one delay, and asks no more.
				d, err := f(kit.Device{ID: id}).Next()
				require.NoError(t, err, "%s: Next()", id)
				n := id[len("dev-"):]
				assert.Equal(t, n+"s", d.String(), "%s: the delay", id)
			}
			require.NoError(t, p.Close(), "Close()")
			got, err := os.ReadFile(log)
			require.NoError(t, err)
			assert.Equal(t, strings.Join(tt.want, "\n")+"\n", string(got), "the requests the program read")
		})
	}
}

// TestReusingFresh checks that Factory asks the program every time, beside
// a Reusing factory of the same program, so that a program whose answers
// change (here, a counter of its requests) is seen to change.
func TestReusingFresh(t *testing.T) {
	p := start(t, `n=0; while read -r line; do n=$((n+1)); echo "[$n]"; done`, Options{})
	reusing, fresh := p.Reusing(1<<20), p.Factory()
	delay := func(f kit.Factory) time.Duration {
		d, err := f(kit.Device{ID: "dev-000017"}).Next()
		require.NoError(t, err)
		return d
	}
	assert.Equal(t, time.Second, delay(reusing), "the first reply")
	assert.Equal(t, 2*time.Second, delay(fresh), "Factory asks again")
	assert.Equal(t, time.Second, delay(reusing), "Reusing reuses the first reply")
	assert.Equal(t, 3*time.Second, delay(fresh), "Factory asks again")
	require.NoError(t, p.Close())
}

// TestReusingAfterFailure checks that a kept reply does not hide a program
// that failed: every request fails with its protocol error.
func TestReusingAfterFailure(t *testing.T) {
	p := start(t, `read -r line; echo '[1]'; read -r line; echo oops; cat >/dev/null`, Options{})
	f := p.Reusing(1 << 20)
	_, err := f(kit.Device{ID: "dev-1"}).Next()
	require.NoError(t, err, "the first reply")
	_, err = f(kit.Device{ID: "dev-2"}).Next()
	require.Error(t, err, "the malformed reply")
	_, err = f(kit.Device{ID: "dev-1"}).Next()
	assert.Equal(t, p.Err(), err, "a kept request after the program failed")
}
