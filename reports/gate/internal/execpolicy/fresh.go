package execpolicy

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// A Fresh is one device asked of a process of its own: its id, and the
// variables added to that process's environment (a frozen clock's, say).
type Fresh struct {
	Device string
	Env    []string
}

// AskFresh asks each device of asks its first n delays from a fresh
// process of its own, as a fleet runs a program: every device starts the
// program, and nothing one device's process drew or read reaches
// another's. At most atOnce processes run at a time (at least one). Each
// process is started with sh -c like Start, sent its device's one request,
// and closed once its reply is read, so that a line too many is found as in
// Close; its process group and every process it started are stopped then.
//
// It returns the replies in the order of asks. The first device whose
// process breaks the protocol fails the call with that process's
// *ProtocolError, naming the device and the line; the processes of the
// devices after it are then stopped, and those not yet started never are,
// while those before it run to their end. Of several devices that fail,
// the error is the one earliest in asks, whatever the order in which
// their processes failed. A shell that cannot be started is an
// error too, and so is the end of ctx.
//
// A process's silence is judged by opt.Timeout, as one program's is, from
// the request it is sent: a process waiting for its turn is not started,
// so how many run at once does not make one time out. Once its reply is
// read and its input closed, it has EndWait to end its output, as in Close.
func AskFresh(ctx context.Context, command string, opt Options, asks []Fresh, n, atOnce int) ([][]float64, error) {
	if n <= 0 {
		panic(fmt.Sprintf("execpolicy: AskFresh of %d delays", n))
	}
	atOnce = max(1, atOnce)
	replies := make([][]float64, len(asks))
	errs := make([]error, len(asks))
	// A device that fails stops the processes of the devices after it,
	// never those before it: the error is then the earliest device's that
	// fails of itself, however the processes' speeds interleave.
	var mu sync.Mutex
	cancels := make([]context.CancelFunc, len(asks))
	failed := len(asks) // the earliest device that failed
	defer func() {
		for _, cancel := range cancels {
			if cancel != nil {
				cancel()
			}
		}
	}()
	fail := func(i int) {
		mu.Lock()
		defer mu.Unlock()
		if i >= failed {
			return
		}
		failed = i
		for _, cancel := range cancels[i+1:] {
			if cancel != nil {
				cancel()
			}
		}
	}
	turns := make(chan struct{}, atOnce)
	var wg sync.WaitGroup
	for i, a := range asks {
		select {
		case turns <- struct{}{}:
		case <-ctx.Done():
		}
		mu.Lock()
		over := ctx.Err() != nil || i > failed
		var actx context.Context
		if !over {
			actx, cancels[i] = context.WithCancel(ctx)
		}
		mu.Unlock()
		if over {
			break
		}
		wg.Go(func() {
			defer func() { <-turns }()
			replies[i], errs[i] = askOne(actx, command, opt, a, n)
			if errs[i] != nil {
				fail(i)
			}
		})
	}
	wg.Wait()
	var first error
	for _, err := range errs {
		switch {
		case err == nil:
		case errors.As(err, new(*ProtocolError)):
			return nil, err
		case first == nil:
			first = err
		}
	}
	if first == nil && ctx.Err() != nil {
		// Stopped before every device was asked, by the caller.
		first = context.Cause(ctx)
	}
	if first != nil {
		return nil, first
	}
	return replies, nil
}

// askOne starts one process, asks it the first n delays of a's device, and
// closes it.
func askOne(ctx context.Context, command string, opt Options, a Fresh, n int) ([]float64, error) {
	opt.Env = append(opt.Env[:len(opt.Env):len(opt.Env)], a.Env...)
	p, err := Start(ctx, command, opt)
	if err != nil {
		return nil, err
	}
	delays, err := p.wait(p.request(a.Device, n, nil))
	cerr := p.Close()
	switch {
	case errors.As(cerr, new(*ProtocolError)):
		// Close's error holds the first one, with the program's words.
		return nil, cerr
	case err != nil:
		return nil, err
	case cerr != nil:
		return nil, cerr
	}
	return delays, nil
}
