package execpolicy

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestEscape(t *testing.T) {
	tests := []struct {
		in           string
		keepNewlines bool
		want         string
	}{
		{in: "plain text, café, 日本", want: "plain text, café, 日本"},
		{in: "\x1b[2J\x1b]0;owned\x07", want: `\x1b[2J\x1b]0;owned\a`},
		{in: "tab\there", want: `tab\there`},
		{in: "bad \xff\xfe utf-8", want: `bad \xff\xfe utf-8`},
		{in: "cut rune \xe2\x80", want: `cut rune \xe2\x80`},
		{in: "C1 \u009b31m and bidi \u202e", want: `C1 \u009b31m and bidi \u202e`},
		{in: "del \x7f nul \x00", want: `del \x7f nul \x00`},
		{in: "a\nb\r\nc\rd", keepNewlines: true, want: "a\nb\nc\\rd"},
		{in: "a\nb\r\n", keepNewlines: false, want: `a\nb\r\n`},
		{in: `back\slash "quote"`, want: `back\slash "quote"`},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, escape(tt.in, tt.keepNewlines), "escape(%q, %v)", tt.in, tt.keepNewlines)
	}
}

func TestProtocolErrorMessage(t *testing.T) {
	tests := []struct {
		err  *ProtocolError
		want string
	}{{
		err:  &ProtocolError{Command: "p", Device: "dev-1", Line: "\x1b]0;owned\x07", Err: errors.New("the reply is not a JSON array of numbers")},
		want: `exec "p": device "dev-1": the reply is not a JSON array of numbers: "\x1b]0;owned\a"`,
	}, {
		err:  &ProtocolError{Command: "p", Err: errors.New("it wrote a line nobody asked for, before the first request"), Line: "ready", Stderr: "one\ntwo"},
		want: "exec \"p\": it wrote a line nobody asked for, before the first request: \"ready\"\nits standard error ends with:\n\tone\n\ttwo",
	}}
	for _, tt := range tests {
		assert.EqualError(t, tt.err, tt.want, "Error(), word for word")
	}
}
