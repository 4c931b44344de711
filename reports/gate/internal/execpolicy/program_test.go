//go:build unix

package execpolicy

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/kit"
)

// The tests must hold on a slow, loaded machine: a test that wants no
// timeout uses a generous one (generous), and a test that wants one uses a
// program that never answers with a short one (short). No test waits for
// something to happen by a deadline, except through the program's own
// Timeout.
const (
	generous = time.Minute
	short    = 300 * time.Millisecond
)

// start starts command with a generous timeout and a short grace, and
// closes it when the test ends.
func start(t *testing.T, command string, opt Options) *Program {
	t.Helper()
	return startContext(t, context.Background(), command, opt)
}

// startContext is start with a context.
func startContext(t *testing.T, ctx context.Context, command string, opt Options) *Program {
	t.Helper()
	if opt.Timeout == 0 {
		opt.Timeout = generous
	}
	if opt.Grace == 0 {
		opt.Grace = 100 * time.Millisecond
	}
	if opt.Dir == "" {
		opt.Dir = t.TempDir()
	}
	p, err := Start(ctx, command, opt)
	require.NoError(t, err, "Start(%q)", command)
	t.Cleanup(func() { p.Close() })
	return p
}

// next is one result of Policy.Next.
type next struct {
	d   time.Duration
	err string // "" for none
}

// drain calls Next up to n times and records what it returned, stopping
// after the first error.
func drain(p kit.Policy, n int) []next {
	var out []next
	for range n {
		d, err := p.Next()
		if err != nil {
			out = append(out, next{err: err.Error()})
			if !errors.As(err, new(*kit.DelayError)) {
				break
			}
			continue
		}
		out = append(out, next{d: d})
	}
	return out
}

// eventually polls cond until it holds, for at most a minute: for
// outcomes that come in their own time, not for deadlines.
func eventually(cond func() bool) bool {
	for end := time.Now().Add(time.Minute); ; {
		if cond() {
			return true
		}
		if time.Now().After(end) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestDelays(t *testing.T) {
	tests := []struct {
		name    string
		command string
		attempt int
		want    []next
	}{{
		name:    "whole reply then a repeat ask",
		command: `while read -r line; do echo '[0.042, 0.171,0.305]'; done`,
		attempt: 3,
		// All three asked for came back, so the policy asks for six and
		// the program's shorter answer ends the schedule.
		want: []next{{d: 42 * time.Millisecond}, {d: 171 * time.Millisecond}, {d: 305 * time.Millisecond}, {err: "policy stops retrying"}},
	}, {
		name:    "too few numbers stop the policy",
		command: `while read -r line; do echo '[1.5]'; done`,
		attempt: 5,
		want:    []next{{d: 1500 * time.Millisecond}, {err: "policy stops retrying"}},
	}, {
		name:    "an empty array stops at once",
		command: `while read -r line; do printf '[]\r\n'; done`,
		attempt: 5,
		want:    []next{{err: "policy stops retrying"}},
	}, {
		name:    "non-finite and negative delays are the policy's defect",
		command: `while read -r line; do echo '[NaN,Infinity,-Infinity,-0.5,1e400,1e10]'; done`,
		attempt: 8,
		want: []next{
			{err: "delay NaN s is not a duration"},
			{err: "delay +Inf s is not a duration"},
			{err: "delay -Inf s is not a duration"},
			{d: -500 * time.Millisecond},
			{err: "delay +Inf s is not a duration"},
			{err: "delay 1e+10 s is not a duration"},
			{err: "policy stops retrying"},
		},
	}, {
		name:    "a last line without its newline",
		command: `read -r line; printf '[2]'`,
		attempt: 4,
		want:    []next{{d: 2 * time.Second}, {err: "policy stops retrying"}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := start(t, tt.command, Options{Attempts: tt.attempt})
			got := drain(p.Factory()(kit.Device{ID: "dev-000017"}), 10)
			assert.Equal(t, tt.want, got, "delays")
			assert.NoError(t, p.Close(), "Close()")
		})
	}
}

// TestRequests checks the request lines, and that a device asks again,
// for twice as many delays, only when an eighth of those it was given (at
// least one) is left: the program logs each request and answers as many
// delays as asked, each the attempt number in seconds.
func TestRequests(t *testing.T) {
	tests := []struct {
		name     string
		attempts int
		reads    int // the delays the device uses
		want     []int
	}{
		{name: "most of a reply used", attempts: 32, reads: 27, want: []int{32}},
		{name: "an eighth left", attempts: 32, reads: 28, want: []int{32, 64}},
		{name: "the tail of the second reply", attempts: 32, reads: 40, want: []int{32, 64}},
		{name: "an eighth of the second reply left", attempts: 32, reads: 56, want: []int{32, 64, 128}},
		// An eighth of 2 or 4 is less than one delay: one is left.
		{name: "small replies", attempts: 2, reads: 7, want: []int{2, 4, 8, 16}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			log := filepath.Join(t.TempDir(), "requests")
			p := start(t, `exec python3 -c '
import json, sys
log = open(sys.argv[1], "w")
for line in sys.stdin:
    log.write(line); log.flush()
    req = json.loads(line)
    print(json.dumps([float(i + 1) for i in range(req["attempts"])]), flush=True)
' `+log, Options{Attempts: tt.attempts})
			id := `dev-"<7>"`
			pl := p.Factory()(kit.Device{ID: id})
			for i := 1; i <= tt.reads; i++ {
				d, err := pl.Next()
				require.NoError(t, err, "Next() #%d", i)
				require.Equal(t, time.Duration(i)*time.Second, d, "Next() #%d", i)
			}
			require.NoError(t, p.Close(), "Close()")
			got, err := os.ReadFile(log)
			require.NoError(t, err)
			want := ""
			for _, n := range tt.want {
				want += fmt.Sprintf(`{"device":"dev-\"\u003c7\u003e\"","attempts":%d}`+"\n", n)
			}
			assert.Equal(t, want, string(got), "requests of a device that uses %d delays", tt.reads)
		})
	}
}

// TestConcurrent uses one program from several goroutines: requests are
// serialised and each device gets its own answer.
func TestConcurrent(t *testing.T) {
	// The reply is the device number in seconds, read from the id's digits.
	p := start(t, `while read -r line; do n=${line#*dev-}; n=${n%%\"*}; echo "[$n]"; done`, Options{})
	f := p.Factory()
	var wg sync.WaitGroup
	for i := range 40 {
		// assert, which never stops the test, is safe in a goroutine.
		wg.Go(func() {
			d, err := f(kit.Device{ID: "dev-" + strconv.Itoa(i)}).Next()
			assert.NoError(t, err, "dev-%d", i)
			assert.Equal(t, time.Duration(i)*time.Second, d, "dev-%d", i)
		})
	}
	wg.Wait()
	assert.NoError(t, p.Close(), "Close()")
}

func TestProtocolErrors(t *testing.T) {
	tests := []struct {
		name    string
		command string
		attempt int
		timeout time.Duration
		want    string
	}{{
		name:    "garbage",
		command: `while read -r line; do echo 'hello'; done`,
		want:    `exec "while read -r line; do echo 'hello'; done": device "dev-000017": the reply is not a JSON array of numbers: "hello"`,
	}, {
		name:    "a string in the array",
		command: `while read -r line; do echo '[0.1, "0.2"]'; done`,
		want:    `exec "while read -r line; do echo '[0.1, \"0.2\"]'; done": device "dev-000017": the reply's element 2 is not a number: "[0.1, \"0.2\"]"`,
	}, {
		name:    "a JSON object",
		command: `while read -r line; do echo '{"delays":[1]}'; done`,
		want:    `exec "while read -r line; do echo '{\"delays\":[1]}'; done": device "dev-000017": the reply is not a JSON array of numbers: "{\"delays\":[1]}"`,
	}, {
		name:    "too many numbers",
		command: `while read -r line; do echo '[1,2,3,4]'; done`,
		attempt: 3,
		want:    `exec "while read -r line; do echo '[1,2,3,4]'; done": device "dev-000017": the reply has more than the 3 numbers asked for: "[1,2,3,4]"`,
	}, {
		name:    "an empty line",
		command: `while read -r line; do echo; done`,
		want:    `exec "while read -r line; do echo; done": device "dev-000017": the reply is not a JSON array of numbers`,
	}, {
		name:    "exits early",
		command: `read -r line; exit 3`,
		want:    `exec "read -r line; exit 3": device "dev-000017": it exited (exit status 3) without answering`,
	}, {
		name:    "exits at once, with a message on stderr",
		command: `echo "policy.py: no module named numpy" >&2; exit 1`,
		want: `exec "echo \"policy.py: no module named numpy\" >&2; exit 1": device "dev-000017": it exited (exit status 1) without answering
its standard error ends with:
	policy.py: no module named numpy`,
	}, {
		name:    "a program that does not exist",
		command: `./no-such-policy`,
		want: `exec "./no-such-policy": device "dev-000017": it exited (exit status 127) without answering
its standard error ends with:
	sh: 1: ./no-such-policy: not found`,
	}, {
		name:    "closes its output, with exec",
		command: `exec python3 -c 'import os, sys, time; sys.stdin.readline(); os.close(1); time.sleep(100)'`,
		want:    `exec "exec python3 -c 'import os, sys, time; sys.stdin.readline(); os.close(1); time.sleep(100)'": device "dev-000017": it closed its output without answering`,
	}, {
		name:    "never answers",
		command: `while read -r line; do :; done`,
		timeout: short,
		want:    `exec "while read -r line; do :; done": device "dev-000017": no reply in time: it wrote nothing for 300ms while a request waited for its reply`,
	}, {
		name:    "stderr is kept, its last lines shown",
		command: `for i in $(seq 1 30); do echo "warning $i" >&2; done; read -r line; echo nope`,
		want: `exec "for i in $(seq 1 30); do echo \"warning $i\" >&2; done; read -r line; echo nope": device "dev-000017": the reply is not a JSON array of numbers: "nope"
its standard error ends with:
	warning 21
	warning 22
	warning 23
	warning 24
	warning 25
	warning 26
	warning 27
	warning 28
	warning 29
	warning 30`,
	}, {
		name:    "what the program wrote reaches the terminal escaped",
		command: `read -r line; printf '\033[2J\033]0;owned\007 caf\303\251 \377\r\n\tsecond\342\200\256 line\r\nthird\n' >&2; printf '\033[2J\033]0;owned\007\n'`,
		want: `exec "read -r line; printf '\\033[2J\\033]0;owned\\007 caf\\303\\251 \\377\\r\\n\\tsecond\\342\\200\\256 line\\r\\nthird\\n' >&2; printf '\\033[2J\\033]0;owned\\007\\n'": device "dev-000017": the reply is not a JSON array of numbers: "\x1b[2J\x1b]0;owned\a"
its standard error ends with:
	\x1b[2J\x1b]0;owned\a café \xff
	\tsecond\u202e line
	third`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := start(t, tt.command, Options{Attempts: tt.attempt, Timeout: tt.timeout})
			f := p.Factory()
			_, err := f(kit.Device{ID: "dev-000017"}).Next()
			var pe *ProtocolError
			require.ErrorAs(t, err, &pe, "Next() error")
			assert.EqualError(t, err, tt.want, "Next() error, word for word")
			assert.False(t, strings.ContainsFunc(err.Error(), func(r rune) bool { return r < ' ' && r != '\n' && r != '\t' || r == 0x7f }),
				"Next() error holds a raw control character: %q", err.Error())
			assert.Equal(t, tt.timeout == short, errors.Is(err, ErrTimeout), "errors.Is(%v, ErrTimeout)", err)
			// The program is stopped: every later request fails alike.
			// assert.Same, not Equal: the very error, as == compares it.
			_, err2 := f(kit.Device{ID: "dev-000018"}).Next()
			assert.Same(t, err, err2, "later Next() error: want the first error again")
			assert.Same(t, err, p.Err(), "Err(): want the first error")
			assert.Same(t, err, p.Close(), "Close(): want the first error")
		})
	}
}

// TestTimeout pins the one timeout: it measures the program's silence
// while a request waits, never the time the work takes.
func TestTimeout(t *testing.T) {
	tests := []struct {
		name     string
		command  string
		timeout  time.Duration
		devices  int           // how many policies to make, in order, before reading them
		idle     time.Duration // a pause before the first request
		want     string        // the first error; "" for none
		slowest  time.Duration // for the tests that want no timeout: the longest silence the program means to keep
		overall  time.Duration // and the whole run, at least
		closeErr bool          // Close returns the error too
	}{{
		name:    "never answers",
		command: `sleep 100`,
		timeout: short,
		devices: 1,
		want:    `exec "sleep 100": device "dev-000000": no reply in time: it wrote nothing for 300ms while a request waited for its reply`,
	}, {
		name:    "stops reading its input, so that the request cannot be written",
		command: `sleep 100`,
		timeout: short,
		// Many more requests than the pipe holds: the writes block.
		devices: 10000,
		want:    `exec "sleep 100": device "dev-000000": no reply in time: it wrote nothing for 300ms while a request waited for its reply`,
	}, {
		name:    "writes half a reply and hangs",
		command: `read -r line; printf '[1,'; sleep 100`,
		timeout: short,
		devices: 1,
		want:    `exec "read -r line; printf '[1,'; sleep 100": device "dev-000000": no reply in time: it wrote nothing for 300ms while a request waited for its reply`,
	}, {
		// A loaded runner can stall a program for seconds: the timeout
		// is 50 times the program's pace, and the run longer than it.
		name:    "slow but steady",
		command: `while read -r line; do sleep 0.2; echo '[1]'; done`,
		timeout: 10 * time.Second,
		devices: 60,
		slowest: 200 * time.Millisecond,
		overall: 12 * time.Second,
	}, {
		name:    "slow to start",
		command: `sleep 2; while read -r line; do echo '[1]'; done`,
		timeout: generous,
		devices: 3,
		slowest: 2 * time.Second,
	}, {
		name:    "the clock runs only while a request waits",
		command: `while read -r line; do echo '[1]'; done`,
		timeout: 10 * time.Second,
		idle:    12 * time.Second,
		devices: 3,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.want == "" {
				require.GreaterOrEqual(t, tt.timeout, 10*tt.slowest, "the timeout against 10 times the program's silence")
			}
			p := start(t, tt.command, Options{Timeout: tt.timeout})
			time.Sleep(tt.idle)
			began := time.Now()
			f := p.Factory()
			var policies []kit.Policy
			for i := range tt.devices {
				policies = append(policies, f(kit.Device{ID: "dev-" + pad(i)}))
			}
			var err error
			for _, pl := range policies {
				if _, err = pl.Next(); err != nil {
					break
				}
			}
			took := time.Since(began)
			if tt.want == "" {
				require.NoError(t, err, "Next()")
				assert.GreaterOrEqual(t, took, tt.overall, "the time the run took, which the test means to be more than the timeout")
				assert.NoError(t, p.Close(), "Close()")
				return
			}
			require.ErrorIs(t, err, ErrTimeout, "Next() error")
			require.EqualError(t, err, tt.want, "Next() error, word for word")
			assert.Same(t, err, p.Close(), "Close(): want the first error")
		})
	}
}

// pad writes a device number as the fleet's ids do.
func pad(i int) string {
	s := strconv.Itoa(i)
	return strings.Repeat("0", max(0, 6-len(s))) + s
}

// TestEveryReplyBelongsToItsRequest pins what the kit can tell without
// request ids: a line nobody asked for, a reply longer than its request,
// and one line too many by the end, which Close finds.
func TestEveryReplyBelongsToItsRequest(t *testing.T) {
	tests := []struct {
		name    string
		command string
		attempt int
		// run drives the policies, and returns the first error.
		run func(f kit.Factory) error
		// unasked: the error comes from a line that arrives while the
		// program runs; the test waits for it before it closes.
		unasked bool
		want    string // the error of run, or of Close when run returns none
	}{{
		name:    "a line before the first request",
		command: `echo "ready"; while read -r line; do echo "[1]"; done`,
		run:     func(f kit.Factory) error { return nil },
		want:    `exec "echo \"ready\"; while read -r line; do echo \"[1]\"; done": it wrote a line nobody asked for, before the first request: "ready"`,
	}, {
		name: "a request answered twice, seen before the next request",
		// The second answer comes before the kit writes the next request.
		command: `read -r line; echo '[1]'; echo '[1]'; while read -r line; do echo '[2]'; done`,
		run: func(f kit.Factory) error {
			_, err := f(kit.Device{ID: "dev-000012"}).Next()
			return err
		},
		unasked: true,
		want:    `exec "read -r line; echo '[1]'; echo '[1]'; while read -r line; do echo '[2]'; done": it wrote a line nobody asked for, after the reply to device "dev-000012": "[1]"`,
	}, {
		name: "a shifted reply longer than its request",
		// dev-1 asks for 4, uses 3 and asks for 8; dev-2 asks for 4. The
		// program answers the first request twice, after it has read all
		// three: dev-1's second request gets the repeat, and dev-2 the
		// 8 delays meant for dev-1.
		command: `read -r a; echo '[1,1,1,1]'; read -r b; read -r c; echo '[1,1,1,1]'; echo '[2,2,2,2,2,2,2,2]'; echo '[3,3,3,3]'; cat >/dev/null`,
		attempt: 4,
		run: func(f kit.Factory) error {
			d1 := f(kit.Device{ID: "dev-1"})
			d1.Next()
			d1.Next()
			d1.Next() // one of 4 left: asks for 8
			_, err := f(kit.Device{ID: "dev-2"}).Next()
			return err
		},
		want: `exec "read -r a; echo '[1,1,1,1]'; read -r b; read -r c; echo '[1,1,1,1]'; echo '[2,2,2,2,2,2,2,2]'; echo '[3,3,3,3]'; cat >/dev/null": device "dev-2": the reply has more than the 4 numbers asked for: "[2,2,2,2,2,2,2,2]"`,
	}, {
		name: "a request answered twice, found by Close",
		// The program reads all three requests before it answers, and
		// writes its last line only when its input ends: every reply
		// but the first goes to the wrong device, and only the count
		// at the end shows it.
		command: `read -r a; read -r b; read -r c; echo '[1]'; echo '[1]'; echo '[2]'; cat >/dev/null; echo '[3]'`,
		run: func(f kit.Factory) error {
			var policies []kit.Policy
			for _, id := range []string{"dev-1", "dev-2", "dev-3"} {
				policies = append(policies, f(kit.Device{ID: id}))
			}
			for _, pl := range policies {
				if _, err := pl.Next(); err != nil {
					return err
				}
			}
			return nil
		},
		want: `exec "read -r a; read -r b; read -r c; echo '[1]'; echo '[1]'; echo '[2]'; cat >/dev/null; echo '[3]'": it wrote more lines than it was asked for: a line after the reply to the last request, to device "dev-3"; if it answered a request twice, every reply after that one went to the wrong device: "[3]"`,
	}, {
		name:    "a line after the last reply, from a program that exits",
		command: `read -r a; echo '[1]'; echo '[1]'`,
		run: func(f kit.Factory) error {
			_, err := f(kit.Device{ID: "dev-000012"}).Next()
			return err
		},
		unasked: true,
		want:    `exec "read -r a; echo '[1]'; echo '[1]'": it wrote a line nobody asked for, after the reply to device "dev-000012": "[1]"`,
	}, {
		name:    "no line too many",
		command: `while read -r line; do echo '[1]'; done; echo 'bye' >&2`,
		run: func(f kit.Factory) error {
			for _, id := range []string{"dev-1", "dev-2", "dev-3"} {
				if _, err := f(kit.Device{ID: id}).Next(); err != nil {
					return err
				}
			}
			return nil
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := start(t, tt.command, Options{Attempts: tt.attempt})
			err := tt.run(p.Factory())
			if err == nil && tt.unasked {
				require.True(t, eventually(func() bool { return p.Err() != nil }), "Err() = nil; want the line nobody asked for")
				err = p.Err()
			}
			if err == nil {
				// A line that comes unasked shows in Err as soon as
				// it is read; Close finds the rest.
				err = p.Close()
			}
			got := ""
			if err != nil {
				got = err.Error()
			}
			require.Equal(t, tt.want, got, "error, word for word")
			if err == nil {
				return
			}
			assert.ErrorAs(t, err, new(*ProtocolError))
			assert.Same(t, err, p.Close(), "Close(): want the error again")
			assert.Same(t, err, p.Err(), "Err(): want the error again")
		})
	}
}

// TestNoProcessLeftBehind stops programs that try to outlive the kit and
// checks through their pid files that no process survives Close.
func TestNoProcessLeftBehind(t *testing.T) {
	// How a test ends.
	const (
		answered  = iota // the program answers; Close finds nothing wrong
		timesOut         // the program never answers: a short Timeout
		cancelled        // the program answers, then ignores the end of its input: the context is cancelled before Close, which stops it at once
		unasked          // the program is asked nothing and ignores the end of its input: Close waits a short Timeout for more output, then stops it
	)
	tests := []struct {
		name    string
		command string
		end     int
		linux   bool // only Linux finds these
	}{{
		name:    "ignores the end of its input",
		command: `echo $$ > pids; read -r line; echo '[1]'; while :; do sleep 0.05; done`,
		end:     cancelled,
	}, {
		name:    "ignores the end of its input and SIGTERM",
		command: `trap '' TERM; echo $$ > pids; read -r line; echo '[1]'; while :; do sleep 0.05; done`,
		end:     cancelled,
	}, {
		name:    "ignores the end of its input and SIGTERM, asked nothing",
		command: `trap '' TERM; echo $$ > pids; while :; do sleep 0.05; done`,
		end:     unasked,
	}, {
		name:    "starts children",
		command: `sleep 1000 & echo $! > pids; (trap '' TERM; while :; do sleep 0.05; done) & echo $! >> pids; while read -r line; do echo '[1]'; done`,
	}, {
		name:    "starts a child that holds its output",
		command: `sh -c 'trap "" TERM; echo $$ >> pids; while :; do sleep 0.05; done' & echo $$ >> pids; read -r line; echo '[1]'; exit 0`,
	}, {
		name:    "never answers and starts children",
		command: `sleep 1000 & echo $! > pids; echo $$ >> pids; while read -r line; do :; done`,
		end:     timesOut,
	}, {
		name:    "starts a child that leaves the process group",
		command: `setsid sleep 300 & echo $! > pids; while read -r line; do echo '[1]'; done`,
		linux:   true,
	}, {
		name: "starts a daemon whose parent exits at once, then exits",
		// setsid -f forks, and its child's parent exits: the daemon is
		// adopted by init before the program answers.
		command: `setsid -f sh -c 'echo $$ > pid; exec sleep 300' </dev/null >/dev/null 2>&1; until [ -s pid ]; do sleep 0.01; done; cat pid > pids; read -r line; echo '[1]'`,
		linux:   true,
	}, {
		name:    "a daemon that ignores SIGTERM, and its child",
		command: `setsid -f sh -c 'trap "" TERM; echo $$ > pid; sleep 300 & echo $! >> pid; wait' </dev/null >/dev/null 2>&1; until [ $(wc -l < pid) -eq 2 ]; do sleep 0.01; done 2>/dev/null; cat pid > pids; while read -r line; do echo '[1]'; done`,
		linux:   true,
	}, {
		name:    "a daemon that ignores SIGTERM, and a cancelled context",
		command: `setsid -f sh -c 'trap "" TERM; echo $$ > pid; exec sleep 300' </dev/null >/dev/null 2>&1; until [ -s pid ]; do sleep 0.01; done; cat pid > pids; while read -r line; do echo '[1]'; done`,
		end:     cancelled,
		linux:   true,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.linux && runtime.GOOS != "linux" {
				t.Skip("only Linux finds the processes that leave the program's process group")
			}
			t.Parallel()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			opt := Options{}
			if tt.end == timesOut || tt.end == unasked {
				opt.Timeout = short
			}
			p := startContext(t, ctx, tt.command, opt)
			pidFile := filepath.Join(p.opt.Dir, "pids")
			if tt.end == unasked {
				eventually(func() bool { b, _ := os.ReadFile(pidFile); return len(b) > 0 })
			} else {
				_, err := p.Factory()(kit.Device{ID: "dev-000001"}).Next()
				if tt.end == timesOut {
					require.ErrorIs(t, err, ErrTimeout, "Next()")
				} else {
					require.NoError(t, err, "Next()")
				}
			}
			if tt.end == cancelled {
				cancel()
			}
			switch err := p.Close(); tt.end {
			case timesOut:
				require.ErrorIs(t, err, ErrTimeout, "Close()")
			case cancelled:
				require.ErrorIs(t, err, context.Canceled, "Close()")
			default: // answered, unasked
				require.NoError(t, err, "Close()")
			}
			b, err := os.ReadFile(pidFile)
			require.NoError(t, err)
			pids := strings.Fields(string(b))
			require.NotEmpty(t, pids, "pids written")
			for _, s := range pids {
				pid, _ := strconv.Atoi(s)
				if !assert.True(t, eventually(func() bool { return !running(pid) }), "process %d still runs after Close", pid) {
					syscall.Kill(pid, syscall.SIGKILL)
				}
			}
		})
	}
}

// running reports whether process pid exists and is not a zombie. Zombies
// count as ended: an orphan waits as one until init reaps it.
func running(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if errors.Is(err, os.ErrNotExist) {
		return false
	}
	if err != nil {
		return syscall.Kill(pid, 0) == nil
	}
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(fields) > 0 && fields[0] != "Z" && fields[0] != "X"
}

func TestClosedProgram(t *testing.T) {
	p := start(t, `while read -r line; do echo '[1]'; done`, Options{})
	require.NoError(t, p.Close(), "Close()")
	require.NoError(t, p.Close(), "second Close()")
	_, err := p.Factory()(kit.Device{ID: "a"}).Next()
	assert.EqualError(t, err, "execpolicy: program closed", "Next() after Close")
}

func TestCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	p, err := Start(ctx, `while read -r line; do :; done`, Options{Timeout: generous, Grace: 50 * time.Millisecond})
	require.NoError(t, err)
	time.AfterFunc(50*time.Millisecond, cancel)
	began := time.Now()
	_, err = p.Factory()(kit.Device{ID: "a"}).Next()
	assert.ErrorIs(t, err, context.Canceled, "Next()")
	// The wait is interrupted, not served to its minute-long timeout, and
	// so is Close's wait for the reply.
	assert.ErrorIs(t, p.Close(), context.Canceled, "Close(): the replies were not all checked")
	waited := time.Since(began)
	assert.LessOrEqual(t, waited, generous/2, "the time until Next() and Close() returned")
}

func TestStartFailure(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := Start(context.Background(), "true", Options{})
	assert.ErrorIs(t, err, exec.ErrNotFound, "Start without sh")
}

func TestPythonPolicy(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not installed")
	}
	// Full jitter seeded from the device id, written as a user would, with
	// Python's json writing NaN for a bad cap.
	p := start(t, `exec python3 -c '
import hashlib, json, random, sys
for line in sys.stdin:
    req = json.loads(line)
    rng = random.Random(int(hashlib.sha256(req["device"].encode()).hexdigest(), 16))
    cap = float("nan") if req["device"] == "dev-bad" else 10.0
    print(json.dumps([rng.uniform(0, min(cap, 0.1 * 2**n)) for n in range(req["attempts"])]), flush=True)
'`, Options{Attempts: 5})
	f := p.Factory()
	a, err := kit.Delays(f(kit.Device{ID: "dev-000001"}), 5)
	require.NoError(t, err, "Delays(dev-000001)")
	require.Len(t, a, 5, "Delays(dev-000001)")
	for n, d := range a {
		assert.True(t, d >= 0 && float64(d) <= 0.1*math.Pow(2, float64(n))*1e9, "delay %d = %v; want in [0, %v]", n, d, 0.1*math.Pow(2, float64(n)))
	}
	again, _ := kit.Delays(f(kit.Device{ID: "dev-000001"}), 5)
	other, _ := kit.Delays(f(kit.Device{ID: "dev-000002"}), 5)
	assert.Equal(t, a, again, "the delays of one id, twice")
	assert.NotEqual(t, a, other, "two ids gave the same delays")
	_, err = f(kit.Device{ID: "dev-bad"}).Next()
	assert.ErrorAs(t, err, new(*kit.DelayError), "Next() on a NaN delay")
	assert.NoError(t, p.Close(), "Close()")
}

// TestStreamed makes a fleet's policies first, which sends every request,
// and reads them in another order: each device gets its own reply.
func TestStreamed(t *testing.T) {
	p := start(t, `while read -r line; do n=${line#*dev-}; n=${n%%\"*}; echo "[$n]"; done`, Options{})
	f := p.Factory()
	var policies []kit.Policy
	for i := range 2000 {
		policies = append(policies, f(kit.Device{ID: "dev-" + strconv.Itoa(i)}))
	}
	for i := len(policies) - 1; i >= 0; i-- {
		d, err := policies[i].Next()
		require.NoError(t, err, "dev-%d: Next()", i)
		require.Equal(t, time.Duration(i)*time.Second, d, "dev-%d: Next()", i)
	}
	assert.NoError(t, p.Close(), "Close()")
}

// TestCloseWaitsForTheRepliesOwed closes a program with requests whose
// replies have not come yet: Close waits for them, as for any reply, and
// checks the count.
func TestCloseWaitsForTheRepliesOwed(t *testing.T) {
	p := start(t, `while read -r line; do sleep 0.1; echo '[1]'; done`, Options{})
	f := p.Factory()
	for i := range 5 {
		f(kit.Device{ID: "dev-" + pad(i)})
	}
	assert.NoError(t, p.Close(), "Close()")
}
