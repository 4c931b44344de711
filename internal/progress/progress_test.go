package progress

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLine(t *testing.T) {
	tests := []struct {
		done, total int64
		elapsed     time.Duration
		want        string
	}{
		{0, 100, 1500 * time.Millisecond, "replay [>                             ]   0%  1.5s"},
		{45, 100, 3100 * time.Millisecond, "replay [=============>                ]  45%  3.1s"},
		{100, 100, 10 * time.Second, "replay [==============================] 100%  10.0s"},
		{250, 100, time.Second, "replay [==============================] 100%  1.0s"},
		{1234, 0, 2 * time.Second, "replay  1234  2.0s"},
	}
	for _, tt := range tests {
		b := &Bar{label: "replay"}
		b.done.Store(tt.done)
		b.total.Store(tt.total)
		assert.Equal(t, tt.want, b.line(tt.elapsed), "line(%d of %d, %v)", tt.done, tt.total, tt.elapsed)
	}
}

// TestNotATerminal checks that a bar on a buffer writes nothing, however
// long the work, and that one on a file writes plain lines, none before
// its interval.
func TestNotATerminal(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	require.NoError(t, err)
	defer f.Close()
	var buf bytes.Buffer
	b := newSchedule(realClock{}, 0).start(&buf, "replay", 10, 0)
	b.Add(5)
	time.Sleep(150 * time.Millisecond)
	b.Finish()
	assert.Zero(t, buf.Len(), "bytes a bar on a buffer wrote")

	assert.False(t, IsTerminal(f))
	quiet := newSchedule(realClock{}, time.Hour).start(f, "replay", 10, 0)
	quiet.Add(5)
	time.Sleep(50 * time.Millisecond)
	quiet.Finish()
	st, _ := f.Stat()
	assert.Zero(t, st.Size(), "work shorter than the interval writes no line")

	b = newSchedule(realClock{}, 20*time.Millisecond).start(f, "replay", 10, 0)
	b.Add(6)
	// Poll for the first line rather than sleep a fixed time: a loaded
	// machine may run the ticker late, never early.
	require.Eventually(t, func() bool { st, _ := f.Stat(); return st.Size() > 0 }, 10*time.Second, 5*time.Millisecond)
	b.Finish()
	data, err := os.ReadFile(f.Name())
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	require.NotEmpty(t, lines)
	assert.Regexp(t, `^jitterkit: replay: 6 of 10 \(60%\), \d+m?s$`, lines[0])
}

func TestPlainLine(t *testing.T) {
	b := &Bar{label: "fix search"}
	b.total.Store(20)
	b.done.Store(12)
	assert.Equal(t, "jitterkit: fix search: 12 of 20 (60%), 10s", b.plainLine(10*time.Second+300*time.Millisecond))
	b.total.Store(0)
	assert.Equal(t, "jitterkit: fix search: 12 done, 1m5s", b.plainLine(65*time.Second))
	b.done.Store(1_234_567)
	assert.Equal(t, "jitterkit: fix search: 1,234,567 done, 1m5s", b.plainLine(65*time.Second))
	b.total.Store(20_000_000)
	assert.Equal(t, "jitterkit: fix search: 1,234,567 of 20,000,000 (6%), 1m5s", b.plainLine(65*time.Second))
}

func TestNilBar(t *testing.T) {
	var b *Bar
	b.Add(1)
	b.Finish()
}

// fakeClock is a clock that moves only when the test advances it.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []fakeTimer
}

type fakeTimer struct {
	at time.Time
	c  chan time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) At(t time.Time) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan time.Time, 1)
	if !t.After(c.now) {
		ch <- c.now
		return ch
	}
	c.timers = append(c.timers, fakeTimer{t, ch})
	return ch
}

// advance moves the clock on by d and fires the timers it reaches.
func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	kept := c.timers[:0]
	for _, t := range c.timers {
		if t.at.After(c.now) {
			kept = append(kept, t)
			continue
		}
		t.c <- c.now
	}
	c.timers = kept
}

// TestScheduleAcrossSteps holds the plain lines of a gate's steps, on a
// file, to one schedule: a step of 8s writes no line, the next writes one
// 10s after the gate began, 2s into it, and another 10s later; two steps
// under way at once write one line between them.
func TestScheduleAcrossSteps(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	require.NoError(t, err)
	defer f.Close()
	lines := func() []string {
		data, err := os.ReadFile(f.Name())
		require.NoError(t, err)
		return strings.Fields(strings.ReplaceAll(string(data), " ", "_"))
	}
	waitFor := func(n int) {
		t.Helper()
		require.Eventually(t, func() bool { return len(lines()) >= n }, 10*time.Second, time.Millisecond, "line %d", n)
	}
	clk := &fakeClock{now: time.Unix(0, 0)}
	l := newSchedule(clk, Every)

	checks := l.start(f, "checks: devices", 0, Delay)
	checks.Add(3)
	clk.advance(8 * time.Second)
	checks.Finish()
	replay := l.start(f, "replay: devices", 100, Delay)
	replay.Add(40)
	clk.advance(2 * time.Second)
	waitFor(1)
	replay.Add(20)
	clk.advance(10 * time.Second)
	waitFor(2)
	replay.Finish()

	a := l.start(f, "comparison: devices", 10, Delay)
	b := l.start(f, "comparison: devices", 10, Delay)
	clk.advance(9 * time.Second)
	a.Add(1)
	b.Add(1) // whichever of the two writes the line, it reads the same
	clk.advance(time.Second)
	waitFor(3)
	a.Finish()
	b.Finish()
	assert.Equal(t, []string{
		"jitterkit:_replay:_devices:_40_of_100_(40%),_2s",
		"jitterkit:_replay:_devices:_60_of_100_(60%),_12s",
		"jitterkit:_comparison:_devices:_1_of_10_(10%),_10s",
	}, lines())
}
