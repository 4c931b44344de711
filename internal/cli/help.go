package cli

import (
	"fmt"
	"strings"

	"github.com/jitterkit/jitterkit/internal/prose"
)

// Help returns the flags command takes that no topic describes, under
// the headings of their groups, each with its placeholder, its usage and
// its default; usage holds, by flag name, a usage in command's own words,
// default included, in place of the table's.
func (t *Table[T]) Help(command string, usage map[string]string) string {
	var b strings.Builder
	for _, g := range t.Groups {
		heading := "\n" + g + ":\n"
		for i := range t.Flags {
			f := &t.Flags[i]
			if f.Group != g || f.Topic != "" || !t.Takes(f, command) {
				continue
			}
			b.WriteString(heading)
			heading = ""
			text, ok := usage[f.Name]
			if !ok {
				text = f.usage()
			}
			b.WriteString(Row(f.placeholder(), text, 27))
		}
	}
	return b.String()
}

// Rows returns the flags named, in that order, each with its placeholder,
// its usage and its default, as a topic of the help lists them for the
// commands given; a flag that not all of them take says which do. A name
// that is no flag is left out.
func (t *Table[T]) Rows(commands []string, names ...string) string {
	var b strings.Builder
	for _, name := range names {
		f := t.Lookup(name)
		if f == nil {
			continue
		}
		text := f.usage()
		var takers []string
		for _, c := range commands {
			if t.Takes(f, c) {
				takers = append(takers, c)
			}
		}
		if len(takers) < len(commands) {
			text += " (" + prose.List(takers, "and") + " only)"
		}
		b.WriteString(Row(f.placeholder(), text, 27))
	}
	return b.String()
}

// placeholder returns the flag as the help names it: --name and its
// value's placeholder.
func (f *Flag[T]) placeholder() string {
	if f.Arg == "" {
		return "--" + f.Name
	}
	return "--" + f.Name + " " + f.Arg
}

// usage returns the flag's usage with its default.
func (f *Flag[T]) usage() string {
	if f.Default == "" {
		return f.Usage
	}
	return f.Usage + " (default " + f.Default + ")"
}

// Row returns a row of a help's two columns: name, indented by two, and
// text wrapped from column col to the 78th.
func Row(name, text string, col int) string {
	indent := strings.Repeat(" ", col)
	return fmt.Sprintf("  %-*s%s", col-2, name, strings.TrimPrefix(Wrap(text, 78-col, indent), indent))
}

// Wrap breaks text into lines of at most width bytes between words, each
// after indent.
func Wrap(text string, width int, indent string) string {
	var b strings.Builder
	line := ""
	for _, w := range strings.Fields(text) {
		if line != "" && len(line)+1+len(w) > width {
			b.WriteString(indent + line + "\n")
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	b.WriteString(indent + line + "\n")
	return b.String()
}

// WrapLines breaks each line of text longer than width bytes between
// words into lines of at most width, each after the line's own leading
// spaces; the shorter lines are kept as they are. A text written with a
// line a paragraph, and its examples indented, reads wrapped.
func WrapLines(text string, width int) string {
	lines := strings.SplitAfter(text, "\n")
	for i, line := range lines {
		body := strings.TrimRight(line, "\n")
		if len(body) <= width {
			continue
		}
		indent := body[:len(body)-len(strings.TrimLeft(body, " "))]
		lines[i] = Wrap(body, width-len(indent), indent)
		if !strings.HasSuffix(line, "\n") {
			lines[i] = strings.TrimSuffix(lines[i], "\n")
		}
	}
	return strings.Join(lines, "")
}
