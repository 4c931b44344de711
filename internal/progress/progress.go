// Package progress shows a gate's progress: as a one-line bar on a
// terminal, for work that takes longer than about a second; as a plain
// line every 10 seconds on a file or a pipe, such as a CI job's log, for
// work that takes longer than that, so that a long gate is never silent;
// and nothing on any other writer.
package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jitterkit/jitterkit/internal/prose"
	"github.com/jitterkit/jitterkit/reports/gate"
)

// On returns a gate's Config.Progress that shows each step's progress on
// w, labelled by the step (see Start). On a file or a pipe its steps share
// one schedule of plain lines: a line is due Every after the last one, or
// after On, and is written by the step then under way. So a gate of many
// shorter steps is never silent for longer than one long step would be.
func On(w io.Writer) func(step string, total int64) gate.Meter {
	l := newSchedule(realClock{}, Every)
	return func(step string, total int64) gate.Meter { return l.start(w, step, total, Delay) }
}

// Delay is how long work runs before its bar appears: shorter work shows
// none.
const Delay = time.Second

// Every is how often a plain line is written on a file or a pipe: work
// shorter than that writes none.
const Every = 10 * time.Second

// IsTerminal reports whether w is a character device, such as a terminal,
// rather than a file or a pipe.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// A clock tells the time and when a time has come: the system's, or a
// test's own.
type clock interface {
	Now() time.Time
	// At returns a channel that receives once the time is t or later.
	At(t time.Time) <-chan time.Time
}

type realClock struct{}

func (realClock) Now() time.Time                  { return time.Now() }
func (realClock) At(t time.Time) <-chan time.Time { return time.After(time.Until(t)) }

// A schedule is when the plain lines of one gate's steps are due: every
// interval after the last line written by any of them.
type schedule struct {
	clock clock
	every time.Duration
	mu    sync.Mutex
	last  time.Time
}

func newSchedule(c clock, every time.Duration) *schedule {
	return &schedule{clock: c, every: every, last: c.Now()}
}

// due returns when the next line is due.
func (l *schedule) due() time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.last.Add(l.every)
}

// write writes line(now) on w if a line is due now: of two steps under
// way at once, only the first to ask writes it.
func (l *schedule) write(w io.Writer, line func(now time.Time) string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if now := l.clock.Now(); !now.Before(l.last.Add(l.every)) {
		fmt.Fprintln(w, line(now))
		l.last = now
	}
}

// A Bar counts work done towards a total, and draws itself on its writer
// every tenth of a second once Delay has passed. The zero Bar and a nil Bar
// draw nothing; Add on them only counts.
type Bar struct {
	w     io.Writer
	plain *schedule // when w is a file or a pipe: the plain lines' schedule
	label string
	total atomic.Int64
	done  atomic.Int64
	start time.Time
	delay time.Duration
	stop  chan struct{}
	wg    sync.WaitGroup
	drawn bool
}

// Start returns a bar labelled label that draws on w when w is a
// terminal; that writes a plain line, "jitterkit: replay: 12 of 20 (60%),
// 10s", every 10 seconds when w is another file, such as a pipe to a CI
// log; and that counts silently on any other writer. A total of 0 counts
// without a bar or a share. The caller calls Finish.
func Start(w io.Writer, label string, total int64) *Bar {
	return newSchedule(realClock{}, Every).start(w, label, total, Delay)
}

// start returns a bar whose plain lines, if it writes any, keep to l.
func (l *schedule) start(w io.Writer, label string, total int64, delay time.Duration) *Bar {
	b := &Bar{label: label, start: l.clock.Now(), delay: delay}
	b.total.Store(total)
	if _, file := w.(*os.File); file && !IsTerminal(w) {
		b.plain = l
	} else if !IsTerminal(w) {
		return b
	}
	b.w = w
	b.stop = make(chan struct{})
	b.wg.Add(1)
	go b.loop()
	return b
}

// Add counts n more units of work done.
func (b *Bar) Add(n int64) {
	if b != nil {
		b.done.Add(n)
	}
}

// Finish stops drawing and clears the bar's line.
func (b *Bar) Finish() {
	if b == nil || b.stop == nil {
		return
	}
	close(b.stop)
	b.wg.Wait()
	b.stop = nil
}

func (b *Bar) loop() {
	defer b.wg.Done()
	if b.plain != nil {
		b.lines()
		return
	}
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-b.stop:
			if b.drawn {
				fmt.Fprint(b.w, "\r\033[K")
			}
			return
		case <-tick.C:
			if time.Since(b.start) >= b.delay {
				fmt.Fprint(b.w, "\r"+b.line(time.Since(b.start))+"\033[K")
				b.drawn = true
			}
		}
	}
}

// lines writes a plain line whenever one is due until Finish.
func (b *Bar) lines() {
	l := b.plain
	for {
		select {
		case <-b.stop:
			return
		case <-l.clock.At(l.due()):
			l.write(b.w, func(now time.Time) string { return b.plainLine(now.Sub(b.start)) })
		}
	}
}

// plainLine renders a plain line: "jitterkit: replay: devices: 12,000 of
// 20,000 (60%), 10s".
func (b *Bar) plainLine(elapsed time.Duration) string {
	done, total := b.done.Load(), b.total.Load()
	secs := elapsed.Round(time.Second).String()
	if total <= 0 {
		return fmt.Sprintf("jitterkit: %s: %s done, %s", b.label, prose.FormatCount(done), secs)
	}
	return fmt.Sprintf("jitterkit: %s: %s of %s (%.0f%%), %s", b.label, prose.FormatCount(min(done, total)), prose.FormatCount(total), 100*min(float64(done)/float64(total), 1), secs)
}

// line renders the bar: "replay [=========>          ] 45%  3.1s".
func (b *Bar) line(elapsed time.Duration) string {
	const width = 30
	done, total := b.done.Load(), b.total.Load()
	secs := fmt.Sprintf("%.1fs", elapsed.Seconds())
	if total <= 0 {
		return fmt.Sprintf("%s  %d  %s", b.label, done, secs)
	}
	frac := min(float64(done)/float64(total), 1)
	n := int(frac * width)
	bar := strings.Repeat("=", n)
	if n < width {
		bar += ">" + strings.Repeat(" ", width-n-1)
	}
	return fmt.Sprintf("%s [%s] %3.0f%%  %s", b.label, bar, 100*frac, secs)
}
