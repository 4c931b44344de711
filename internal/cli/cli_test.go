package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/internal/prose"
)

// opts is the options of a test table: two commands, a list, a switch,
// a duration.
type opts struct {
	names []string
	on    bool
	wait  time.Duration
	mode  string
}

func testTable() *Table[opts] {
	return &Table[opts]{
		Commands: []string{"run", "show"},
		Letters:  map[string]string{"run": "r", "show": "s"},
		Groups:   []string{"In", "Out"},
		Flags: []Flag[opts]{
			{Name: "name", Arg: "NAME", Group: "In", Usage: "a name", Commands: "rs", Set: func(o *opts, v string) error {
				o.names = append(o.names, v)
				return nil
			}},
			{Name: "on", Group: "Out", Usage: "turn it on", Default: "false", Commands: "r", Set: Bool(func(o *opts) *bool { return &o.on })},
			{Name: "wait", Arg: "DURATION", Group: "In", Usage: "how long", Default: "1s", Commands: "r", Set: Duration(func(o *opts) *time.Duration { return &o.wait })},
			{Name: "mode", Arg: "MODE", Group: "Out", Usage: "a or b", Commands: "rs", Set: Choice(func() []string { return []string{"a", "b"} }, "mode", func(o *opts) *string { return &o.mode })},
		},
		Lists:         map[string]func(*opts){"name": func(o *opts) { o.names = nil }},
		ConfigExample: "name: x",
	}
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name, command string
		args          []string
		want          opts
		err           string
	}{
		{"forms", "run", []string{"--name", "a", "-name=b", "--on", "--wait=2s"}, opts{names: []string{"a", "b"}, on: true, wait: 2 * time.Second}, ""},
		{"a switch set false", "run", []string{"--on=false"}, opts{}, ""},
		{"given twice", "run", []string{"--wait", "1s", "--wait", "2s"}, opts{wait: time.Second}, "--wait is given more than once"},
		{"not this command's", "show", []string{"--on"}, opts{}, "show does not take --on (run does)"},
		{"a near miss", "run", []string{"--wiat", "1s"}, opts{}, "run does not take --wiat (did you mean --wait?)"},
		{"no value", "run", []string{"--wait"}, opts{}, "--wait needs a value: --wait DURATION"},
		{"a bad value", "run", []string{"--wait", "soon"}, opts{}, `--wait: "soon" is not a duration (e.g. 100ms, 10s, 1m30s)`},
		{"not positive", "run", []string{"--wait", "0"}, opts{}, "--wait: 0s is not positive"},
		{"not a choice", "run", []string{"--mode", "c"}, opts{}, `--mode: "c" is not a mode (want a, b)`},
		{"an argument", "run", []string{"x"}, opts{}, `run takes no arguments, got "x"`},
		{"an argument after --", "run", []string{"--", "x"}, opts{}, `run takes no arguments, got "x"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var o opts
			_, err := testTable().Parse(tc.command, tc.args, &o, map[string]bool{})
			if tc.err != "" {
				require.EqualError(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, o)
		})
	}
	_, err := testTable().Parse("run", []string{"-h"}, &opts{}, map[string]bool{})
	assert.ErrorIs(t, err, ErrHelp)
}

// TestConfigUnderTheCommandLine reads a config, then a command line whose
// list replaces the config's, and a config key of another command's
// flag, checked and left out.
func TestConfigUnderTheCommandLine(t *testing.T) {
	tab, o, given := testTable(), opts{}, map[string]bool{}
	require.NoError(t, tab.ReadConfig([]byte("name: [a, b]\non: true\n"), "c.yaml", "show", "", &o, given, func() *opts { return &opts{} }))
	assert.Equal(t, opts{names: []string{"a", "b"}}, o, "show does not take --on: left out")
	assert.Equal(t, map[string]bool{"name": true}, given)
	values, err := tab.Parse("show", []string{"--name", "c"}, &o, given)
	require.NoError(t, err)
	assert.Equal(t, []string{"c"}, o.names, "the command line's list replaces the config's")
	assert.Equal(t, []Value{{"name", "c"}}, values)

	for _, tc := range []struct{ name, data, err string }{
		{"a second document", "name: a\n---\nname: b\n", "c.yaml:2: a second YAML document; a config is one mapping of flag names to values"},
		{"not a mapping", "- a\n", `c.yaml:1: want a mapping of flag names to values, such as "name: x"`},
		{"unknown key", "wiat: 1s\n", `c.yaml:1: unknown key "wiat" (did you mean wait?)`},
		{"the skipped key", "mode: a\n", `c.yaml:1: unknown key "mode"`},
		{"given again", "wait: 1s\nwait: 2s\n", "c.yaml:2: wait: given again (first on line 1)"},
		{"a list for one value", "wait: [1s, 2s]\n", "c.yaml:1: wait: want a single value"},
		{"a bad value", "wait: soon\n", `c.yaml:1: wait: "soon" is not a duration (e.g. 100ms, 10s, 1m30s)`},
		{"bad YAML", "wait: [\n", "c.yaml:1: did not find expected node content"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := testTable().ReadConfig([]byte(tc.data), "c.yaml", "run", "mode", &opts{}, map[string]bool{}, func() *opts { return &opts{} })
			assert.EqualError(t, err, tc.err)
		})
	}
}

func TestHelp(t *testing.T) {
	want := "\nIn:\n" +
		"  --name NAME              a name\n" +
		"  --wait DURATION          how long (default 1s)\n" +
		"\nOut:\n" +
		"  --on                     turn it on (default false)\n" +
		"  --mode MODE              in run's words\n"
	assert.Equal(t, want, testTable().Help("run", map[string]string{"mode": "in run's words"}))
	assert.Equal(t, "ab, cd\n  ef\n", Wrap("ab, cd ef", 6, "  ")[2:])
	assert.Equal(t, "a, b and c", prose.List([]string{"a", "b", "c"}, "and"))
	assert.Equal(t, "a or b", prose.List([]string{"a", "b"}, "or"))
}

func TestValues(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want float64
		err  string
	}{
		{"10%", 0.1, ""}, {"0.25", 0.25, ""}, {"0", 0, ""},
		{"100%", 0, `"100%" is not a fraction of at least 0 and below 1 (such as 10% or 0.1)`},
		{"-0.1", 0, `"-0.1" is not a fraction of at least 0 and below 1 (such as 10% or 0.1)`},
	} {
		x, err := Fraction(tc.in)
		if tc.err != "" {
			assert.EqualError(t, err, tc.err, "Fraction(%q)", tc.in)
			continue
		}
		assert.NoError(t, err, "Fraction(%q)", tc.in)
		assert.InDelta(t, tc.want, x, 1e-12, "Fraction(%q)", tc.in)
	}
	n, err := positiveInt("10_000")
	assert.NoError(t, err)
	assert.Equal(t, 10000, n)
	_, err = positiveInt("0")
	assert.EqualError(t, err, "0 is not a positive number")
	_, err = positiveInt("99999999999999999999")
	assert.EqualError(t, err, "99999999999999999999 is too large")
	var f struct{ x float64 }
	set := Float(func(o *struct{ x float64 }) *float64 { return &o.x })
	assert.EqualError(t, set(&f, "Inf"), "Inf is not a positive number")
	assert.NoError(t, set(&f, "2.5"))
	assert.Equal(t, 2.5, f.x)
	assert.Equal(t, "d", Closest("c", []string{"abcdef", "d"}))
	assert.Equal(t, "", Closest("wait", []string{"zzzzzz"}))
}

func TestLookahead(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--x", "1", "--config", "c.yaml"}, "c.yaml"},
		{[]string{"-config=c.yaml"}, "c.yaml"},
		{[]string{"--config"}, ""},
		{[]string{"--", "--config", "c.yaml"}, ""},
		{[]string{"--configs", "c.yaml"}, ""},
	} {
		assert.Equal(t, tc.want, Lookahead(tc.args, "config"), "Lookahead(%q)", tc.args)
	}
}

func TestInts(t *testing.T) {
	var o struct{ n []int }
	set := Ints(func(o *struct{ n []int }) *[]int { return &o.n })
	require.NoError(t, set(&o, "1, 10_000"))
	require.NoError(t, set(&o, "5"))
	assert.Equal(t, []int{1, 10000, 5}, o.n)
	assert.EqualError(t, set(&o, "3,x"), `"x" is not a whole number`)
	// A thousands separator is not read as a list.
	assert.EqualError(t, set(&o, "1,000"), `"1,000" reads as a list: commas separate the numbers here, so write one without them (1000, or 1_000)`)
	assert.EqualError(t, set(&o, "1,050,000"), `"1,050,000" reads as a list: commas separate the numbers here, so write one without them (1050000, or 1_050_000)`)
	assert.Equal(t, []int{1, 10000, 5}, o.n, "a refused list adds nothing")
	require.NoError(t, set(&o, "1,500"), "sizes of 1 and 500")
}

func TestParsedAndAppended(t *testing.T) {
	var o struct {
		n  int
		xs []string
	}
	type O = struct {
		n  int
		xs []string
	}
	set := Parsed(positiveInt, func(o *O) *int { return &o.n })
	require.NoError(t, set(&o, "7"))
	assert.Equal(t, 7, o.n)
	assert.EqualError(t, set(&o, "-1"), "-1 is not a positive number")
	assert.Equal(t, 7, o.n, "a refused value leaves the field")
	add := Appended(func(v string) ([]string, error) { return strings.Split(v, ","), nil }, func(o *O) *[]string { return &o.xs })
	require.NoError(t, add(&o, "a,b"))
	require.NoError(t, add(&o, "c"))
	assert.Equal(t, []string{"a", "b", "c"}, o.xs)
}
