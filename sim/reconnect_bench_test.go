package sim

import (
	"testing"
	"time"

	"github.com/jitterkit/jitterkit/kit"
)

// BenchmarkReconnect replays 30 runs of the default reconnect (full jitter
// from 1s, capped at 30s) per iteration, as one worker would, with the
// devices resetting on a drop (the broker never warms: about 720,000
// events a run) and counting it as a failure (about 50,000): "engine" on
// one reconnectEngine and "oracle" the reference replay. ns/event is the
// time per event of the model (connects sent and handled, sessions
// dropped, outcomes learned: the same count for both), and runs/s the runs
// replayed a second; their cpu- forms count the process's CPU time
// instead of the elapsed time.
//
//	go test -run='^$' -bench=Reconnect -benchtime=5x -count=3 -cpu=1 ./sim
func BenchmarkReconnect(b *testing.B) {
	const runs = 30
	spec := kit.Spec{Strategy: kit.Full, Base: time.Second, Cap: 30 * time.Second}.Factory()
	for _, od := range []onDrop{dropReset, dropContinue} {
		o := defaultReconnect()
		o.OnDrop = od
		for _, c := range []struct {
			name   string
			replay func(b *testing.B) func(int, uint64) (reconnectRun, error)
		}{
			{"engine", func(b *testing.B) func(int, uint64) (reconnectRun, error) {
				e, err := newReconnectEngine(o, spec)
				if err != nil {
					b.Fatal(err)
				}
				return e.replay
			}},
			{"oracle", func(*testing.B) func(int, uint64) (reconnectRun, error) {
				return func(run int, seed uint64) (reconnectRun, error) { return oracleReconnect(o, spec, run, seed) }
			}},
		} {
			b.Run(od.String()+"/"+c.name, func(b *testing.B) {
				benchModel(b, runs, c.replay(b), func(r reconnectRun) int { return r.events() })
			})
		}
	}
}
