// Package kit models a retry policy one device at a time, so that a fleet of
// devices running the same policy can be checked and replayed.
//
// A [Policy] is the schedule of one device: each call to Next returns the
// delay before its next retry, or [ErrStop] when it gives up. A [Factory]
// makes one Policy per [Device] from the device's identity: its id and the
// instant it booted. Everything jitterkit checks is a Factory, whatever the
// policy's source: one of the four built-in strategies described by a
// [Spec], a retry library wrapped by an adapter, or delays recorded from real
// devices ([ReadTrace]).
//
// # Adapters
//
// The adapters take a library's delay method as it is, without importing the
// library:
//
//	FromNextBackOff   cenkalti/backoff's NextBackOff, -1 to stop
//	FromNext          sethvargo/go-retry's Next, true to stop
//	FromBackoffDelay  aws-sdk-go-v2's BackoffDelay(attempt, err), attempts from 1
//	FromStep          k8s.io/apimachinery wait.Backoff's Step, no attempt number
//	FromDelayFunc     a func() time.Duration, each call the next delay, as
//	                  k8s.io/apimachinery's wait.DelayFunc
//	FromFunc          a function of the attempt number, counting from 1
//	FromIndex         a function of the retry's index, counting from 0, as
//	                  go-retryablehttp's Backoff is asked
//	Limit             any policy stopped after n delays, as a loop with a
//	                  limit on attempts stops it
//
// The first delay of a policy is the wait before a device's first retry,
// after the try that failed with the whole fleet. A backoff function whose
// attempt 0 is the wait before the first try is therefore read in one of
// two ways. A reconnect loop starts when its connection drops, with every
// device's, and waits f(0) before its first try to reconnect: that try is
// a retry, and FromIndex(f) makes f(0) the first delay, so that an f(0) of
// 0 or of exactly the base, the same for every device, is found. A loop
// that waits f(0) before a first try that itself fails with the fleet, as
// a request loop does, retries first after f(1): FromFunc(f) leaves f(0)
// out.
//
// A library that hands out no delay at all, but sleeps, waits on a timer or
// reconnects on its own, is checked through its retry loop itself: package
// kit/loop runs the loop a device ships under a fake clock and records when
// it calls its operation. Its policies are [FakeClocked].
//
// # The four strategies
//
// With base b, cap c, multiplier m and n counting retries from 0, the window
// is min(c, b·mⁿ) and the n-th delay is
//
//	none          window
//	full          uniform(0, window)
//	equal         window/2 + uniform(0, window/2)
//	decorrelated  min(c, uniform(b, 3·previous)), previous starting at b
//
// Decorrelated jitter grows from the previous delay rather than from n; its
// factor is the multiplier when one is set and 3 otherwise.
//
// # Outcomes and resets
//
// A policy that is also an [Observer] learns how each attempt of its device
// ended, as an [Outcome]: a Success, a Rejection, a Timeout or a Drop (a
// session accepted and then dropped). Every replay tells it each outcome
// before it asks for the delay that follows a failure, and the property
// checks tell it of a rejection before each delay they read; the Observer
// documentation states the contract. A policy that is not an Observer is
// read as a device whose every attempt fails.
//
// The policies of a [Spec] are Observers. Its reset rule ([ResetRule], the
// spec key reset) says what they do with what they learn: under never, the
// default, nothing, and n only grows; under on-success a Success starts the
// policy over, as a client resets its backoff after a successful request
// or connect, so that the next failure is followed by the first delay
// again. Starting over re-seeds the device's generator, so the delays after
// a reset are exactly those of a fresh policy of the same device.
//
// # Seeding
//
// Each device draws from its own PCG generator ([math/rand/v2.PCG]). By
// default the generator is seeded from a stable hash of the device id: h is
// the 64-bit FNV-1a hash of the id's bytes, and the PCG state is
// (h, splitmix64(h)). The hash depends on nothing but the id, so the same id
// gives the same delays in every process, on every machine and after every
// restart, while ids that differ in one character draw independent
// sequences. [SeedClock] and [SeedConstant] reproduce the two mistakes the
// checks exist to catch: seeding from the boot second, which devices powered
// on together share, and seeding every device alike.
package kit
