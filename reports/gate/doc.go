// Package gate is jitterkit's whole judgement of one retry policy: the
// property checks, the fleet replay, a comparison with the four built-in
// strategies on the same scenario, one verdict, and what to change, as one
// [reports.Report]. The jitterkit CLI and go test reach the same verdict
// through it: the CLI binds its flags to a [Config] and calls [Run]; a
// test calls [Check], which also freezes the clock of the frozen-clock
// check inside a testing/synctest bubble.
//
//	func TestRetryPolicy(t *testing.T) {
//		gate.Check(t, gate.GoPolicy("client", factory), gate.Config{
//			Checks:   properties.Config{Cap: 90 * time.Second},
//			Scenario: sim.Scenario{Clients: 50_000, AcceptRate: 3000, Down: time.Minute},
//		})
//	}
//
// # The steps
//
// Run validates the whole configuration before any work, then runs the
// steps Config.Steps names, all three by default: the property checks
// (package properties), the fleet replay (package sim), and a comparison
// of the policy with the four built-in strategies on the same scenario. A
// replay that a policy's defect stopped (a panic, a bad delay) is a failed
// replay naming the device, and nothing is compared. When the checks found
// a call of the policy that never returned, or a factory that returns one
// policy to two devices, nothing more runs: a replay would wait on that
// call, or replay one instance as a fleet. The verdict is
// [verdict.Gate] of the checks and the replay: Fail on any finding,
// Inconclusive when a step could not gather the evidence it needs, Pass
// otherwise; the advice is [reports.Advise]'s.
//
// # An external program
//
// A policy of ExecPolicy costs the gate the time its program takes to
// answer. When the property checks find the program reproducible (every
// device they made again gave the same delays, in the same process and
// from a second one) and the gate's replays make the same device more than
// once (the search for a fix, or a server model), the replays ask the
// program each request once and reuse its reply, keeping the replies
// within what the largest replay leaves of the memory limit, and at most a
// quarter of it. The checks always ask the program: their answers decide
// whether it is reproducible. A program that is not gets every request.
//
// # Errors
//
// Run returns an error, and no report, when it could not judge: an
// [*InputError] for a configuration out of range or a policy's source that
// failed (an external program that broke the protocol, a trace shorter
// than the fleet); an [*InterruptedError] saying where the gate stopped,
// when ctx is done. A policy's defect is never an error of Run: it is
// the report's finding. [Compare], which has no report to hold a finding,
// returns a [*DefectError] naming the policy whose defect stopped its
// replay.
//
// Dependencies point one way: kit ← properties, sim ← reports ← gate ←
// cmd/jitterkit.
package gate
