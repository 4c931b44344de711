package execpolicy

import (
	"math"
	"strconv"
	"strings"
	"testing"
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
		switch {
		case tt.err != "":
			if err == nil || err.Error() != tt.err {
				t.Errorf("DecodeReply(%q, %d) error = %v; want %q", tt.line, tt.attempts, err, tt.err)
			}
		case err != nil:
			t.Errorf("DecodeReply(%q, %d) error = %v", tt.line, tt.attempts, err)
		case !sameFloats(got, tt.want):
			t.Errorf("DecodeReply(%q, %d) = %v; want %v", tt.line, tt.attempts, got, tt.want)
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
		if len(got) > max(attempts, 0) {
			t.Fatalf("DecodeReply(%q, %d) returned %d numbers", line, attempts, len(got))
		}
		again, err := DecodeReply([]byte(encode(got)), len(got))
		if err != nil {
			t.Fatalf("DecodeReply(%q) of its own output %q: %v", line, encode(got), err)
		}
		if !sameFloats(got, again) {
			t.Fatalf("DecodeReply(%q) = %v, but its own output reads back as %v", line, got, again)
		}
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

func sameFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] && !(math.IsNaN(a[i]) && math.IsNaN(b[i])) {
			return false
		}
	}
	return true
}
