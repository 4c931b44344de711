package execpolicy

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
)

// DecodeReply reads one reply line of the exec protocol: a JSON array of at
// most attempts numbers, in seconds. Besides JSON numbers it accepts the
// tokens NaN, Infinity and -Infinity that Python's json module writes; they
// decode to the float64 values of the same name. A number too large for a
// float64 decodes to an infinity of its sign. Leading and trailing blanks
// and a final carriage return are ignored.
//
// The error says what is wrong with the line without quoting it; the caller
// adds the device and the line.
func DecodeReply(line []byte, attempts int) ([]float64, error) {
	s := bytes.TrimSpace(line)
	if len(s) < 2 || s[0] != '[' || s[len(s)-1] != ']' {
		return nil, errors.New("the reply is not a JSON array of numbers")
	}
	body := bytes.TrimSpace(s[1 : len(s)-1])
	if len(body) == 0 {
		return []float64{}, nil
	}
	var out []float64
	for i, tok := range bytes.Split(body, []byte(",")) {
		tok = bytes.TrimSpace(tok)
		v, err := decodeNumber(tok)
		if err != nil {
			return nil, fmt.Errorf("the reply's element %d %v", i+1, err)
		}
		if len(out) >= attempts {
			return nil, fmt.Errorf("the reply has more than the %d numbers asked for", attempts)
		}
		out = append(out, v)
	}
	return out, nil
}

// decodeNumber reads one JSON number or one of Python's three non-finite
// tokens.
func decodeNumber(tok []byte) (float64, error) {
	switch string(tok) {
	case "NaN":
		return math.NaN(), nil
	case "Infinity":
		return math.Inf(1), nil
	case "-Infinity":
		return math.Inf(-1), nil
	case "":
		return 0, errors.New("is missing")
	}
	if !isJSONNumber(tok) {
		return 0, errors.New("is not a number")
	}
	v, err := strconv.ParseFloat(string(tok), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, errors.New("is not a number")
	}
	// Out of range, ParseFloat returns ±Inf (too large) or ±0 (too
	// small): both are the value the number stands for.
	return v, nil
}

// isJSONNumber reports whether b is a number in JSON's grammar:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func isJSONNumber(b []byte) bool {
	i := 0
	if i < len(b) && b[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
			n++
		}
		return n
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case digits() == 0:
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(b)
}
