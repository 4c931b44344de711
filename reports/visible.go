package reports

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/properties"
	"github.com/jitterkit/jitterkit/sim"
)

// The limits, in bytes, of the strings a report shows. Every string of a
// Report is shortened to one of them in every format (see [Visible] and the
// package documentation): names to nameMax, sentences and commands to
// textMax, and the labels of a chart, which must fit beside the plot, to
// chartMax.
const (
	nameMax  = 256
	textMax  = 4096
	chartMax = 64
)

// Visible returns s as one line of text that shows every character it
// holds, for a terminal, a report or an error message:
//
//   - a control character (C0, DEL and C1), a line or paragraph separator,
//     an invisible formatting character (Unicode's Cf: the bidirectional
//     overrides and isolates such as U+202E, zero-width spaces and joiners,
//     the byte order mark, tag characters), a private-use or unassigned
//     code point is written as an escape: \n, \t, \r, \a, \b, \f and \v for
//     those seven, \x1b for the other ASCII ones, \u0085 or \U000e0001
//     above ASCII;
//   - a byte that is not part of valid UTF-8 is written \xff;
//   - every other character, the space included, is kept as it is. A
//     backslash is kept too, so an escape in s and an escape made here look
//     alike: Visible is for people; a program should read report.json.
//
// A newline in s is therefore \n in the result, which holds no line break
// and no control character at all. When the result would be longer than
// limit bytes, it is cut at limit bytes or less, on a character's boundary,
// and ends with a marker saying how much of s was left out, such as
// "…(49.9 MB more)"; a limit ≤ 0 means none. To show text of several
// lines, such as a program's standard error, split it into lines and pass
// each one.
//
// The report formats show every string of a [Report] through Visible, ids
// and names cut at 256 bytes, sentences and commands at 4096. The CLI uses
// it for the strings its own messages quote.
func Visible(s string, limit int) string {
	if visibleAlready(s, limit) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		piece := s[i : i+size]
		if r == utf8.RuneError && size == 1 {
			piece = fmt.Sprintf(`\x%02x`, s[i])
		} else if hidden(r) {
			piece = escapeRune(r)
		}
		if limit > 0 && b.Len()+len(piece) > limit {
			b.WriteString(more(len(s) - i))
			break
		}
		b.WriteString(piece)
		i += size
	}
	return b.String()
}

// visibleAlready reports whether Visible would return s unchanged: valid
// UTF-8 holding no hidden character, within limit bytes.
func visibleAlready(s string, limit int) bool {
	if limit > 0 && len(s) > limit {
		return false
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < ' ' || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || hidden(r) {
			return false
		}
		i += size
	}
	return true
}

// hidden reports whether r is a character that a reader would not see as
// itself: anything that is not graphic (a letter, mark, number,
// punctuation, symbol or space). This covers the controls (Cc), the
// invisible formatting characters (Cf), the line and paragraph separators
// (Zl, Zp), surrogates, private-use and unassigned code points, and the
// noncharacters, which XML cannot hold.
func hidden(r rune) bool {
	return !unicode.IsGraphic(r)
}

// escapeRune writes a hidden character as an escape.
func escapeRune(r rune) string {
	switch r {
	case '\a':
		return `\a`
	case '\b':
		return `\b`
	case '\f':
		return `\f`
	case '\n':
		return `\n`
	case '\r':
		return `\r`
	case '\t':
		return `\t`
	case '\v':
		return `\v`
	}
	switch {
	case r < utf8.RuneSelf:
		return fmt.Sprintf(`\x%02x`, r)
	case r <= 0xffff:
		return fmt.Sprintf(`\u%04x`, r)
	}
	return fmt.Sprintf(`\U%08x`, r)
}

// more is the marker that ends a shortened string: "…(12 bytes more)",
// "…(49.9 MB more)".
func more(n int) string {
	return "…(" + size(n) + " more)"
}

// size writes a number of bytes for a reader: "1 byte", "734 bytes",
// "12.3 kB", "49.9 MB", in powers of 1000.
func size(n int) string {
	switch {
	case n == 1:
		return "1 byte"
	case n < 1000:
		return fmt.Sprintf("%d bytes", n)
	}
	x := float64(n)
	for _, unit := range []string{"kB", "MB", "GB"} {
		x /= 1000
		if x < 999.95 {
			return fmt.Sprintf("%.1f %s", x, unit)
		}
	}
	return fmt.Sprintf("%.1f TB", x/1000)
}

// shorten cuts s, when it is longer than limit bytes, on a character's
// boundary at limit bytes or less, and ends it with the marker of Visible.
// It changes nothing else: report.json keeps the text as it is.
func shorten(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	cut := limit
	for cut > 0 && cut > limit-utf8.UTFMax && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + more(len(s)-cut)
}

// shown returns a copy of r as the formats for people show it: every
// string through Visible, names cut at nameMax bytes and sentences and
// commands at textMax.
func shown(r Report) Report {
	return mapStrings(r,
		func(s string) string { return Visible(s, nameMax) },
		func(s string) string { return Visible(s, textMax) })
}

// mapStrings returns a copy of r whose every string is passed through name
// or text, by its kind: name for ids, names, statuses and versions; text
// for sentences, errors and commands. The slices of numbers are shared
// with r, the rest is copied.
func mapStrings(r Report, name, text func(string) string) Report {
	status := func(s verdict.Status) verdict.Status { return verdict.Status(name(string(s))) }
	counterexample := func(x *properties.Counterexample) *properties.Counterexample {
		if x == nil {
			return nil
		}
		y := *x
		y.Replay = text(x.Replay)
		y.Devices = slices.Clone(x.Devices)
		for j := range y.Devices {
			d := &y.Devices[j]
			d.ID, d.Err = name(d.ID), text(d.Err)
		}
		return &y
	}
	scenario := func(s sim.Scenario) sim.Scenario {
		s.Kind, s.Server = sim.Kind(name(string(s.Kind))), sim.Server(name(string(s.Server)))
		s.IDs = nil // the fleet's ids are not shown
		return s
	}
	r.Schema = name(r.Schema)
	r.Verdict = status(r.Verdict)
	r.Policy.Name, r.Policy.Spec, r.Policy.Source = name(r.Policy.Name), name(r.Policy.Spec), kit.Source(name(string(r.Policy.Source)))
	r.Policy.Command = text(r.Policy.Command)
	r.KitVersion = name(r.KitVersion)
	r.Checks = slices.Clone(r.Checks)
	for i := range r.Checks {
		c := &r.Checks[i]
		c.Name, c.Why, c.Status, c.Detail = name(c.Name), text(c.Why), status(c.Status), text(c.Detail)
		c.Cause, c.Remedy = properties.Cause(name(string(c.Cause))), text(c.Remedy)
		c.Counterexample = counterexample(c.Counterexample)
	}
	if p := r.Replay; p != nil {
		q := *p
		q.Status, q.Detail = status(p.Status), text(p.Detail)
		q.Scenario = scenario(p.Scenario)
		q.Stopped = counterexample(p.Stopped)
		r.Replay = &q
	}
	r.Comparisons = slices.Clone(r.Comparisons)
	for i := range r.Comparisons {
		c := &r.Comparisons[i]
		c.Figure = sim.Figure(name(string(c.Figure)))
		c.Scenario = scenario(c.Scenario)
		c.Note = text(c.Note)
		c.Policies = slices.Clone(c.Policies)
		for j := range c.Policies {
			c.Policies[j] = name(c.Policies[j])
		}
	}
	r.Fixes = slices.Clone(r.Fixes)
	for i := range r.Fixes {
		f := &r.Fixes[i]
		f.Change, f.Spec = text(f.Change), name(f.Spec)
	}
	r.Advice = slices.Clone(r.Advice)
	for i := range r.Advice {
		r.Advice[i] = text(r.Advice[i])
	}
	return r
}
