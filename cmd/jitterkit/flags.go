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
	"github.com/jitterkit/jitterkit/properties"
	"github.com/jitterkit/jitterkit/reports/gate"
	"github.com/jitterkit/jitterkit/sim"
)

// options holds a command's flags: most of them bound straight into the
// gate's configuration, the rest naming the policy and the outputs.
type options struct {
	command string // check, replay, gate or compare
	cfg     gate.Config

	policies    []string // --policy, as given; a list for compare
	specs       []kit.Spec
	exec        string
	trace       string
	config      string
	execTimeout time.Duration
	memoryLimit int64
	clients     []int // compare's fleet sizes; the others take one
	report      string
	json        string
	noFix       bool

	// given records the flags set, on the command line or in the config,
	// and args those given on the command line, to write the command that
	// finds a counterexample again.
	given map[string]bool
	args  []flagValue
}

// A flagValue is one flag as given on the command line.
type flagValue struct{ name, value string }

// A group is where a flag's help stands.
type group string

// The groups of the help, in its order.
const (
	groupPolicy   group = "Policy"
	groupChecks   group = "Checks"
	groupScenario group = "Scenario"
	groupOutput   group = "Output"
)

// A flagDef is one flag: its name (also its key in a config file), the
// placeholder of its value ("" for a switch), what it sets, its default as
// the help writes it, the commands that take it, and how it sets the
// options. The error of set does not name the flag; the caller adds where
// it was.
type flagDef struct {
	name     string
	arg      string
	group    group
	usage    string
	def      string
	commands string // the commands that take it, by their first letters: c(heck), r(eplay), g(ate), C(ompare)
	set      func(o *options, value string) error
}

// takes reports whether command takes the flag.
func (f *flagDef) takes(command string) bool {
	letter := map[string]string{"check": "c", "replay": "r", "gate": "g", "compare": "C"}[command]
	return letter != "" && strings.Contains(f.commands, letter)
}

// flags lists every flag of every command. The help is generated from it.
var flags = []flagDef{
	{"policy", "SPEC", groupPolicy, "a built-in strategy, e.g. full:base=100ms,cap=10s (compare: several, comma-separated, or the flag again)", "", "crgC", func(o *options, v string) error {
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
	{"exec", "CMD", groupPolicy, "a program speaking the exec protocol", "", "crgC", func(o *options, v string) error { return nonEmpty(&o.exec, v, "a command") }},
	{"trace", "FILE", groupPolicy, "delays recorded on devices (CSV: device,attempt,delay_s)", "", "crgC", func(o *options, v string) error { return nonEmpty(&o.trace, v, "a file name") }},
	{"config", "FILE", groupPolicy, "a YAML file with these flags' names as keys; flags given here override it", "", "crgC", func(o *options, v string) error { return nonEmpty(&o.config, v, "a file name") }},
	{"exec-timeout", "DURATION", groupPolicy, "how long the program may stay silent while a request waits, start-up included", kit.FormatDuration(gate.DefaultExecTimeout), "crgC", durationInto(func(o *options) *time.Duration { return &o.execTimeout })},
	{"memory-limit", "SIZE", groupPolicy, "the most memory a run may need, such as 8GiB; a larger run is refused up front", sizeText(properties.DefaultMemoryLimit), "crgC", func(o *options, v string) error {
		n, err := parseSize(v)
		o.memoryLimit = n
		return err
	}},

	{"cap", "DURATION", groupChecks, "the cap the policy declares: every delay must stay within it (compare: the built-in strategies' cap)", "the spec's cap, else none", "cgC", durationInto(func(o *options) *time.Duration { return &o.cfg.Checks.Cap })},
	{"devices", "N", groupChecks, "devices the property checks examine (the fleet of the replay is --clients)", strconv.Itoa(properties.DefaultDevices), "cg", intInto(func(o *options) *int { return &o.cfg.Checks.Devices })},
	{"min-cv", "CV", groupChecks, "least coefficient of variation of the delays across devices", fmt.Sprint(properties.DefaultThresholds().MinCV), "cg", floatInto(func(o *options) *float64 { return &o.cfg.Checks.Thresholds.MinCV })},
	{"require-reproducible", "", groupChecks, "fail, not warn, a policy whose delays a device cannot reproduce", "", "cg", func(o *options, v string) error {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("%q is not true or false", v)
		}
		o.cfg.Checks.RequireReproducible = b
		return nil
	}},

	{"scenario", "NAME", groupScenario, "outage, long-outage, storm, periodic or periodic-aligned. In the periodic ones every device fires a timer each --period, offset by a hash of its id (periodic) or on the boundary (periodic-aligned); the firings' own load is the timer load, which no retry policy changes, and the policy times only the re-sends of rejected firings, which the peak ratio judges (see --timer-offset)", string(sim.Outage), "rgC", func(o *options, v string) error {
		k := sim.Kind(v)
		if !slices.Contains(sim.Kinds(), k) {
			return fmt.Errorf("%q is not a scenario (want %s)", v, kindList())
		}
		o.cfg.Scenario.Kind = k
		return nil
	}},
	{"clients", "N", groupScenario, "devices in the replayed fleet (a trace: its devices; compare: several, comma-separated)", strconv.Itoa(sim.DefaultClients), "rgC", func(o *options, v string) error {
		for _, part := range strings.Split(v, ",") {
			n, err := positiveInt(strings.TrimSpace(part))
			if err != nil {
				return err
			}
			o.clients = append(o.clients, n)
		}
		return nil
	}},
	{"accept-rate", "N", groupScenario, "requests the server accepts per second", fmt.Sprint(sim.DefaultAcceptRate), "rgC", floatInto(func(o *options) *float64 { return &o.cfg.Scenario.AcceptRate })},
	{"down", "DURATION", groupScenario, "how long the server is down at first", fmt.Sprintf("%s; %s for long-outage", kit.FormatDuration(sim.DefaultDown), kit.FormatDuration(sim.DefaultLongDown)), "rgC", durationInto(func(o *options) *time.Duration { return &o.cfg.Scenario.Down })},
	{"window", "DURATION", groupScenario, "width of the histogram's windows and of the peak; a window wider than 1s also measures the peak in one second, and warns when the wide window averages a storm away", fmt.Sprintf("%s; %s for storm", kit.FormatDuration(sim.DefaultWindow), kit.FormatDuration(sim.DefaultStormWindow)), "rgC", durationInto(func(o *options) *time.Duration { return &o.cfg.Scenario.Window })},
	{"start-spread", "DURATION", groupScenario, "spread of the devices' first attempts", kit.FormatDuration(sim.DefaultStartSpread), "rgC", durationInto(func(o *options) *time.Duration { return &o.cfg.Scenario.StartSpread })},
	{"horizon", "DURATION", groupScenario, "when the replay stops", kit.FormatDuration(sim.DefaultHorizon) + "; 5 periods for the periodic scenarios", "rgC", durationInto(func(o *options) *time.Duration { return &o.cfg.Scenario.Horizon })},
	{"period", "DURATION", groupScenario, "the timer period of the periodic scenarios", kit.FormatDuration(sim.DefaultPeriod), "rgC", durationInto(func(o *options) *time.Duration { return &o.cfg.Scenario.Period })},
	{"timer-offset", "FROM", groupScenario, "where the periodic scenarios' timer offsets come from: scenario (the hash of the id, or the boundary when aligned; their load is reported, not judged) or policy (each device's offset is its policy's first delay, modulo the period, as a fleet that waits a jittered delay before its first sync ships it; timers that then crowd the server fail the replay)", string(sim.OffsetScenario), "rgC", func(o *options, v string) error {
		x := sim.Offset(v)
		if !slices.Contains(sim.Offsets(), x) {
			return fmt.Errorf("%q is not a timer offset (want scenario or policy)", v)
		}
		o.cfg.Scenario.TimerOffset = x
		return nil
	}},
	{"retry-after", "DURATION", groupScenario, "the server answers every rejection with this fixed Retry-After, which the devices obey", "", "rgC", func(o *options, v string) error {
		o.cfg.Scenario.Server = sim.RetryAfter
		return durationInto(func(o *options) *time.Duration { return &o.cfg.Scenario.RetryAfter })(o, v)
	}},
	{"runs", "N", groupScenario, "replications, each a different fleet", strconv.Itoa(sim.DefaultRuns), "rgC", intInto(func(o *options) *int { return &o.cfg.Replay.Runs })},
	{"seed", "N", groupOutput, "seed of everything drawn at random (the checks' device ids, the replay's fleets); the same seed gives the same report", strconv.Itoa(gate.DefaultSeed), "crgC", func(o *options, v string) error {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil || n == 0 {
			// 0 is the library's "unset", which would run as the default.
			return fmt.Errorf("%q is not a seed (a whole number from 1 to %d)", v, uint64(math.MaxUint64))
		}
		o.cfg.Seed = n
		return nil
	}},
	{"sample", "1/K", groupScenario, fmt.Sprintf("replay 1/K of the fleet against 1/K of the accept rate, for a fleet too large for one machine; the sample must hold at least %s devices; its pass stands for the whole fleet (a pass within %g%% of the threshold warns), while its peak runs high when its budget a window is small, and the whole fleet serves its last device later", "10,000", 100*gate.SampleError), "", "rg", func(o *options, v string) error {
		k, err := strconv.Atoi(strings.TrimPrefix(v, "1/"))
		if err != nil || !strings.HasPrefix(v, "1/") || k < 2 {
			return fmt.Errorf("%q is not a sample (1/K, K a whole number of at least 2, such as 1/100)", v)
		}
		o.cfg.Sample = k
		return nil
	}},
	{"threshold", "RATIO", groupScenario, "highest peak ratio that passes", fmt.Sprint(sim.DefaultThreshold), "rgC", floatInto(func(o *options) *float64 { return &o.cfg.Scenario.Threshold })},

	{"fix", "", groupOutput, "when the policy fails, search the smallest change that passes on the same scenario, and replay it (--fix=false skips the search)", "true", "crg", func(o *options, v string) error {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("%q is not true or false", v)
		}
		o.noFix = !b
		return nil
	}},
	{"report", "DIR", groupOutput, "write report.json, report.md, report.html and junit.xml to DIR, one whole set replacing the last", "", "crg", func(o *options, v string) error { return nonEmpty(&o.report, v, "a directory") }},
	{"json", "FILE", groupOutput, "write every run's figures and their summary as JSON; a replay's JSON already there is replaced whole, a device or FIFO written through, any other file refused", "", "r", func(o *options, v string) error { return nonEmpty(&o.json, v, "a file name") }},
}

func lookupFlag(name string) *flagDef {
	for i := range flags {
		if flags[i].name == name {
			return &flags[i]
		}
	}
	return nil
}

// listFlags may be given more than once; their values add up.
var listFlags = []string{"policy", "clients"}

// errHelp is returned by parseFlags for -h, -help and --help.
var errHelp = errors.New("help requested")

// parseFlags parses the arguments of command into o, over what a config
// file set. Flags are written --name value, --name=value, or with one dash;
// a switch takes no value unless it is written --name=false. A list flag
// given on the command line replaces the config's list. No command takes
// other arguments.
func parseFlags(command string, args []string, o *options) error {
	if o.given == nil {
		o.given = map[string]bool{}
	}
	onLine := map[string]bool{}
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
			return usageError("%s does not take --%s%s", command, name, suggest(name, command))
		}
		if !def.takes(command) {
			return usageError("%s does not take --%s (%s)", command, name, takenBy(def))
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
		list := slices.Contains(listFlags, name)
		if onLine[name] && !list {
			return usageError("--%s is given more than once", name)
		}
		if list && !onLine[name] {
			clearList(o, name)
		}
		onLine[name] = true
		if err := def.set(o, value); err != nil {
			return usageError("--%s: %v", name, err)
		}
		o.given[name] = true
		o.args = append(o.args, flagValue{name, value})
	}
	return nil
}

// clearList empties the list a config file gave the flag name, before the
// command line's replace it.
func clearList(o *options, name string) {
	switch name {
	case "policy":
		o.policies, o.specs = nil, nil
	case "clients":
		o.clients = nil
	}
}

// takenBy says which commands take the flag: "gate and replay do".
func takenBy(f *flagDef) string {
	var cmds []string
	for _, c := range commands {
		if f.takes(c) {
			cmds = append(cmds, c)
		}
	}
	if len(cmds) == 1 {
		return cmds[0] + " does"
	}
	return strings.Join(cmds[:len(cmds)-1], ", ") + " and " + cmds[len(cmds)-1] + " do"
}

// suggest returns " (did you mean --x?)" for the flag of command closest to
// name, when one is close.
func suggest(name, command string) string {
	best, bestDist := "", 3
	for _, f := range flags {
		if d := editDistance(name, f.name); (command == "" || f.takes(command)) && d < bestDist {
			best, bestDist = f.name, d
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
// before it) starts the next spec: "none:base=1s,cap=30s,full" is two. It
// takes time linear in the length of v, however many parts it holds.
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

func durationInto(field func(*options) *time.Duration) func(*options, string) error {
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

func intInto(field func(*options) *int) func(*options, string) error {
	return func(o *options, v string) error {
		n, err := positiveInt(v)
		*field(o) = n
		return err
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

func floatInto(field func(*options) *float64) func(*options, string) error {
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
	shift := uint(0)
	for _, u := range []struct {
		suffix string
		shift  uint
	}{{"TiB", 40}, {"GiB", 30}, {"MiB", 20}, {"KiB", 10}, {"B", 0}} {
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
