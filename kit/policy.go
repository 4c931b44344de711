package kit

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// A Policy is the retry schedule of one device. Each call to Next returns
// the delay before the device's next retry.
//
// Next returns [ErrStop] when the policy gives up, and a [*DelayError] when
// the source produced a delay that a time.Duration cannot hold (NaN, an
// infinity, or more than about 292 years). Any other error is a failure of
// the source itself, such as an external program that stopped answering.
// A Policy is used by one goroutine at a time.
type Policy interface {
	Next() (time.Duration, error)
}

// ErrStop is returned by [Policy.Next] when the policy stops retrying.
var ErrStop = errors.New("policy stops retrying")

// A DelayError reports a delay, in seconds, that is not a valid duration.
type DelayError struct {
	Seconds float64
}

func (e *DelayError) Error() string {
	return fmt.Sprintf("delay %v s is not a duration", e.Seconds)
}

// A Device is the identity a [Factory] makes a policy from.
type Device struct {
	// ID identifies the device: a serial number, a MAC address, a UUID.
	ID string
	// Boot is the instant the device started. Devices powered on by one
	// relay share it to the second, so a policy seeded from it is not
	// seeded per device.
	Boot time.Time
}

// A Factory makes the policy of one device. It is called once per device
// and may be called concurrently for different devices.
type Factory func(Device) Policy

// Delays returns the first n delays of p, fewer if p stops earlier. It
// returns the delays read so far and the error when Next fails with anything
// other than [ErrStop].
func Delays(p Policy, n int) ([]time.Duration, error) {
	out := make([]time.Duration, 0, n)
	for range n {
		d, err := p.Next()
		if errors.Is(err, ErrStop) {
			break
		}
		if err != nil {
			return out, err
		}
		out = append(out, d)
	}
	return out, nil
}

// Seconds converts a delay given in seconds to a time.Duration, as recorded
// and external sources give them. Negative values convert as they are (they
// are the policy's defect, for the checks to report); NaN, infinities and
// values beyond the range of time.Duration return a [*DelayError].
func Seconds(s float64) (time.Duration, error) {
	ns := s * 1e9
	if math.IsNaN(s) || ns >= math.MaxInt64 || ns <= math.MinInt64 {
		return 0, &DelayError{Seconds: s}
	}
	return time.Duration(math.Round(ns)), nil
}
