// Package execpolicy runs a retry policy written in any language as an
// external program, speaking the exec protocol:
//
//	kit → program   {"device":"dev-000017","attempts":5}
//	program → kit   [0.042,0.171,0.305,0.77,1.2]
//
// The program is started once with sh -c, in a process group of its own,
// and answers each request line with one reply line, in order: up to
// attempts delays in seconds. Fewer delays mean the policy stops retrying
// after that many. NaN, Infinity and -Infinity (as Python's json module
// writes them) and negative numbers are delays too: they are the policy's
// defect, for the checks to report. A reply that is not an array of numbers,
// a missing reply, a line nobody asked for, a program that exits or closes
// its output early or does not answer in time is a [*ProtocolError]; after
// one the program is stopped and every further request fails with the same
// error.
//
// # Streaming
//
// Requests are streamed: the request for a device is written when its
// policy is made, and replies are read as they come, so the program works
// through a fleet without waiting on a round trip per device.
//
// A device asks for Options.Attempts delays first. Only a device that uses
// nearly all of them asks again, for twice as many, when an eighth of them
// (at least one) is left: early enough that the reply is usually there
// when the device needs it, and late enough that the program is not asked
// for delays that the devices never use. Every delay a program computes
// costs its time, and in a replay most devices use fewer delays than they
// first asked for.
//
// # Reusing replies
//
// A replay may make the same device again: the runs of replays on the same
// seed replay the same fleets, and a server model makes a device's policy
// afresh for each of its requests. [Program.Reusing] returns a factory that
// asks the program each request once and answers it again from the reply
// it kept, within a budget of memory. It is for a program known to answer
// the same request with the same delays every time; [Program.Factory]
// always asks.
//
// # Time
//
// One limit, [Options.Timeout], decides whether a program is too slow, and
// it measures silence, not speed: how long the program goes without writing
// anything while at least one request waits for its reply. The clock starts
// when a request is written while none waits (so the program's start-up
// counts from the first request), and starts again at every write of the
// program. A program that stops reading its input, so that the kit's write
// blocks, is silent with a request waiting too. A slow but steady program
// never times out, however long the fleet takes. Close waits by the same
// rule for the replies still owed, and then EndWait for the end of the
// output: a program that does not exit when its input ends is stopped.
//
// # Which reply belongs to which request
//
// The protocol has no request ids: the n-th reply line is the answer to the
// n-th request. So a program that answers one request twice shifts every
// later reply onto the wrong device, and nothing can tell which request was
// answered twice. What can be told is checked:
//
//   - A line that arrives while no request waits is a line nobody asked
//     for. It is caught as it arrives if it arrives before the next request
//     is written; after that it is read as that request's reply. Which of
//     the two happens depends on timing, but either way the program is
//     found out, by this check or the last one.
//   - A reply with more numbers than its request asked for is an error. A
//     device asks for more delays as it uses them up (32, then 64, 128...)
//     while new devices ask for 32, so a shifted reply is often caught here,
//     early.
//   - Any line after the reply to the last request is an error. Close
//     closes the program's input and reads its output to its end to find
//     one. A program that answers every request, one of them twice, writes
//     one line more than it was asked for, so a duplicate reply is always
//     caught, at the latest by Close.
//   - A program that answers one request twice and leaves another
//     unanswered writes as many lines as it was asked for. If it then exits
//     at the end of its input, nothing can catch it.
//
// So the delays read from a program can be trusted only once [Program.Close]
// has returned nil.
//
// # Stopping
//
// Closing a Program, or a protocol error, stops the program's whole process
// group: SIGTERM, then SIGKILL, so that neither a program that ignores the
// end of its input nor the children it started outlive it. On Linux the
// kit also stops the processes that left the group (setsid, daemons). It
// is a child subreaper, so that such a process becomes the kit's child
// once its parent dies rather than init's, and every process started for
// the program carries an environment variable, JITTERKIT_EXEC_TOKEN, with a
// token of its own: the kit kills and reaps its children that carry the
// program's token, in rounds until none is left (at most 20). A process
// that both left the group and dropped the variable from its environment
// (env -i) is out of reach; elsewhere than on Linux, so is any process that
// left the group.
//
// # A program that closes its output
//
// A program that closes its standard output before it answers is a protocol
// error as soon as the output ends. With exec in front of it, the output
// ends at once. Through sh -c, the shell that waits for the program still
// holds the output, which therefore never ends: such a program is found by
// the timeout, as one that hangs is.
package execpolicy

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/jitterkit/jitterkit/kit"
)

// Defaults for the fields of Options left zero.
const (
	// DefaultAttempts is how many delays the first request for a device
	// asks for.
	DefaultAttempts = 32

	// DefaultTimeout is how long a program may go without writing while a
	// request waits for its reply. It is there to stop a program that hangs,
	// never to judge a slow one: the same program must get the same verdict
	// on a laptop and on a loaded CI runner. The longest silence of a sound
	// program is its start-up, which counts from the first request. On a
	// busy shared runner python3 can take 3 s to start, and a JVM 10 to 20 s
	// on a loaded 2-core one; 60 s is three times the slowest of these. The
	// price of a generous limit is small: a program that really hangs is
	// reported a minute late, once, and one that does not exit when its
	// input ends holds Close as long.
	DefaultTimeout = 60 * time.Second

	// DefaultGrace is how long a program being stopped has to exit by
	// itself, and again after SIGTERM, before SIGKILL.
	DefaultGrace = 500 * time.Millisecond

	// EndWait is how long a program whose input is closed, and that owes
	// no reply, may hold its output open without writing (see Close):
	// long enough for a line too many that a program writes as its input
	// ends to arrive, on a loaded machine too, and short enough that a
	// program that ignores the end of its input, started for each of a
	// fleet's devices, does not cost each a whole Timeout.
	EndWait = 2 * time.Second
)

const (
	maxLine     = 1 << 20 // the longest reply line read
	stderrKept  = 4 << 10 // bytes of the program's standard error kept
	lineQuoted  = 200     // bytes of an offending line quoted in an error
	maxAttempts = 1 << 16 // the most delays ever asked of one device

	// endWait bounds the waits for the end of the program's output and
	// standard error once every process known to hold them is dead: only a
	// process out of the kit's reach can hold them open longer.
	endWait = 2 * time.Second
)

// Options configures a Program. The zero value is ready to use.
type Options struct {
	// Attempts is how many delays the first request for a device asks
	// for; default DefaultAttempts. A device that uses nearly all of them
	// asks again for twice as many, and uses the new tail (see the package
	// documentation).
	Attempts int
	// Timeout is the one limit on the program's speed: how long it may go
	// without writing while at least one request waits for its reply;
	// default DefaultTimeout. See the package documentation. Once its
	// input is closed and it owes no reply, a program may go EndWait (or
	// Timeout, when shorter) without writing before it is taken to have
	// said all it will, and stopped.
	Timeout time.Duration
	// Grace is how long a program being stopped has to exit by itself, and
	// again after SIGTERM, before SIGKILL; default DefaultGrace. Once the
	// program's first process has exited, its children still holding the
	// output have Grace to end it. A program whose output ends before it
	// answers is stopped so too; the error says it exited, with its
	// status, unless it was still running when it was signalled, and so
	// closed its output and lived on.
	Grace time.Duration
	// Dir is the program's working directory; empty means the current one.
	Dir string
	// Env holds variables, KEY=value, added to the environment the program
	// inherits from the kit, such as a frozen clock's (see AskFresh).
	Env []string
}

// A Program is a running exec-protocol policy. Its Factory may be used from
// several goroutines. A caller must Close it, and check Close's error,
// before trusting the delays it read: see the package documentation.
type Program struct {
	command string
	opt     Options
	ctx     context.Context

	cmd    *exec.Cmd
	token  string // the value of tokenEnv in its environment, on Linux
	stdin  *os.File
	stdout *os.File
	stderr *tail

	// exited is closed once the program's leader has exited. On Linux the
	// leader is left a zombie until stop has stopped every process of the
	// program, so that its pid, which is also its process group's id,
	// cannot be reused meanwhile; elsewhere it is reaped at once.
	exited  chan struct{}
	readEnd chan struct{} // closed when the reader stops
	kick    chan struct{} // wakes the watchdog when a request starts a wait
	broken  chan struct{} // closed when a protocol error is found
	failed  chan struct{} // closed when it is recorded, the program stopped

	writeMu sync.Mutex // serialises requests; taken before mu

	mu         sync.Mutex
	pending    []*reply  // requests written and not yet answered, in order
	waitFrom   time.Time // when the current wait began: a request written while none waited, or the input closed
	lastOut    time.Time // when the program last wrote anything
	lastDevice string    // the device answered last
	err        error     // the first protocol error; then every request fails with it
	failing    bool      // a protocol error is being recorded
	eof        bool      // the program's output ended
	closing    bool      // Close has begun: requests fail with errClosed
	stopping   bool      // the program is being stopped: its end is no error

	// signalled is set, before stop returns, when stop signalled the
	// leader before it had exited.
	signalled bool

	inOnce    sync.Once
	stopOnce  sync.Once
	reapOnce  sync.Once
	closeOnce sync.Once
	closeErr  error
}

// A reply is the answer to one request, filled in by the reader.
type reply struct {
	device string
	asked  int
	keep   *kept         // where the reply is kept once it is read, or nil
	done   chan struct{} // closed when delays or err is set
	delays []float64
	err    error
}

// Start starts command with sh -c in a process group of its own. It fails
// only when the shell cannot be started; a command that does not exist
// shows as a ProtocolError on the first request, with the shell's message.
// Cancelling ctx interrupts the requests waiting for their replies and
// makes Close stop the program at once; the caller still closes it.
func Start(ctx context.Context, command string, opt Options) (*Program, error) {
	opt = opt.withDefaults()
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	p := &Program{
		command: command,
		opt:     opt,
		ctx:     ctx,
		stdin:   inW,
		stdout:  outR,
		stderr:  &tail{max: stderrKept},
		exited:  make(chan struct{}),
		readEnd: make(chan struct{}),
		kick:    make(chan struct{}, 1),
		broken:  make(chan struct{}),
		failed:  make(chan struct{}),
	}
	p.cmd = exec.Command("sh", "-c", command)
	p.cmd.Dir = opt.Dir
	if len(opt.Env) > 0 {
		p.cmd.Env = append(os.Environ(), opt.Env...)
	}
	// The kit reads the output itself, as it comes. Wait copies the
	// standard error, and WaitDelay bounds its wait for the end of it,
	// which only a process out of the kit's reach can hold.
	p.cmd.Stdin, p.cmd.Stdout, p.cmd.Stderr = inR, outW, p.stderr
	p.cmd.SysProcAttr = ownGroup()
	p.cmd.WaitDelay = endWait
	p.token = mark(p.cmd)
	err = p.cmd.Start()
	// The child holds its own copies of its ends of the pipes.
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, fmt.Errorf("exec %q: %w", command, err)
	}
	go func() {
		if !awaitExit(p.cmd.Process.Pid) {
			p.reap()
		}
		close(p.exited)
	}()
	go p.read()
	go p.watch()
	return p, nil
}

// withDefaults returns opt with its zero fields set to their defaults.
func (opt Options) withDefaults() Options {
	if opt.Attempts <= 0 {
		opt.Attempts = DefaultAttempts
	}
	if opt.Timeout <= 0 {
		opt.Timeout = DefaultTimeout
	}
	if opt.Grace <= 0 {
		opt.Grace = DefaultGrace
	}
	return opt
}

// Command returns the command the program was started with.
func (p *Program) Command() string { return p.command }

// Err returns the first protocol error the program made, or nil. After
// Close it includes what Close found.
func (p *Program) Err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// Stderr returns the end of what the program wrote to its standard error,
// with control characters and invalid UTF-8 escaped (\x1b), and line
// breaks kept.
func (p *Program) Stderr() string { return escape(p.stderr.String(), true) }

// Factory returns the factory of the program's policy. Making a device's
// policy sends its request; its first call to Next waits for the reply.
func (p *Program) Factory() kit.Factory {
	return func(d kit.Device) kit.Policy {
		pl := &policy{p: p, id: d.ID}
		pl.r = p.request(d.ID, p.opt.Attempts, nil)
		return pl
	}
}

// errClosed is the error of a request to a closed program.
var errClosed = errors.New("execpolicy: program closed")

// Close closes the program's input, reads its output to the end, and stops
// it. It returns the program's protocol error, if it made one, including
// one Close finds: a reply still owed that does not come (under the same
// Timeout as any reply), or a line after the reply to the last request,
// which means the program wrote more lines than it was asked for and, if
// it answered a request twice, every reply after that one went to the
// wrong device. It returns nil when all is well, and the context's error
// when the context of Start is done before the output ended, since the
// check is then incomplete. Requests made after Close fail.
//
// The program may go Timeout without writing while a reply is owed, and
// EndWait before its output ends; once its first process has exited, the
// children still holding its output have Grace. Then its process group is
// stopped: Grace to exit, SIGTERM, Grace, SIGKILL; and on Linux the
// processes it started that left the group are killed. Close returns once
// they have been reaped, and returns the same result when called again.
func (p *Program) Close() error {
	p.closeOnce.Do(func() {
		p.mu.Lock()
		p.closing = true
		if len(p.pending) == 0 {
			p.waitFrom = time.Now() // the wait for the end of the output
		}
		p.mu.Unlock()
		// With the context done the program is stopped at once: its
		// input is not closed before, lest it take the end of its input
		// for its cue to exit with its replies owed.
		checked := false
		if p.ctx.Err() == nil {
			p.closeInput()
			checked = p.awaitEnd()
		}
		// A protocol error found by now is recorded before the program
		// is stopped, so that its words say how the program ended; one
		// found while the rest of the output is read, after.
		p.settle()
		p.stop()
		p.settle()
		p.failPending(errClosed)
		p.mu.Lock()
		p.closeErr = p.err
		p.mu.Unlock()
		if p.closeErr == nil && !checked {
			p.closeErr = fmt.Errorf("exec %q: stopped before its output ended: %w", p.command, context.Cause(p.ctx))
		}
	})
	return p.closeErr
}

// settle waits for a protocol error that has been found to be recorded.
func (p *Program) settle() {
	if p.isBroken() {
		<-p.failed
	}
}

// awaitEnd waits, once the input is closed, for the replies still owed and
// for the end of the output. It reports whether it saw the end: false when
// the context ended the wait, or a protocol error did.
func (p *Program) awaitEnd() bool {
	exited := p.exited
	for {
		select {
		case <-p.readEnd:
			return !p.isBroken()
		default:
		}
		if p.isBroken() || p.ctx.Err() != nil {
			return false
		}
		p.mu.Lock()
		pending := len(p.pending) > 0
		from := later(p.waitFrom, p.lastOut)
		p.mu.Unlock()
		limit := min(p.opt.Timeout, EndWait)
		if exited == nil {
			limit = p.opt.Grace
		}
		left := limit - time.Since(from)
		switch {
		case pending:
			// The watchdog enforces the Timeout of the replies owed.
			left = p.opt.Timeout
		case left <= 0:
			return true // silent long enough: it has said all it will
		}
		timer := time.NewTimer(left)
		select {
		case <-p.readEnd:
		case <-p.broken:
		case <-p.ctx.Done():
		case <-exited:
			exited = nil // from now on its children have Grace
		case <-timer.C:
		}
		timer.Stop()
	}
}

// isBroken reports whether a protocol error has been found.
func (p *Program) isBroken() bool {
	select {
	case <-p.broken:
		return true
	default:
		return false
	}
}

// closeInput closes the program's input, once.
func (p *Program) closeInput() { p.inOnce.Do(func() { p.stdin.Close() }) }

// failPending fails every request still waiting with err.
func (p *Program) failPending(err error) {
	p.mu.Lock()
	pending := p.pending
	p.pending = nil
	p.mu.Unlock()
	for _, r := range pending {
		r.err = err
		close(r.done)
	}
}

// stop ends the program's leader, its process group and every process it
// started that the kit can reach, and waits for its output and standard
// error to end, once.
func (p *Program) stop() {
	p.stopOnce.Do(func() {
		p.mu.Lock()
		p.stopping = true
		p.mu.Unlock()
		p.closeInput()
		if !p.waitExit(p.opt.Grace) {
			p.signalled = true
			signalGroup(p.cmd, sigTerm)
			p.waitExit(p.opt.Grace)
		}
		// The processes that outlived the leader are stopped too, even
		// when it exited by itself: its group while the leader, not yet
		// reaped, keeps the group's id the program's, then those that
		// left the group.
		signalGroup(p.cmd, sigKill)
		p.cmd.Process.Kill()
		<-p.exited
		reapAdopted(p.cmd.Process.Pid, p.token)
		p.reap()
		// Every process that held the output is dead: the reader reads
		// what they wrote, to the end. It is cut short only if a process
		// out of reach still holds the output.
		select {
		case <-p.readEnd:
		case <-time.After(endWait):
			p.stdout.SetReadDeadline(time.Now())
			<-p.readEnd
		}
		p.stdout.Close()
	})
}

// reap reaps the leader, once, and waits for the end of its standard error,
// at most endWait.
func (p *Program) reap() { p.reapOnce.Do(func() { p.cmd.Wait() }) }

// waitExit waits up to d for the leader to exit.
func (p *Program) waitExit(d time.Duration) bool {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-p.exited:
		return true
	case <-timer.C:
		return false
	}
}

// Sentinels for a protocol error whose words depend on whether the program
// exited: protocolError finds out.
var (
	errOutputEnded = errors.New("it closed its output without answering")
	errInputEnded  = errors.New("it closed its input without reading the request")
)

// protocolError fails the program with a ProtocolError about device's
// request, and stops it, unless it already failed. The error is recorded
// once the program has been stopped, so that it holds what the program
// wrote to its standard error before it went wrong.
func (p *Program) protocolError(device string, line []byte, err error) {
	p.mu.Lock()
	first := p.err == nil && !p.failing
	p.failing = true
	p.mu.Unlock()
	if !first {
		return // the first error stands; stopping the program caused this one
	}
	close(p.broken)
	go func() {
		p.stop()
		if (err == errOutputEnded || err == errInputEnded) && p.exitedByItself() {
			err = errors.New("it exited without answering")
			if st := p.cmd.ProcessState; !st.Success() {
				err = fmt.Errorf("it exited (%v) without answering", st)
			}
		}
		e := &ProtocolError{Command: p.command, Device: device, Line: cut(line), Err: err}
		e.Stderr = lastLines(p.Stderr(), 10)
		p.mu.Lock()
		p.err = e
		p.mu.Unlock()
		p.failPending(e)
		close(p.failed)
	}()
}

// exitedByItself reports, once the program is stopped, whether its leader
// ended by itself rather than by the kit's signals: it had exited before
// it was signalled, or it exited with a status of its own. A process that
// has begun to exit ignores signals, so one that a busy machine keeps
// exiting for long keeps its own status, however late the signal comes;
// one that lives on with its pipe closed dies of the signal. A program that
// catches SIGTERM and exits reports the status it chose.
func (p *Program) exitedByItself() bool {
	return !p.signalled || p.cmd.ProcessState.ExitCode() >= 0
}

// request sends the request for the first n delays of device id and
// returns the reply to wait on. With keep, a reply kept for the same
// request answers it, and the reply read is kept.
func (p *Program) request(id string, n int, keep *kept) *reply {
	r := &reply{device: id, asked: n, keep: keep, done: make(chan struct{})}
	if keep != nil {
		if delays, ok := keep.get(id, n); ok {
			if r.err = p.refusal(); r.err == nil {
				r.delays = delays
			}
			close(r.done)
			return r
		}
	}
	req, _ := json.Marshal(struct {
		Device   string `json:"device"`
		Attempts int    `json:"attempts"`
	}{id, n})
	p.writeMu.Lock()
	defer p.writeMu.Unlock()
	p.mu.Lock()
	r.err = p.refusalLocked()
	if r.err != nil {
		p.mu.Unlock()
		close(r.done)
		return r
	}
	if len(p.pending) == 0 {
		p.waitFrom = time.Now()
		select {
		case p.kick <- struct{}{}:
		default:
		}
	}
	p.pending = append(p.pending, r)
	// A program that is failing fails this request too, once its error
	// is recorded.
	skip, eof := p.failing, p.eof
	p.mu.Unlock()
	switch {
	case skip:
	case eof:
		p.protocolError(id, nil, errOutputEnded)
	default:
		if _, err := p.stdin.Write(append(req, '\n')); err != nil {
			p.mu.Lock()
			stopped := p.closing || p.stopping
			p.mu.Unlock()
			if !stopped {
				p.protocolError(id, nil, errInputEnded)
			}
			// Otherwise the request is failed by Close, or by the error
			// that stopped the program.
		}
	}
	return r
}

// refusal returns the error every request fails with once the program has
// failed or is closed, or nil.
func (p *Program) refusal() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.refusalLocked()
}

// refusalLocked is refusal with p.mu held.
func (p *Program) refusalLocked() error {
	switch {
	case p.err != nil:
		return p.err
	case p.closing:
		return errClosed
	}
	return nil
}

// read reads the program's replies, in order, into the requests waiting
// for them, until the output ends or the program is stopped.
func (p *Program) read() {
	defer close(p.readEnd)
	br := bufio.NewReader(activity{p})
	for {
		line, err := readLine(br)
		if err != nil && !errors.Is(err, errLong) {
			p.mu.Lock()
			p.eof = true
			var device string
			if len(p.pending) > 0 {
				device = p.pending[0].device
			}
			stopping := p.stopping
			p.mu.Unlock()
			if device != "" && !stopping {
				p.protocolError(device, nil, errOutputEnded)
			}
			// Otherwise the program was stopped, and whoever stopped it
			// fails the requests; or it ended while no request waited,
			// and the next request says so.
			return
		}
		p.mu.Lock()
		if len(p.pending) == 0 {
			e := p.unasked()
			p.mu.Unlock()
			p.protocolError("", line, e)
			return
		}
		r := p.pending[0]
		if err == nil {
			r.delays, err = DecodeReply(line, r.asked)
		}
		if err != nil {
			// The request's own error, and the program's, are the same:
			// it stays pending, to be failed with the program.
			p.mu.Unlock()
			p.protocolError(r.device, line, err)
			return
		}
		p.pending = p.pending[1:]
		p.lastDevice = r.device
		p.mu.Unlock()
		if r.keep != nil {
			r.keep.put(r.device, r.asked, r.delays)
		}
		close(r.done)
	}
}

// unasked describes a line that arrived while no request waited. p.mu is
// held.
func (p *Program) unasked() error {
	switch {
	case p.lastDevice == "":
		return errors.New("it wrote a line nobody asked for, before the first request")
	case p.closing:
		return fmt.Errorf("it wrote more lines than it was asked for: a line after the reply to the last request, to device %q; if it answered a request twice, every reply after that one went to the wrong device", p.lastDevice)
	default:
		return fmt.Errorf("it wrote a line nobody asked for, after the reply to device %q", p.lastDevice)
	}
}

// An activity reads the program's output and notes when it last wrote.
type activity struct{ p *Program }

func (a activity) Read(b []byte) (int, error) {
	n, err := a.p.stdout.Read(b)
	if n > 0 {
		a.p.mu.Lock()
		a.p.lastOut = time.Now()
		a.p.mu.Unlock()
	}
	return n, err
}

// watch is the watchdog: while a request waits, it fails the program when
// it goes Timeout without writing. It ends with the output, or at the first
// protocol error.
func (p *Program) watch() {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		p.mu.Lock()
		waiting := len(p.pending) > 0 && !p.failing && !p.stopping
		from := later(p.waitFrom, p.lastOut)
		var device string
		if waiting {
			device = p.pending[0].device
		}
		p.mu.Unlock()
		if !waiting {
			select {
			case <-p.kick:
				continue
			case <-p.readEnd:
				return
			case <-p.broken:
				return
			}
		}
		silent := time.Since(from)
		if silent >= p.opt.Timeout {
			p.protocolError(device, nil, fmt.Errorf("%w: it wrote nothing for %v while a request waited for its reply", ErrTimeout, p.opt.Timeout))
			return
		}
		timer.Reset(p.opt.Timeout - silent)
		select {
		case <-timer.C:
		case <-p.kick:
		case <-p.readEnd:
			return
		case <-p.broken:
			return
		}
	}
}

// wait waits for r, or for the context to end.
func (p *Program) wait(r *reply) ([]float64, error) {
	select {
	case <-r.done:
		return r.delays, r.err
	case <-p.ctx.Done():
		return nil, p.ctx.Err()
	}
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

var errLong = fmt.Errorf("the reply is longer than %d bytes", maxLine)

// readLine reads one line without its end, at most maxLine bytes.
func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > maxLine {
			return line[:lineQuoted], errLong
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		line = bytes.TrimRight(line, "\r\n")
		if err != nil && len(line) > 0 && errors.Is(err, io.EOF) {
			// A last line without its newline is still a reply.
			return line, nil
		}
		return line, err
	}
}

// A policy is the schedule of one device, read from the program.
type policy struct {
	p      *Program
	id     string
	keep   *kept     // the replies reused, or nil
	r      *reply    // the request in flight, if any
	delays []float64 // the delays of the last reply; nil before the first
	asked  int       // how many delays the last reply was asked for
	next   int       // index of the next delay
}

// Next returns the device's next delay. The first call waits for the reply
// to the request sent when the policy was made. A device with only
// reaskAhead of a reply holding all it asked for left asks again for twice
// as many, and goes on with the longer reply's tail once the shorter one
// runs out.
func (pl *policy) Next() (time.Duration, error) {
	if pl.delays == nil || pl.next == len(pl.delays) {
		if pl.r == nil {
			if len(pl.delays) < pl.asked || pl.asked >= maxAttempts {
				return 0, kit.ErrStop
			}
			pl.r = pl.p.request(pl.id, min(2*pl.asked, maxAttempts), pl.keep)
		}
		delays, err := pl.p.wait(pl.r)
		if err != nil {
			return 0, err
		}
		pl.delays, pl.asked, pl.r = delays, pl.r.asked, nil
		if pl.next >= len(pl.delays) {
			// Fewer delays than asked (the policy stops), or a longer
			// reply that is not an extension of the shorter one.
			pl.asked = len(pl.delays) + 1
			return 0, kit.ErrStop
		}
	}
	s := pl.delays[pl.next]
	pl.next++
	if pl.r == nil && len(pl.delays) == pl.asked && pl.asked < maxAttempts && pl.asked-pl.next <= reaskAhead(pl.asked) {
		pl.r = pl.p.request(pl.id, min(2*pl.asked, maxAttempts), pl.keep)
	}
	return kit.Seconds(s)
}

// reaskAhead returns how many of the asked delays of a reply are left when
// a device asks for more: an eighth of them, at least one. With fewer left,
// the device would often wait for its reply behind every request written
// before it; asking earlier, most devices would ask for delays they never
// use.
func reaskAhead(asked int) int { return max(1, asked/8) }

// A tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(b), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
