// Package loop turns the retry loop a device ships into a [kit.Factory], so
// that a library which never hands out a delay (it sleeps, waits on a timer
// or a context, or reconnects on its own) is checked as it is.
//
// A [Loop] is the user's code, unchanged: a function that calls an
// operation until it succeeds or the loop gives up, waiting between calls.
// For each device, [Factory] runs the device's loop in a testing/synctest
// bubble of its own with an operation that always fails ([ErrRejected]), and records the
// instant of every call. The delays between consecutive calls are the
// device's policy. Inside the bubble the clock is fake: it stands still
// while the loop's goroutines run and jumps ahead when they all wait, so a
// loop that would sleep for minutes is observed in microseconds, and the
// delays are exactly what the loop waited, to the nanosecond.
//
// # The clock of each device
//
// A bubble's clock starts at midnight UTC 2000-01-01. Before the device's
// loop is made, the clock is moved on to the device's Boot instant when Boot
// is later, so devices booted at one instant start at one instant, and
// devices booted a second apart start a second apart, as devices powered on
// by one relay do. A loop that seeds its jitter from time.Now then gives
// every device booted together the same delays, and the checks see it. The
// policies are [kit.FakeClocked]: the frozen-clock check of package
// properties recognises them and compares devices booted at one instant with
// devices booted apart without a bubble of its own. Devices booted before
// 2000-01-01 all start at 2000-01-01 (the clock cannot move back), and
// ClockStart says so.
//
// # When the observation ends
//
// The loop runs until it returns or until op has been called
// [Config.MaxDelays]+1 times. At that call the loop's context is cancelled
// and op returns the context's error; a loop that calls op again all the
// same is ended with runtime.Goexit on the goroutine that called op. The
// policy then gives the delays observed, and then:
//
//   - [kit.ErrStop], when the loop returned on its own before the limit: it
//     gave up.
//   - an error saying the limit was reached, when it was: the loop had not
//     given up, and more delays cannot be read. Properties reads 32 delays
//     by default (its CapAttempts), the default MaxDelays; a replay reads up
//     to its scenario's MaxAttempts, so set MaxDelays to that for sim.
//   - an error naming what went wrong, otherwise (see below).
//
// A loop that never waits gives delays of 0, which the checks fail. A loop
// whose goroutines all block for ever on something of the bubble (a channel
// nobody sends on, with no timer set) deadlocks the bubble: that is caught
// and reported as the device's error. A loop that neither returns, calls
// op, nor waits cannot be stopped in Go: its device is watched from outside
// the bubble with a limit of real time ([Config.Timeout], 20 s by default,
// millions of times what a loop takes), reported as hung, and its goroutines
// are left behind. Its bubble runs on the test's T, so a hung loop that
// ends after its test has ended ends a subtest of a test that is over: a
// data race the race detector reports in that test binary. Once the loops of three devices have hung, the factory
// observes no more devices and their policies say why at once.
//
// Every error of the adapter reaches the checks as a failure of the policy's
// source, not as the policy's defect: properties reports it in Outcome.Err
// with the device and the attempt (Check fails the test with it) and judges
// the devices that were observed, and a replay stops with a DeviceError. The
// adapter cannot tell a loop's own defect from what a fake clock cannot run:
// a loop that deadlocks inside a bubble may wait on something the real world
// would deliver, and one that looks hung may be doing real network I/O.
//
// # Live: the outcome as it happens
//
// The policies are [kit.Observer]s. A policy whose Observe is never called
// gives the delays observed when it was made, as above, and so does one
// told only of rejections: the observation rejected every call of op, so
// its delays are the loop's after a rejection each, and the property
// checks, which report a rejection before each delay they read, read them
// at once. The first Observe of another outcome runs the device's loop
// again, from its start, in a new bubble, and the loop's operation then
// learns each outcome as it happens: each
// call of op waits, with the fake clock standing still, until the replay
// reports that attempt's outcome through Observe, and returns nil for a
// [kit.Success], [ErrRejected] for a [kit.Rejection], [ErrTimeout] for a
// [kit.Timeout] and [ErrDropped] for a [kit.Drop] (the loop sees a drop as
// the attempt's failure: op returns once per call). Observe returns when
// the loop has called op again or ended; Next then returns the time the
// loop waited from the call whose outcome was reported last to its next
// call, or how the loop ended ([kit.ErrStop] when it returned). A loop that
// resets its backoff after op succeeds therefore waits its first delay
// again after the next failure, as it does in the field.
//
// The calls of op whose delays were read before the live run fail at once,
// rejected, as they were when those delays were read, and a Next called
// with no Observe since the delay before it fails the waiting call the
// same way.
// An Observe after the loop ended is ignored. A loop that waits for ever
// after a success, as one that holds its session until its context is
// done, deadlocks its bubble: the failure reported after it gets that
// error from Next. The limit, MaxDelays, counts the calls of op of the
// whole run, successes included. Config.Timeout bounds each step: the real
// time from an outcome to the loop's next call of op or its end; a loop
// that takes longer is reported as hung, as above.
//
// A live run holds its bubble, and the loop's goroutines, until the loop
// ends. When the test ends, the runs still going are ended: the waiting
// call of op returns the cancelled context's error, a call after it ends
// its goroutine with runtime.Goexit. The end of the test waits for every
// bubble, live or not, to return (a loop's leftover goroutines may outlive
// the loop), and the bubbles that do not wind down within Config.Timeout
// are logged and left behind. A loop whose delays
// do not depend on time.Now or on state shared between devices gives the
// same delays live as when its policy was made, for the same outcomes.
//
// # One instance per device
//
// The adapter gives every device a policy of its own, whatever loops
// returns, so the checks never find a shared instance in its fleet. A Loop
// is a function, and what it keeps in its call (its attempt count, its
// window) is the device's own, so one Loop may serve every device. What it
// reaches beyond its call is shared by every device that reaches it: a
// generator or a library's backoff made outside loops draws one stream of
// delays for the whole fleet, which no comparison of instances can see in
// a function (Go cannot tell two closures of the same code apart). The
// reproducibility check finds it: a device made again draws other delays.
// Make such state in loops, which runs in the device's bubble, once for
// each device.
//
// # What it cannot observe
//
//   - A negative delay: the loop waits it as none, and it shows as 0.
//   - Time the operation itself takes: op returns at once, so the delays are
//     the waits alone, not a timeout on each attempt.
//   - Anything the loop decides from the error's kind, unless the policy
//     is driven live: op fails with ErrRejected before the limit. A loop
//     that retries only some errors is wrapped so that op's failure
//     becomes one it retries.
//   - Code that needs goroutines, channels or timers made outside the
//     device's bubble, or made inside another device's: a goroutine waiting
//     on them is not durably blocked, so the fake clock does not move (the
//     device looks hung), and operating on another bubble's channel or timer
//     panics. A library that keeps such state in package variables, made
//     on first use, cannot be observed. Package net keeps its resolver's
//     so, and the adapter makes it, once per process, before the first
//     bubble: a loop may resolve names and dial (a client that resolves
//     its server's address when it is made, as go-redis's NewClient does,
//     is observed). Devices observed at once must not resolve one name at
//     once: net shares one lookup in flight among its callers, across
//     bubbles, which is a fatal error of the runtime.
//   - A panic in a goroutine the loop starts: it crashes the test binary, as
//     in any test. A panic in the loop's own goroutine is reported as the
//     device's error.
//
// # Only in go test
//
// testing/synctest needs the test's *testing.T, so the adapter is for go
// test: [Factory] takes t, and its policies may only be made while the test
// runs. It cannot run inside a bubble of the caller's: bubbles do not nest.
// Factory called inside one fails the test at once, and a policy made inside
// one (properties.Check called inside synctest.Test with a factory made
// outside) gives an error saying so instead of delays.
package loop
