package kit

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// ParseSpecs parses a list of policy specs separated by commas or
// semicolons, such as "none:base=1s,cap=30s,full" (two specs). A spec's own
// key=value pairs are separated by commas too, but a strategy never holds
// "=", so a part without one (or with a colon before it) starts the next
// spec. It takes time linear in the length of text. The error is the first
// spec's that does not parse (see ParseSpec).
func ParseSpecs(text string) ([]Spec, error) {
	var specs []Spec
	for _, part := range splitSpecs(text) {
		s, err := ParseSpec(part)
		if err != nil {
			return nil, err
		}
		specs = append(specs, s)
	}
	return specs, nil
}

// splitSpecs splits text into the texts of its specs, trimmed.
func splitSpecs(text string) []string {
	var specs []string
	var parts []string // the parts of the spec being read
	flush := func() {
		if len(parts) > 0 {
			specs = append(specs, strings.Join(parts, ","))
			parts = parts[:0]
		}
	}
	for _, group := range strings.Split(text, ";") {
		for _, part := range strings.Split(group, ",") {
			trimmed := strings.TrimSpace(part)
			colon, eq := strings.Index(trimmed, ":"), strings.Index(trimmed, "=")
			startsSpec := trimmed != "" && (eq < 0 || (colon >= 0 && colon < eq))
			if startsSpec || len(specs) == 0 && len(parts) == 0 {
				flush()
			}
			parts = append(parts, trimmed)
		}
	}
	flush()
	return specs
}

// ParseDuration reads a positive duration as time.ParseDuration does, such
// as 100ms or 1m30s, and says what is wrong with one it refuses: not a
// duration, not positive, shorter than a nanosecond, or longer than a
// time.Duration holds (about 292 years).
func ParseDuration(text string) (time.Duration, error) {
	t := strings.TrimSpace(text)
	d, err := time.ParseDuration(t)
	switch {
	case err != nil && durationForm.MatchString(t) && strings.HasPrefix(t, "-"):
		return 0, fmt.Errorf("%s is not positive", t)
	case err != nil && durationForm.MatchString(t):
		return 0, fmt.Errorf("%s is longer than the longest duration, %v", t, time.Duration(math.MaxInt64))
	case err != nil:
		return 0, fmt.Errorf("%q is not a duration (e.g. 100ms, 10s, 1m30s)", text)
	case d == 0 && strings.ContainsAny(t, "123456789"):
		return 0, fmt.Errorf("%s is shorter than the shortest duration, 1ns", t)
	case d <= 0:
		return 0, fmt.Errorf("%v is not positive", d)
	}
	return d, nil
}

// durationForm is the form of a duration time.ParseDuration reads, of any
// length: what it refuses in this form is out of range.
var durationForm = regexp.MustCompile(`^[-+]?((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+$`)

// ParseBytes reads a size in bytes as FormatBytes writes it, or as a user
// types it: a positive whole number with an optional binary unit, with or
// without a space before it: 1073741824, 512MiB, 4 GiB. A fraction, as
// in FormatBytes's 1.5 KiB, is read when it is a whole number of bytes.
func ParseBytes(text string) (int64, error) {
	t := strings.TrimSpace(text)
	shift := 0
	for _, u := range []struct {
		suffix string
		shift  int
	}{{"TiB", 40}, {"GiB", 30}, {"MiB", 20}, {"KiB", 10}, {"B", 0}} {
		if strings.HasSuffix(t, u.suffix) {
			t, shift = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.shift
			break
		}
	}
	x, err := strconv.ParseFloat(t, 64)
	bytes := math.Ldexp(x, shift)
	switch {
	case err == nil && x <= 0 && !strings.ContainsAny(t, "eExXpP_"):
		return 0, fmt.Errorf("%s is not positive", strings.TrimSpace(text))
	case err != nil && !strings.Contains(err.Error(), "range") || strings.ContainsAny(t, "eExXpP_") || !(x > 0) || bytes != math.Trunc(bytes):
		return 0, fmt.Errorf("%q is not a size (a whole number of bytes, or of KiB, MiB, GiB or TiB: e.g. 8GiB)", text)
	case err != nil || bytes >= math.MaxInt64:
		return 0, fmt.Errorf("%s is too large", text)
	}
	return int64(bytes), nil
}
