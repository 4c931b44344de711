package cli

import (
	"fmt"
	"strings"
)

// Help returns the flags command takes, under the headings of their
// groups, each with its placeholder, its usage and its default; usage
// holds, by flag name, a usage in command's own words, default included,
// in place of the table's.
func (t *Table[T]) Help(command string, usage map[string]string) string {
	var b strings.Builder
	for _, g := range t.Groups {
		heading := "\n" + g + ":\n"
		for i := range t.Flags {
			f := &t.Flags[i]
			if f.Group != g || !t.Takes(f, command) {
				continue
			}
			b.WriteString(heading)
			heading = ""
			name := "--" + f.Name
			if f.Arg != "" {
				name += " " + f.Arg
			}
			text := f.Usage
			if f.Default != "" {
				text += " (default " + f.Default + ")"
			}
			if u, ok := usage[f.Name]; ok {
				text = u
			}
			b.WriteString(Row(name, text, 27))
		}
	}
	return b.String()
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
