package kit

import "strconv"

// An Outcome is how one attempt of a device ended. The zero Outcome is
// none of them.
type Outcome int

// The outcomes of an attempt.
const (
	// Success: the server accepted the attempt (and kept its session).
	Success Outcome = iota + 1
	// Rejection: the server refused the attempt at once, as an overloaded
	// server answers 503 or a broker refuses a connection.
	Rejection
	// Timeout: no answer came before the device gave up waiting.
	Timeout
	// Drop: the server accepted a session and then dropped it. The attempt
	// ends at the drop, and counts as a failure: the device waits a delay
	// before its next attempt.
	Drop
)

var outcomeNames = [...]string{Success: "success", Rejection: "rejection", Timeout: "timeout", Drop: "drop"}

// String returns the outcome's name: success, rejection, timeout or drop,
// and Outcome(n) for any other value.
func (o Outcome) String() string {
	if o >= Success && int(o) < len(outcomeNames) {
		return outcomeNames[o]
	}
	return "Outcome(" + strconv.Itoa(int(o)) + ")"
}

// An Observer is a Policy that learns how each attempt of its device
// ended. Every replay of package sim, whatever its kind and server, and
// the property checks of package properties ask whether a policy is an
// Observer and, when it is, follow this contract:
//
//   - it calls Observe(o) each time an attempt of the policy's device ends,
//     with the attempt's outcome o: every attempt once, in the order the
//     device made them, the first included (the try that failed with the
//     whole fleet, before the policy's first delay);
//   - after a Rejection, a Timeout or a Drop, it calls Observe before it
//     calls Next for the delay that follows that failure;
//   - after a Success it calls Next no more, unless a later attempt of the
//     device fails: that attempt is observed first, and Next then asks for
//     the delay that follows it.
//
// So the last Observe before each call of Next reports a failure, and
// Successes may come between two calls of Next. Observe and Next are
// called by one goroutine at a time, never concurrently. An Observer whose
// Observe is never called gives the delays of a device whose every attempt
// fails, as a policy that is not an Observer is read. The property checks
// read such a device: they report a Rejection before each delay they read.
// A panic of Observe, a call of it that never returns or that ends its
// goroutine is the policy's defect, as one of Next is, and the checks and
// the replays name the device, the attempt and the outcome Observe was
// told.
type Observer interface {
	Policy
	// Observe tells the policy how its device's latest attempt ended.
	Observe(Outcome)
}
