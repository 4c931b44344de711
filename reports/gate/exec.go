package gate

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/reports/gate/internal/execpolicy"
)

// DefaultExecTimeout is how long an exec program may stay silent while a
// request waits for its reply, start-up included, unless ExecPolicy is told
// otherwise. It is there to stop a program that hangs, never to judge a
// slow one: a JVM can take 20s to start on a loaded runner.
const DefaultExecTimeout = execpolicy.DefaultTimeout

// ErrExecTimeout is what an exec policy's error wraps when the program did
// not answer within its silence timeout.
var ErrExecTimeout = execpolicy.ErrTimeout

// ExecPolicy starts command with sh -c as a policy speaking the exec
// protocol (one JSON request per line in, one array of delays in seconds
// out), and returns it with the means to start it again from a second
// process, for reproducibility across processes. timeout is how long the
// program may stay silent while a request waits; zero means
// DefaultExecTimeout. Run closes the policy once it is done; a caller of
// Compare, or of neither, calls its Close, which may be called again. Only
// a shell that cannot be started is an error here; a program that breaks
// the protocol is an error of the gate, naming the device and the line.
//
// The policy models a fleet of processes: on a fleet each device runs the
// program, so the property checks ask the first devices of their
// population (32) each of a fresh process of its own, started for that
// device alone, and the frozen-clock check starts its devices' processes
// under a clock frozen with libfaketime, at one instant and a second
// apart: a program that seeds its generator from the clock when it starts
// gives every process at one instant the same delays. The other devices of the
// checks, and those of the replays, are asked of one long-running
// process, several devices each: a program that answers each device as
// its own process would gives the replay the same delays from one process
// as from many, and costs one start instead of one per device. Whether
// that holds is what reproducibility compares: the devices of the fresh
// processes made again by the long-running one.
//
// The gate looks for libfaketime (libfaketime.so.1, Debian's faketime
// package) where the packages install it, or at the path the environment
// variable JITTERKIT_LIBFAKETIME names; set but empty, that variable
// freezes no clock, and the frozen-clock check is skipped, saying so.
//
// When Run's property checks find the program reproducible, Run's replays
// ask it each request once (see Config.Checks).
func ExecPolicy(ctx context.Context, command string, timeout time.Duration) (Policy, error) {
	opt := execpolicy.Options{Timeout: timeout}
	// Once one of the programs, or of the fresh processes, has broken the
	// protocol, the others are stopped at once rather than given their
	// time to end their output: the run has failed, and a twin of a
	// program that hangs on to its output would hold the run for a whole
	// timeout.
	ctx, abandon := context.WithCancel(ctx)
	var mu sync.Mutex
	var started []*execpolicy.Program
	start := func() (*execpolicy.Program, error) {
		p, err := execpolicy.Start(ctx, command, opt)
		if err != nil {
			return nil, err
		}
		mu.Lock()
		started = append(started, p)
		mu.Unlock()
		return p, nil
	}
	programs := func() []*execpolicy.Program {
		mu.Lock()
		defer mu.Unlock()
		return append([]*execpolicy.Program(nil), started...)
	}
	first, err := start()
	if err != nil {
		abandon()
		return Policy{}, err
	}
	procs := &processes{command: command, opt: opt, own: first.Factory()}
	return Policy{
		Name:    command,
		Source:  kit.SourceExec,
		Command: command,
		Factory: first.Factory(),
		Again: func() (kit.Factory, error) {
			p, err := start()
			if err != nil {
				return nil, err
			}
			return p.Factory(), nil
		},
		reuse:     first.Reusing,
		processes: procs,
		Err: func() error {
			if err := procs.err(); err != nil {
				return err
			}
			for _, p := range programs() {
				if err := p.Err(); err != nil {
					return err
				}
			}
			return nil
		},
		Close: func() error {
			defer abandon()
			ps := programs()
			if procs.err() != nil {
				abandon()
			}
			for _, p := range ps {
				if p.Err() != nil {
					abandon()
				}
			}
			// The programs are closed side by side: each may take its
			// silence timeout to end its output.
			errs := make([]error, len(ps))
			var wg sync.WaitGroup
			for i, p := range ps {
				wg.Go(func() { errs[i] = p.Close() })
			}
			wg.Wait()
			for _, err := range errs {
				if errors.As(err, new(*execpolicy.ProtocolError)) {
					return err
				}
			}
			return nil
		},
	}, nil
}
