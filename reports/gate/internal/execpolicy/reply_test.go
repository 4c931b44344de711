package execpolicy

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/testdata/kittest"
)

func TestDecodeReply(t *testing.T) {
	tests := []struct {
		line     string
		attempts int
		want     []float64
		err      string
	}{
		{line: "[0.042,0.171,0.305,0.77,1.2]", attempts: 5, want: []float64{0.042, 0.171, 0.305, 0.77, 1.2}},
		{line: "  [ 1 , 2e-3 , -0.5 ]\r", attempts: 5, want: []float64{1, 0.002, -0.5}},
		{line: "[]", attempts: 5, want: []float64{}},
		{line: "[ ]", attempts: 0, want: []float64{}},
		{line: "[NaN, Infinity, -Infinity]", attempts: 3, want: []float64{math.NaN(), math.Inf(1), math.Inf(-1)}},
		{line: "[1e400, -1e400, 1e-400]", attempts: 3, want: []float64{math.Inf(1), math.Inf(-1), 0}},
		{line: "[1,2,3]", attempts: 2, err: "the reply has more than the 2 numbers asked for"},
		{line: "", attempts: 1, err: "the reply is not a JSON array of numbers"},
		{line: "null", attempts: 1, err: "the reply is not a JSON array of numbers"},
		{line: "1.5", attempts: 1, err: "the reply is not a JSON array of numbers"},
		{line: "[1.5", attempts: 1, err: "the reply is not a JSON array of numbers"},
		{line: `{"delays":[1]}`, attempts: 1, err: "the reply is not a JSON array of numbers"},
		{line: `[1,"2"]`, attempts: 2, err: "the reply's element 2 is not a number"},
		{line: `[1,,2]`, attempts: 3, err: "the reply's element 2 is missing"},
		{line: `[1,]`, attempts: 3, err: "the reply's element 2 is missing"},
		{line: `[[1]]`, attempts: 3, err: "the reply's element 1 is not a number"},
		{line: `[nan]`, attempts: 1, err: "the reply's element 1 is not a number"},
		{line: `[inf]`, attempts: 1, err: "the reply's element 1 is not a number"},
		{line: `[+1]`, attempts: 1, err: "the reply's element 1 is not a number"},
		{line: `[01]`, attempts: 1, err: "the reply's element 1 is not a number"},
		{line: `[.5]`, attempts: 1, err: "the reply's element 1 is not a number"},
		{line: `[1.]`, attempts: 1, err: "the reply's element 1 is not a number"},
		{line: `[0x10]`, attempts: 1, err: "the reply's element 1 is not a number"},
		{line: `[1_000]`, attempts: 1, err: "the reply's element 1 is not a number"},
		{line: `[1e]`, attempts: 1, err: "the reply's element 1 is not a number"},
		{line: `[true]`, attempts: 1, err: "the reply's element 1 is not a number"},
	}
	for _, tt := range tests {
		got, err := DecodeReply([]byte(tt.line), tt.attempts)
		if tt.err != "" {
			assert.EqualError(t, err, tt.err, "DecodeReply(%q, %d)", tt.line, tt.attempts)
			continue
		}
		if assert.NoError(t, err, "DecodeReply(%q, %d)", tt.line, tt.attempts) {
			// Not assert.Equal: NaN is not equal to itself.
			assert.True(t, kittest.SameFloats(got, tt.want), "DecodeReply(%q, %d) = %v; want %v", tt.line, tt.attempts, got, tt.want)
		}
	}
}

// FuzzDecodeReply checks that the decoder never panics, never returns more
// than it was asked for, and reads back what it decoded when written in the
// protocol's own form.
func FuzzDecodeReply(f *testing.F) {
	f.Add([]byte("[0.042,0.171,0.305,0.77,1.2]"), 5)
	f.Add([]byte("[NaN,Infinity,-Infinity,-1]"), 4)
	f.Add([]byte("hello"), 3)
	f.Fuzz(func(t *testing.T, line []byte, attempts int) {
		got, err := DecodeReply(line, attempts)
		if err != nil {
			return
		}
		require.LessOrEqual(t, len(got), max(attempts, 0), "DecodeReply(%q, %d): numbers returned", line, attempts)
		own := encode(got)
		again, err := DecodeReply([]byte(own), len(got))
		require.NoError(t, err, "DecodeReply(%q) of its own output %q", line, own)
		require.True(t, kittest.SameFloats(got, again), "DecodeReply(%q) = %v, but its own output reads back as %v", line, got, again)
	})
}

// encode writes delays as a Python program's json.dumps would.
func encode(delays []float64) string {
	parts := make([]string, len(delays))
	for i, v := range delays {
		switch {
		case math.IsNaN(v):
			parts[i] = "NaN"
		case math.IsInf(v, 1):
			parts[i] = "Infinity"
		case math.IsInf(v, -1):
			parts[i] = "-Infinity"
		default:
			parts[i] = strconv.FormatFloat(v, 'g', -1, 64)
		}
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
