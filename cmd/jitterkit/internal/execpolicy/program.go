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
// a missing reply, a program that exits early or does not answer in time is
// a [*ProtocolError]; after one the program is stopped and every further
// request fails with the same error.
//
// Requests are streamed: the request for a device is written when its
// policy is made, and replies are read as they come, so the program works
// through a fleet without waiting on a round trip per device.
//
// Closing a Program, or a reply that does not come in time, stops the
// program's whole process group: SIGTERM, then SIGKILL, so that neither a
// program that ignores the end of its input nor the children it started
// outlive it.
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
	DefaultAttempts = 32
	DefaultTimeout  = 5 * time.Second
	// DefaultGrace is how long the program has to exit by itself once its
	// input is closed, and again after SIGTERM, before SIGKILL.
	DefaultGrace = 500 * time.Millisecond
)

const (
	maxLine     = 1 << 20 // the longest reply line read
	stderrKept  = 4 << 10 // bytes of the program's standard error kept
	lineQuoted  = 200     // bytes of an offending line quoted in an error
	maxAttempts = 1 << 16 // the most delays ever asked of one device
)

// Options configures a Program. The zero value is ready to use.
type Options struct {
	// Attempts is how many delays the first request for a device asks
	// for; default DefaultAttempts. A device that uses them all is asked
	// again for twice as many, and the new tail is used.
	Attempts int
	// Timeout is how long the program may go without answering while a
	// request waits for its reply; default DefaultTimeout.
	Timeout time.Duration
	// Grace is how long the program has to exit when it is stopped,
	// before it is sent SIGTERM, and again before SIGKILL; default
	// DefaultGrace.
	Grace time.Duration
	// Dir is the program's working directory; empty means the current one.
	Dir string
}

// A Program is a running exec-protocol policy. Its Factory may be used from
// several goroutines.
type Program struct {
	command string
	opt     Options
	ctx     context.Context

	cmd     *exec.Cmd
	stdin   *os.File
	stdout  *os.File
	stderr  *tail
	exited  chan struct{} // closed once the program's leader has been reaped
	status  error         // its exit status, set before exited is closed
	drained chan struct{} // closed once its standard error is read to the end
	readEnd chan struct{} // closed when the reader stops

	writeMu sync.Mutex // serialises requests; taken before mu

	mu       sync.Mutex
	pending  []*reply  // requests written and not yet answered, in order
	progress time.Time // when the program last answered, or was first waited on
	err      error     // the first error; then every request fails with it
	failing  bool      // a protocol error is being recorded
	eof      bool      // the program closed its output
	stopOnce sync.Once
}

// A reply is the answer to one request, filled in by the reader.
type reply struct {
	device string
	asked  int
	done   chan struct{} // closed when delays or err is set
	delays []float64
	err    error
}

// Start starts command with sh -c in a process group of its own. It fails
// only when the shell cannot be started; a command that does not exist
// shows as a ProtocolError on the first request, with the shell's message.
// Cancelling ctx interrupts the requests waiting for their replies; the
// caller still closes the program.
func Start(ctx context.Context, command string, opt Options) (*Program, error) {
	if opt.Attempts <= 0 {
		opt.Attempts = DefaultAttempts
	}
	if opt.Timeout <= 0 {
		opt.Timeout = DefaultTimeout
	}
	if opt.Grace <= 0 {
		opt.Grace = DefaultGrace
	}
	var files [6]*os.File // in, out and err, each a read and a write end
	for i := 0; i < 6; i += 2 {
		r, w, err := os.Pipe()
		if err != nil {
			for _, f := range files[:i] {
				f.Close()
			}
			return nil, err
		}
		files[i], files[i+1] = r, w
	}
	inR, inW, outR, outW, errR, errW := files[0], files[1], files[2], files[3], files[4], files[5]
	cmd := exec.Command("sh", "-c", command)
	cmd.Dir = opt.Dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	cmd.SysProcAttr = ownGroup()
	err := cmd.Start()
	// The child holds its own copies of its ends of the pipes.
	inR.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		errR.Close()
		return nil, fmt.Errorf("exec %q: %w", command, err)
	}
	p := &Program{
		command: command,
		opt:     opt,
		ctx:     ctx,
		cmd:     cmd,
		stdin:   inW,
		stdout:  outR,
		stderr:  &tail{max: stderrKept},
		exited:  make(chan struct{}),
		drained: make(chan struct{}),
		readEnd: make(chan struct{}),
	}
	go func() {
		io.Copy(p.stderr, errR)
		errR.Close()
		close(p.drained)
	}()
	go func() {
		p.status = cmd.Wait()
		close(p.exited)
	}()
	go p.read()
	return p, nil
}

// Command returns the command the program was started with.
func (p *Program) Command() string { return p.command }

// Err returns the first protocol error the program made, or nil.
func (p *Program) Err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	var pe *ProtocolError
	if errors.As(p.err, &pe) {
		return p.err
	}
	return nil
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
		pl.r = p.request(d.ID, p.opt.Attempts)
		return pl
	}
}

// errClosed is the error of a request to a closed program.
var errClosed = errors.New("execpolicy: program closed")

// Close closes the program's input and stops its process group: the
// program has Grace to exit by itself, then the group is sent SIGTERM and,
// Grace later, SIGKILL. It returns once the program has been reaped. Close
// may be called more than once.
func (p *Program) Close() error {
	p.fail(errClosed)
	p.stop()
	return nil
}

// fail records err as the program's error, unless it has one, and fails
// every request still waiting.
func (p *Program) fail(err error) {
	p.mu.Lock()
	if p.err == nil {
		p.err = err
	}
	pending := p.pending
	p.pending = nil
	err = p.err
	p.mu.Unlock()
	for _, r := range pending {
		r.err = err
		close(r.done)
	}
}

// stop ends the program's process group and reaps its leader, once.
func (p *Program) stop() {
	p.stopOnce.Do(func() {
		p.stdin.Close()
		wait := func() bool {
			select {
			case <-p.exited:
				return true
			case <-time.After(p.opt.Grace):
				return false
			}
		}
		if !wait() {
			signalGroup(p.cmd, sigTerm)
			wait()
		}
		// Children that outlived the leader are stopped with the group,
		// even when the leader exited by itself.
		signalGroup(p.cmd, sigTerm)
		signalGroup(p.cmd, sigKill)
		<-p.exited
		// The reader ends at the end of the output, or now.
		p.stdout.SetReadDeadline(time.Now())
		<-p.readEnd
		p.stdout.Close()
		// A child that left the group may still hold standard error open.
		select {
		case <-p.drained:
		case <-time.After(p.opt.Grace):
		}
	})
}

// protocolError fails the program with a ProtocolError about device's
// request, and stops it.
func (p *Program) protocolError(device string, line []byte, err error) {
	p.mu.Lock()
	first := p.err == nil && !p.failing
	p.failing = true
	p.mu.Unlock()
	if !first {
		return // the first error stands; stopping the program caused this one
	}
	p.stopAsync()
	e := &ProtocolError{Command: p.command, Device: device, Line: cut(line), Err: err}
	// The stop drains standard error; wait for it briefly, so that the
	// message shows what the program said before it went wrong.
	select {
	case <-p.drained:
	case <-time.After(p.opt.Grace):
	}
	e.Stderr = lastLines(p.Stderr(), 10)
	p.fail(e)
}

// stopAsync stops the program without waiting, so that the reader, which
// stop waits for, can call it.
func (p *Program) stopAsync() { go p.stop() }

// request sends the request for the first n delays of device id and
// returns the reply to wait on.
func (p *Program) request(id string, n int) *reply {
	r := &reply{device: id, asked: n, done: make(chan struct{})}
	req, _ := json.Marshal(struct {
		Device   string `json:"device"`
		Attempts int    `json:"attempts"`
	}{id, n})
	p.writeMu.Lock()
	defer p.writeMu.Unlock()
	p.mu.Lock()
	if p.err != nil {
		r.err = p.err
		p.mu.Unlock()
		close(r.done)
		return r
	}
	if len(p.pending) == 0 {
		p.progress = time.Now()
	}
	p.pending = append(p.pending, r)
	eof := p.eof
	p.mu.Unlock()
	if eof {
		p.protocolError(id, nil, p.exitedEarly())
		return r
	}
	p.stdin.SetWriteDeadline(time.Now().Add(p.opt.Timeout))
	if _, err := p.stdin.Write(append(req, '\n')); err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			p.protocolError(id, nil, fmt.Errorf("%w: it did not read its input within %v", ErrTimeout, p.opt.Timeout))
		} else {
			p.protocolError(id, nil, p.exitedEarly())
		}
	}
	return r
}

// read reads the program's replies, in order, into the requests waiting
// for them, until the output ends or the program is stopped.
func (p *Program) read() {
	defer close(p.readEnd)
	br := bufio.NewReader(p.stdout)
	for {
		line, err := readLine(br)
		if err != nil && !errors.Is(err, errLong) {
			p.mu.Lock()
			var device string
			if len(p.pending) > 0 {
				device = p.pending[0].device
			}
			p.eof = true
			p.mu.Unlock()
			if device != "" && !errors.Is(err, os.ErrDeadlineExceeded) {
				p.protocolError(device, nil, p.exitedEarly())
			}
			// Otherwise the program was stopped, and whoever stopped it
			// fails the requests; or it ended before any request, and the
			// next request says so.
			return
		}
		p.mu.Lock()
		if len(p.pending) == 0 {
			p.mu.Unlock()
			p.protocolError("", line, errors.New("it wrote a line nobody asked for"))
			return
		}
		r := p.pending[0]
		p.pending = p.pending[1:]
		p.progress = time.Now()
		p.mu.Unlock()
		if err == nil {
			r.delays, err = DecodeReply(line, r.asked)
		}
		if err != nil {
			// The request's own error, and the program's, are the same.
			p.mu.Lock()
			p.pending = append([]*reply{r}, p.pending...)
			p.mu.Unlock()
			p.protocolError(r.device, line, err)
			return
		}
		close(r.done)
	}
}

// wait waits for r, failing the program when it goes Timeout without
// answering while r waits.
func (p *Program) wait(r *reply) ([]float64, error) {
	for {
		p.mu.Lock()
		deadline := p.progress.Add(p.opt.Timeout)
		p.mu.Unlock()
		timer := time.NewTimer(time.Until(deadline))
		select {
		case <-r.done:
			timer.Stop()
			return r.delays, r.err
		case <-p.ctx.Done():
			timer.Stop()
			return nil, p.ctx.Err()
		case <-timer.C:
			p.mu.Lock()
			stalled := time.Since(p.progress) >= p.opt.Timeout && len(p.pending) > 0
			var device string
			if stalled {
				device = p.pending[0].device
			}
			p.mu.Unlock()
			if stalled {
				p.protocolError(device, nil, fmt.Errorf("%w: it did not answer within %v", ErrTimeout, p.opt.Timeout))
			}
		}
	}
}

// exitedEarly describes a program that stopped answering: it closed its
// output, or exited, before replying.
func (p *Program) exitedEarly() error {
	select {
	case <-p.exited:
	case <-time.After(p.opt.Grace):
		return errors.New("it closed its output without answering")
	}
	if p.status != nil {
		return fmt.Errorf("it exited (%v) without answering", p.status)
	}
	return errors.New("it exited without answering")
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
	r      *reply    // the request in flight, if any
	delays []float64 // the delays of the last reply; nil before the first
	asked  int       // how many delays the last reply was asked for
	next   int       // index of the next delay
}

// Next returns the device's next delay. The first call waits for the reply
// to the request sent when the policy was made. A device that has used half
// of a reply holding all it asked for asks again for twice as many, and
// goes on with the longer reply's tail once the shorter one runs out.
func (pl *policy) Next() (time.Duration, error) {
	if pl.delays == nil || pl.next == len(pl.delays) {
		if pl.r == nil {
			if len(pl.delays) < pl.asked || pl.asked >= maxAttempts {
				return 0, kit.ErrStop
			}
			pl.r = pl.p.request(pl.id, min(2*pl.asked, maxAttempts))
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
	if pl.r == nil && len(pl.delays) == pl.asked && pl.asked < maxAttempts && 2*pl.next >= pl.asked {
		pl.r = pl.p.request(pl.id, min(2*pl.asked, maxAttempts))
	}
	return kit.Seconds(s)
}

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
