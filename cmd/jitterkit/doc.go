// Command jitterkit proves that a retry policy's jitter de-synchronises a
// fleet, before the fleet finds out: property checks over a thousand
// device ids and more, and a replay of the fleet failing together against
// a server, with one verdict.
//
// Run "jitterkit help" for the commands, "jitterkit help COMMAND" for a
// command's flags, and "jitterkit help policies" for the four ways to give
// a policy: a spec, a program, a trace or a config file.
//
//	Exit codes (version 2 of this contract; version 1 exited 2 for no verdict):
//	  0    the policy passed
//	  1    the policy failed: a check, the replay or the gate, or a defect
//	       that stopped a replay
//	  2    bad usage or bad input: a spec, config or trace; a program that
//	       cannot be started or breaks the exec protocol
//	  3    jitterkit itself failed
//	  4    no verdict: too little evidence to judge, never a pass
//	  130  interrupted
package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/jitterkit/jitterkit/internal/cli"
	"github.com/jitterkit/jitterkit/internal/prose"
	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/properties"
	"github.com/jitterkit/jitterkit/sim"
)

// helpMain is the text of "jitterkit help".
var helpMain = `jitterkit proves that a retry policy's jitter de-synchronises a fleet.

Usage:

  jitterkit demo             the four strategies compared, then a gate
  jitterkit check   [flags]  the property checks on one policy
  jitterkit replay  [flags]  the fleet replay of one policy
  jitterkit gate    [flags]  both, one verdict, and the reports
  jitterkit compare [flags]  policies side by side on one scenario
  jitterkit help [topic]     help on a command, a scenario, or policies
  jitterkit version          the version of jitterkit

Example, in CI:

  ` + commandHeads["gate"][1] + `

` + exitCodes + `
Run "jitterkit help COMMAND" for a command's flags and an example,
"jitterkit help policies" for the four ways to give a policy, and
"jitterkit help SCENARIO" for a scenario's model and flags: outage,
long-outage, storm, periodic, periodic-aligned, overload, reconnect,
contention; "jitterkit help budgets" for the retry budgets.
`

// helpDemo is the text of "jitterkit help demo".
var helpDemo = "Usage: jitterkit demo\n\n" + cli.Wrap(fmt.Sprintf(`Demo shows the main job on a built-in fleet, with no flags: %d devices lose their server at once, it is down for %s, then accepts %g requests a second. First the four built-in strategies are replayed side by side, then the policy %s is gated: the property checks and the replay, one verdict. Its exit code is the gate's, as for jitterkit gate.`,
	defaultOf(sim.Outage).Clients, prose.FormatDuration(defaultOf(sim.Outage).Down), defaultOf(sim.Outage).AcceptRate, demoSpec), 75, "") + "\n" + exitCodes

// helpPolicies is the text of "jitterkit help policies".
var helpPolicies = cli.WrapLines(`A policy comes from one of four sources.

--policy SPEC
  A built-in strategy: STRATEGY[:key=value,...]. Strategies: none, full, equal, decorrelated. Keys: base and cap (durations), multiplier (default 2), seed (device, the default; clock; constant). For example full:base=100ms,cap=10s or decorrelated:base=1s,cap=300s.

--exec CMD
  A program in any language, started with sh -c CMD. jitterkit writes one JSON request per line to its standard input, and the program answers each with one line, in order: up to "attempts" delays, in seconds.

    jitterkit -> program   {"device":"dev-000017","attempts":5}
    program -> jitterkit   [0.042,0.171,0.305,0.77,1.2]

  Fewer delays mean the policy stops retrying. NaN, Infinity, -Infinity and negative delays are the policy's defect (exit 1). A reply that is not an array of numbers, a missing reply, a program that exits early or does not answer within --exec-timeout is a protocol error (exit 2). When jitterkit is done with the program it stops its process group, and on Linux every process that keeps the program's environment, after setsid too; a process that both leaves the group and clears its environment (setsid env -i ...) is out of reach.
  --exec models a fleet of processes, as a fleet runs the program: the checks ask the first 32 devices each of a fresh process of its own (at most 8 at a time), and the frozen-clock check starts 32 more under a clock frozen with libfaketime (Debian's faketime package; JITTERKIT_LIBFAKETIME names the library), 16 at one instant and 16 a second apart, so that a program seeded from its clock when it starts fails. Without libfaketime that check is skipped and says why. The checks' other devices, and the replay's, are asked of one long-running process, several devices each: the same delays as a fleet's when a device's delays do not depend on the process that draws them, which reproducibility compares.
  Example: --exec 'python3 policy.py'.

--trace FILE
  Delays recorded on real devices: CSV with the header device,attempt,delay_s, attempts counting from 1. The devices checked and replayed are the trace's. Declare the policy's cap with --cap.

--config FILE
  A YAML file whose keys are the flags' names, for example:

    policy: full:base=10s,cap=120s
    clients: 50000
    accept-rate: 3000
    down: 60s
    threshold: 0.6

  A flag given on the command line overrides the file. policy and clients may be lists, for compare.
`, 76)

// commandHeads are the help's opening of each command: what it does, and
// an example. The notes, the flags from the flag table and the exit codes
// follow. Paragraphs are wrapped; the example is not.
var commandHeads = map[string][2]string{
	"check": {`Check runs the property checks, listed below, on one policy. Warnings do not fail the check, unless --warnings fail. A check that could not gather the evidence it needs (a program that stopped answering, too few devices) is inconclusive, never a pass; one that does not apply to the source (a trace cannot be made again at a frozen instant) is skipped.`,
		`jitterkit check --policy equal:base=1s,cap=60s --devices 5000`},
	"replay": {`Replay simulates a fleet of devices that fail together and retry against a server that accepts a limited number of requests per second, and judges the peak retry arrivals in one window against the window's accept budget. On the server models (--scenario overload, reconnect, contention) it judges what each model says instead: see "jitterkit help recovery".`,
		`jitterkit replay --policy full:base=10s,cap=120s --clients 5000 \
      --accept-rate 500 --down 30s --json replay.json`},
	"gate": {`Gate runs the property checks and the fleet replay on one policy, compares it with the four built-in strategies on the same scenario, prints one verdict with what to change, and writes the reports. Add it to CI to stop a rollout on a policy that would storm.`,
		`jitterkit gate --policy full:base=10s,cap=120s --clients 50000 \
      --accept-rate 3000 --down 60s --report out/`},
	"compare": {`Compare replays several policies on one scenario and prints a table: a row per fleet size, a column per policy, and in each cell the median over the runs with its 95% interval. The figure is the peak retry arrivals in one window for storm; the time to recover and the retry amplification for overload and reconnect; the writes and the time until the last client succeeds for contention; the peak ratio and the time until all are served for the other scenarios. On an overload, a row for each retry budget replays the first fleet size with that budget, held by the fleet unless --budget-scope says otherwise. Without a policy it compares the four built-in strategies with base 100ms and cap 10s (or --cap); in a storm, base 1s and cap 30s, which bring a storm's peaks to about N/32, N/24 and N/74 for full, equal and decorrelated jitter. Compare judges nothing: it exits 0 once the table is written.`,
		`jitterkit compare --scenario storm --clients 1000,10000,100000`},
}

// The texts the helps share: the exit codes, and for the commands that
// replay the server models and their judges (an example each), the runs
// made without --runs, and the fleet replayed when none is described.
var (
	exitCodes = verdict.ExitCodes() // the same table in every help, the package's documentation and the README
	// The topics of the scenarios, of the recovery that judges the server
	// models, and of the retry budgets, each with the flags it describes.
	recoveryNote = `The server models. Against a server that rejects at once, the peak ratio is a fine judge; against servers that queue work and time out, or brokers that accept and then drop, it can pass a fleet that never recovers and fail one that recovers in seconds. For these scenarios the verdict is recovery: from the trigger's end, rounded up to a whole second, time is cut into 5s windows, and the service has recovered from the first window from which on every window's failed attempts (timeouts, rejections and drops) are at most 1% of the outcomes learned in it: the failures over the failures and successes the clients learned in the window, the error rate of the attempts whose fate became known then, as an error-rate objective counts it, never above 100%. A metastable service either recovers or collapses, run by run, and the share of runs that collapse is the risk: a run that has not recovered by the horizon is a counterexample, and fails the replay, which names its seed and the command that replays it alone (an overload's run in which the same fleet without retries does not recover either judges nothing of the policy). A pass says what its runs bound: with none of 20 collapsed, a chance of collapse below 13.9% at 95% (one-sided Clopper–Pearson); --collapse-bound SHARE replays until the runs bound it at SHARE, or one collapses. The peak ratio is reported and does not decide. Each figure is the median over the runs with its interval, and the summary counts the runs that recovered and the share that collapsed, with its bounds.`
	overloadNote = fmt.Sprintf(`--scenario overload: an open-loop Poisson stream of --rate requests a second (default %g), each from a device chosen at random, into one FIFO queue served at --accept-rate jobs a second (default %g) that never cancels work. A client waits --timeout for each attempt (default %s) and retries up to --retries times on its policy (default %d; each request starts the policy afresh). The trigger is a dip of the capacity to --dip of it (default 10%%) for --dip-for (%s) from --dip-at (%s), back at once or over --ramp. Retries of timed-out work keep the queue full of work nobody waits for: no backoff fixes that, and the kit replays the same fleet without retries as its baseline, and warns when recovery takes at least twice as long as the baseline's and 10s more. The server-side fixes are --queue-limit N (reject at once while N jobs are waiting or in service) and --drop-expired (skip work whose client stopped waiting); a failing gate replays both and says which recover. --tipping-point searches the shortest dip, in whole seconds, from which a run of the fleet does not recover, beside the baseline's. Example: jitterkit replay --scenario overload --policy full:base=100ms,cap=10s --tipping-point`,
		defaultOf(sim.Overload).Rate, defaultOf(sim.Overload).AcceptRate, prose.FormatDuration(defaultOf(sim.Overload).Timeout), defaultOf(sim.Overload).Retries, prose.FormatDuration(defaultOf(sim.Overload).DipFor), prose.FormatDuration(defaultOf(sim.Overload).DipAt))
	reconnectNote = fmt.Sprintf(`--scenario reconnect: %d devices lose their sessions together and reconnect to a broker down for --down (%s), then with --cpu units a second (%g). A handshake costs --handshake units (%g), a refusal 1; the units left at the end of each second warm it up, and until --warm-up units (%g) have done so it drops each session --cold-drop after accepting it (%s), or with --refuse-cold refuses it. --on-drop says what a device does then: reset (its backoff, and reconnect at once, as several MQTT clients do), reset-jitter (reset and wait a random share of its first delay) or continue (count the drop as a failure). A reconnect that leaves devices unconnected at the horizon fails; the report says when all were connected, the sessions accepted and dropped, and when the broker became warm. Example: jitterkit gate --scenario reconnect --policy full:base=1s,cap=60s --on-drop continue`,
		defaultOf(sim.Reconnect).Clients, prose.FormatDuration(defaultOf(sim.Reconnect).Down), defaultOf(sim.Reconnect).CPU, defaultOf(sim.Reconnect).Handshake, defaultOf(sim.Reconnect).WarmUp, prose.FormatDuration(defaultOf(sim.Reconnect).ColdDrop))
	budgetsNote    = `Retry budgets (--budget, overload and reconnect, where a reconnect after a reset on a drop is a first attempt again): backoff decides when a client retries, a budget whether it may. --budget-scope device gives each device its own, as a client library does; fleet gives the fleet one, as a shared proxy, gateway or client does: the same budget can end a storm at one scope and never bind at the other. finagle (Finagle's RetryBudget): each request deposits percent (20%) of a retry, a retry withdraws one, both counting for ttl (10s), beside a reserve of min (10) retries a second times ttl. envoy (Envoy's retry budget): retries under way below max(percent (20%) × attempts in flight, min (3)). grpc (retry throttling): tokens (10), a failure takes 1, a success adds ratio (0.1), retrying only above half. aws (the AWS SDK's retry quota): tokens (500), a retry costs cost (5) or timeout-cost after a timeout (10), a first attempt's success adds increment (1), a successful retry gives its cost back; aws2026 its newer costs, cost 14 and throttle-cost 5 after a rejection. adaptive (the SRE book's client-side throttling): each attempt is rejected at the client with probability max(0, (requests − k·accepts)/(requests+1)) over window (k 2, 2m). breaker (failsafe-go's defaults): opens after failures (1) of the last of (1) outcomes, stays open delay (1m), then lets probes (1) through and closes after successes (1) of them. Example: jitterkit replay --scenario overload --policy full:base=100ms,cap=10s --budget finagle --budget-scope fleet`
	contentionNote = fmt.Sprintf(`--scenario contention: optimistic concurrency on one row, the model of the AWS Architecture Blog's backoff simulator. %d clients each read the row and write it conditionally on its version; a client whose write fails backs off on its policy and reads again, until it succeeds. Each message takes |Normal(--latency, --latency-sd)| (%s, %s). The figures are the writes (the work) and the time until the last client succeeds, beside the simulator's own strategies at a base of 5ms and a cap of 2s, whose first backoff is twice the base, and no backoff at all. It fails when clients are left unfinished at the horizon and warns when the policy makes more writes than no backoff. Example: jitterkit replay --scenario contention --policy full:base=10ms,cap=2s`,
		defaultOf(sim.Contention).Clients, prose.FormatDuration(defaultOf(sim.Contention).Latency), prose.FormatDuration(defaultOf(sim.Contention).LatencySD))
	outageNote = fmt.Sprintf(`--scenario outage, the default: every device fails together and retries on its policy until it is served, its policy stops or the horizon ends. The server is down for the first --down (default %s), then accepts at most --accept-rate requests a second (default %g), as --server says which: the first to arrive in each whole second, a token bucket, or with a Retry-After hint the devices obey instead of their policy. The replay counts the retries that arrive in each --window and judges the peak ratio, the most in one window over the requests the server accepts in it, against --threshold. --scenario long-outage is an outage whose server stays down long enough (default %s) for every device to reach its cap, as after a site loses its uplink for an afternoon: a fleet without jitter then retries in unison at the cap, the whole fleet in one window every cap. Example: jitterkit replay --scenario long-outage --policy full:base=1s,cap=5m --clients 5000 --accept-rate 200`,
		prose.FormatDuration(defaultOf(sim.Outage).Down), defaultOf(sim.Outage).AcceptRate, prose.FormatDuration(defaultOf(sim.LongOutage).Down))
	stormNote = fmt.Sprintf(`--scenario storm: every device fails at once and keeps failing for --retries retries (default %d), whatever the server. Nothing is served; the replay counts arrivals only, in windows of %s unless --window says otherwise, and the peak is the most retries in one window. The peak comes from the first retries, so it scales with the window over the policy's base: with base 1s, 20ms windows and ten retries, no jitter peaks at the whole fleet while full, equal and decorrelated jitter peak at about N/32, N/24 and N/74. Example: jitterkit compare --scenario storm --clients 1000,10000,100000`,
		defaultOf(sim.Storm).Retries, prose.FormatDuration(defaultOf(sim.Storm).Window))
	periodicNote = fmt.Sprintf(`--scenario periodic: each device fires a timer every --period (default %s), such as a sync, an update poll or a metric push, offset by a stable value of its own, the 64-bit FNV-1a hash of its id modulo the period. A rejected firing is re-sent on the device's policy until it is served, the policy stops, or the next firing supersedes it; each device keeps one policy for the whole replay. --scenario periodic-aligned fires every timer on the period's boundary, within --start-spread, as a fleet set to sync every hour on the hour does. Firings are not retries: the timers' own load, the most firings in one window over the window's budget, is reported, and the peak ratio judges the re-sends of rejected firings. Timers that alone exceed the server fail, with the firings it rejects on their first try: no retry policy fixes them, and the advice is about their offsets. With --timer-offset policy each device's offset is its policy's first delay, modulo the period, the offset a fleet ships, and timers that crowd the server fail as a storm of retries does. The horizon is 5 periods. Example: jitterkit gate --scenario periodic --policy full:base=1s,cap=30s --clients 10000 --accept-rate 500`,
		prose.FormatDuration(defaultOf(sim.Periodic).Period))
	runsNote = fmt.Sprintf(`Runs. Without --runs, a replay makes its runs in batches (6, 12, then %d) and stops after a batch once its verdict is decided: every interval the verdict reads (of the median peak ratio against the threshold, and of the figures its warnings judge) lies clear of its limit by %g%% of it and by a retry or a device at least, or is narrower than %g%% of it and a retry or a device away. Run i is the same fleet however many runs are made, so the same seed gives the same report, with the figures of --runs set to the runs made; the report says how many runs were made and why no more. On fleets whose median peak ratio is 0.8 to 1.2 times the threshold, the stopped verdict differed from that of all %d runs at 14 of 40,000 seeds (0.035%%), each a pass where all %d runs warned that the interval reaches over the threshold, and the median's side of the threshold never. --runs N makes exactly N runs. The server models, judged on every run, make %d, or with --collapse-bound as many as the bound takes, doubling from %d.`,
		defaultRuns, 100*sim.StopMargin, 100*sim.StopWidth, defaultRuns, defaultRuns, defaultRuns, defaultRuns)
	fleetNote = fmt.Sprintf(`Without --clients, --accept-rate and --down (on the command line or in --config), the fleet is the demo's: %d clients, a server that accepts %g requests a second, down for %s; the summary's first line and the reports' reason then say so.`,
		defaultOf(sim.Outage).Clients, defaultOf(sim.Outage).AcceptRate, prose.FormatDuration(defaultOf(sim.Outage).Down))
)

// outputsNote says, in the help of the commands that write files, what a
// run leaves in them when it has no outcome to write.
func outputsNote(command string) string {
	files, stopped := "the report an earlier run wrote to --report DIR", ""
	if command == "replay" {
		files = "the report an earlier run wrote to --report DIR and the replay's JSON at --json FILE"
		stopped = "; the replay it stopped has no figures, so no JSON is written"
	}
	return fmt.Sprintf(`The outputs are this run's or none. A run that ends without an outcome (a program that breaks the exec protocol, bad input found once the work began, a failure of jitterkit), or whose output cannot be written, removes %s, and says so on standard error, so that nothing of an earlier run is taken for this run's. Only files jitterkit wrote are removed. A policy's defect is an outcome: the report says that the policy failed, and why%s. Bad usage, refused before any work, and an interrupted run leave the files as they were.`, files, stopped)
}

// commandHelp returns the help of command: its opening, its notes, the
// scenarios with the topics that describe them, the flags that every
// scenario shares by group from the flag table with their defaults, and
// the exit codes.
func commandHelp(command string) string {
	var b strings.Builder
	head := commandHeads[command]
	fmt.Fprintf(&b, "Usage: jitterkit %s [flags]\n\n%s\nExample:\n\n  %s\n", command, cli.Wrap(head[0], 75, ""), head[1])
	if command == "check" {
		b.WriteString("\nThe checks, in the order they run (conformance when the policy claims a\nstrategy):\n\n")
		for _, c := range properties.Checks() {
			b.WriteString(cli.Row(c.Name, c.Why, 19))
		}
	}
	if command == "replay" || command == "gate" {
		b.WriteString("\n" + cli.Wrap(fleetNote, 75, ""))
	}
	if command == "check" {
		b.WriteString("\n" + cli.Wrap(outputsNote(command), 75, ""))
	} else {
		b.WriteString("\n" + scenariosNote())
	}

	b.WriteString(table.Help(command, usageFor[command]))
	return b.String() + "\n" + exitCodes
}

// A topic is a help topic that is no command's: a scenario, or what
// several scenarios share. Its text's paragraphs are wrapped, and an
// example after " Example: " closing a paragraph is set apart; the flags
// it describes follow, from the flag table.
type topic struct {
	name, summary string
	text          func() string
	flags         []string
}

// topicList is the help's topics beside the commands, in the order of the
// scenarios' list in a command's help.
var topicList = []topic{
	{"outage", "every device fails at once, retries until served (default)", func() string { return outageNote },
		[]string{"clients", "down", "accept-rate", "server", "burst", "retry-after", "window", "threshold"}},
	{"long-outage", "an outage long enough for every device to reach its cap", func() string { return outageNote },
		[]string{"clients", "down", "accept-rate", "server", "burst", "retry-after", "window", "threshold"}},
	{"storm", "every device fails at once and keeps failing", func() string { return stormNote },
		[]string{"clients", "retries", "window", "threshold"}},
	{"periodic", "timers every period, offset by a hash of each id", func() string { return periodicNote },
		[]string{"clients", "period", "timer-offset", "accept-rate", "server", "window", "threshold"}},
	{"periodic-aligned", "timers on the period's boundary", func() string { return periodicNote },
		[]string{"clients", "period", "timer-offset", "start-spread", "accept-rate", "server", "window", "threshold"}},
	{"overload", "a queue whose clients time out", func() string { return overloadNote + "\n\n" + recoveryNote },
		[]string{"clients", "rate", "accept-rate", "timeout", "retries", "rtt", "dip", "dip-for", "dip-at", "ramp", "queue-limit", "drop-expired", "tipping-point", "budget", "budget-scope", "collapse-bound", "horizon"}},
	{"reconnect", "a broker that drops sessions until it is warm", func() string { return reconnectNote + "\n\n" + recoveryNote },
		[]string{"clients", "down", "cpu", "handshake", "warm-up", "cold-drop", "refuse-cold", "on-drop", "rtt", "budget", "budget-scope", "collapse-bound", "horizon"}},
	{"contention", "optimistic concurrency on one row", func() string { return contentionNote },
		[]string{"clients", "latency", "latency-sd", "horizon"}},
	{"budgets", "retry budgets for the retries of overload and reconnect", func() string { return budgetsNote },
		[]string{"budget", "budget-scope"}},
	{"recovery", "how overload and reconnect are judged, run by run", func() string { return recoveryNote },
		[]string{"collapse-bound", "horizon"}},
	{"runs", "how many runs a replay makes, and when it stops", func() string { return runsNote },
		[]string{"runs", "seed", "collapse-bound"}},
	{"outputs", "what a run that ends without an outcome leaves", func() string { return outputsNote("replay") },
		[]string{"report", "json"}},
}

// scenariosNote lists the topics, for the help of a command that replays.
func scenariosNote() string {
	var b strings.Builder
	b.WriteString(cli.Wrap(`Scenarios (--scenario) and topics: "jitterkit help NAME" gives a scenario's model and flags, or what several share.`, 75, "") + "\n")
	for _, t := range topicList {
		b.WriteString(cli.Row(t.name, t.summary, 20))
	}
	return b.String()
}

// help returns the text of the topic: its notes, and the flags it
// describes.
func (t topic) help() string {
	var b strings.Builder
	if slices.Contains(sim.Kinds(), sim.Kind(t.name)) {
		fmt.Fprintf(&b, "Usage: jitterkit replay|gate|compare --scenario %s [flags]\n\n", t.name)
	}
	for i, para := range strings.Split(t.text(), "\n\n") {
		if i > 0 {
			b.WriteString("\n")
		}
		text, example, ok := strings.Cut(para, " Example: ")
		b.WriteString(cli.Wrap(text, 75, ""))
		if ok {
			b.WriteString("\n  " + example + "\n")
		}
	}
	of := []string{"replay", "gate", "compare"}
	if t.name == "outputs" {
		of = []string{"check", "replay", "gate"}
	}
	b.WriteString("\nFlags (of " + prose.List(of, "and") + "):\n" + table.Rows(of, t.flags...))
	return b.String()
}

// topicNames returns the names of the topics, for an error.
func topicNames() string {
	names := make([]string, len(topicList))
	for i, t := range topicList {
		names[i] = t.name
	}
	return strings.Join(names, ", ")
}
