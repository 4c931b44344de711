package main

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/jitterkit/jitterkit/internal/cli"
	"github.com/jitterkit/jitterkit/internal/prose"
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
	args  []cli.Value
}

// defaultOf returns the scenario of kind k with every default set: the
// flags and the help quote its fields as their defaults, so that they
// say what a replay does.
func defaultOf(k sim.Kind) sim.Scenario { return sim.Scenario{Kind: k}.WithDefaults() }

// defaultRuns is the runs a replay takes when --runs is not given.
var defaultRuns = sim.Config{}.WithDefaults().Runs

// table is the flags of every command. The help is generated from it.
var table = &cli.Table[options]{
	Commands: commands,
	Letters:  map[string]string{"check": "c", "replay": "r", "gate": "g", "compare": "C"},
	Groups:   []string{"Policy", "Checks", "Scenario", "Run", "Output"},
	Flags:    flags,
	Lists: map[string]func(*options){
		"policy":  func(o *options) { o.specs = nil },
		"clients": func(o *options) { o.clients = nil },
	},
	ConfigExample: "policy: full:base=100ms,cap=10s",
}

// usageFor holds the usage of a flag in one command's words, default
// included, where they differ from the table's.
var usageFor = map[string]map[string]string{
	"compare": {
		"policy":  "policies to compare: several, comma-separated, or the flag again (default the four built-in strategies)",
		"cap":     fmt.Sprintf("the cap of the built-in strategies compared (default %s; %s for storm)", prose.FormatDuration(kit.DefaultCap), prose.FormatDuration(stormCap())),
		"clients": fmt.Sprintf("fleet sizes, a row each: several, comma-separated, or the flag again (default %d)", defaultOf(sim.Outage).Clients),
	},
	"check": {"fix": "when a check fails, search the smallest change to the policy that passes, and say it (--fix=false skips the search) (default true)"},
}

// flags lists every flag of every command, in the help's order: its name
// (also its key in a config file), the placeholder of its value (none for
// a switch), its group, what it sets, its default as the help writes it,
// the commands that take it by their first letters (c(heck), r(eplay),
// g(ate), C(ompare)), and how it sets the options. The error of Set does
// not name the flag; the table adds it.
var flags = []cli.Flag[options]{
	{Name: "policy", Arg: "SPEC", Group: "Policy", Usage: "a built-in strategy, e.g. full:base=100ms,cap=10s (see \"jitterkit help policies\")", Commands: "crgC", Set: cli.Appended(kit.ParseSpecs, func(o *options) *[]kit.Spec { return &o.specs })},
	{Name: "exec", Arg: "CMD", Group: "Policy", Usage: "a program speaking the exec protocol", Commands: "crgC", Set: func(o *options, v string) error {
		return cli.String(func(o *options) *string { return &o.exec }, "a command")(o, v)
	}},
	{Name: "trace", Arg: "FILE", Group: "Policy", Usage: "delays recorded on devices (CSV: device,attempt,delay_s)", Commands: "crgC", Set: func(o *options, v string) error {
		return cli.String(func(o *options) *string { return &o.trace }, "a file name")(o, v)
	}},
	{Name: "config", Arg: "FILE", Group: "Policy", Usage: "a YAML file with these flags' names as keys; flags given here override it", Commands: "crgC", Set: func(o *options, v string) error {
		return cli.String(func(o *options) *string { return &o.config }, "a file name")(o, v)
	}},
	{Name: "cap", Arg: "DURATION", Group: "Policy", Usage: "the cap the policy declares: every delay must stay within it", Default: "the spec's cap, else none", Commands: "cgC", Set: cli.Duration(func(o *options) *time.Duration { return &o.cfg.Checks.Cap })},

	{Name: "devices", Arg: "N", Group: "Checks", Usage: "devices the property checks examine", Default: strconv.Itoa(properties.DefaultDevices), Commands: "cg", Set: cli.Int(func(o *options) *int { return &o.cfg.Checks.Devices })},
	{Name: "min-cv", Arg: "CV", Group: "Checks", Usage: "least coefficient of variation of the delays across devices", Default: fmt.Sprint(properties.DefaultThresholds().MinCV), Commands: "cg", Set: cli.Float(func(o *options) *float64 { return &o.cfg.Checks.Thresholds.MinCV })},
	{Name: "require-reproducible", Group: "Checks", Usage: "fail, not warn, a policy whose delays a device cannot reproduce (--warnings fail fails every warning)", Default: "false", Commands: "cg", Set: cli.Bool(func(o *options) *bool { return &o.cfg.Checks.RequireReproducible })},
	{Name: "warnings", Arg: "pass|fail", Group: "Checks", Usage: "what a warning of a check or of the replay makes of the verdict: pass (exit 0, the warning said), or fail (exit 1, as a failure, for a CI that allows none)", Default: "pass", Commands: "crg", Set: func(o *options, v string) error {
		switch v {
		case "pass", "fail":
			o.cfg.FailWarnings = v == "fail"
			return nil
		}
		return fmt.Errorf("%q is not what a warning makes of the verdict (want pass or fail)", v)
	}},

	{Name: "scenario", Arg: "NAME", Group: "Scenario", Usage: "how the fleet's attempts begin: outage, long-outage, storm, periodic, periodic-aligned, overload, reconnect or contention (see Scenarios above)", Default: string(sim.Outage), Commands: "rgC",
		Set: cli.Choice(sim.Kinds, "scenario", func(o *options) *sim.Kind { return &o.cfg.Scenario.Kind })},
	{Name: "clients", Arg: "N", Group: "Scenario", Usage: "devices in the replayed fleet (a trace: as many of its devices)", Default: fmt.Sprintf("%d; %d for overload, %d for reconnect, %d for contention", defaultOf(sim.Outage).Clients, defaultOf(sim.Overload).Clients, defaultOf(sim.Reconnect).Clients, defaultOf(sim.Contention).Clients), Commands: "rgC", Set: cli.Ints(func(o *options) *[]int { return &o.clients })},
	{Name: "server", Arg: "MODEL", Group: "Scenario", Topic: "outage", Usage: "the server the fleet retries against: " + prose.ListOf(sim.Servers(), func(s sim.Server) string { return fmt.Sprintf("%s (%s)", s, s.Description()) }, "or"), Default: string(sim.PerSecond), Commands: "rgC",
		Set: cli.Choice(sim.Servers, "server model", func(o *options) *sim.Server { return &o.cfg.Scenario.Server })},
	{Name: "accept-rate", Arg: "N", Group: "Scenario", Usage: "requests the server accepts per second; in overload, the jobs its queue serves per second", Default: fmt.Sprintf("%g; %g for overload; --cpu over --handshake for reconnect", defaultOf(sim.Outage).AcceptRate, defaultOf(sim.Overload).AcceptRate), Commands: "rgC", Set: cli.Float(func(o *options) *float64 { return &o.cfg.Scenario.AcceptRate })},
	{Name: "burst", Arg: "N", Group: "Scenario", Topic: "outage", Usage: "the token bucket's capacity", Default: "the accept rate", Commands: "rgC", Set: cli.Float(func(o *options) *float64 { return &o.cfg.Scenario.Burst })},
	{Name: "retry-after", Arg: "DURATION", Group: "Scenario", Topic: "outage", Usage: "the retry-after server's hint, which the devices obey; giving it picks that server", Default: prose.FormatDuration(defaultOf(sim.Outage).RetryAfter), Commands: "rgC", Set: cli.Duration(func(o *options) *time.Duration { return &o.cfg.Scenario.RetryAfter })},
	{Name: "down", Arg: "DURATION", Group: "Scenario", Usage: "how long the server (in reconnect, the broker) is down at first", Default: fmt.Sprintf("%s; %s for long-outage, %s for reconnect", prose.FormatDuration(defaultOf(sim.Outage).Down), prose.FormatDuration(defaultOf(sim.LongOutage).Down), prose.FormatDuration(defaultOf(sim.Reconnect).Down)), Commands: "rgC", Set: cli.Duration(func(o *options) *time.Duration { return &o.cfg.Scenario.Down })},
	{Name: "retries", Arg: "N", Group: "Scenario", Topic: "storm", Usage: "the retries of each device in a storm; in overload, the most retries of one request, 0 for none", Default: fmt.Sprintf("%d; %d for overload", defaultOf(sim.Storm).Retries, defaultOf(sim.Overload).Retries), Commands: "rgC", Set: func(o *options, v string) error {
		if strings.TrimSpace(v) == "0" {
			o.cfg.Scenario.Retries = sim.NoRetries
			return nil
		}
		return cli.Int(func(o *options) *int { return &o.cfg.Scenario.Retries })(o, v)
	}},
	{Name: "rate", Arg: "N", Group: "Scenario", Topic: "overload", Usage: "overload: the requests a second the whole fleet sends, a Poisson stream, each from a device chosen at random", Default: fmt.Sprint(defaultOf(sim.Overload).Rate), Commands: "rgC", Set: cli.Float(func(o *options) *float64 { return &o.cfg.Scenario.Rate })},
	{Name: "timeout", Arg: "DURATION", Group: "Scenario", Topic: "overload", Usage: "overload: how long a client waits for each attempt; a later answer is ignored, though the server still does the work", Default: prose.FormatDuration(defaultOf(sim.Overload).Timeout), Commands: "rgC", Set: cli.Duration(func(o *options) *time.Duration { return &o.cfg.Scenario.Timeout })},
	{Name: "rtt", Arg: "DURATION", Group: "Scenario", Topic: "overload", Usage: "overload and reconnect: the network's round trip, half each way", Default: fmt.Sprintf("%s; %s for reconnect", prose.FormatDuration(defaultOf(sim.Overload).RTT), prose.FormatDuration(defaultOf(sim.Reconnect).RTT)), Commands: "rgC", Set: cli.Duration(func(o *options) *time.Duration { return &o.cfg.Scenario.RTT })},
	{Name: "dip", Arg: "FRACTION", Group: "Scenario", Topic: "overload", Usage: "overload: the capacity during the dip, the trigger, as a fraction of --accept-rate, such as 10% or 0.1; 0% stalls the server", Default: "10%", Commands: "rgC", Set: func(o *options, v string) error {
		x, err := cli.Fraction(v)
		if x == 0 {
			x = sim.DipStall
		}
		o.cfg.Scenario.Dip = x
		return err
	}},
	{Name: "dip-for", Arg: "DURATION", Group: "Scenario", Topic: "overload", Usage: "overload: how long the dip lasts", Default: prose.FormatDuration(defaultOf(sim.Overload).DipFor), Commands: "rgC", Set: cli.Duration(func(o *options) *time.Duration { return &o.cfg.Scenario.DipFor })},
	{Name: "dip-at", Arg: "DURATION", Group: "Scenario", Topic: "overload", Usage: "overload: when the dip starts", Default: prose.FormatDuration(defaultOf(sim.Overload).DipAt), Commands: "rgC", Set: cli.Duration(func(o *options) *time.Duration { return &o.cfg.Scenario.DipAt })},
	{Name: "ramp", Arg: "DURATION", Group: "Scenario", Topic: "overload", Usage: "overload: how long the capacity takes after the dip to return, linearly", Default: "at once", Commands: "rgC", Set: cli.Duration(func(o *options) *time.Duration { return &o.cfg.Scenario.Ramp })},
	{Name: "queue-limit", Arg: "N", Group: "Scenario", Topic: "overload", Usage: "overload, a server-side fix: reject an attempt at once while N jobs are waiting or in service", Default: "no limit", Commands: "rgC", Set: cli.Int(func(o *options) *int { return &o.cfg.Scenario.QueueLimit })},
	{Name: "drop-expired", Group: "Scenario", Topic: "overload", Usage: "overload, a server-side fix: skip, at no cost, work whose client's deadline has passed", Default: "false", Commands: "rgC", Set: cli.Bool(func(o *options) *bool { return &o.cfg.Scenario.DropExpired })},
	{Name: "budget", Arg: "SPEC", Group: "Scenario", Topic: "budgets", Usage: "overload and reconnect: limit the retries with a budget, KIND[:key=value,...]: finagle, envoy, grpc, aws, aws2026, adaptive or breaker, each with its library's defaults (see above), e.g. finagle:percent=20%,min=10,ttl=10s", Default: "none", Commands: "rgC", Set: func(o *options, v string) error {
		b, err := sim.ParseBudget(v)
		if err != nil {
			return err
		}
		b.Scope = o.cfg.Scenario.Budget.Scope
		o.cfg.Scenario.Budget = b
		return nil
	}},
	{Name: "budget-scope", Arg: "SCOPE", Group: "Scenario", Topic: "budgets", Usage: "overload and reconnect: who holds the budget: device (each device its own, as a client library does) or fleet (one shared by every device: a proxy, a gateway or one shared client)", Default: string(sim.ScopeDevice), Commands: "rgC",
		Set: cli.Choice(sim.BudgetScopes, "budget scope", func(o *options) *sim.BudgetScope { return &o.cfg.Scenario.Budget.Scope })},
	{Name: "on-drop", Arg: "RULE", Group: "Scenario", Topic: "reconnect", Usage: "reconnect: what a device does when the broker drops its new session: reset (reset its backoff and reconnect at once), reset-jitter (reset, and wait up to its first delay) or continue (count the drop as a failure)", Default: string(sim.DropReset), Commands: "rgC",
		Set: cli.Choice(sim.DropRules, "drop rule", func(o *options) *sim.DropRule { return &o.cfg.Scenario.OnDrop })},
	{Name: "refuse-cold", Group: "Scenario", Topic: "reconnect", Usage: "reconnect, a server-side fix: the broker refuses connects until it is warm, instead of accepting and dropping them", Default: "false", Commands: "rgC", Set: cli.Bool(func(o *options) *bool { return &o.cfg.Scenario.RefuseCold })},
	{Name: "cpu", Arg: "N", Group: "Scenario", Topic: "reconnect", Usage: "reconnect: the broker's CPU units a second once it is up", Default: fmt.Sprint(defaultOf(sim.Reconnect).CPU), Commands: "rgC", Set: cli.Float(func(o *options) *float64 { return &o.cfg.Scenario.CPU })},
	{Name: "handshake", Arg: "N", Group: "Scenario", Topic: "reconnect", Usage: "reconnect: the CPU units of an accepted connect (a refusal costs 1)", Default: fmt.Sprint(defaultOf(sim.Reconnect).Handshake), Commands: "rgC", Set: cli.Float(func(o *options) *float64 { return &o.cfg.Scenario.Handshake })},
	{Name: "warm-up", Arg: "N", Group: "Scenario", Topic: "reconnect", Usage: "reconnect: the CPU units, left over at the end of each second, the broker needs before it keeps sessions", Default: fmt.Sprint(defaultOf(sim.Reconnect).WarmUp), Commands: "rgC", Set: cli.Float(func(o *options) *float64 { return &o.cfg.Scenario.WarmUp })},
	{Name: "cold-drop", Arg: "DURATION", Group: "Scenario", Topic: "reconnect", Usage: "reconnect: how long after accepting a session a cold broker drops it", Default: prose.FormatDuration(defaultOf(sim.Reconnect).ColdDrop), Commands: "rgC", Set: cli.Duration(func(o *options) *time.Duration { return &o.cfg.Scenario.ColdDrop })},
	{Name: "latency", Arg: "DURATION", Group: "Scenario", Topic: "contention", Usage: "contention: the mean network delay of each message, |Normal(mean, --latency-sd)|", Default: prose.FormatDuration(defaultOf(sim.Contention).Latency), Commands: "rgC", Set: cli.Duration(func(o *options) *time.Duration { return &o.cfg.Scenario.Latency })},
	{Name: "latency-sd", Arg: "DURATION", Group: "Scenario", Topic: "contention", Usage: "contention: the standard deviation of the network delay", Default: prose.FormatDuration(defaultOf(sim.Contention).LatencySD), Commands: "rgC", Set: cli.Duration(func(o *options) *time.Duration { return &o.cfg.Scenario.LatencySD })},
	{Name: "period", Arg: "DURATION", Group: "Scenario", Topic: "periodic", Usage: "the timer period of the periodic scenarios", Default: prose.FormatDuration(defaultOf(sim.Periodic).Period), Commands: "rgC", Set: cli.Duration(func(o *options) *time.Duration { return &o.cfg.Scenario.Period })},
	{Name: "timer-offset", Arg: "FROM", Group: "Scenario", Topic: "periodic", Usage: "where the periodic timers' offsets come from: scenario (their load is judged only when the timers alone exceed the server) or policy (each device's offset is its policy's first delay, modulo the period; timers that crowd the server fail)", Default: string(sim.OffsetScenario), Commands: "rgC",
		Set: cli.Choice(sim.Offsets, "timer offset", func(o *options) *sim.Offset { return &o.cfg.Scenario.TimerOffset })},
	{Name: "window", Arg: "DURATION", Group: "Scenario", Usage: "width of the histogram's windows and of the peak; wider than 1s fails when it averages away a storm 1s windows show", Default: fmt.Sprintf("%s; %s for storm", prose.FormatDuration(defaultOf(sim.Outage).Window), prose.FormatDuration(defaultOf(sim.Storm).Window)), Commands: "rgC", Set: cli.Duration(func(o *options) *time.Duration { return &o.cfg.Scenario.Window })},
	{Name: "start-spread", Arg: "DURATION", Group: "Scenario", Usage: "spread of the devices' first attempts", Default: prose.FormatDuration(defaultOf(sim.Outage).StartSpread), Commands: "rgC", Set: cli.Duration(func(o *options) *time.Duration { return &o.cfg.Scenario.StartSpread })},
	{Name: "horizon", Arg: "DURATION", Group: "Scenario", Usage: "when the replay stops", Default: prose.FormatDuration(defaultOf(sim.Outage).Horizon) + "; 5 periods for periodic; " + prose.FormatDuration(defaultOf(sim.Overload).Horizon) + " for overload and reconnect", Commands: "rgC", Set: cli.Duration(func(o *options) *time.Duration { return &o.cfg.Scenario.Horizon })},
	{Name: "threshold", Arg: "RATIO", Group: "Scenario", Usage: "highest peak ratio that passes (not for the server models)", Default: fmt.Sprint(defaultOf(sim.Outage).Threshold), Commands: "rg", Set: cli.Float(func(o *options) *float64 { return &o.cfg.Scenario.Threshold })},

	{Name: "seed", Arg: "N", Group: "Run", Usage: "seed of everything drawn at random; the same seed gives the same report", Default: strconv.Itoa(gate.DefaultSeed), Commands: "crgC", Set: func(o *options, v string) error {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil || n == 0 {
			// 0 is the library's "unset", which would run as the default.
			return fmt.Errorf("%q is not a seed (a whole number from 1 to %d)", v, uint64(math.MaxUint64))
		}
		o.cfg.Seed = n
		return nil
	}},
	{Name: "runs", Arg: "N", Group: "Run", Usage: fmt.Sprintf("replications, each a different fleet; at least %d, the fewest whose interval can pass", sim.MinRunsToPass), Default: fmt.Sprintf("up to %d, stopping once the verdict is decided; %d on the server models", defaultRuns, defaultRuns), Commands: "rgC", Set: cli.Int(func(o *options) *int { return &o.cfg.Replay.Runs })},
	{Name: "sample", Arg: "1/K", Group: "Run", Usage: fmt.Sprintf("replay 1/K of the fleet against 1/K of the accept rate, for a fleet too large for one machine; the sample holds at least %s devices, and its pass stands for the whole fleet (within %g%% of the threshold it warns)", "10,000", 100*gate.SampleError), Commands: "rg", Set: func(o *options, v string) error {
		k, err := strconv.Atoi(strings.TrimPrefix(v, "1/"))
		if err != nil || !strings.HasPrefix(v, "1/") || k < 2 {
			return fmt.Errorf("%q is not a sample (1/K, K a whole number of at least 2, such as 1/100)", v)
		}
		o.cfg.Sample = k
		return nil
	}},
	{Name: "allow-wide-window", Group: "Scenario", Usage: "let a --window wider than 1s that averages away a storm 1s windows show warn, not fail", Default: "false", Commands: "rg", Set: cli.Bool(func(o *options) *bool { return &o.cfg.Replay.AllowWideWindow })},
	{Name: "collapse-bound", Arg: "SHARE", Group: "Run", Topic: "recovery", Usage: fmt.Sprintf("overload, reconnect: replay until the runs, none collapsing, bound the chance that a run never recovers at SHARE (at 95%%; 0.01 takes 299 runs), or one collapses; at least %g. %d runs bound it at 13.9%%", sim.MinCollapseBound, defaultRuns), Commands: "rg", Set: cli.Parsed(cli.Fraction, func(o *options) *float64 { return &o.cfg.Replay.CollapseBound })},
	{Name: "tipping-point", Group: "Run", Topic: "overload", Usage: "overload: search the shortest dip, in whole seconds, from which a run of the fleet does not recover, and the same without retries (about 16 replays more)", Default: "false", Commands: "rg", Set: cli.Bool(func(o *options) *bool { return &o.cfg.Replay.TippingPoint })},
	{Name: "memory-limit", Arg: "SIZE", Group: "Run", Usage: "the most memory a run may need, such as 8GiB; a larger run is refused up front", Default: prose.FormatBytes(properties.DefaultMemoryLimit), Commands: "crgC", Set: cli.Parsed(prose.ParseBytes, func(o *options) *int64 { return &o.memoryLimit })},
	{Name: "exec-timeout", Arg: "DURATION", Group: "Run", Usage: "how long the program may stay silent while a request waits, start-up included", Default: prose.FormatDuration(gate.DefaultExecTimeout), Commands: "crgC", Set: cli.Duration(func(o *options) *time.Duration { return &o.execTimeout })},

	{Name: "fix", Group: "Output", Usage: "when the policy fails, search the smallest change that passes the same scenario, replayed, and say it (--fix=false skips the search)", Default: "true", Commands: "crg", Set: func(o *options, v string) error {
		var fix bool
		err := cli.Bool(func(*options) *bool { return &fix })(o, v)
		o.noFix = !fix
		return err
	}},
	{Name: "report", Arg: "DIR", Group: "Output", Usage: "write " + prose.ListOf(reports.Formats(), func(f reports.Format) string { return string(f) }, "and") + " to DIR, one whole set replacing the last", Commands: "crg", Set: func(o *options, v string) error {
		return cli.String(func(o *options) *string { return &o.report }, "a directory")(o, v)
	}},
	{Name: "quiet", Group: "Output", Usage: "show no progress on stderr: no bar on a terminal, no line every 10s of longer work to a file or a pipe such as a CI log", Default: "false", Commands: "crgC", Set: cli.Bool(func(o *options) *bool { return &o.quiet })},
	{Name: "json", Arg: "FILE", Group: "Output", Usage: "write every run's figures and their summary as JSON; a replay's JSON already there is replaced whole, a device or FIFO written through, /dev/stdout written after the summary, any other file refused", Commands: "r", Set: func(o *options, v string) error {
		if v == "-" {
			return errors.New(`"-" is no file: name a file, or /dev/stdout for standard output`)
		}
		return cli.String(func(o *options) *string { return &o.json }, "a file name")(o, v)
	}},
}

// stormCap is the cap of the built-in strategies a comparison on a storm
// sets beside a policy that gives none.
func stormCap() time.Duration {
	_, c := sim.Storm.CompareBackoff()
	return c
}
