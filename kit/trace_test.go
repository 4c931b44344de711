package kit

import (
	"bytes"
	"errors"
	"io"
	"math"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/testdata/kittest"
)

func TestReadTrace(t *testing.T) {
	tests := []struct {
		name     string
		csv      string
		ids      []string
		attempts int
		delays   map[string][]float64
	}{
		{
			name:     "two devices",
			csv:      "device,attempt,delay_s\ndev-1,1,0.5\ndev-1,2,1.25\ndev-2,1,0.75\n",
			ids:      []string{"dev-1", "dev-2"},
			attempts: 2,
			delays:   map[string][]float64{"dev-1": {0.5, 1.25}, "dev-2": {0.75}},
		},
		{
			name:     "interleaved devices, CRLF, no final newline",
			csv:      "device,attempt,delay_s\r\nb,1,1\r\na,1,2\r\nb,2,3\r\na,2,4\r\na,3,5",
			ids:      []string{"a", "b"},
			attempts: 3,
			delays:   map[string][]float64{"a": {2, 4, 5}, "b": {1, 3}},
		},
		{
			name:     "byte order mark, quoted id with a comma, blank line",
			csv:      "\uFEFFdevice,attempt,delay_s\n\n\"site 1, dev 7\",1,1e-3\n",
			ids:      []string{"site 1, dev 7"},
			attempts: 1,
			delays:   map[string][]float64{"site 1, dev 7": {0.001}},
		},
		{
			name:     "the policy's defects are delays",
			csv:      "device,attempt,delay_s\nd,1,NaN\nd,2,Inf\nd,3,-Inf\nd,4,-0.5\nd,5,1e400\nd,6,+Inf\n",
			ids:      []string{"d"},
			attempts: 6,
			delays:   map[string][]float64{"d": {math.NaN(), math.Inf(1), math.Inf(-1), -0.5, math.Inf(1), math.Inf(1)}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr, err := ReadTrace(strings.NewReader(tt.csv))
			require.NoError(t, err)
			assert.Equal(t, tt.ids, tr.IDs(), "IDs()")
			assert.Equal(t, tt.attempts, tr.Attempts(), "Attempts()")
			for id, want := range tt.delays {
				got := tr.delays[id]
				assert.True(t, kittest.SameFloats(got, want), "delays of %q = %v; want %v", id, got, want)
			}
		})
	}
}

func TestReadTraceErrors(t *testing.T) {
	const h = "device,attempt,delay_s\n"
	tests := []struct {
		name  string
		csv   string
		line  int
		field string
		want  string
	}{
		{"empty file", "", 1, "", "trace line 1: empty file; want the header device,attempt,delay_s"},
		{"blank lines only", "\n\n", 1, "", "trace line 1: empty file; want the header device,attempt,delay_s"},
		{"header only", h, 2, "", "trace line 2: no delays after the header"},
		{"missing header", "dev-1,1,0.5\n", 1, "", `trace line 1: got "dev-1,1,0.5"; want the header device,attempt,delay_s`},
		{"wrong header", "id,attempt,delay\ndev-1,1,0.5\n", 1, "", `trace line 1: got "id,attempt,delay"; want the header device,attempt,delay_s`},
		{"header in another order", "device,delay_s,attempt\n", 1, "", `trace line 1: got "device,delay_s,attempt"; want the header device,attempt,delay_s`},
		{"too few fields", h + "dev-1,1,0.5\ndev-1,2\n", 3, "", "trace line 3: 2 fields; want 3 (device,attempt,delay_s)"},
		{"too many fields", h + "dev-1,1,0.5,x\n", 2, "", "trace line 2: 4 fields; want 3 (device,attempt,delay_s)"},
		{"bad quoting", h + "dev-1,1,0.5\n\"dev\"-2,1,0.5\n", 3, "", `trace line 3: column 5: extraneous or missing " in quoted-field`},
		{"empty device", h + ",1,0.5\n", 2, "device", "trace line 2, field device: empty device id"},
		{"bad attempt", h + "dev-1,one,0.5\n", 2, "attempt", `trace line 2, field attempt: "one" is not a whole number`},
		{"fractional attempt", h + "dev-1,1.0,0.5\n", 2, "attempt", `trace line 2, field attempt: "1.0" is not a whole number`},
		{"attempt 0", h + "dev-1,0,0.5\n", 2, "attempt", "trace line 2, field attempt: 0; attempts count from 1"},
		{"negative attempt", h + "dev-1,1,0.5\ndev-1,-2,0.5\n", 3, "attempt", "trace line 3, field attempt: -2; attempts count from 1"},
		{"not starting at 1", h + "dev-1,2,0.5\n", 2, "attempt", `trace line 2, field attempt: device "dev-1" starts at attempt 2; want 1`},
		{"a gap", h + "dev-1,1,0.5\ndev-1,2,1\ndev-1,4,2\n", 4, "attempt", `trace line 4, field attempt: device "dev-1" attempt 4 follows attempt 2 on line 3; want 3`},
		{"out of order", h + "dev-1,1,0.5\ndev-1,3,2\ndev-1,2,1\n", 3, "attempt", `trace line 3, field attempt: device "dev-1" attempt 3 follows attempt 1 on line 2; want 2`},
		{"duplicate row", h + "dev-1,1,0.5\ndev-2,1,0.5\ndev-1,1,0.5\n", 4, "attempt", `trace line 4, field attempt: device "dev-1" attempt 1 repeats line 2`},
		{"duplicate attempt, other delay", h + "dev-1,1,0.5\ndev-1,2,1\ndev-1,2,7\n", 4, "attempt", `trace line 4, field attempt: device "dev-1" attempt 2 repeats line 3`},
		{"bad delay", h + "dev-1,1,0.5s\n", 2, "delay_s", `trace line 2, field delay_s: "0.5s" is not a number of seconds`},
		{"empty delay", h + "dev-1,1,\n", 2, "delay_s", `trace line 2, field delay_s: "" is not a number of seconds`},
		{"line after a quoted newline", h + "\"dev\n1\",1,0.5\ndev-2,x,1\n", 4, "attempt", `trace line 4, field attempt: "x" is not a whole number`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadTrace(strings.NewReader(tt.csv))
			require.Error(t, err)
			assert.EqualError(t, err, tt.want)
			var te *TraceError
			if assert.ErrorAs(t, err, &te) {
				assert.Equal(t, tt.line, te.Line, "the *TraceError's Line")
				assert.Equal(t, tt.field, te.Field, "the *TraceError's Field")
			}
		})
	}
}

func TestReadTraceReadFailure(t *testing.T) {
	broken := errors.New("connection reset")
	r := io.MultiReader(strings.NewReader("device,attempt,delay_s\ndev-1,1,0.5\n"), iotest.ErrReader(broken))
	_, err := ReadTrace(r)
	assert.ErrorIs(t, err, broken, "ReadTrace of a failing reader gives the reader's error")
	var te *TraceError
	assert.NotErrorAs(t, err, &te, "ReadTrace of a failing reader gives a read error, not a *TraceError")
}

func TestTraceFactory(t *testing.T) {
	tr, err := ReadTrace(strings.NewReader("device,attempt,delay_s\n" +
		"ok,1,0.5\nok,2,1.5\n" +
		"bad,1,0.25\nbad,2,NaN\nbad,3,-1\nbad,4,Inf\nbad,5,1e300\n"))
	require.NoError(t, err)
	f := tr.Factory()

	got, err := Delays(f(Device{ID: "ok"}), 10)
	assert.NoError(t, err, `Delays("ok")`)
	assert.Equal(t, []time.Duration{500 * time.Millisecond, 1500 * time.Millisecond}, got, `Delays("ok"), then a stop`)
	again, _ := Delays(f(Device{ID: "ok", Boot: time.Unix(1e9, 0)}), 10)
	assert.Equal(t, got, again, `a second policy for "ok"`)

	// The recorded defects come out of Next in order: NaN, Inf and an
	// impossible size as *DelayError, a negative delay as itself.
	p := f(Device{ID: "bad"})
	type step struct {
		d        time.Duration
		delayErr float64 // the *DelayError's Seconds; 0 for none
		stop     bool
	}
	for i, want := range []step{
		{d: 250 * time.Millisecond},
		{delayErr: math.NaN()},
		{d: -time.Second},
		{delayErr: math.Inf(1)},
		{delayErr: 1e300},
		{stop: true},
		{stop: true},
	} {
		d, err := p.Next()
		var de *DelayError
		switch {
		case want.stop:
			assert.ErrorIs(t, err, ErrStop, `"bad" Next %d = %v`, i+1, d)
		case want.delayErr != 0:
			if assert.ErrorAs(t, err, &de, `"bad" Next %d = %v`, i+1, d) {
				assert.True(t, kittest.SameFloats([]float64{want.delayErr}, []float64{de.Seconds}),
					`"bad" Next %d: a *DelayError of %v s; want %v s`, i+1, de.Seconds, want.delayErr)
			}
		default:
			assert.NoError(t, err, `"bad" Next %d`, i+1)
			assert.Equal(t, want.d, d, `"bad" Next %d`, i+1)
		}
	}

	// A device the trace does not hold is a source failure naming it.
	u := f(Device{ID: "dev-404"})
	for range 2 {
		_, err := u.Next()
		assert.EqualError(t, err, `trace has no device "dev-404"`, "Next of an unknown device")
		assert.NotErrorIs(t, err, ErrStop, "Next of an unknown device")
	}
}

func TestTraceWriteTo(t *testing.T) {
	const in = "device,attempt,delay_s\nz,1,0.1\nz,2,NaN\n\"a,b\",1,-Inf\nz,3,1e-07\n\"a,b\",2,300\n"
	const want = "device,attempt,delay_s\n\"a,b\",1,-Inf\n\"a,b\",2,300\nz,1,0.1\nz,2,NaN\nz,3,1e-07\n"
	tr, err := ReadTrace(strings.NewReader(in))
	require.NoError(t, err)
	var b bytes.Buffer
	n, err := tr.WriteTo(&b)
	assert.NoError(t, err, "WriteTo")
	assert.Equal(t, want, b.String(), "what WriteTo wrote")
	assert.Equal(t, int64(len(want)), n, "the count WriteTo returns")
}

func FuzzReadTrace(f *testing.F) {
	f.Add([]byte("device,attempt,delay_s\ndev-1,1,0.5\ndev-1,2,1.25\ndev-2,1,0.75\n"))
	f.Add([]byte("device,attempt,delay_s\nd,1,NaN\nd,2,-Inf\nd,3,-0.5\n"))
	f.Add([]byte("device,attempt,delay_s\ndev-1,2,0.5\n"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := ReadTrace(bytes.NewReader(data))
		if err != nil {
			var te *TraceError
			require.ErrorAs(t, err, &te)
			require.GreaterOrEqual(t, te.Line, 1, "the *TraceError's Line")
			return
		}
		var b bytes.Buffer
		_, err = tr.WriteTo(&b)
		require.NoError(t, err)
		again, err := ReadTrace(bytes.NewReader(b.Bytes()))
		require.NoError(t, err, "ReadTrace of what WriteTo wrote:\n%s", b.Bytes())
		require.Equal(t, tr.IDs(), again.IDs(), "written and read again, IDs")
		for _, id := range tr.IDs() {
			require.True(t, kittest.SameFloats(again.delays[id], tr.delays[id]),
				"written and read again, delays of %q = %v; want %v", id, again.delays[id], tr.delays[id])
		}
		// Every device's policy replays its delays and then stops.
		f := tr.Factory()
		for _, id := range tr.IDs() {
			p := f(Device{ID: id})
			for range tr.delays[id] {
				_, err := p.Next()
				require.NotErrorIs(t, err, ErrStop, "device %q stopped before its %d delays", id, len(tr.delays[id]))
			}
			_, err := p.Next()
			require.ErrorIs(t, err, ErrStop, "device %q after its %d delays", id, len(tr.delays[id]))
		}
	})
}

func TestReadTraceLimits(t *testing.T) {
	const h = "device,attempt,delay_s\n"
	long := strings.Repeat("x", maxIDLen+1)
	tests := []struct {
		name string
		r    io.Reader
		want string
	}{
		{"endless zeros", io.LimitReader(zeros{}, 1<<30), "trace line 1: a line longer than 65536 bytes; a trace's lines hold a device id, an attempt and a delay"},
		{"a long line after good ones", strings.NewReader(h + "a,1,1\n" + strings.Repeat("9", maxTraceLine+1) + "\n"), "trace line 3: a line longer than 65536 bytes; a trace's lines hold a device id, an attempt and a delay"},
		{"a long id", strings.NewReader(h + long + ",1,1\n"), "trace line 2, field device: a device id of 257 bytes; ids are at most 256"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadTrace(tt.r)
			var te *TraceError
			assert.ErrorAs(t, err, &te)
			assert.EqualError(t, err, tt.want)
		})
	}
}

// zeros reads as an endless run of zero bytes, as /dev/zero does.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}
