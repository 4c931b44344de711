// Package bubble finds out whether a test already runs inside a
// testing/synctest bubble, for the kit's entry points that make bubbles of
// their own: bubbles do not nest.
package bubble

import (
	"context"
	"fmt"
	"net"
	"sync"
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
	Prepare()
	synctest.Test(t, func(*testing.T) { fn() })
	return true
}

// Prepare makes, once per process and outside any bubble, the state the
// standard library makes on first use with channels of its own, which
// every later user shares: a channel made inside a bubble belongs to it,
// and a send on it from outside that bubble (from another bubble, or from
// the test after the bubble ended) is a fatal error of the runtime that
// ends the test binary, naming no device or library ("send on synctest
// channel from outside bubble"). Call it before synctest.Test, as Try
// does.
//
// It makes net's resolver state. Package net makes the semaphore of its
// resolv.conf reader (resolverConfig.ch in net/dnsclient_unix.go), that
// of its nsswitch.conf reader (nsswitchConfig.ch in net/nss.go) and the
// limit of its cgo resolver's threads (threadLimit in net/net.go) each in
// a sync.Once, on the first name lookup, and every later lookup of the
// process uses them. A retry library that resolves its server's address
// when its client is made (go-redis's NewClient) would make them in the
// first device's bubble and crash the second device's. One lookup of
// "localhost" with a cancelled context makes them: the lookup chooses its
// order (files, DNS or the cgo resolver), which reads the configuration,
// before it looks at the context, and it reads /etc/hosts at most, never
// the network.
//
// What it cannot make is shared by calls in flight: lookups of one name
// by goroutines of two bubbles at once share one lookup (net's
// singleflight group), and the second bubble's wait on the first's is
// the same fatal error. Devices whose clients resolve one name must not
// be observed at once.
func Prepare() { prepared.Do(warmNet) }

var prepared sync.Once

func warmNet() {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _ = net.DefaultResolver.LookupHost(ctx, "localhost")
}

// In reports whether the calling goroutine runs inside a bubble: an empty
// bubble costs microseconds.
func In(t *testing.T) bool { return !Try(t, func() {}) }

// Nested reports whether r, a value recovered from a panic of
// synctest.Test, says that it was called inside a bubble.
func Nested(r any) bool { return fmt.Sprint(r) == nestedPanic }
