// Package cli is the command line's machinery for a tool whose commands
// share one table of flags: parsing the arguments of a command, reading
// a YAML config file whose keys are the flags' names, suggesting the
// nearest name for a mistyped one, and laying the flags out in a help.
//
// The table binds each flag to the options it sets; what the options
// mean is the tool's. Parse and ReadConfig return plain errors, which do
// not name the flag's command; the tool decides how they exit.
package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/jitterkit/jitterkit/internal/prose"
)

// A Flag is one flag of the table.
type Flag[T any] struct {
	// Name is the flag's name on the command line, without dashes, and
	// its key in a config file.
	Name string
	// Arg is the placeholder of its value in the help, "" for a switch.
	Arg string
	// Group is the heading the help lists it under.
	Group string
	// Topic is the help topic that describes it, such as the scenario it
	// sets, in place of the command's help; "" for the command's help.
	Topic string
	// Usage says what it sets, and Default its default as the help
	// writes it ("" for none).
	Usage, Default string
	// Commands are the commands that take it, each by its letter (see
	// Table.Letters).
	Commands string
	// Set sets the options from one value. Its error does not name the
	// flag: the caller says where the value was.
	Set func(o *T, value string) error
}

// A Table is the flags of every command of a tool.
type Table[T any] struct {
	// Commands are the commands that take flags, in the help's order.
	Commands []string
	// Letters maps each command to the letter Flag.Commands gives it.
	Letters map[string]string
	// Groups are the help's headings, in their order.
	Groups []string
	// Flags are the flags, in the help's order within a group.
	Flags []Flag[T]
	// Lists are the flags that may be given more than once, each value
	// adding to the list, by name, with what empties the list: the first
	// given on the command line empties it, so that the command line's
	// list replaces the config's.
	Lists map[string]func(o *T)
	// ConfigExample is a line of a config file, which the error of a
	// file that is not a mapping shows.
	ConfigExample string
}

// Lookup returns the flag named name, or nil.
func (t *Table[T]) Lookup(name string) *Flag[T] {
	for i := range t.Flags {
		if t.Flags[i].Name == name {
			return &t.Flags[i]
		}
	}
	return nil
}

// Takes reports whether command takes f.
func (t *Table[T]) Takes(f *Flag[T], command string) bool {
	letter := t.Letters[command]
	return letter != "" && strings.Contains(f.Commands, letter)
}

// A Value is one flag as given on the command line.
type Value struct{ Name, Value string }

// ErrHelp is returned by Parse for -h, -help and --help.
var ErrHelp = errors.New("help requested")

// Parse parses the arguments of command into o, over what a config file
// set, recording in given each flag set, and returns the flags given in
// their order. Flags are written --name value, --name=value, or with one
// dash; a switch takes no value unless it is written --name=false. A
// flag other than a list is given once. No command takes arguments
// other than flags.
func (t *Table[T]) Parse(command string, args []string, o *T, given map[string]bool) ([]Value, error) {
	var out []Value
	onLine := map[string]bool{}
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if arg == "--" && i+1 < len(args) {
			return out, fmt.Errorf("%s takes no arguments, got %q", command, args[i+1])
		}
		if arg == "--" {
			break
		}
		if !strings.HasPrefix(arg, "-") || arg == "-" {
			return out, fmt.Errorf("%s takes no arguments, got %q", command, arg)
		}
		name, value, hasValue := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(arg, "-"), "-"), "=")
		if name == "h" || name == "help" {
			return out, ErrHelp
		}
		f := t.Lookup(name)
		switch {
		case f == nil:
			return out, fmt.Errorf("%s does not take --%s%s", command, name, t.suggest(name, command))
		case !t.Takes(f, command):
			return out, fmt.Errorf("%s does not take --%s (%s)", command, name, t.takenBy(f))
		case !hasValue && f.Arg == "":
			value = "true"
		case !hasValue && i+1 >= len(args):
			return out, fmt.Errorf("--%s needs a value: --%s %s", name, name, f.Arg)
		case !hasValue:
			i++
			value = args[i]
		}
		reset, list := t.Lists[name]
		switch {
		case onLine[name] && !list:
			return out, fmt.Errorf("--%s is given more than once", name)
		case !onLine[name] && list:
			reset(o)
		}
		onLine[name] = true
		if err := f.Set(o, value); err != nil {
			return out, fmt.Errorf("--%s: %w", name, err)
		}
		given[name] = true
		out = append(out, Value{name, value})
	}
	return out, nil
}

// Lookahead returns the value args give the flag name, read before
// they are parsed (a config file's path, say, whose flags the command
// line then overrides), or "".
func Lookahead(args []string, name string) string {
	for i, a := range args {
		n, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		switch {
		case a == "--":
			return ""
		case !strings.HasPrefix(a, "-") || n != name:
		case hasValue:
			return value
		case i+1 < len(args):
			return args[i+1]
		}
	}
	return ""
}

// takenBy says which commands take f: "gate and replay do".
func (t *Table[T]) takenBy(f *Flag[T]) string {
	var cmds []string
	for _, c := range t.Commands {
		if t.Takes(f, c) {
			cmds = append(cmds, c)
		}
	}
	if len(cmds) == 1 {
		return cmds[0] + " does"
	}
	return prose.List(cmds, "and") + " do"
}

// suggest returns " (did you mean --x?)" for the flag of command (of any
// command, when it is "") closest to name, when one is within two edits
// of it.
func (t *Table[T]) suggest(name, command string) string {
	var names []string
	for i := range t.Flags {
		if command == "" || t.Takes(&t.Flags[i], command) {
			names = append(names, t.Flags[i].Name)
		}
	}
	if best := Closest(name, names); best != "" {
		return " (did you mean --" + best + "?)"
	}
	return ""
}

// Closest returns the word of words closest to name, when one is within
// two edits of it, or "".
func Closest(name string, words []string) string {
	best, bestDist := "", 3
	for _, w := range words {
		if d := editDistance(name, w); d < bestDist {
			best, bestDist = w, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
