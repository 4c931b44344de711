package loop

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/jitterkit/jitterkit/internal/bubble"
	"github.com/jitterkit/jitterkit/kit"
)

// A Loop is a retry loop as a device runs it: it calls op until op returns
// nil or the loop gives up, waiting between calls however it does
// (time.Sleep, time.After, a timer, a context's deadline, a library's Do or
// Retry), and returns. It should return once ctx is cancelled. op looks at
// the context it is given only to return its error once it is done, so a
// loop may call it with ctx or with a context derived from it.
type Loop func(ctx context.Context, op func(context.Context) error) error

// Config says how long each device's loop is observed. Zero fields take the
// defaults documented on each.
type Config struct {
	// MaxDelays is the most delays observed per device: op is called at
	// most MaxDelays+1 times, and at that call the loop's context is
	// cancelled (default 32: properties reads 32 delays by default). For a
	// replay, set it to the scenario's MaxAttempts.
	// Every device's loop is observed up to MaxDelays when its policy is
	// made, however few delays are read, at a few microseconds a delay:
	// 1000 devices at 10,000 delays take about half a minute.
	MaxDelays int
	// Timeout is the real time one device's observation may take before
	// the device counts as hung (default 20 s); in a live run, each step
	// from an outcome to the loop's next call of op. A loop
	// under a fake clock takes microseconds a delay, so the default is
	// millions of times what it needs, and below properties' CallTimeout
	// (30 s), so that the adapter says what hung before the checks time
	// the whole factory call out.
	Timeout time.Duration
}

// Defaults of the Config fields left zero.
const (
	defaultMaxDelays = 32
	defaultTimeout   = 20 * time.Second
)

// maxHangs is how many devices' loops may hang before the factory observes
// no more: each hang costs a Timeout of real time, and a loop that hangs
// three times will hang again.
const maxHangs = 3

// Factory returns the factory whose policy for a device is the delays of
// the loop that loops makes for it, observed under a fake clock of the
// device's own as the package documentation describes. loops is called
// inside the device's bubble, after the clock has been moved to the
// device's boot instant, so that anything it seeds from time.Now sees that
// instant; each device gets the loop it returns.
//
// The policies are kit.Observers: their first Observe runs the loop again,
// live, as the package documentation describes.
//
// t is the test's; the policies may be made and observed from any
// goroutine while the test runs, and concurrently. Factory fails t at once when cfg is out of
// range or when it is called inside a testing/synctest bubble. When the
// test ends, it logs the devices whose loops hung or went on calling op
// after their context was cancelled. A nil loops panics.
func Factory(t *testing.T, loops func(kit.Device) Loop, cfg Config) kit.Factory {
	t.Helper()
	if loops == nil {
		panic("loop: nil loops")
	}
	switch {
	case cfg.MaxDelays < 0:
		t.Fatalf("loop: MaxDelays %d is negative", cfg.MaxDelays)
	case cfg.Timeout < 0:
		t.Fatalf("loop: Timeout %v is negative", cfg.Timeout)
	}
	if cfg.MaxDelays == 0 {
		cfg.MaxDelays = defaultMaxDelays
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = defaultTimeout
	}
	if bubble.In(t) {
		t.Fatal("loop: Factory " + errNested.Error())
	}
	f := &fleet{t: t, loops: loops, cfg: cfg}
	t.Cleanup(f.report)
	t.Cleanup(f.windDown)
	return f.policy
}

var errNested = errors.New("cannot run inside a testing/synctest bubble: each device's loop runs in a bubble of its own, and bubbles do not nest; make the policies (call properties.Check) outside synctest.Test")

// A fleet makes the policies of one Factory and keeps what the end of the
// test reports.
type fleet struct {
	t     *testing.T
	loops func(kit.Device) Loop
	cfg   Config

	mu       sync.Mutex
	hung     []string // devices whose loops hung, in the order they did
	ignored  []string // the first devices whose loops ignored cancellation
	nIgnored int
	made     int
	live     []*live // the live runs started, which the end of the test ends
	bubbles  []*run  // the bubbles started and not yet seen over
}

// A run is one observation's synctest.Test, which the end of the test
// waits for: testing/synctest's bookkeeping writes to the test's T when
// the bubble returns, which must be before the test's function does.
type run struct {
	o        *observation
	finished chan struct{} // closed when synctest.Test has returned
}

// start runs o's bubble on a goroutine of its own.
func (f *fleet) start(o *observation) *run {
	b := &run{o: o, finished: make(chan struct{})}
	go func() {
		defer close(b.finished)
		o.observe(f.t)
	}()
	return b
}

// keep keeps b, whose loop is over or live, for the end of the test to
// wait for, and forgets the runs kept before that are over.
func (f *fleet) keep(b *run) {
	f.mu.Lock()
	defer f.mu.Unlock()
	kept := f.bubbles[:0]
	for _, old := range f.bubbles {
		select {
		case <-old.finished:
		default:
			kept = append(kept, old)
		}
	}
	f.bubbles = append(kept, b)
}

// shown is how many devices a report names before it says how many more.
const shown = 10

// refused returns the error of a device whose loop the factory no longer
// runs, after maxHangs hangs, or nil. f.mu is held.
func (f *fleet) refused() error {
	if len(f.hung) < maxHangs {
		return nil
	}
	return fmt.Errorf("loop: not observed: the loops of %d devices hung before this one (%s); a loop that hangs three times hangs again",
		len(f.hung), quoted(f.hung))
}

func (f *fleet) policy(dev kit.Device) kit.Policy {
	f.mu.Lock()
	f.made++
	if err := f.refused(); err != nil {
		f.mu.Unlock()
		return &failed{err: err}
	}
	f.mu.Unlock()

	o := newObservation(dev, f.loops, f.cfg.MaxDelays)
	b := f.start(o)
	timer := time.NewTimer(f.cfg.Timeout)
	defer timer.Stop()
	select {
	case <-b.finished:
	case <-o.complete:
		// The loop is over; what it left in its bubble winds down while
		// the test goes on, and the end of the test waits for it.
		f.keep(b)
	case <-timer.C:
		o.hang(f.cfg.Timeout)
	}
	p := o.policy()
	if ob, ok := p.(*observed); ok {
		ob.fleet, ob.dev = f, dev
	}
	f.record(o)
	return p
}

// record keeps what an observation that is over leaves for the report:
// whether its loop hung or ignored its context's cancellation.
func (f *fleet) record(o *observation) {
	o.mu.Lock()
	hung, after := o.hung, o.after
	o.mu.Unlock()
	f.mu.Lock()
	defer f.mu.Unlock()
	if hung {
		f.hung = append(f.hung, o.dev.ID)
	}
	if after > 0 {
		if f.nIgnored++; len(f.ignored) < shown {
			f.ignored = append(f.ignored, o.dev.ID)
		}
	}
}

// report logs, when the test ends, what the policies' errors alone do not
// show to a test that reads only some of each device's delays.
func (f *fleet) report() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.hung) > 0 {
		f.t.Logf("loop: the loops of %d of %d devices hung and their goroutines were left behind: %s",
			len(f.hung), f.made, quoted(f.hung))
	}
	if f.nIgnored > 0 {
		more := ""
		if f.nIgnored > len(f.ignored) {
			more = fmt.Sprintf(" and %d more", f.nIgnored-len(f.ignored))
		}
		f.t.Logf("loop: the loops of %d of %d devices called op again after their context was cancelled at the limit (MaxDelays %d), and were ended with runtime.Goexit: %s%s; such a loop cannot be stopped through its context",
			f.nIgnored, f.made, f.cfg.MaxDelays, quoted(f.ignored), more)
	}
}

func quoted(ids []string) string {
	q := make([]string, len(ids))
	for i, id := range ids {
		q[i] = fmt.Sprintf("%q", id)
	}
	return strings.Join(q, ", ")
}

// An observation is one device's loop run in a bubble of its own. Its
// fields are shared by the bubble's goroutines and the watch outside, under
// mu.
type observation struct {
	dev      kit.Device
	loops    func(kit.Device) Loop
	max      int           // MaxDelays
	complete chan struct{} // made outside the bubble; closed when the loop is over

	// Set for a live run, and made outside the bubble, before it starts;
	// nil for a batch one.
	skip     int           // op's first calls, which fail at once as in a batch
	paused   chan call     // a call of op past skip, waiting for its outcome
	outcomes chan error    // what the waiting call of op returns
	quit     chan struct{} // closed when the run is over or ended: no call waits
	quitOnce sync.Once

	// Made inside the bubble, by its root, before the loop starts.
	ctx    context.Context
	cancel context.CancelFunc
	ended  chan struct{} // closed at the first call of op past the limit

	mu        sync.Mutex
	started   bool
	start     time.Time   // the fake clock when the loop was made
	calls     []time.Time // the instants of op's calls, at most max+1
	after     int         // calls of op past the limit, each ended with Goexit
	returned  bool
	loopErr   error // what the loop returned
	panicked  any
	exited    bool   // the loop's goroutine exited without returning, not by op
	deadlock  string // the runtime's reason, when the bubble deadlocked
	hung      bool
	abandoned bool  // a live run whose calls of op wait no more: it is over or ended
	err       error // an error of its own, ending the observation
}

// A call is one call of op in a live run: its number, counting from 1, and
// its instant on the fake clock.
type call struct {
	n  int
	at time.Time
}

func newObservation(dev kit.Device, loops func(kit.Device) Loop, max int) *observation {
	return &observation{dev: dev, loops: loops, max: max, complete: make(chan struct{})}
}

// observe runs the bubble and records how it ended.
func (o *observation) observe(t *testing.T) {
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		o.mu.Lock()
		defer o.mu.Unlock()
		if err, ok := r.(error); ok && strings.HasPrefix(err.Error(), "deadlock: ") {
			o.deadlock = err.Error()
			return
		}
		if bubble.Nested(r) {
			o.err = errNested
			return
		}
		o.err = fmt.Errorf("loop: testing/synctest panicked: %v", r)
	}()
	bubble.Prepare()
	synctest.Test(t, o.root)
}

// root is the bubble's main goroutine. It moves the clock to the device's
// boot, runs the loop on a goroutine of its own, and returns when the loop
// returns or calls op past the limit.
func (o *observation) root(*testing.T) {
	if d := o.dev.Boot.Sub(time.Now()); d > 0 {
		time.Sleep(d)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	o.mu.Lock()
	o.ctx, o.cancel, o.ended = ctx, cancel, make(chan struct{})
	o.started, o.start = true, time.Now().Round(0)
	o.mu.Unlock()
	go o.run(ctx, done)
	select {
	case <-done:
	case <-o.ended:
	}
	cancel()
	close(o.complete)
}

// run makes the device's loop and runs it, recording how it ended.
func (o *observation) run(ctx context.Context, done chan<- struct{}) {
	returned := false
	defer func() {
		r := recover()
		o.mu.Lock()
		switch {
		case returned:
		case r != nil:
			o.panicked = r
		case o.after == 0:
			o.exited = true
		}
		o.mu.Unlock()
		close(done)
	}()
	l := o.loops(o.dev)
	if l == nil {
		o.mu.Lock()
		o.err = errors.New("loop: the loops function returned a nil Loop")
		o.mu.Unlock()
		returned = true
		return
	}
	err := l(ctx, o.op)
	o.mu.Lock()
	o.returned, o.loopErr = true, err
	o.mu.Unlock()
	returned = true
}

// errUnavailable is what op fails with in a live run given a value that
// is no outcome.
var errUnavailable = errors.New("loop: unavailable (jitterkit's operation fails on every call)")

// The errors op returns in a live run for the outcome the replay
// observes: a loop may tell them apart with errors.Is, as it tells its
// server's errors apart. A Success returns nil.
var (
	// ErrRejected is op's error for a [kit.Rejection]: the server refused
	// the attempt.
	ErrRejected = errors.New("loop: rejected (the replay's server refused the attempt)")
	// ErrTimeout is op's error for a [kit.Timeout]: no answer came in
	// time. It is not context.DeadlineExceeded: the loop's context is
	// not done.
	ErrTimeout = errors.New("loop: timed out (the replay's server did not answer in time)")
	// ErrDropped is op's error for a [kit.Drop]: the server accepted a
	// session and dropped it. op returns once per call, so the loop sees
	// the drop as the attempt's failure, never as a success followed by
	// a drop.
	ErrDropped = errors.New("loop: dropped (the replay's server accepted the session and dropped it)")
)

// opError returns what op returns for outcome o: nil for a Success, and
// errUnavailable for a value that is no outcome.
func opError(o kit.Outcome) error {
	switch o {
	case kit.Success:
		return nil
	case kit.Rejection:
		return ErrRejected
	case kit.Timeout:
		return ErrTimeout
	case kit.Drop:
		return ErrDropped
	}
	return errUnavailable
}

// op is the operation the loop retries: it records the instant of the
// call and fails with ErrRejected, or in a live run waits for the outcome the replay
// reports. The call that reaches the limit cancels the loop's context and
// returns its error; a call past it, or past the end of a live run, ends
// the calling goroutine.
func (o *observation) op(ctx context.Context) error {
	o.mu.Lock()
	if len(o.calls) > o.max || o.abandoned {
		o.after++
		first := o.after == 1
		o.mu.Unlock()
		if first {
			close(o.ended)
		}
		runtime.Goexit()
	}
	now := time.Now()
	o.calls = append(o.calls, now)
	n := len(o.calls)
	last := n == o.max+1
	o.mu.Unlock()
	if last {
		o.cancel()
		return o.ctx.Err()
	}
	if ctx != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	if o.paused == nil || n <= o.skip {
		return ErrRejected
	}
	select {
	case o.paused <- call{n: n, at: now}:
	case <-o.quit:
		return o.abandon()
	}
	select {
	case err := <-o.outcomes:
		return err
	case <-o.quit:
		return o.abandon()
	}
}

// abandon ends a live run whose call of op can wait no more: it cancels
// the loop's context and returns its error, and the next call of op ends
// the calling goroutine.
func (o *observation) abandon() error {
	o.mu.Lock()
	o.abandoned = true
	o.mu.Unlock()
	o.cancel()
	return o.ctx.Err()
}

// stopWaiting closes quit: no call of op of a live run waits any more.
func (o *observation) stopWaiting() { o.quitOnce.Do(func() { close(o.quit) }) }

// hang marks the observation as hung after limit of real time.
func (o *observation) hang(limit time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.hung = true
	reached := len(o.calls) > o.max
	switch {
	case !o.started:
		o.err = fmt.Errorf("loop: did not start within %v of real time (loop.Config.Timeout): the bubble was not scheduled; its goroutines are left behind", limit)
	case reached:
		o.err = fmt.Errorf("loop: reached the limit of %d delays (loop.Config.MaxDelays) without giving up, and then neither returned nor called op for %v of real time after its context was cancelled (loop.Config.Timeout); its goroutines are left behind", o.max, limit)
	default:
		o.err = fmt.Errorf("loop: hung: did not finish within %v of real time (loop.Config.Timeout), after %d calls of op: it spins without waiting, or waits on something outside its bubble (real I/O, a goroutine, channel or lock made outside it); its goroutines are left behind", limit, len(o.calls))
	}
}

// policy returns what the observation recorded, as a policy: the delays
// between op's calls, then how the loop ended.
func (o *observation) policy() kit.Policy {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.err == errNested {
		return &failed{err: fmt.Errorf("loop: %w", errNested)}
	}
	delays := make([]time.Duration, 0, max(0, len(o.calls)-1))
	for i := 1; i < len(o.calls); i++ {
		delays = append(delays, o.calls[i].Sub(o.calls[i-1]))
	}
	return &observed{delays: delays, end: o.end(), start: o.start, hung: o.hung}
}

// end returns how the observation ended, as the policy's last error. o.mu
// is held.
func (o *observation) end() error {
	if o.err == errNested {
		return fmt.Errorf("loop: %w", errNested)
	}
	n := len(o.calls)
	reached := n > o.max
	// over: the loop returned, panicked, exited or was ended past the
	// limit; a deadlock after that is what it left behind, not the loop's.
	over := o.returned || o.panicked != nil || o.exited || o.after > 0
	switch {
	case o.err != nil:
		return o.err
	case reached:
		msg := fmt.Sprintf("loop: reached the limit of %d delays (loop.Config.MaxDelays) without giving up; raise MaxDelays to read more", o.max)
		switch {
		case o.after > 0:
			msg += "; it called op again after its context was cancelled, and was ended with runtime.Goexit"
		case o.deadlock != "" && !over:
			msg += "; after its context was cancelled it blocked for ever"
		}
		return errors.New(msg)
	case o.deadlock != "" && !over:
		return fmt.Errorf("loop: blocked for ever after %d calls of op: every goroutine of its bubble waits on something only the bubble could deliver, and no timer is set (%s)", n, o.deadlock)
	case o.panicked != nil:
		return fmt.Errorf("loop: panicked after %d calls of op: %v", n, o.panicked)
	case o.exited:
		return fmt.Errorf("loop: its goroutine exited without returning after %d calls of op (runtime.Goexit, as t.FailNow calls it)", n)
	case o.returned && n == 0:
		return fmt.Errorf("loop: returned without calling op: %v", o.loopErr)
	case o.returned:
		return kit.ErrStop
	default:
		return errors.New("loop: ended without returning")
	}
}

// observed is the policy of a device whose loop ran: its delays, then how
// the loop ended. It is kit.FakeClocked and a kit.Observer: its first
// Observe runs the loop again, live, and the live run answers from then
// on.
type observed struct {
	delays []time.Duration
	end    error
	start  time.Time
	read   int  // the delays Next returned before the run went live
	hung   bool // the loop hung: it is not run again

	fleet *fleet
	dev   kit.Device
	live  *live
}

func (p *observed) Next() (time.Duration, error) {
	if p.live != nil {
		return p.live.next()
	}
	if len(p.delays) == 0 {
		return 0, p.end
	}
	d := p.delays[0]
	p.delays = p.delays[1:]
	p.read++
	return d, nil
}

// Observe reports the outcome of the attempt the loop's pending call of op
// makes, and waits until the loop calls op again or ends. The first
// outcome other than a Rejection runs the device's loop again in a bubble
// of its own, live. A Rejection before it is what the observation made
// with the policy assumed: its calls of op were rejected, so that the
// delays it recorded are the loop's after that outcome, and a reader
// that reports a rejection before each delay, as the property checks do,
// reads them without a live run.
func (p *observed) Observe(o kit.Outcome) {
	if p.live == nil {
		if o == kit.Rejection {
			return
		}
		p.live = p.fleet.goLive(p)
	}
	p.live.observe(o)
}

// ClockStart returns the instant the device's fake clock read when its loop
// was made.
func (p *observed) ClockStart() time.Time { return p.start }

// A live run is a device's loop run again under a fake clock, stepped by
// the replay: each call of op waits for the outcome Observe reports, and
// Next reads how long the loop waited until its next call.
type live struct {
	f        *fleet
	o        *observation
	finished chan struct{} // closed when the bubble is over

	last   call  // the latest call of op that waited
	prev   call  // the call before it, whose outcome was reported
	unread bool  // the delay from prev to last is Next's to return
	over   bool  // the loop ended, or the run did: Next returns end
	end    error // how the loop ended
	// served: the last outcome reported was a success, after which the
	// replay reads no delay; a panic then is reported on the test.
	served bool
}

// goLive starts the live run of p's device and waits for the loop's first
// call of op past the delays p returned already, which fail at once, as
// those delays assumed. A loop that hung in p's observation is not run
// again: it ends as it did.
func (f *fleet) goLive(p *observed) *live {
	if p.hung {
		return &live{over: true, end: p.end}
	}
	f.mu.Lock()
	err := f.refused()
	f.mu.Unlock()
	if err != nil {
		return &live{over: true, end: err}
	}
	o := newObservation(p.dev, f.loops, f.cfg.MaxDelays)
	o.skip, o.paused, o.outcomes, o.quit = p.read, make(chan call), make(chan error), make(chan struct{})
	l := &live{f: f, o: o}
	f.mu.Lock()
	f.live = append(f.live, l)
	f.mu.Unlock()
	b := f.start(o)
	l.finished = b.finished
	f.keep(b)
	l.wait()
	return l
}

// observe hands the outcome to the waiting call of op and waits for the
// loop's next call or its end.
func (l *live) observe(o kit.Outcome) {
	if l.over {
		return
	}
	l.served = o == kit.Success
	l.deliver(opError(o))
}

// next returns the time the loop waited from the call of op whose outcome
// was reported last to its next call, or how the loop ended. Without an
// outcome since the delay it returned before, the waiting call is
// rejected, as in a batch observation.
func (l *live) next() (time.Duration, error) {
	if !l.over && !l.unread {
		l.deliver(ErrRejected)
	}
	if !l.unread {
		return 0, l.end
	}
	l.unread = false
	return l.last.at.Sub(l.prev.at), nil
}

// deliver makes the waiting call of op return err, and waits.
func (l *live) deliver(err error) {
	select {
	case l.o.outcomes <- err:
	case <-l.o.quit:
		// The run was ended under the call (the test is over): it ends.
		l.finish()
		return
	}
	l.prev = l.last
	l.unread = false
	l.wait()
}

// wait waits, for at most the Timeout of real time, until the loop calls
// op and the call waits, or until the loop is over.
func (l *live) wait() {
	timer := time.NewTimer(l.f.cfg.Timeout)
	defer timer.Stop()
	select {
	case c := <-l.o.paused:
		l.last = c
		l.unread = l.prev.n > 0
		return
	case <-l.finished:
	case <-l.o.complete:
	case <-timer.C:
		l.o.hang(l.f.cfg.Timeout)
		l.f.record(l.o)
	}
	l.finish()
}

// finish ends the run: no call of op waits any more, and Next returns how
// the loop ended, after the delay to the call that reached the limit,
// which does not wait.
func (l *live) finish() {
	l.over = true
	l.o.stopWaiting()
	l.o.mu.Lock()
	defer l.o.mu.Unlock()
	l.end = l.o.end()
	if l.served && l.o.panicked != nil {
		// No delay follows a success: the replay would not see it.
		l.f.t.Errorf("loop: device %q: %v, once its op had succeeded", l.o.dev.ID, l.end)
	}
	if n := l.prev.n; n > 0 && l.last.n == n && len(l.o.calls) > n {
		l.last = call{n: n + 1, at: l.o.calls[n]}
		l.unread = true
	}
}

// windDown ends, when the test ends, the live runs still going, and waits
// for every bubble started to return: the waiting calls of op of the live
// runs return the cancelled context's error, and the bubbles are given the
// Timeout, together, to wind down. A bubble that outlives it is logged and
// left behind, as is one whose loop hung, which was reported already.
func (f *fleet) windDown() {
	f.mu.Lock()
	runs, bubbles := f.live, f.bubbles
	f.mu.Unlock()
	for _, l := range runs {
		l.o.stopWaiting()
	}
	deadline := time.NewTimer(f.cfg.Timeout)
	defer deadline.Stop()
	expired := false
	var left []string
	for _, b := range bubbles {
		b.o.mu.Lock()
		hung := b.o.hung
		b.o.mu.Unlock()
		if hung {
			continue
		}
		if !expired {
			select {
			case <-b.finished:
				continue
			case <-deadline.C:
				expired = true
			}
		}
		select {
		case <-b.finished:
		default:
			left = append(left, b.o.dev.ID)
		}
	}
	if len(left) > 0 {
		f.t.Logf("loop: the bubbles of %d devices did not wind down within %v of real time (loop.Config.Timeout) after the test ended; their goroutines are left behind: %s",
			len(left), f.cfg.Timeout, quoted(left))
	}
}

// failed is the policy of a device whose loop could not run at all. It
// ignores what it observes.
type failed struct{ err error }

func (p *failed) Next() (time.Duration, error) { return 0, p.err }

func (p *failed) Observe(kit.Outcome) {}
