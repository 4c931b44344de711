package kit

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
)

// traceHeader is the first record of every trace file.
var traceHeader = []string{"device", "attempt", "delay_s"}

// A Trace holds delays recorded from real devices, read by [ReadTrace]. It
// is a policy source like any other: [Trace.Factory] replays each device's
// delays in order and then stops.
type Trace struct {
	delays map[string][]float64 // seconds, by device id, attempts in order
}

// A TraceError reports a line of a trace file that could not be read.
type TraceError struct {
	Line  int    // the line the record starts on, counting from 1
	Field string // device, attempt or delay_s; empty when the whole record is wrong
	Err   error  // what is wrong
}

func (e *TraceError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("trace line %d: %v", e.Line, e.Err)
	}
	return fmt.Sprintf("trace line %d, field %s: %v", e.Line, e.Field, e.Err)
}

func (e *TraceError) Unwrap() error { return e.Err }

// Limits on what ReadTrace reads: a line of a trace holds an id, an
// attempt number and a delay, so a longer line is not a trace.
const (
	// maxTraceLine is the longest line of a trace, in bytes.
	maxTraceLine = 64 << 10
	// maxIDLen is the longest device id, in bytes.
	maxIDLen = 256
)

// ReadTrace reads a trace: CSV with the header device,attempt,delay_s and
// one record per delay, the attempts of each device numbered from 1 in order
// (records of different devices may interleave). Delays are seconds. A
// leading byte-order mark and blank lines are ignored, and fields may be
// quoted as CSV allows.
//
// NaN, infinities and negative delays are read as they are: they are the
// recorded policy's defect, and surface from its Next as a [*DelayError] or
// a negative delay for the checks to report. Anything else that is wrong (a
// missing header, a bad number, a wrong number of fields, attempts out of
// order or repeated, a file without delays, a line longer than
// 64 KiB or an id longer than 256 bytes) is a [*TraceError] naming the
// line and the field. ReadTrace holds what it reads in memory: a caller
// reading untrusted input bounds its size, for example with an
// io.LimitedReader.
func ReadTrace(r io.Reader) (*Trace, error) {
	br := bufio.NewReader(&lineLimit{r: r, max: maxTraceLine, line: 1})
	if bom, err := br.Peek(3); err == nil && string(bom) == "\uFEFF" {
		br.Discard(3)
	}
	cr := csv.NewReader(br)
	cr.FieldsPerRecord = -1 // counted below, to name the line in our own words
	cr.ReuseRecord = true

	t := &Trace{delays: map[string][]float64{}}
	// The line of each attempt, by device id, for the messages about
	// attempts out of order; 32 bits hold the lines of any trace that fits
	// in memory.
	lines := map[string][]int32{}
	for first := true; ; first = false {
		rec, err := cr.Read()
		if err == io.EOF {
			if first {
				return nil, &TraceError{Line: 1, Err: fmt.Errorf("empty file; want the header %s", joinHeader())}
			}
			break
		}
		if err != nil {
			var pe *csv.ParseError
			var te *TraceError
			if errors.As(err, &te) {
				return nil, te
			}
			if errors.As(err, &pe) {
				return nil, &TraceError{Line: pe.Line, Err: fmt.Errorf("column %d: %w", pe.Column, pe.Err)}
			}
			return nil, fmt.Errorf("read trace: %w", err)
		}
		line, _ := cr.FieldPos(0)
		if first {
			if !slices.Equal(rec, traceHeader) {
				return nil, &TraceError{Line: line, Err: fmt.Errorf("got %q; want the header %s", strings.Join(rec, ","), joinHeader())}
			}
			continue
		}
		if len(rec) != len(traceHeader) {
			return nil, &TraceError{Line: line, Err: fmt.Errorf("%d fields; want 3 (%s)", len(rec), joinHeader())}
		}
		id, attemptText, delayText := rec[0], rec[1], rec[2]
		if id == "" {
			return nil, &TraceError{Line: line, Field: "device", Err: errors.New("empty device id")}
		}
		if len(id) > maxIDLen {
			return nil, &TraceError{Line: line, Field: "device", Err: fmt.Errorf("a device id of %d bytes; ids are at most %d", len(id), maxIDLen)}
		}
		attempt, err := strconv.Atoi(attemptText)
		if err != nil {
			return nil, &TraceError{Line: line, Field: "attempt", Err: fmt.Errorf("%q is not a whole number", attemptText)}
		}
		seen := lines[id]
		switch want := len(seen) + 1; {
		case attempt < 1:
			return nil, &TraceError{Line: line, Field: "attempt", Err: fmt.Errorf("%d; attempts count from 1", attempt)}
		case attempt < want:
			return nil, &TraceError{Line: line, Field: "attempt", Err: fmt.Errorf("device %q attempt %d repeats line %d", id, attempt, seen[attempt-1])}
		case attempt > want && want == 1:
			return nil, &TraceError{Line: line, Field: "attempt", Err: fmt.Errorf("device %q starts at attempt %d; want 1", id, attempt)}
		case attempt > want:
			return nil, &TraceError{Line: line, Field: "attempt", Err: fmt.Errorf("device %q attempt %d follows attempt %d on line %d; want %d", id, attempt, want-1, seen[want-2], want)}
		}
		delay, err := strconv.ParseFloat(delayText, 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return nil, &TraceError{Line: line, Field: "delay_s", Err: fmt.Errorf("%q is not a number of seconds", delayText)}
		}
		// Out of range values read as ±Inf or 0, both delays the checks judge.
		lines[id] = append(seen, int32(line))
		t.delays[id] = append(t.delays[id], delay)
	}
	if len(t.delays) == 0 {
		return nil, &TraceError{Line: 2, Err: errors.New("no delays after the header")}
	}
	return t, nil
}

// A lineLimit reads from r and fails with a *TraceError once a line runs
// longer than max bytes, so that input without line ends (a device file, a
// binary) cannot grow a record without bound.
type lineLimit struct {
	r    io.Reader
	max  int
	run  int // bytes since the last newline
	line int // the line being read, counting from 1
}

func (l *lineLimit) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	for i, c := range p[:n] {
		if c == '\n' {
			l.run, l.line = 0, l.line+1
			continue
		}
		if l.run++; l.run > l.max {
			return i, &TraceError{Line: l.line, Err: fmt.Errorf("a line longer than %d bytes; a trace's lines hold a device id, an attempt and a delay", l.max)}
		}
	}
	return n, err
}

// joinHeader returns the header as it is written.
func joinHeader() string { return strings.Join(traceHeader, ",") }

// IDs returns the ids of the devices in t, sorted.
func (t *Trace) IDs() []string {
	ids := make([]string, 0, len(t.delays))
	for id := range t.delays {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// Attempts returns the number of delays of the device with the most.
func (t *Trace) Attempts() int {
	n := 0
	for _, d := range t.delays {
		n = max(n, len(d))
	}
	return n
}

// Factory returns the factory that replays each device's recorded delays in
// order and then stops. The policy of a device the trace does not hold
// returns an error naming it from every call to Next; Boot is ignored.
func (t *Trace) Factory() Factory {
	return func(d Device) Policy {
		delays, ok := t.delays[d.ID]
		if !ok {
			return unknownDevice(d.ID)
		}
		return &tracePolicy{delays: delays}
	}
}

// WriteTo writes t in the form [ReadTrace] reads, devices sorted by id. It
// implements io.WriterTo.
func (t *Trace) WriteTo(w io.Writer) (int64, error) {
	cw := &countingWriter{w: w}
	out := csv.NewWriter(cw)
	out.Write(traceHeader)
	for _, id := range t.IDs() {
		for i, s := range t.delays[id] {
			out.Write([]string{id, strconv.Itoa(i + 1), strconv.FormatFloat(s, 'g', -1, 64)})
		}
	}
	out.Flush()
	return cw.n, out.Error()
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// tracePolicy replays one device's recorded delays.
type tracePolicy struct {
	delays []float64
	next   int
}

func (p *tracePolicy) Next() (time.Duration, error) {
	if p.next == len(p.delays) {
		return 0, ErrStop
	}
	s := p.delays[p.next]
	p.next++
	return Seconds(s)
}

// unknownDevice is the policy of a device missing from a trace.
type unknownDevice string

func (id unknownDevice) Next() (time.Duration, error) {
	return 0, fmt.Errorf("trace has no device %q", string(id))
}
