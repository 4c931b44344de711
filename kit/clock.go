package kit

import "time"

// A FakeClocked policy was drawn by running its device's own code under a
// fake clock of its own (a testing/synctest bubble): the clock read the
// device's Boot instant when that code started, stood still while it ran,
// and moved on only as it waited. Devices made with one Boot saw one instant
// and devices booted apart saw instants as far apart, so a policy seeded
// from time.Now is caught the way devices powered on by one relay would
// catch it: as devices that share their delays.
//
// The frozen-clock check of package properties makes other policies inside
// a bubble of its own, to freeze time.Now while they are made. A FakeClocked
// policy's clock is frozen already, and aligned with its device's boot, and
// its code cannot run inside another bubble (bubbles do not nest), so the
// check makes it where it is and compares devices booted at one instant
// with devices booted apart. The loop adapter (package kit/loop) makes
// FakeClocked policies; a wrapper that keeps the clock's meaning, such as
// [Limit], keeps the method.
type FakeClocked interface {
	Policy
	// ClockStart returns the instant the fake clock read when the device's
	// code started: the device's Boot, or a later instant when the clock
	// could not be set to it (a testing/synctest clock starts at midnight
	// UTC 2000-01-01 and never moves back).
	ClockStart() time.Time
}
