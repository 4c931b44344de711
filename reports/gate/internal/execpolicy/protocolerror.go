package execpolicy

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A ProtocolError reports a program that broke the exec protocol.
//
// Everything in it that the program wrote is shown with its control
// characters and invalid UTF-8 escaped, so that a program cannot reach the
// user's terminal through an error message: Error quotes Line with %q, and
// Stderr is escaped already.
type ProtocolError struct {
	Command string // the command as given to sh -c
	// Device is the device whose request failed. It is empty for a line
	// nobody asked for, whose Err names the device answered last.
	Device string
	// Line is the offending reply line, cut short, as the program wrote it:
	// quote it (%q) before printing it. It is empty when there was none.
	Line   string
	Err    error  // what is wrong
	Stderr string // the last lines of the program's standard error, escaped; empty if it wrote none
}

func (e *ProtocolError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "exec %q: ", e.Command)
	if e.Device != "" {
		fmt.Fprintf(&b, "device %q: ", e.Device)
	}
	fmt.Fprintf(&b, "%v", e.Err)
	if e.Line != "" {
		fmt.Fprintf(&b, ": %q", e.Line)
	}
	if e.Stderr != "" {
		fmt.Fprintf(&b, "\nits standard error ends with:\n%s", indent(e.Stderr))
	}
	return b.String()
}

func (e *ProtocolError) Unwrap() error { return e.Err }

// ErrTimeout is the Err (through errors.Is) of a ProtocolError for a
// program that went Options.Timeout without writing while a request waited
// for its reply. Its message names the limit; a caller that lets users set
// it says how.
var ErrTimeout = errors.New("no reply in time")

// escape returns s with everything that could act on a terminal written
// visibly as a Go escape: control characters (\x1b, \a, \t, \r), runes
// that do not print (\u202e) and bytes of invalid UTF-8 (\xff). When
// keepNewlines, line breaks ("\n", and "\r\n" as one) stay as they are.
func escape(s string, keepNewlines bool) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case keepNewlines && r == '\n':
			b.WriteByte('\n')
		case keepNewlines && r == '\r' && strings.HasPrefix(s[i+1:], "\n"):
			// The \n that follows is written next.
		case strconv.IsPrint(r):
			b.WriteString(s[i : i+size])
		default:
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		}
		i += size
	}
	return b.String()
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
