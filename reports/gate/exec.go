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
	// Once one of the programs, or of the fresh processes, has broken the
	// protocol, the others are stopped at once rather than given their
	// time to end their output: the run has failed, and a twin of a
	// program that hangs on to its output would hold the run for a whole
	// timeout.
	ctx, abandon := context.WithCancel(ctx)
	ps := &programs{ctx: ctx, command: command, opt: execpolicy.Options{Timeout: timeout}, abandon: abandon}
	first, err := ps.start()
	if err != nil {
		abandon()
		return Policy{}, err
	}
	ps.procs = &processes{command: command, opt: ps.opt, own: first.Factory()}
	return Policy{
		Name:    command,
		Source:  kit.SourceExec,
		Command: command,
		Factory: first.Factory(),
		Again: func() (kit.Factory, error) {
			p, err := ps.start()
			if err != nil {
				return nil, err
			}
			return p.Factory(), nil
		},
		reuse:     first.Reusing,
		processes: ps.procs,
		Err:       ps.err,
		Close:     ps.close,
	}, nil
}

// programs are the long-running processes of an exec policy, and its
// fresh ones, which fail and end together.
type programs struct {
	ctx     context.Context
	command string
	opt     execpolicy.Options
	abandon context.CancelFunc // stops every program at once
	procs   *processes

	mu      sync.Mutex
	started []*execpolicy.Program
}

// start starts one more long-running process of the program.
func (ps *programs) start() (*execpolicy.Program, error) {
	p, err := execpolicy.Start(ps.ctx, ps.command, ps.opt)
	if err != nil {
		return nil, err
	}
	ps.mu.Lock()
	ps.started = append(ps.started, p)
	ps.mu.Unlock()
	return p, nil
}

// list returns the long-running processes started so far.
func (ps *programs) list() []*execpolicy.Program {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return append([]*execpolicy.Program(nil), ps.started...)
}

// err returns the first error of the fresh processes or of the
// long-running ones, or nil.
func (ps *programs) err() error {
	if err := ps.procs.err(); err != nil {
		return err
	}
	for _, p := range ps.list() {
		if err := p.Err(); err != nil {
			return err
		}
	}
	return nil
}

// close ends every long-running process, side by side (each may take its
// silence timeout to end its output), and at once when one has failed, and
// returns the first protocol error of their ends.
func (ps *programs) close() error {
	defer ps.abandon()
	list := ps.list()
	if ps.procs.err() != nil {
		ps.abandon()
	}
	for _, p := range list {
		if p.Err() != nil {
			ps.abandon()
		}
	}
	errs := make([]error, len(list))
	var wg sync.WaitGroup
	for i, p := range list {
		wg.Go(func() { errs[i] = p.Close() })
	}
	wg.Wait()
	for _, err := range errs {
		if errors.As(err, new(*execpolicy.ProtocolError)) {
			return err
		}
	}
	return nil
}
