package kit_test

import (
	"errors"
	"fmt"
	"log"
	"math"
	"strings"
	"time"

	"github.com/jitterkit/jitterkit/kit"
)

// A spec describes a built-in policy; its Factory gives every device its own
// delays, the same ones on every run.
func ExampleParseSpec() {
	spec, err := kit.ParseSpec("full:base=1s,cap=30s")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(spec)
	policy := spec.Factory()
	for _, id := range []string{"dev-000001", "dev-000002"} {
		delays, err := kit.Delays(policy(kit.Device{ID: id}), 5)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(id, roundAll(delays))
	}
	// Output:
	// full:base=1s,cap=30s
	// dev-000001 [325ms 158ms 1.582s 5.767s 12.385s]
	// dev-000002 [458ms 289ms 690ms 5.089s 2.936s]
}

// A bad spec says which part is wrong.
func ExampleParseSpec_error() {
	_, err := kit.ParseSpec("full:base=1s,cap=soon")
	fmt.Println(err)
	// Output:
	// policy spec "full:base=1s,cap=soon": cap: "soon" is not a duration (e.g. 100ms, 10s, 1m30s)
}

// Seeding from the boot clock gives every device powered on in the same
// second the same delays: the mistake the checks exist to catch.
func ExampleSpec_Factory_seedClock() {
	spec := kit.Spec{Strategy: kit.Full, Base: time.Second, Cap: 30 * time.Second, Seed: kit.SeedClock}
	relay := time.Date(2026, 3, 1, 4, 0, 0, 0, time.UTC)
	policy := spec.Factory()
	for i, id := range []string{"dev-000001", "dev-000002"} {
		boot := relay.Add(time.Duration(i) * 300 * time.Millisecond)
		delays, _ := kit.Delays(policy(kit.Device{ID: id, Boot: boot}), 3)
		fmt.Println(id, roundAll(delays))
	}
	// Output:
	// dev-000001 [874ms 431ms 450ms]
	// dev-000002 [874ms 431ms 450ms]
}

// A spec's policies are Observers. With reset=on-success a Success starts
// the device's schedule over: the failure after it waits the first delay
// again, drawn again as the device first drew it.
func ExampleSpec_Factory_resetOnSuccess() {
	spec, err := kit.ParseSpec("full:base=1s,cap=30s,reset=on-success")
	if err != nil {
		log.Fatal(err)
	}
	p := spec.Factory()(kit.Device{ID: "dev-000001"}).(kit.Observer)
	for _, o := range []kit.Outcome{kit.Rejection, kit.Timeout, kit.Rejection, kit.Success, kit.Drop, kit.Rejection} {
		p.Observe(o)
		if o == kit.Success {
			fmt.Println(o)
			continue
		}
		d, _ := p.Next()
		fmt.Println(o, d.Round(time.Millisecond))
	}
	// Output:
	// rejection 325ms
	// timeout 158ms
	// rejection 1.582s
	// success
	// drop 325ms
	// rejection 158ms
}

func ExampleSpec_Window() {
	spec := kit.Spec{Strategy: kit.Equal, Base: time.Second, Cap: 10 * time.Second}
	for n := range 6 {
		fmt.Print(spec.Window(n), " ")
	}
	fmt.Println()
	// Output:
	// 1s 2s 4s 8s 10s 10s
}

// doubling is a retry library's backoff in the style of
// sethvargo/go-retry: Next returns the delay, and true to stop.
type doubling struct {
	next, max time.Duration
}

func (b *doubling) Next() (time.Duration, bool) {
	if b.next > b.max {
		return 0, true
	}
	d := b.next
	b.next *= 2
	return d, false
}

// reconnect is a device's reconnect backoff that learns how each attempt
// ended: a refused or timed-out connect doubles its wait, and a connect
// that holds starts it over, as an MQTT client resets its backoff once
// connected. A session the broker drops soon after accepting it counts as
// a failure, so a broker that keeps dropping sessions is not hammered.
type reconnect struct {
	attempt int
}

func (r *reconnect) Next() (time.Duration, error) {
	d := min(time.Second<<r.attempt, 8*time.Second)
	r.attempt++
	return d, nil
}

func (r *reconnect) Observe(o kit.Outcome) {
	if o == kit.Success {
		r.attempt = 0
	}
}

// A policy that implements Observer is told each attempt's outcome before
// it is asked for the delay after a failure.
func ExampleObserver() {
	var p kit.Observer = &reconnect{}
	for _, o := range []kit.Outcome{kit.Rejection, kit.Timeout, kit.Drop, kit.Success, kit.Rejection} {
		p.Observe(o)
		if o == kit.Success {
			fmt.Println(o)
			continue
		}
		d, _ := p.Next()
		fmt.Println(o, d)
	}
	// Output:
	// rejection 1s
	// timeout 2s
	// drop 4s
	// success
	// rejection 1s
}

// FromNext wraps a retry library's backoff as a policy, without importing
// the library. Its stop becomes kit.ErrStop, which Delays ends at.
func ExampleFromNext() {
	factory := func(kit.Device) kit.Policy {
		return kit.FromNext(&doubling{next: 100 * time.Millisecond, max: time.Second})
	}
	delays, err := kit.Delays(factory(kit.Device{ID: "dev-000001"}), 10)
	fmt.Println(delays, err)
	// Output:
	// [100ms 200ms 400ms 800ms] <nil>
}

// A plain function of the attempt number, counting from 1, is a policy too.
func ExampleFromFunc() {
	p := kit.FromFunc(func(attempt int) time.Duration {
		return time.Duration(attempt) * 250 * time.Millisecond
	})
	delays, _ := kit.Delays(p, 4)
	fmt.Println(delays)
	// Output:
	// [250ms 500ms 750ms 1s]
}

// A reconnect loop's backoff whose attempt 0 is the wait before its first
// try to reconnect, here no wait at all: the loop starts when the
// connection drops, so f(0) is the first retry's delay, and FromIndex asks
// it first. FromFunc would ask f(1) first and leave out the instant at which
// the whole fleet reconnects.
func ExampleFromIndex() {
	reconnectWait := func(attempt int) time.Duration {
		if attempt == 0 {
			return 0
		}
		return min(time.Duration(1<<(attempt-1))*time.Second, 8*time.Second)
	}
	delays, _ := kit.Delays(kit.FromIndex(reconnectWait), 6)
	fmt.Println(delays)
	// Output:
	// [0s 1s 2s 4s 8s 8s]
}

// A function told no attempt number, each call the next delay, as
// k8s.io/apimachinery's wait.Backoff.DelayFunc returns one, is a policy
// through FromDelayFunc; Limit stops it where its loop stops.
func ExampleFromDelayFunc() {
	delayFunc := func() func() time.Duration {
		next := 100 * time.Millisecond
		return func() time.Duration {
			d := next
			next = min(2*next, time.Second)
			return d
		}
	}
	factory := func(kit.Device) kit.Policy { return kit.Limit(kit.FromDelayFunc(delayFunc()), 5) }
	delays, err := kit.Delays(factory(kit.Device{ID: "dev-000001"}), 10)
	fmt.Println(delays, err)
	// Output:
	// [100ms 200ms 400ms 800ms 1s] <nil>
}

// Recorded delays are a policy source like any other. A NaN or a negative
// delay is read as it is: it is the recorded policy's defect.
func ExampleReadTrace() {
	const csv = `device,attempt,delay_s
dev-b,1,0.5
dev-a,1,0.25
dev-a,2,1.5
dev-b,2,-1
dev-b,3,NaN
`
	trace, err := kit.ReadTrace(strings.NewReader(csv))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(trace.IDs(), trace.Attempts())
	policy := trace.Factory()
	for _, id := range append(trace.IDs(), "dev-c") {
		delays, err := kit.Delays(policy(kit.Device{ID: id}), 10)
		fmt.Println(id, delays, err)
	}
	// Output:
	// [dev-a dev-b] 3
	// dev-a [250ms 1.5s] <nil>
	// dev-b [500ms -1s] delay NaN s is not a duration
	// dev-c [] trace has no device "dev-c"
}

// A malformed trace names the line and the field.
func ExampleReadTrace_error() {
	_, err := kit.ReadTrace(strings.NewReader("device,attempt,delay_s\ndev-a,1,0.25\ndev-a,1,0.5\n"))
	fmt.Println(err)
	var te *kit.TraceError
	if errors.As(err, &te) {
		fmt.Println(te.Line, te.Field)
	}
	// Output:
	// trace line 3, field attempt: device "dev-a" attempt 1 repeats line 2
	// 3 attempt
}

// Seconds converts the delays of external sources; what a Duration cannot
// hold is a *DelayError, and a negative delay passes through for the checks
// to judge.
func ExampleSeconds() {
	for _, s := range []float64{0.042, -0.5, math.Inf(1)} {
		d, err := kit.Seconds(s)
		fmt.Println(d, err)
	}
	// Output:
	// 42ms <nil>
	// -500ms <nil>
	// 0s delay +Inf s is not a duration
}

// roundAll rounds delays to the millisecond for printing.
func roundAll(ds []time.Duration) []time.Duration {
	out := make([]time.Duration, len(ds))
	for i, d := range ds {
		out[i] = d.Round(time.Millisecond)
	}
	return out
}
