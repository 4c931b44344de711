package sim

import (
	"strings"
	"time"
)

// A Server is the model of the server the fleet retries against.
type Server string

// A serverModel is one row of the table of server models: its name, a
// line saying what it accepts, and how to make it for the runs of a
// scenario (after defaults).
type serverModel struct {
	name        Server
	description string
	make        func(s Scenario) server
}

// servers lists the server models, in the order Servers returns them. A
// model is one file, with its Server constant and its type, and one row
// here.
var servers = []serverModel{
	{PerSecond, "at most the accept rate in each whole second, the first requests to arrive, and none while down", newPerSecond},
	{TokenBucket, "a token a request, refilled continuously at the accept rate up to the burst, full when the server comes up, and none while down", newTokenBucket},
	{RetryAfter, "per-second, answering every rejection with a fixed Retry-After hint that the devices obey instead of their policy", newRetryAfter},
}

// Servers returns the server models, in the order of their constants.
func Servers() []Server {
	out := make([]Server, len(servers))
	for i, m := range servers {
		out[i] = m.name
	}
	return out
}

// Description says in one line what the server model accepts, or returns
// "" when s is not one of Servers.
func (s Server) Description() string {
	if m := s.model(); m != nil {
		return m.description
	}
	return ""
}

// model returns the row of the table of server models named s, or nil.
func (s Server) model() *serverModel {
	for i := range servers {
		if servers[i].name == s {
			return &servers[i]
		}
	}
	return nil
}

// serverNames returns the names of the server models as a message lists
// them: "per-second, token-bucket or retry-after".
func serverNames() string {
	names := make([]string, len(servers))
	for i, m := range servers {
		names[i] = string(m.name)
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// newServer returns the server of the runs of s, after defaults, whose
// Server must be one of Servers.
func newServer(s Scenario) server { return s.Server.model().make(s) }

// A server decides which arrivals of a run it accepts. The engine starts
// each second that holds arrivals, in order, and then either takes the
// shortcut the server offers for the whole second or asks it about each
// arrival of the second, in time order, the retries that come back within
// the second included. A rejected device retries after its policy's next
// delay, or after the server's hint when it gives one.
type server interface {
	// reset prepares the server for a new run.
	reset()
	// second starts whole second sec, after every arrival of the seconds
	// before it, and returns how the second's arrivals may be decided
	// without accept, with the quota of acceptFirst. The engine may ask
	// accept about each arrival instead, and does in the periodic kinds:
	// both ways must decide alike.
	second(sec int64) (shortcut, int64)
	// accept says whether the server accepts an arrival at t, within the
	// second last started; arrivals come in time order.
	accept(t int64) bool
	// hint returns the delay after which every rejected device retries,
	// obeying it instead of asking its policy, and whether the server
	// gives one.
	hint() (time.Duration, bool)
}

// A shortcut says how a server decides a whole second's arrivals without
// being asked about each.
type shortcut uint8

const (
	// askEach: no shortcut, accept decides each arrival.
	askEach shortcut = iota
	// rejectEvery: the server rejects every arrival of the second.
	rejectEvery
	// acceptFirst: the server accepts the second's first quota arrivals,
	// in time order and then by device, and rejects the others.
	acceptFirst
)
