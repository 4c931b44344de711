// Package prose writes what the kit says in words, and reads what a user
// types: durations and sizes as the kit writes them, counts with their
// thousands, lists joined as a sentence joins them, percentages. Every
// package of the kit writes them one way, through it.
package prose

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ParseDuration reads a positive duration as time.ParseDuration does, such
// as 100ms or 1m30s, and says what is wrong with one it refuses: not a
// duration, not positive, shorter than a nanosecond, or longer than a
// time.Duration holds (about 292 years).
func ParseDuration(text string) (time.Duration, error) {
	t := strings.TrimSpace(text)
	d, err := time.ParseDuration(t)
	switch {
	case err != nil && durationForm().MatchString(t) && strings.HasPrefix(t, "-"):
		return 0, fmt.Errorf("%s is not positive", t)
	case err != nil && durationForm().MatchString(t):
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
// length: what it refuses in this form is out of range. It is compiled
// when first needed, not when a program starts.
var durationForm = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[-+]?((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+$`)
})

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

// FormatDuration writes d as time.Duration.String does, without the zero
// units it appends: 5m rather than 5m0s, 1h30m rather than 1h30m0s.
func FormatDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// FormatCount writes n with a comma between each three digits, as the
// kit's reports write counts: 1,000,000.
func FormatCount(n int64) string { return group(strconv.FormatInt(n, 10)) }

// FormatBytes writes n in binary units, as the memory limits and estimates
// are written: 512 B, 1.5 KiB, 12.0 GiB.
func FormatBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	f, i := float64(n), -1
	for f >= unit && i < 5 {
		f /= unit
		i++
	}
	return fmt.Sprintf("%.1f %ciB", f, "KMGTPE"[i])
}

// Texts returns the text of each item.
func Texts[E any](items []E, text func(E) string) []string {
	texts := make([]string, len(items))
	for i, x := range items {
		texts[i] = text(x)
	}
	return texts
}

// ListOf joins the text of each item as List does.
func ListOf[E any](items []E, text func(E) string, conj string) string {
	return List(Texts(items, text), conj)
}

// List joins items as a sentence does, with the conjunction conj: "",
// "a", "a and b", "a, b and c".
func List(items []string, conj string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " " + conj + " " + items[len(items)-1]
}

// Percent writes a share as a percentage of at most three significant
// digits: 1 is 100%, 0.01 is 1%, 0.0125 is 1.25%.
func Percent(x float64) string {
	return strconv.FormatFloat(100*x, 'g', 3, 64) + "%"
}

// Number formats x as the kit's tables and sentences write numbers: whole numbers with thousands separators, other
// numbers with three significant digits, and no exponent below a billion.
func Number(x float64) string {
	switch {
	case x == math.Trunc(x) && math.Abs(x) < 1e15:
		return group(strconv.FormatFloat(x, 'f', 0, 64))
	case math.Abs(x) >= 100:
		return group(strconv.FormatFloat(x, 'f', 1, 64))
	}
	return strconv.FormatFloat(x, 'g', 3, 64)
}

// group puts a comma between each three digits of the integer part of s.
func group(s string) string {
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	whole, frac, hasFrac := strings.Cut(s, ".")
	var b strings.Builder
	for i, c := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if hasFrac {
		b.WriteString("." + frac)
	}
	return sign + b.String()
}

// Seconds writes a time given in seconds as the reports write it: "2s",
// "0.01s", "1,234.5s".
func Seconds(x float64) string { return Number(x) + "s" }

// PerSecond writes an accept rate: "50/s", or "unlimited" for 0.
func PerSecond(r float64) string {
	if r == 0 {
		return "unlimited"
	}
	return Number(r) + "/s"
}

// Plural writes n and the noun, with an s unless n is 1: "1 client",
// "1,000 clients".
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return Number(float64(n)) + " " + noun + "s"
}
