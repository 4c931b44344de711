// Package bubble finds out whether a test already runs inside a
// testing/synctest bubble, for the kit's entry points that make bubbles of
// their own: bubbles do not nest.
package bubble

import (
	"fmt"
	"testing"
	"testing/synctest"
)

// nestedPanic is what synctest.Test panics with when it is called inside a
// bubble, before it does anything else.
const nestedPanic = "synctest.Run called from within a synctest bubble"

// Try runs fn in a new bubble of t's and reports whether it could: false
// when the caller is inside a bubble already, and fn has not run. fn runs
// on the bubble's goroutine, as synctest.Test runs it.
func Try(t *testing.T, fn func()) (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			if !Nested(r) {
				panic(r)
			}
			ok = false
		}
	}()
	synctest.Test(t, func(*testing.T) { fn() })
	return true
}

// In reports whether the calling goroutine runs inside a bubble: an empty
// bubble costs microseconds.
func In(t *testing.T) bool { return !Try(t, func() {}) }

// Nested reports whether r, a value recovered from a panic of
// synctest.Test, says that it was called inside a bubble.
func Nested(r any) bool { return fmt.Sprint(r) == nestedPanic }
