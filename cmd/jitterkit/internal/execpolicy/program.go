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
	"strings"
	"sync"
	"time"

	"github.com/jitterkit/jitterkit/kit"
)

// Defaults for the fields of Options left zero.
const (
	DefaultAttempts = 64
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
	// Timeout is how long the program has to answer one request; default
	// DefaultTimeout.
	Timeout time.Duration
	// Grace is how long the program has to exit when it is stopped,
	// before it is sent SIGTERM, and again before SIGKILL; default
	// DefaultGrace.
	Grace time.Duration
	// Dir is the program's working directory; empty means the current one.
	Dir string
}

// A ProtocolError reports a program that broke the exec protocol.
type ProtocolError struct {
	Command string // the command as given to sh -c
	Device  string // the device whose request failed
	Line    string // the offending reply line, cut short; empty when there was none
	Err     error  // what is wrong
	Stderr  string // the end of the program's standard error, if it wrote any
}

func (e *ProtocolError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "exec %q: device %q: %v", e.Command, e.Device, e.Err)
	if e.Line != "" {
		fmt.Fprintf(&b, ": %q", e.Line)
	}
	if e.Stderr != "" {
		fmt.Fprintf(&b, "\nits standard error ends with:\n%s", indent(e.Stderr))
	}
	return b.String()
}

func (e *ProtocolError) Unwrap() error { return e.Err }

// ErrTimeout is the Err of a ProtocolError for a reply that did not come in
// time.
var ErrTimeout = errors.New("no reply in time")

// A Program is a running exec-protocol policy. Its Factory may be used from
// several goroutines; requests to the program are serialised.
type Program struct {
	command string
	opt     Options

	cmd     *exec.Cmd
	stdin   *os.File
	stdout  *os.File
	reader  *bufio.Reader
	stderr  *tail
	exited  chan struct{} // closed once the program's leader has been reaped
	status  error         // its exit status, set before exited is closed
	drained chan struct{} // closed once its standard error is read to the end
	ctx     context.Context

	mu     sync.Mutex
	err    error // the first protocol error; then every request fails
	closed bool
}

// Start starts command with sh -c in a process group of its own. It fails
// only when the shell cannot be started; a command that does not exist
// shows as a ProtocolError on the first request, with the shell's message.
// Cancelling ctx interrupts a request that is waiting for its reply; the
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
	errR, errW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return nil, err
	}
	cmd := exec.Command("sh", "-c", command)
	cmd.Dir = opt.Dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	cmd.SysProcAttr = ownGroup()
	err = cmd.Start()
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
		cmd:     cmd,
		stdin:   inW,
		stdout:  outR,
		reader:  bufio.NewReader(outR),
		stderr:  &tail{max: stderrKept},
		exited:  make(chan struct{}),
		drained: make(chan struct{}),
		ctx:     ctx,
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
	return p, nil
}

// Command returns the command the program was started with.
func (p *Program) Command() string { return p.command }

// Err returns the first protocol error the program made, or nil.
func (p *Program) Err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// Stderr returns the end of what the program wrote to its standard error.
func (p *Program) Stderr() string { return p.stderr.String() }

// Factory returns the factory of the program's policy. Each device's policy
// asks the program for its delays on its first call to Next.
func (p *Program) Factory() kit.Factory {
	return func(d kit.Device) kit.Policy { return &policy{p: p, id: d.ID} }
}

// Close closes the program's input and stops its process group: the
// program has Grace to exit by itself, then the group is sent SIGTERM and,
// Grace later, SIGKILL. It returns once the program has been reaped. Close
// may be called more than once.
func (p *Program) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil
	}
	p.closed = true
	if p.err == nil {
		p.err = errors.New("execpolicy: program closed")
	}
	p.stop()
	return nil
}

// stop ends the program's process group and reaps its leader. The caller
// holds p.mu.
func (p *Program) stop() {
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
	// Children that outlived the leader are stopped with the group, even
	// when the leader exited by itself.
	signalGroup(p.cmd, sigTerm)
	signalGroup(p.cmd, sigKill)
	<-p.exited
	p.stdout.Close()
	// A child that left the group may still hold standard error open.
	select {
	case <-p.drained:
	case <-time.After(p.opt.Grace):
	}
}

// fetch asks the program for the first n delays of device id.
func (p *Program) fetch(id string, n int) ([]float64, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err != nil {
		return nil, p.err
	}
	fail := func(line []byte, err error) ([]float64, error) {
		e := &ProtocolError{Command: p.command, Device: id, Line: cut(line), Err: err}
		if !p.closed {
			p.stop()
			p.closed = true
		}
		e.Stderr = lastLines(p.stderr.String(), 10)
		p.err = e
		return nil, e
	}
	req, _ := json.Marshal(struct {
		Device   string `json:"device"`
		Attempts int    `json:"attempts"`
	}{id, n})
	ctx := p.ctx
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	deadline := time.Now().Add(p.opt.Timeout)
	p.stdin.SetWriteDeadline(deadline)
	p.stdout.SetReadDeadline(deadline)
	// A cancelled ctx moves the deadlines to now, interrupting the wait.
	defer context.AfterFunc(ctx, func() {
		p.stdin.SetWriteDeadline(time.Now())
		p.stdout.SetReadDeadline(time.Now())
	})()
	if _, err := p.stdin.Write(append(req, '\n')); err != nil {
		if ctx.Err() != nil {
			p.err = ctx.Err()
			return nil, p.err
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return fail(nil, fmt.Errorf("%w: it did not read its input within %v", ErrTimeout, p.opt.Timeout))
		}
		return fail(nil, p.exitedEarly())
	}
	line, err := readLine(p.reader)
	switch {
	case ctx.Err() != nil && err != nil:
		// The reply may still come: no later request can trust the stream.
		p.err = ctx.Err()
		return nil, p.err
	case errors.Is(err, os.ErrDeadlineExceeded):
		return fail(line, fmt.Errorf("%w: it did not answer within %v", ErrTimeout, p.opt.Timeout))
	case errors.Is(err, errLong):
		return fail(line, err)
	case err != nil && len(line) == 0:
		return fail(nil, p.exitedEarly())
	}
	delays, err := DecodeReply(line, n)
	if err != nil {
		return fail(line, err)
	}
	return delays, nil
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

var errLong = fmt.Errorf("reply longer than %d bytes", maxLine)

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
	delays []float64
	asked  int // how many delays the last request asked for
	next   int // index of the next delay
}

// Next returns the device's next delay, asking the program on the first
// call and whenever the delays read so far run out while the program
// answered all that was asked.
func (pl *policy) Next() (time.Duration, error) {
	if pl.next == len(pl.delays) {
		if pl.asked > 0 && len(pl.delays) < pl.asked {
			return 0, kit.ErrStop
		}
		n := pl.p.opt.Attempts
		if pl.asked > 0 {
			n = min(2*pl.asked, maxAttempts)
			if n == pl.asked {
				return 0, kit.ErrStop
			}
		}
		delays, err := pl.p.fetch(pl.id, n)
		if err != nil {
			return 0, err
		}
		pl.delays, pl.asked = delays, n
		if pl.next >= len(pl.delays) {
			// The longer reply is not an extension of the shorter one.
			return 0, kit.ErrStop
		}
	}
	s := pl.delays[pl.next]
	pl.next++
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

// cut returns line as a string, cut to lineQuoted bytes.
func cut(line []byte) string {
	if len(line) > lineQuoted {
		return string(line[:lineQuoted]) + "…"
	}
	return string(line)
}

// lastLines returns the last n lines of s, without blank ends.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

func indent(s string) string {
	return "\t" + strings.ReplaceAll(s, "\n", "\n\t")
}
