package main

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/sim"
)

// options holds a command's flags, after the config file.
type options struct {
	command string // check, replay, gate or compare

	policies    []string // --policy, as given; a list for compare
	specs       []kit.Spec
	exec        string
	trace       string
	config      string
	cap         time.Duration
	execTimeout time.Duration

	scenario    sim.Kind
	clients     []int
	acceptRate  float64
	down        time.Duration
	window      time.Duration
	startSpread time.Duration
	horizon     time.Duration
	retryAfter  time.Duration
	runs        int
	seed        uint64
	threshold   float64

	devices             int
	minCV               float64
	requireReproducible bool
	memoryLimit         int64

	report string
	json   string

	// given records the flags set on the command line or in the config.
	given map[string]bool
}

// A flagDef is one flag: its name (also its key in a config file), the
// placeholder of its value ("" for a switch), and how it sets the options.
// The error of set does not name the flag; the caller adds where it was.
type flagDef struct {
	name string
	arg  string
	set  func(o *options, value string) error
}

// flags lists every flag of every command; commandFlags says which command
// takes which.
var flags = []flagDef{
	{"policy", "SPEC", func(o *options, v string) error {
		for _, text := range splitSpecs(v) {
			s, err := kit.ParseSpec(text)
			if err != nil {
				return err
			}
			o.policies = append(o.policies, text)
			o.specs = append(o.specs, s)
		}
		return nil
	}},
	{"exec", "CMD", func(o *options, v string) error { return nonEmpty(&o.exec, v, "a command") }},
	{"trace", "FILE", func(o *options, v string) error { return nonEmpty(&o.trace, v, "a file name") }},
	{"config", "FILE", func(o *options, v string) error { return nonEmpty(&o.config, v, "a file name") }},
	{"cap", "DURATION", durationFlag(func(o *options) *time.Duration { return &o.cap })},
	{"exec-timeout", "DURATION", durationFlag(func(o *options) *time.Duration { return &o.execTimeout })},

	{"scenario", "NAME", func(o *options, v string) error {
		k := sim.Kind(v)
		if !slices.Contains(sim.Kinds(), k) {
			return fmt.Errorf("%q is not a scenario (want %s)", v, kindList())
		}
		o.scenario = k
		return nil
	}},
	{"clients", "N[,N...]", func(o *options, v string) error {
		for _, part := range strings.Split(v, ",") {
			n, err := positiveInt(strings.TrimSpace(part))
			if err != nil {
				return err
			}
			o.clients = append(o.clients, n)
		}
		return nil
	}},
	{"accept-rate", "N", positiveFloatFlag(func(o *options) *float64 { return &o.acceptRate })},
	{"down", "DURATION", durationFlag(func(o *options) *time.Duration { return &o.down })},
	{"window", "DURATION", durationFlag(func(o *options) *time.Duration { return &o.window })},
	{"start-spread", "DURATION", durationFlag(func(o *options) *time.Duration { return &o.startSpread })},
	{"horizon", "DURATION", durationFlag(func(o *options) *time.Duration { return &o.horizon })},
	{"retry-after", "DURATION", durationFlag(func(o *options) *time.Duration { return &o.retryAfter })},
	{"runs", "N", intFlag(func(o *options) *int { return &o.runs })},
	{"seed", "N", func(o *options, v string) error {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return fmt.Errorf("%q is not a seed (a whole number from 0 to %d)", v, uint64(math.MaxUint64))
		}
		o.seed = n
		return nil
	}},
	{"threshold", "RATIO", positiveFloatFlag(func(o *options) *float64 { return &o.threshold })},

	{"devices", "N", intFlag(func(o *options) *int { return &o.devices })},
	{"min-cv", "CV", positiveFloatFlag(func(o *options) *float64 { return &o.minCV })},
	{"require-reproducible", "", func(o *options, v string) error {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("%q is not true or false", v)
		}
		o.requireReproducible = b
		return nil
	}},

	{"memory-limit", "SIZE", func(o *options, v string) error {
		n, err := parseSize(v)
		if err != nil {
			return err
		}
		o.memoryLimit = n
		return nil
	}},

	{"report", "DIR", func(o *options, v string) error { return nonEmpty(&o.report, v, "a directory") }},
	{"json", "FILE", func(o *options, v string) error { return nonEmpty(&o.json, v, "a file name") }},
}

var (
	sourceFlags   = []string{"policy", "exec", "trace", "config", "exec-timeout", "memory-limit"}
	scenarioFlags = []string{"scenario", "clients", "accept-rate", "down", "window", "start-spread", "horizon", "retry-after", "runs", "seed", "threshold"}
	checkFlags    = []string{"cap", "devices", "seed", "min-cv", "require-reproducible"}
)

// commandFlags lists the flags each command takes.
var commandFlags = map[string][]string{
	"check":   join(sourceFlags, checkFlags, []string{"report"}),
	"replay":  join(sourceFlags, scenarioFlags, []string{"json", "report"}),
	"gate":    join(sourceFlags, checkFlags, scenarioFlags, []string{"report"}),
	"compare": join(sourceFlags, []string{"cap"}, scenarioFlags),
}

func join(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		for _, name := range l {
			if !slices.Contains(out, name) {
				out = append(out, name)
			}
		}
	}
	return out
}

func lookupFlag(name string) *flagDef {
	for i := range flags {
		if flags[i].name == name {
			return &flags[i]
		}
	}
	return nil
}

// errHelp is returned by parseFlags for -h, -help and --help.
var errHelp = errors.New("help requested")

// parseFlags parses the arguments of command into o. Flags are written
// --name value, --name=value, or with one dash; a switch takes no value
// unless it is written --name=false. No command takes other arguments.
func parseFlags(command string, args []string, o *options) error {
	allowed := commandFlags[command]
	if o.given == nil {
		o.given = map[string]bool{}
	}
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if arg == "--" {
			if i+1 < len(args) {
				return usageError("%s takes no arguments, got %q", command, args[i+1])
			}
			break
		}
		if !strings.HasPrefix(arg, "-") || arg == "-" {
			return usageError("%s takes no arguments, got %q", command, arg)
		}
		name, value, hasValue := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(arg, "-"), "-"), "=")
		switch name {
		case "h", "help":
			return errHelp
		}
		def := lookupFlag(name)
		if def == nil {
			return usageError("%s does not take --%s%s", command, name, suggest(name, allowed))
		}
		if !slices.Contains(allowed, name) {
			return usageError("%s does not take --%s (%s)", command, name, takenBy(name))
		}
		if !hasValue {
			if def.arg == "" {
				value = "true"
			} else {
				if i+1 >= len(args) {
					return usageError("--%s needs a value: --%s %s", name, name, def.arg)
				}
				i++
				value = args[i]
			}
		}
		if o.given[name] && name != "policy" && name != "clients" {
			return usageError("--%s is given more than once", name)
		}
		if err := def.set(o, value); err != nil {
			return usageError("--%s: %v", name, err)
		}
		o.given[name] = true
	}
	return nil
}

// takenBy says which commands take the flag name: "gate and replay do".
func takenBy(name string) string {
	var cmds []string
	for _, c := range []string{"check", "replay", "gate", "compare"} {
		if slices.Contains(commandFlags[c], name) {
			cmds = append(cmds, c)
		}
	}
	switch len(cmds) {
	case 1:
		return cmds[0] + " does"
	default:
		return strings.Join(cmds[:len(cmds)-1], ", ") + " and " + cmds[len(cmds)-1] + " do"
	}
}

// suggest returns " (did you mean --x?)" for the allowed flag closest to
// name, when one is close.
func suggest(name string, allowed []string) string {
	best, bestDist := "", 3
	for _, a := range allowed {
		if d := editDistance(name, a); d < bestDist {
			best, bestDist = a, d
		}
	}
	if best == "" {
		return ""
	}
	return " (did you mean --" + best + "?)"
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
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

// splitSpecs splits a list of policy specs separated by commas or
// semicolons. A spec's own key=value pairs are also separated by commas,
// but a strategy never holds "=", so a part without one (or with a colon
// before it) starts the next spec: "none:base=1s,cap=30s,full" is two.
//
// It takes time linear in the length of v, however many parts it holds.
func splitSpecs(v string) []string {
	var specs []string
	var parts []string // the parts of the spec being read
	flush := func() {
		if len(parts) > 0 {
			specs = append(specs, strings.Join(parts, ","))
			parts = parts[:0]
		}
	}
	for _, group := range strings.Split(v, ";") {
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

func nonEmpty(dst *string, v, what string) error {
	if strings.TrimSpace(v) == "" {
		return fmt.Errorf("want %s, got nothing", what)
	}
	*dst = v
	return nil
}

func durationFlag(field func(*options) *time.Duration) func(*options, string) error {
	return func(o *options, v string) error {
		d, err := time.ParseDuration(strings.TrimSpace(v))
		if err != nil {
			return fmt.Errorf("%q is not a duration (e.g. 100ms, 2s, 1m30s)", v)
		}
		if d <= 0 {
			return fmt.Errorf("%s is not positive", kit.FormatDuration(d))
		}
		*field(o) = d
		return nil
	}
}

func intFlag(field func(*options) *int) func(*options, string) error {
	return func(o *options, v string) error {
		n, err := positiveInt(v)
		if err != nil {
			return err
		}
		*field(o) = n
		return nil
	}
}

func positiveInt(v string) (int, error) {
	n, err := strconv.ParseInt(strings.ReplaceAll(v, "_", ""), 10, 64)
	if errors.Is(err, strconv.ErrRange) {
		return 0, fmt.Errorf("%s is too large", v)
	}
	if err != nil {
		return 0, fmt.Errorf("%q is not a whole number", v)
	}
	if n < 1 {
		return 0, fmt.Errorf("%d is not a positive number", n)
	}
	return int(n), nil
}

func positiveFloatFlag(field func(*options) *float64) func(*options, string) error {
	return func(o *options, v string) error {
		x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return fmt.Errorf("%q is not a number", v)
		}
		if !(x > 0) || math.IsInf(x, 0) {
			return fmt.Errorf("%s is not a positive number", v)
		}
		*field(o) = x
		return nil
	}
}

// parseSize reads a size in bytes: a whole number with an optional binary
// unit, such as 512MiB, 4GiB or 1073741824.
func parseSize(v string) (int64, error) {
	text := strings.TrimSpace(v)
	units := []struct {
		suffix string
		shift  uint
	}{{"TiB", 40}, {"GiB", 30}, {"MiB", 20}, {"KiB", 10}, {"B", 0}}
	shift := uint(0)
	for _, u := range units {
		if strings.HasSuffix(text, u.suffix) {
			text, shift = strings.TrimSpace(strings.TrimSuffix(text, u.suffix)), u.shift
			break
		}
	}
	n, err := strconv.ParseInt(text, 10, 64)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%q is not a size (a whole number of bytes, or of KiB, MiB, GiB or TiB: e.g. 8GiB)", v)
	}
	if n > math.MaxInt64>>shift {
		return 0, fmt.Errorf("%s is too large", v)
	}
	return n << shift, nil
}

func kindList() string {
	var names []string
	for _, k := range sim.Kinds() {
		names = append(names, string(k))
	}
	return strings.Join(names, ", ")
}
