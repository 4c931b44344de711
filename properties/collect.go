package properties

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync/atomic"
	"time"

	"github.com/jitterkit/jitterkit/kit"
)

// A device is what one device's policy gave.
type device struct {
	index  int
	id     string
	delays []time.Duration
	fault  *fault
}

// A fault is what went wrong with one device's policy.
type fault struct {
	attempt int    // the 1-based attempt, 0 for the factory call
	msg     string // what happened, e.g. "panic: boom"
	defect  bool   // the policy's defect (bounds fails); else a source failure
	// sharedWith is the id of the earlier device whose policy the factory
	// returned again, or "".
	sharedWith string
}

// A sample holds the delays of a population of devices.
type sample struct {
	devices  []device // in population order; only the examined ones
	total    int      // size of the population asked for
	hangs    int
	shared   int    // devices the factory gave the policy of an earlier one
	stopped  string // why collection stopped before the whole population, if it did
	canceled error  // the context's error, when it ended the run
}

// complete reports whether every device of the population was examined.
func (s sample) complete() bool { return s.stopped == "" }

// boots says what boot instant each device of a collection is given.
type boots struct {
	at    time.Time     // the boot instant of the first device
	apart time.Duration // between one device's boot and the next's; 0 for one shared instant
}

// of returns the boot instant of the i-th device.
func (b boots) of(i int) time.Time { return b.at.Add(time.Duration(i) * b.apart) }

// maxHangs is how many devices may hang before a collection stops: each
// hang costs a CallTimeout, and a policy that hangs three times will hang
// again.
const maxHangs = 3

// collect reads up to n delays from the policy of each device, in order.
// Panics, delays that are not durations and source errors are recorded on
// the device, and so are calls that do not return within cfg.CallTimeout
// when it is positive; the collection goes on with the next device until
// ctx (which carries the run-wide deadline, cfg.Timeout) or maxHangs ends
// it.
func collect(ctx context.Context, f kit.Factory, ids []string, boot boots, n int, cfg Config) sample {
	s := sample{total: len(ids), devices: make([]device, 0, len(ids))}
	var tick <-chan time.Time
	if cfg.CallTimeout > 0 {
		t := time.NewTicker(max(cfg.CallTimeout/4, time.Millisecond))
		defer t.Stop()
		tick = t.C
	}
	from := 0
	for from < len(ids) {
		w := startWorker(f, ids, from, boot, n)
		var last int64 = -1
		idle := 0
	watch:
		for {
			select {
			case d := <-w.out:
				s.add(d)
			case <-w.done:
				for len(w.out) > 0 {
					s.add(<-w.out)
				}
				from = len(ids)
				break watch
			case <-w.exited:
				gone := w.abandon(&s)
				attempt := int(w.attempt.Load())
				s.devices = append(s.devices, device{index: gone, id: ids[gone], delays: w.partial(gone), fault: &fault{
					attempt: attempt,
					msg:     fmt.Sprintf("%s ended its goroutine instead of returning (runtime.Goexit, which t.FailNow and t.SkipNow call)", callName(attempt, w.observing())),
					defect:  true,
				}})
				from = gone + 1
				break watch
			case <-tick:
				if p := w.progress.Load(); p != last {
					last, idle = p, 0
					continue
				}
				if idle++; idle < 4 {
					continue
				}
				hung := w.abandon(&s)
				attempt := int(w.attempt.Load())
				s.devices = append(s.devices, device{index: hung, id: ids[hung], delays: w.partial(hung), fault: &fault{
					attempt: attempt,
					msg:     fmt.Sprintf("%s did not return within %v", callName(attempt, w.observing()), cfg.CallTimeout),
					defect:  true,
				}})
				s.hangs++
				from = hung + 1
				if s.hangs == maxHangs && from < len(ids) {
					s.stopped = fmt.Sprintf("stopped after %d of %d devices: %d hung", from, len(ids), s.hangs)
					from = len(ids)
				}
				break watch
			case <-ctx.Done():
				hung := w.abandon(&s)
				if parent := context.Cause(ctx); errors.Is(parent, context.DeadlineExceeded) {
					s.stopped = fmt.Sprintf("stopped after %d of %d devices: the run reached its deadline", hung, len(ids))
					if cfg.Timeout > 0 {
						s.stopped = fmt.Sprintf("stopped after %d of %d devices: the run took longer than its timeout of %v", hung, len(ids), cfg.Timeout)
					}
				} else {
					s.stopped = fmt.Sprintf("stopped after %d of %d devices: %v", hung, len(ids), parent)
					s.canceled = parent
				}
				return s
			}
		}
	}
	return s
}

// add appends d to the devices of s and counts what it shows.
func (s *sample) add(d device) {
	s.devices = append(s.devices, d)
	if d.fault != nil && d.fault.sharedWith != "" {
		s.shared++
	}
}

// callName names the call a fault happened in: the factory's, for
// attempt 0, Observe's when observing is an outcome, and Next's otherwise.
func callName(attempt int, observing kit.Outcome) string {
	switch {
	case attempt == 0:
		return "the factory"
	case observing != 0:
		return fmt.Sprintf("Observe(%v)", observing)
	}
	return "Next"
}

// workerBuffer is how many devices a worker reads ahead of the collection.
const workerBuffer = 1024

// A worker reads the devices of a population from one index on, in its own
// goroutine, so that a call that never returns can be left behind.
type worker struct {
	out       chan device
	done      chan struct{}
	exited    chan struct{} // closed when a call ended the goroutine (runtime.Goexit)
	progress  atomic.Int64  // calls started so far
	current   atomic.Int64  // index of the device being read
	attempt   atomic.Int64  // attempt being read, 0 for the factory
	outcome   atomic.Int64  // the kit.Outcome being observed, 0 outside Observe
	abandoned atomic.Bool
	delays    atomic.Pointer[[]time.Duration] // delays of the current device so far
	instances instances                       // used by the worker's goroutine alone
}

func startWorker(f kit.Factory, ids []string, from int, boot boots, n int) *worker {
	w := &worker{out: make(chan device, min(len(ids)-from, workerBuffer)), done: make(chan struct{}), exited: make(chan struct{})}
	w.current.Store(int64(from))
	go func() {
		returned := false
		defer func() {
			if !returned {
				// Only runtime.Goexit ends the goroutine without a
				// return: readDevice recovers every panic.
				close(w.exited)
			}
		}()
		var buf []time.Duration
		for i := from; i < len(ids); i++ {
			w.current.Store(int64(i))
			d := readDevice(f, kit.Device{ID: ids[i], Boot: boot.of(i)}, n, w, &w.instances, &buf)
			if w.abandoned.Load() {
				returned = true
				return
			}
			d.index = i
			w.out <- d
		}
		close(w.done)
		returned = true
	}()
	return w
}

// abandon leaves the worker behind, keeps the devices it read before the
// one it is reading, and returns that device's index.
func (w *worker) abandon(s *sample) int {
	w.abandoned.Store(true)
	current := int(w.current.Load())
	for len(w.out) > 0 {
		if d := <-w.out; d.index < current {
			s.add(d)
		}
	}
	return current
}

// observing returns the outcome the worker's call observes, 0 when the
// call is not Observe.
func (w *worker) observing() kit.Outcome { return kit.Outcome(w.outcome.Load()) }

// partial returns a copy of the delays the worker had read from device i
// when it hung.
func (w *worker) partial(i int) []time.Duration {
	if int(w.current.Load()) != i {
		return nil
	}
	if p := w.delays.Load(); p != nil {
		return append([]time.Duration(nil), (*p)...)
	}
	return nil
}

// readDevice reads up to n delays from the policy of dev into buf, and
// keeps a copy of exactly the delays read. A nil w reads without a watch,
// as inside a testing/synctest bubble. A policy that in knows as an
// earlier device's is not read: a second device on one instance is the
// factory's defect.
//
// Each delay follows a failed attempt, as a fleet that fails together
// retries: a policy that is a kit.Observer is told kit.Rejection before
// each call of Next (the first attempt's included), as a replay tells it,
// so that a policy that learns from outcomes is read as it behaves. Its
// Observe is watched, and its panics recovered, as Next is, and its
// faults name it.
func readDevice(f kit.Factory, dev kit.Device, n int, w *worker, in *instances, buf *[]time.Duration) (d device) {
	d.id = dev.ID
	d.delays = (*buf)[:0]
	defer func() {
		*buf = d.delays[:0]
		d.delays = slices.Clone(d.delays)
	}()
	attempt := 0
	var observing kit.Outcome // the outcome being observed, 0 outside Observe
	mark := func() {
		if w != nil {
			w.attempt.Store(int64(attempt))
			w.outcome.Store(int64(observing))
			snapshot := d.delays[:len(d.delays):len(d.delays)]
			w.delays.Store(&snapshot)
			w.progress.Add(1)
		}
	}
	defer func() {
		if r := recover(); r != nil {
			d.fault = &fault{attempt: attempt, msg: fmt.Sprintf("%s panicked: %v", callName(attempt, observing), r), defect: true}
		}
	}()
	mark()
	p := f(dev)
	if p == nil {
		d.fault = &fault{msg: "the factory returned a nil policy", defect: true}
		return d
	}
	if earlier := in.owner(p, dev.ID); earlier != "" {
		d.fault = &fault{msg: fmt.Sprintf("the factory returned the same policy for %q and %q: a fleet runs one instance per device; make a new policy in each call", earlier, dev.ID),
			defect: true, sharedWith: earlier}
		return d
	}
	o, _ := p.(kit.Observer)
	for attempt = 1; attempt <= n; attempt++ {
		if o != nil {
			observing = kit.Rejection
			mark()
			o.Observe(kit.Rejection)
			observing = 0
		}
		mark()
		v, err := p.Next()
		var de *kit.DelayError
		switch {
		case errors.Is(err, kit.ErrStop):
			return d
		case errors.As(err, &de):
			d.fault = &fault{attempt: attempt, msg: de.Error(), defect: true}
			return d
		case err != nil:
			d.fault = &fault{attempt: attempt, msg: err.Error()}
			return d
		}
		d.delays = append(d.delays, v)
	}
	return d
}

// collectSync reads the devices one after another, each in a goroutine of
// its own that the caller waits for, with panics recovered, and a call that
// ends its goroutine (runtime.Goexit) recorded as the device's fault, but
// no watch for hangs. Inside a testing/synctest bubble, where the clock
// stands still while goroutines run, devices booted apart are also made
// apart: the fake clock is moved on by boot.apart before each device after
// the first. A Goexit on the bubble's own goroutine would end the test.
func collectSync(f kit.Factory, ids []string, boot boots, n int) sample {
	s := sample{total: len(ids), devices: make([]device, 0, len(ids))}
	var buf []time.Duration
	var in instances
	for i, id := range ids {
		if i > 0 && boot.apart > 0 {
			time.Sleep(boot.apart)
		}
		d := readAlone(f, kit.Device{ID: id, Boot: boot.of(i)}, i, n, &in, &buf)
		d.index = i
		s.add(d)
	}
	return s
}

// readAlone is readDevice on a goroutine of its own, which the caller
// waits for: a call of the policy that ends it instead of returning is the
// device's fault, with the delays read before it.
func readAlone(f kit.Factory, dev kit.Device, i, n int, in *instances, buf *[]time.Duration) device {
	w := &worker{}
	w.current.Store(int64(i))
	var d device
	returned := false
	done := make(chan struct{})
	go func() {
		defer close(done)
		d = readDevice(f, dev, n, w, in, buf)
		returned = true
	}()
	<-done
	if !returned {
		attempt := int(w.attempt.Load())
		d = device{id: dev.ID, delays: w.partial(i), fault: &fault{
			attempt: attempt,
			msg:     fmt.Sprintf("%s ended its goroutine instead of returning (runtime.Goexit, which t.FailNow and t.SkipNow call)", callName(attempt, w.observing())),
			defect:  true,
		}}
	}
	return d
}

// instances remembers policies a collection was given, to find a factory
// that returns one policy to several devices: on a fleet every device runs
// a policy of its own, and one instance shared by a population draws one
// stream of delays that looks spread across devices but that no device of
// a real fleet would wait, and replays as no fleet does. It remembers the
// first device's policy and the last one's, so that it holds two policies
// alive however large the population: a factory that returns one policy to
// every device is found at its second device, one that hands out a few in
// turn or at random when it gives the first again.
type instances struct {
	first, last     kit.Policy
	firstID, lastID string
}

// owner returns the id of the earlier device, the first or the last,
// whose policy p is (see samePolicy), or "", and remembers p as dev's.
func (in *instances) owner(p kit.Policy, dev string) string {
	switch {
	case in.first != nil && samePolicy(in.first, p):
		return in.firstID
	case in.last != nil && samePolicy(in.last, p):
		return in.lastID
	}
	if in.first == nil {
		in.first, in.firstID = p, dev
	}
	in.last, in.lastID = p, dev
	return ""
}

// samePolicy reports whether a and b are one instance, whose state a call
// of Next on either changes for both:
//
//   - pointers, maps and channels are one when they are one reference; a
//     nil one, and a pointer to a value of size zero (which Go may give
//     every new value of its type), are never taken for one;
//   - values of other comparable types (a struct such as an adapter's
//     that holds the library's backoff) are one when they are equal and
//     hold a reference, as a pointer to the same state: equal values that
//     hold none cannot keep state of their own, as their methods get
//     copies;
//   - functions, and values that cannot be compared (holding a slice, a
//     map or a function), are never taken for one: Go cannot tell one
//     closure from another made by the same code, nor whether two slices
//     are the same state.
//
// It never panics, whatever the policies' dynamic types.
func samePolicy(a, b kit.Policy) bool {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	if va.Type() != vb.Type() {
		return false
	}
	switch va.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Chan, reflect.UnsafePointer:
		return isReference(va) && va.UnsafePointer() == vb.UnsafePointer()
	case reflect.Func:
		return false
	}
	if !va.Comparable() || !vb.Comparable() || a != b {
		return false
	}
	return holdsReference(va, 0)
}

// maxDepth is how deep holdsReference looks into nested structs, arrays
// and interfaces: a policy's own value is a few levels deep.
const maxDepth = 8

// holdsReference reports whether v, a comparable value, holds a pointer, a
// map or a channel (see isReference) in its fields, elements or dynamic
// value, within maxDepth levels.
func holdsReference(v reflect.Value, depth int) bool {
	if depth > maxDepth {
		return false
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Chan, reflect.UnsafePointer:
		return isReference(v)
	case reflect.Interface:
		return !v.IsNil() && holdsReference(v.Elem(), depth+1)
	case reflect.Struct:
		for i := range v.NumField() {
			if holdsReference(v.Field(i), depth+1) {
				return true
			}
		}
	case reflect.Array:
		for i := range v.Len() {
			if holdsReference(v.Index(i), depth+1) {
				return true
			}
		}
	}
	return false
}

// isReference reports whether v, a pointer, map, channel or unsafe
// pointer, refers to state that tells one value from another: it is not
// nil, and a pointer does not point to a value of size zero.
func isReference(v reflect.Value) bool {
	if v.IsNil() {
		return false
	}
	return v.Kind() != reflect.Pointer || v.Type().Elem().Size() > 0
}
