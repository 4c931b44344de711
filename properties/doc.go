// Package properties checks that a retry policy's jitter de-synchronises a
// fleet, over a population of a thousand devices and more.
//
// A policy is a [kit.Factory]: one [kit.Policy] per device. [Run] reads the
// first delays of every device and runs the suite; each check returns a
// [Result] with a short name, one sentence on why it matters to a fleet, a
// status (pass or fail; warn for a finding that fails only when asked to;
// inconclusive when too little evidence was gathered to judge; skipped when
// the check does not apply to the policy's source), the measured figure
// against its threshold, and the smallest set of devices that shows a
// failure. [Checks] lists the suite in the order a run reports it, with
// why each check matters; each check's Name constant (such as
// [NameSpread]) says what it holds a policy to.
//
// [Check] is the same suite for go test: each check is a subtest that
// judges it (go test -run 'TestX/spread' judges spread alone), a failure
// is a t.Error with the detail, the counterexample and how to replay it, an
// inconclusive check is a t.Error too unless another check failed, a warning
// or a skipped check is logged, and the frozen-clock check runs inside a
// testing/synctest bubble. go test -short is a mode like any other: rapid
// draws a fifth of its cases under -short, and the suite asks it for five
// times as many then, so the checks judge on the same evidence and reach
// the same verdicts.
//
// The thresholds live in [Thresholds], each with the derivation of its
// default: a policy that must pass fails fewer than one run in 10,000 with
// random seeds.
//
// Every run has a seed ([Config.Seed]) that draws the population and rapid's
// id populations; every failure prints it. rapid draws as many populations
// as -rapid.checks asks (100 unless set). rapid may write fail files under
// a test's testdata/rapid/ when a user runs rapid's own checks; the checks
// of this package turn rapid's fail files off.
package properties
