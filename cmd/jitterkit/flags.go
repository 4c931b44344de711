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
	"github.com/jitterkit/jitterkit/reports"
	"github.com/jitterkit/jitterkit/reports/gate"
	"github.com/jitterkit/jitterkit/sim"
)

// options holds a command's flags: most of them bound straight into the
// gate's configuration, the rest naming the policy and the outputs.
type options struct {
	command string // check, replay, gate or compare
	cfg     gate.Config

	specs               []kit.Spec // --policy; a list for compare
	exec, trace, config string
	report, json        string
	execTimeout         time.Duration
	memoryLimit         int64
	clients             []int // compare's fleet sizes; the others take one
	noFix               bool
	quiet               bool // --quiet: no progress on stderr

	// given records the flags set, on the command line or in the config,
	// and args those given on the command line, to write the command that
	// finds a counterexample again.
	given map[string]bool
	args  []flagValue
}

// A flagValue is one flag as given on the command line.
type flagValue struct{ name, value string }

// The groups of the help, in its order: what the flags are for.
var groups = []string{"Policy", "Checks", "Scenario", "Run", "Output"}

// A flagDef is one flag: its name (also its key in a config file), the
// placeholder of its value ("" for a switch), its group, what it sets, its
// default as the help writes it, the commands that take it, and how it
// sets the options. The error of set does not name the flag; the caller
// adds where it was.
type flagDef struct {
	name, arg, group, usage, def string
	commands                     string // by their first letters: c(heck), r(eplay), g(ate), C(ompare)
	set                          func(o *options, value string) error
}

// takes reports whether command takes the flag.
func (f *flagDef) takes(command string) bool {
	letter := map[string]string{"check": "c", "replay": "r", "gate": "g", "compare": "C"}[command]
	return letter != "" && strings.Contains(f.commands, letter)
}

// usageFor holds the usage of a flag in one command's words, default
// included, where they differ from the table's.
var usageFor = map[string]map[string]string{
	"compare": {
		"policy":  "policies to compare: several, comma-separated, or the flag again (default the four built-in strategies)",
		"cap":     fmt.Sprintf("the cap of the built-in strategies compared (default %s; %s for storm)", kit.FormatDuration(kit.DefaultCap), kit.FormatDuration(gate.StormCap)),
		"clients": fmt.Sprintf("fleet sizes, a row each: several, comma-separated, or the flag again (default %d)", sim.DefaultClients),
	},
	"check": {"fix": "when a check fails, search the smallest change to the policy that passes, and say it (--fix=false skips the search) (default true)"},
}

// flags lists every flag of every command. The help is generated from it.
var flags = []flagDef{
	{"policy", "SPEC", "Policy", "a built-in strategy, e.g. full:base=100ms,cap=10s (see \"jitterkit help policies\")", "", "crgC", func(o *options, v string) error {
		specs, err := kit.ParseSpecs(v)
		o.specs = append(o.specs, specs...)
		return err
	}},
	{"exec", "CMD", "Policy", "a program speaking the exec protocol", "", "crgC", func(o *options, v string) error { return nonEmpty(&o.exec, v, "a command") }},
	{"trace", "FILE", "Policy", "delays recorded on devices (CSV: device,attempt,delay_s)", "", "crgC", func(o *options, v string) error { return nonEmpty(&o.trace, v, "a file name") }},
	{"config", "FILE", "Policy", "a YAML file with these flags' names as keys; flags given here override it", "", "crgC", func(o *options, v string) error { return nonEmpty(&o.config, v, "a file name") }},
	{"cap", "DURATION", "Policy", "the cap the policy declares: every delay must stay within it", "the spec's cap, else none", "cgC", durationInto(func(o *options) *time.Duration { return &o.cfg.Checks.Cap })},

	{"devices", "N", "Checks", "devices the property checks examine", strconv.Itoa(properties.DefaultDevices), "cg", intInto(func(o *options) *int { return &o.cfg.Checks.Devices })},
	{"min-cv", "CV", "Checks", "least coefficient of variation of the delays across devices", fmt.Sprint(properties.DefaultThresholds().MinCV), "cg", floatInto(func(o *options) *float64 { return &o.cfg.Checks.Thresholds.MinCV })},
	{"require-reproducible", "", "Checks", "fail, not warn, a policy whose delays a device cannot reproduce", "false", "cg", boolInto(func(o *options) *bool { return &o.cfg.Checks.RequireReproducible })},

	{"scenario", "NAME", "Scenario", "how the fleet's attempts begin: outage, long-outage, storm (every device fails at once and keeps failing: the peak of its retries is judged), periodic or periodic-aligned (every device fires a timer each --period, offset by a hash of its id or on the boundary; the policy times the re-sends of rejected firings); or a server model judged on recovery, overload (a queue with timeouts) or reconnect (a broker that drops sessions until warm), or contention (optimistic concurrency on one row): see the notes above", string(sim.Outage), "rgC",
		choice(sim.Kinds, "scenario", func(o *options) *sim.Kind { return &o.cfg.Scenario.Kind })},
	{"clients", "N", "Scenario", "devices in the replayed fleet (a trace: as many of its devices)", fmt.Sprintf("%d; %d for overload, %d for reconnect, %d for contention", sim.DefaultClients, sim.DefaultOverloadClients, sim.DefaultReconnectClients, sim.DefaultContentionClients), "rgC", func(o *options, v string) error {
		for _, part := range strings.Split(v, ",") {
			n, err := positiveInt(strings.TrimSpace(part))
			if err != nil {
				return err
			}
			o.clients = append(o.clients, n)
		}
		return nil
	}},
	{"server", "MODEL", "Scenario", "the server the fleet retries against: " + serverModels(), string(sim.PerSecond), "rgC",
		choice(sim.Servers, "server model", func(o *options) *sim.Server { return &o.cfg.Scenario.Server })},
	{"accept-rate", "N", "Scenario", "requests the server accepts per second; in overload, the jobs its queue serves per second", fmt.Sprintf("%g; %g for overload; --cpu over --handshake for reconnect", sim.DefaultAcceptRate, sim.DefaultOverloadAcceptRate), "rgC", floatInto(func(o *options) *float64 { return &o.cfg.Scenario.AcceptRate })},
	{"burst", "N", "Scenario", "the token bucket's capacity", "the accept rate", "rgC", floatInto(func(o *options) *float64 { return &o.cfg.Scenario.Burst })},
	{"retry-after", "DURATION", "Scenario", "the retry-after server's hint, which the devices obey; giving it picks that server", kit.FormatDuration(sim.DefaultRetryAfter), "rgC", func(o *options, v string) error {
		if !o.given["server"] {
			o.cfg.Scenario.Server = sim.RetryAfter // the hint is that server's
		}
		return durationInto(func(o *options) *time.Duration { return &o.cfg.Scenario.RetryAfter })(o, v)
	}},
	{"down", "DURATION", "Scenario", "how long the server (in reconnect, the broker) is down at first", fmt.Sprintf("%s; %s for long-outage, %s for reconnect", kit.FormatDuration(sim.DefaultDown), kit.FormatDuration(sim.DefaultLongDown), kit.FormatDuration(sim.DefaultReconnectDown)), "rgC", durationInto(func(o *options) *time.Duration { return &o.cfg.Scenario.Down })},
	{"retries", "N", "Scenario", "the retries of each device in a storm; in overload, the most retries of one request, 0 for none", fmt.Sprintf("%d; %d for overload", sim.DefaultRetries, sim.DefaultOverloadRetries), "rgC", func(o *options, v string) error {
		if strings.TrimSpace(v) == "0" {
			o.cfg.Scenario.Retries = sim.NoRetries
			return nil
		}
		return intInto(func(o *options) *int { return &o.cfg.Scenario.Retries })(o, v)
	}},
	{"rate", "N", "Scenario", "overload: the requests a second the whole fleet sends, a Poisson stream, each from a device chosen at random", fmt.Sprint(sim.DefaultRate), "rgC", floatInto(func(o *options) *float64 { return &o.cfg.Scenario.Rate })},
	{"timeout", "DURATION", "Scenario", "overload: how long a client waits for each attempt; a later answer is ignored, though the server still does the work", kit.FormatDuration(sim.DefaultTimeout), "rgC", durationInto(func(o *options) *time.Duration { return &o.cfg.Scenario.Timeout })},
	{"rtt", "DURATION", "Scenario", "overload and reconnect: the network's round trip, half each way", fmt.Sprintf("%s; %s for reconnect", kit.FormatDuration(sim.DefaultOverloadRTT), kit.FormatDuration(sim.DefaultReconnectRTT)), "rgC", durationInto(func(o *options) *time.Duration { return &o.cfg.Scenario.RTT })},
	{"dip", "FRACTION", "Scenario", "overload: the capacity during the dip, the trigger, as a fraction of --accept-rate, such as 10% or 0.1; 0% stalls the server", "10%", "rgC", func(o *options, v string) error {
		x, err := fraction(v)
		if x == 0 {
			x = sim.DipStall
		}
		o.cfg.Scenario.Dip = x
		return err
	}},
	{"dip-for", "DURATION", "Scenario", "overload: how long the dip lasts", kit.FormatDuration(sim.DefaultDipFor), "rgC", durationInto(func(o *options) *time.Duration { return &o.cfg.Scenario.DipFor })},
	{"dip-at", "DURATION", "Scenario", "overload: when the dip starts", kit.FormatDuration(sim.DefaultDipAt), "rgC", durationInto(func(o *options) *time.Duration { return &o.cfg.Scenario.DipAt })},
	{"ramp", "DURATION", "Scenario", "overload: how long the capacity takes after the dip to return, linearly", "at once", "rgC", durationInto(func(o *options) *time.Duration { return &o.cfg.Scenario.Ramp })},
	{"queue-limit", "N", "Scenario", "overload, a server-side fix: reject an attempt at once while N jobs are waiting or in service", "no limit", "rgC", intInto(func(o *options) *int { return &o.cfg.Scenario.QueueLimit })},
	{"drop-expired", "", "Scenario", "overload, a server-side fix: skip, at no cost, work whose client's deadline has passed", "false", "rgC", boolInto(func(o *options) *bool { return &o.cfg.Scenario.DropExpired })},
	{"budget", "SPEC", "Scenario", "overload and reconnect: limit the retries with a budget, KIND[:key=value,...]: finagle, envoy, grpc, aws, aws2026, adaptive or breaker, each with its library's defaults (see the notes above), e.g. finagle:percent=20%,min=10,ttl=10s", "none", "rgC", func(o *options, v string) error {
		b, err := sim.ParseBudget(v)
		if err != nil {
			return err
		}
		b.Scope = o.cfg.Scenario.Budget.Scope
		o.cfg.Scenario.Budget = b
		return nil
	}},
	{"budget-scope", "SCOPE", "Scenario", "overload and reconnect: who holds the budget: device (each device its own, as a client library does) or fleet (one shared by every device: a proxy, a gateway or one shared client)", string(sim.ScopeDevice), "rgC",
		choice(sim.BudgetScopes, "budget scope", func(o *options) *sim.BudgetScope { return &o.cfg.Scenario.Budget.Scope })},
	{"on-drop", "RULE", "Scenario", "reconnect: what a device does when the broker drops its new session: reset (reset its backoff and reconnect at once), reset-jitter (reset, and wait up to its first delay) or continue (count the drop as a failure)", string(sim.DropReset), "rgC",
		choice(sim.DropRules, "drop rule", func(o *options) *sim.DropRule { return &o.cfg.Scenario.OnDrop })},
	{"refuse-cold", "", "Scenario", "reconnect, a server-side fix: the broker refuses connects until it is warm, instead of accepting and dropping them", "false", "rgC", boolInto(func(o *options) *bool { return &o.cfg.Scenario.RefuseCold })},
	{"cpu", "N", "Scenario", "reconnect: the broker's CPU units a second once it is up", fmt.Sprint(sim.DefaultCPU), "rgC", floatInto(func(o *options) *float64 { return &o.cfg.Scenario.CPU })},
	{"handshake", "N", "Scenario", "reconnect: the CPU units of an accepted connect (a refusal costs 1)", fmt.Sprint(sim.DefaultHandshake), "rgC", floatInto(func(o *options) *float64 { return &o.cfg.Scenario.Handshake })},
	{"warm-up", "N", "Scenario", "reconnect: the CPU units, left over at the end of each second, the broker needs before it keeps sessions", fmt.Sprint(sim.DefaultWarmUp), "rgC", floatInto(func(o *options) *float64 { return &o.cfg.Scenario.WarmUp })},
	{"cold-drop", "DURATION", "Scenario", "reconnect: how long after accepting a session a cold broker drops it", kit.FormatDuration(sim.DefaultColdDrop), "rgC", durationInto(func(o *options) *time.Duration { return &o.cfg.Scenario.ColdDrop })},
	{"latency", "DURATION", "Scenario", "contention: the mean network delay of each message, |Normal(mean, --latency-sd)|", kit.FormatDuration(sim.DefaultLatency), "rgC", durationInto(func(o *options) *time.Duration { return &o.cfg.Scenario.Latency })},
	{"latency-sd", "DURATION", "Scenario", "contention: the standard deviation of the network delay", kit.FormatDuration(sim.DefaultLatencySD), "rgC", durationInto(func(o *options) *time.Duration { return &o.cfg.Scenario.LatencySD })},
	{"period", "DURATION", "Scenario", "the timer period of the periodic scenarios", kit.FormatDuration(sim.DefaultPeriod), "rgC", durationInto(func(o *options) *time.Duration { return &o.cfg.Scenario.Period })},
	{"timer-offset", "FROM", "Scenario", "where the periodic timers' offsets come from: scenario (their load is reported, not judged) or policy (each device's offset is its policy's first delay, modulo the period; timers that crowd the server fail)", string(sim.OffsetScenario), "rgC",
		choice(sim.Offsets, "timer offset", func(o *options) *sim.Offset { return &o.cfg.Scenario.TimerOffset })},
	{"window", "DURATION", "Scenario", "width of the histogram's windows and of the peak; a window wider than 1s warns when it averages a storm away", fmt.Sprintf("%s; %s for storm", kit.FormatDuration(sim.DefaultWindow), kit.FormatDuration(sim.DefaultStormWindow)), "rgC", durationInto(func(o *options) *time.Duration { return &o.cfg.Scenario.Window })},
	{"start-spread", "DURATION", "Scenario", "spread of the devices' first attempts", kit.FormatDuration(sim.DefaultStartSpread), "rgC", durationInto(func(o *options) *time.Duration { return &o.cfg.Scenario.StartSpread })},
	{"horizon", "DURATION", "Scenario", "when the replay stops", kit.FormatDuration(sim.DefaultHorizon) + "; 5 periods for the periodic scenarios; " + kit.FormatDuration(sim.DefaultModelHorizon) + " for overload and reconnect", "rgC", durationInto(func(o *options) *time.Duration { return &o.cfg.Scenario.Horizon })},
	{"threshold", "RATIO", "Scenario", "highest peak ratio that passes (in overload and reconnect the peak ratio is reported, and recovery judged)", fmt.Sprint(sim.DefaultThreshold), "rg", floatInto(func(o *options) *float64 { return &o.cfg.Scenario.Threshold })},

	{"seed", "N", "Run", "seed of everything drawn at random; the same seed gives the same report", strconv.Itoa(gate.DefaultSeed), "crgC", func(o *options, v string) error {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil || n == 0 {
			// 0 is the library's "unset", which would run as the default.
			return fmt.Errorf("%q is not a seed (a whole number from 1 to %d)", v, uint64(math.MaxUint64))
		}
		o.cfg.Seed = n
		return nil
	}},
	{"runs", "N", "Run", fmt.Sprintf("replications, each a different fleet; at least %d, the fewest whose interval can pass", sim.MinRunsToPass), fmt.Sprintf("up to %d, stopping once the verdict is decided; %d on the server models", sim.DefaultRuns, sim.DefaultRuns), "rgC", intInto(func(o *options) *int { return &o.cfg.Replay.Runs })},
	{"sample", "1/K", "Run", fmt.Sprintf("replay 1/K of the fleet against 1/K of the accept rate, for a fleet too large for one machine; the sample holds at least %s devices, and its pass stands for the whole fleet (within %g%% of the threshold it warns)", "10,000", 100*gate.SampleError), "", "rg", func(o *options, v string) error {
		k, err := strconv.Atoi(strings.TrimPrefix(v, "1/"))
		if err != nil || !strings.HasPrefix(v, "1/") || k < 2 {
			return fmt.Errorf("%q is not a sample (1/K, K a whole number of at least 2, such as 1/100)", v)
		}
		o.cfg.Sample = k
		return nil
	}},
	{"tipping-point", "", "Run", "overload: search the shortest dip, in whole seconds, the fleet does not recover from, and the same without retries (about 16 replays more)", "false", "rg", boolInto(func(o *options) *bool { return &o.cfg.Replay.TippingPoint })},
	{"memory-limit", "SIZE", "Run", "the most memory a run may need, such as 8GiB; a larger run is refused up front", kit.FormatBytes(properties.DefaultMemoryLimit), "crgC", func(o *options, v string) error {
		n, err := kit.ParseBytes(v)
		o.memoryLimit = n
		return err
	}},
	{"exec-timeout", "DURATION", "Run", "how long the program may stay silent while a request waits, start-up included", kit.FormatDuration(gate.DefaultExecTimeout), "crgC", durationInto(func(o *options) *time.Duration { return &o.execTimeout })},

	{"fix", "", "Output", "when the policy fails, search the smallest change that passes the same scenario, replayed, and say it (--fix=false skips the search)", "true", "crg", func(o *options, v string) error {
		var fix bool
		err := boolInto(func(*options) *bool { return &fix })(o, v)
		o.noFix = !fix
		return err
	}},
	{"report", "DIR", "Output", "write " + reportFiles() + " to DIR, one whole set replacing the last", "", "crg", func(o *options, v string) error { return nonEmpty(&o.report, v, "a directory") }},
	{"quiet", "", "Output", "show no progress on stderr: neither the bar a terminal shows for work longer than a second, nor the plain line (the step, the work done and the time spent) that a file or a pipe, such as a CI log, gets every 10s of longer work", "false", "crgC", boolInto(func(o *options) *bool { return &o.quiet })},
	{"json", "FILE", "Output", "write every run's figures and their summary as JSON; a replay's JSON already there is replaced whole, a device or FIFO written through, /dev/stdout written after the summary, any other file refused", "", "r", func(o *options, v string) error {
		if v == "-" {
			return errors.New(`"-" is no file: name a file, or /dev/stdout for standard output`)
		}
		return nonEmpty(&o.json, v, "a file name")
	}},
}

// reportFiles lists the files --report writes, in the order WriteDir
// writes them: "report.json, report.md, report.html and junit.xml".
func reportFiles() string {
	var names []string
	for _, f := range reports.Formats() {
		names = append(names, string(f))
	}
	return andList(names)
}

// serverModels lists sim's server models with what each accepts:
// "per-second (...), token-bucket (...) or retry-after (...)".
func serverModels() string {
	var items []string
	for _, s := range sim.Servers() {
		items = append(items, fmt.Sprintf("%s (%s)", s, s.Description()))
	}
	return orList(items)
}

// appliesTo says, of the scenario flags that only some scenarios or
// servers read, which; giving one to a scenario that ignores it is a usage
// error rather than a figure that silently does not change.
var appliesTo = []struct {
	flag, what string
	applies    func(s sim.Scenario) bool
}{
	{"burst", "--server token-bucket", func(s sim.Scenario) bool { return s.Server == sim.TokenBucket }},
	{"retry-after", "--server retry-after", func(s sim.Scenario) bool { return s.Server == sim.RetryAfter }},
	{"retries", "--scenario storm and overload", func(s sim.Scenario) bool { return s.Kind == sim.Storm || s.Kind == sim.Overload }},
	{"tipping-point", "--scenario overload", func(s sim.Scenario) bool { return s.Kind == sim.Overload }},
	{"period", "the periodic scenarios", func(s sim.Scenario) bool { return s.Kind == sim.Periodic || s.Kind == sim.PeriodicAligned }},
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
		if arg == "--" && i+1 < len(args) {
			return usageError("%s takes no arguments, got %q", command, args[i+1])
		}
		if arg == "--" {
			break
		}
		if !strings.HasPrefix(arg, "-") || arg == "-" {
			return usageError("%s takes no arguments, got %q", command, arg)
		}
		name, value, hasValue := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(arg, "-"), "-"), "=")
		if name == "h" || name == "help" {
			return errHelp
		}
		def := lookupFlag(name)
		switch {
		case def == nil:
			return usageError("%s does not take --%s%s", command, name, suggest(name, command))
		case !def.takes(command):
			return usageError("%s does not take --%s (%s)", command, name, takenBy(def))
		case !hasValue && def.arg == "":
			value = "true"
		case !hasValue && i+1 >= len(args):
			return usageError("--%s needs a value: --%s %s", name, name, def.arg)
		case !hasValue:
			i++
			value = args[i]
		}
		list := slices.Contains(listFlags, name)
		if onLine[name] && !list {
			return usageError("--%s is given more than once", name)
		}
		if list && !onLine[name] && name == "policy" {
			o.specs = nil // the command line's list replaces the config's
		} else if list && !onLine[name] {
			o.clients = nil
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
	return andList(cmds) + " do"
}

// suggest returns " (did you mean --x?)" for the flag of command closest to
// name, when one is within two edits of it.
func suggest(name, command string) string {
	var names []string
	for _, f := range flags {
		if command == "" || f.takes(command) {
			names = append(names, f.name)
		}
	}
	if best := closest(name, names); best != "" {
		return " (did you mean --" + best + "?)"
	}
	return ""
}

// closest returns the word of words closest to name, when one is within
// two edits of it, or "".
func closest(name string, words []string) string {
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

func nonEmpty(dst *string, v, what string) error {
	if strings.TrimSpace(v) == "" {
		return fmt.Errorf("want %s, got nothing", what)
	}
	*dst = v
	return nil
}

// choice sets a field of a string type to one of the values list returns.
func choice[T ~string](list func() []T, what string, field func(*options) *T) func(*options, string) error {
	return func(o *options, v string) error {
		if !slices.Contains(list(), T(v)) {
			var names []string
			for _, x := range list() {
				names = append(names, string(x))
			}
			return fmt.Errorf("%q is not a %s (want %s)", v, what, strings.Join(names, ", "))
		}
		*field(o) = T(v)
		return nil
	}
}

func boolInto(field func(*options) *bool) func(*options, string) error {
	return func(o *options, v string) error {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("%q is not true or false", v)
		}
		*field(o) = b
		return nil
	}
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
	return func(o *options, v string) (err error) {
		*field(o), err = positiveInt(v)
		return err
	}
}

func positiveInt(v string) (int, error) {
	n, err := strconv.ParseInt(strings.ReplaceAll(v, "_", ""), 10, 64)
	switch {
	case errors.Is(err, strconv.ErrRange):
		return 0, fmt.Errorf("%s is too large", v)
	case err != nil:
		return 0, fmt.Errorf("%q is not a whole number", v)
	case n < 1:
		return 0, fmt.Errorf("%d is not a positive number", n)
	}
	return int(n), nil
}

// fraction reads a fraction from 0 to 1, as a percentage (10%) or a
// number (0.1).
func fraction(v string) (float64, error) {
	t := strings.TrimSpace(v)
	scale := 1.0
	if p, ok := strings.CutSuffix(t, "%"); ok {
		t, scale = p, 100
	}
	x, err := strconv.ParseFloat(t, 64)
	if err != nil || !(x >= 0) || x/scale >= 1 {
		return 0, fmt.Errorf("%q is not a fraction of at least 0 and below 1 (such as 10%% or 0.1)", v)
	}
	return x / scale, nil
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
