package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/internal/prose"
	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
	"github.com/jitterkit/jitterkit/properties"
	"github.com/jitterkit/jitterkit/reports"
	"github.com/jitterkit/jitterkit/reports/gate"
	"github.com/jitterkit/jitterkit/sim"
	"github.com/jitterkit/jitterkit/testdata/kittest"
)

// regateSeeds is how many seeds, 1 to regateSeeds, every offered change is
// gated again at: three in the suite, which a change that passes by the
// luck of one seed fails often enough; the corpus's measure over more
// seeds is -corpus.seeds 10.
var regateSeeds = flag.Int("corpus.seeds", 3, "gate every change TestAdviceCorpus offers again at seeds 1 to `N`")

// corpusPolicy is a program speaking the exec protocol: full jitter seeded
// from the device id, its base, cap and a factor that multiplies every
// delay given as arguments, so that a change the gate offers to slow it
// down is a change of its arguments, as a user would make it in code.
const corpusPolicy = `import hashlib, json, random, sys
base, cap, scale = float(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
for line in sys.stdin:
    req = json.loads(line)
    rng = random.Random(int.from_bytes(hashlib.sha256(req["device"].encode()).digest()[:8], "big"))
    print(json.dumps([scale * rng.uniform(0, min(cap, base * 2**n)) for n in range(req["attempts"])]), flush=True)
`

// A corpusCase is a failing gate: the flags of the command line, or a Go
// policy with its configuration, and what its advice must and must not say.
type corpusCase struct {
	name string
	// args are the command line of jitterkit gate, for the CLI's sources.
	args []string
	// policy and cfg are a Go policy's gate, in place of args.
	policy *gate.Policy
	cfg    gate.Config
	// say and never are phrases that some advice must hold, and that no
	// advice may hold.
	say, never []string
	// fixes says that the gate must offer a change.
	fixes bool
	// mayPass says that the gate may pass, with no change to offer: a
	// scenario whose flags may already hold the fix.
	mayPass bool
}

// TestAdviceCorpus gates failing policies of every source (spec, Go
// factory, exec program, trace) on every scenario and server, with and
// without a declared cap, and gates every change each offers again with
// the user's own flags at seeds 1 to 10: the changed policy replaces the
// source, a trace's fleet keeps its size (--clients), and a change that
// says it needs a larger cap is declared with it (--cap). Every one must
// pass every time. The advice under a fixed Retry-After is about the hint,
// and without the search it claims none.
func TestAdviceCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("gates about 20 failing policies and each change offered at three seeds; the full run is the normal suite's")
	}
	dir := t.TempDir()
	program := filepath.Join(dir, "policy.py")
	require.NoError(t, os.WriteFile(program, []byte(corpusPolicy), 0o644))
	python := hasPython()
	trace := filepath.Join(dir, "fleet.csv")
	writeTrace(t, trace, 2000, time.Second, 10*time.Second, 1)

	hint := []string{"Spread the Retry-After", "decides when every device retries"}
	notBase := []string{"raise the base", "the base must be longer"}
	cases := []corpusCase{
		{name: "spec without jitter", args: []string{"--policy", "none:base=1s,cap=30s", "--runs", "5"}, fixes: true},
		{name: "spec of the default backoff", args: []string{"--policy", "full", "--runs", "5"}, fixes: true},
		{name: "spec with a declared cap", args: []string{"--policy", "full:base=1s,cap=10s", "--cap", "10s", "--runs", "5"}, fixes: true,
			say: []string{"needs a cap of at least", "your declared cap is 10s"}},
		{name: "spec on a larger fleet", args: []string{"--policy", "equal:base=500ms,cap=20s", "--clients", "2000", "--accept-rate", "100", "--runs", "5"}, fixes: true},
		{name: "spec seeded from the clock, long outage", args: []string{"--policy", "decorrelated:base=1s,cap=1m,seed=clock", "--scenario", "long-outage", "--down", "10m", "--runs", "5"}, fixes: true},
		{name: "spec without jitter, long outage", args: []string{"--policy", "none:base=2s,cap=2m", "--scenario", "long-outage", "--runs", "3"}, fixes: true},
		{name: "spec without jitter, storm", args: []string{"--policy", "none:base=1s,cap=30s", "--scenario", "storm", "--accept-rate", "2000", "--runs", "5"}, fixes: true,
			never: []string{"served after"}},
		{name: "spec without jitter, periodic-aligned", args: []string{"--policy", "none:base=1s,cap=30s", "--scenario", "periodic-aligned", "--runs", "5"}},
		{name: "spec of the default backoff, periodic", args: []string{"--policy", "full", "--scenario", "periodic", "--accept-rate", "5", "--runs", "5"}},
		{name: "spec on timers that alone exceed the server, periodic-aligned", args: []string{"--policy", "full:base=50s,cap=50s", "--scenario", "periodic-aligned", "--clients", "10000", "--accept-rate", "500", "--runs", "5"},
			say: []string{"give each device its own offset within the 1m period"}, never: notBase},
		{name: "spec under a fixed Retry-After", args: []string{"--policy", "full:base=1s,cap=30s", "--retry-after", "1s", "--runs", "5"},
			say: hint, never: notBase},
		{name: "spec without jitter under a fixed Retry-After", args: []string{"--policy", "none:base=1s,cap=30s", "--retry-after", "2s", "--runs", "5"},
			say: hint, never: notBase},
		{name: "spec without the search", args: []string{"--policy", "none:base=1s,cap=30s", "--fix=false", "--runs", "5"},
			say: []string{"the search for a change was not run"}, never: []string{"no change was found"}},
		{name: "trace", args: []string{"--trace", trace, "--accept-rate", "100", "--runs", "5"}, fixes: true,
			say: []string{"the built-in full:"}},
		{name: "trace with a declared cap", args: []string{"--trace", trace, "--cap", "10s", "--accept-rate", "100", "--runs", "5"}, fixes: true,
			say: []string{"your declared cap is 10s"}},
		{name: "trace under a fixed Retry-After", args: []string{"--trace", trace, "--retry-after", "1s", "--accept-rate", "100", "--runs", "5"},
			say: hint, never: notBase},
	}
	if python {
		exec := "python3 " + program
		// A program answers each request through a pipe: its fleets are
		// small, so that its gates again stay quick.
		cases = append(cases,
			corpusCase{name: "exec program", args: []string{"--exec", exec + " 0.1 10 1", "--clients", "200", "--accept-rate", "25", "--runs", "5"}, fixes: true},
			corpusCase{name: "exec program with a declared cap", args: []string{"--exec", exec + " 1 10 1", "--cap", "10s", "--clients", "200", "--accept-rate", "25", "--runs", "5"}, fixes: true,
				say: []string{"your declared cap is 10s"}},
		)
	} else {
		t.Log("python3 is not installed: the exec program's cases are left out")
	}
	own := gate.GoPolicy("full jitter of my own", ownFullJitter(time.Second, 30*time.Second, 1))
	lockstep := gate.GoPolicy("jitter lost at the cap", lostAtTheCap())
	cases = append(cases,
		corpusCase{name: "Go factory", policy: &own, cfg: gate.Config{Replay: sim.Config{Runs: 5}}, fixes: true},
		corpusCase{name: "Go factory with a declared cap", policy: &own, cfg: gate.Config{Checks: properties.Config{Cap: 30 * time.Second}, Replay: sim.Config{Runs: 5}}, fixes: true},
		corpusCase{name: "Go factory that fails a check", policy: &lockstep, cfg: gate.Config{Replay: sim.Config{Runs: 5}}, fixes: true},
		corpusCase{name: "Go factory that fails a check, with a declared cap", policy: &lockstep, cfg: gate.Config{Checks: properties.Config{Cap: 10 * time.Second}, Replay: sim.Config{Runs: 5}}, fixes: true,
			say: []string{"does that and passes, but it needs a cap of at least 30s; your declared cap is 10s"}},
		corpusCase{name: "Go factory against a token bucket", policy: &own, cfg: gate.Config{Scenario: sim.Scenario{Server: sim.TokenBucket, Burst: 20}, Replay: sim.Config{Runs: 5}}, fixes: true},
		corpusCase{name: "spec against a token bucket", policy: ptr(gate.SpecPolicy(kit.Spec{Strategy: kit.None, Base: time.Second, Cap: 30 * time.Second})),
			cfg: gate.Config{Scenario: sim.Scenario{Server: sim.TokenBucket}, Replay: sim.Config{Runs: 5}}, fixes: true},
	)

	// A reconnect: with each drop rule, a cold drop of the user's own and
	// a broker that refuses until warm, every change offered is gated
	// again with the user's own flags and the change's.
	reconnect := []string{"--policy", "full:base=1s,cap=1m", "--scenario", "reconnect", "--runs", "3"}
	for _, more := range [][]string{
		{"--on-drop", "reset"}, {"--on-drop", "reset-jitter"}, {"--on-drop", "continue"},
		{"--cold-drop", "200ms"}, {"--refuse-cold"}, {"--refuse-cold", "--on-drop", "continue", "--cold-drop", "200ms"},
	} {
		cases = append(cases, corpusCase{name: "reconnect " + strings.Join(more, " "), args: append(slices.Clone(reconnect), more...), mayPass: true})
	}
	// A refusing broker whose devices reconnect too fast fails however
	// the server changes: the search is no usage error, and offers it
	// no rule for a drop.
	cases = append(cases, corpusCase{name: "reconnect too fast behind a refusing broker",
		args: []string{"--policy", "full:base=10ms,cap=100ms", "--scenario", "reconnect", "--refuse-cold", "--runs", "3"}, never: []string{"--on-drop continue;"}})

	var gated, offered int
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rep := tc.gate(t, dir)
			if tc.mayPass && rep.Verdict == verdict.Pass {
				t.Log("the gate passes: no change to gate again")
				return
			}
			require.Equal(t, verdict.Fail, rep.Verdict, "the corpus holds failing gates")
			require.NotEmpty(t, rep.Advice, "a failing gate gets advice")
			all := strings.Join(rep.Advice, "\n")
			t.Logf("advice:\n%s", all)
			for _, c := range rep.Comparisons {
				t.Logf("comparison: %q; %s", c.Policies, c.Note)
			}
			for _, s := range tc.say {
				assert.Contains(t, all, s, "advice")
			}
			for _, s := range tc.never {
				assert.NotContains(t, strings.ToLower(all), s, "advice")
			}
			if tc.fixes {
				require.NotEmpty(t, rep.Fixes, "advice: %q", rep.Advice)
			}
			for _, fix := range rep.Fixes {
				offered++
				tc.checkCapClaim(t, fix)
				for i := range *regateSeeds {
					seed := uint64(i) + 1
					got := tc.regate(t, dir, fix, seed)
					gated++
					if !assert.Equal(t, verdict.Pass, got.Verdict, "%s, gated again at seed %d: %s", fix.Change, seed, got.reason) {
						break
					}
				}
			}
		})
	}
	t.Logf("%d cases; %d changes offered, each gated again at %d seeds: %d gates", len(cases), offered, *regateSeeds, gated)
}

// TestComparisonAtThePolicysScale compares a program's own full jitter
// from a base of 1s with the built-in strategies at its scale: the
// built-in full jitter is at a base of about 1s, and the note says how
// the strategies were scaled.
func TestComparisonAtThePolicysScale(t *testing.T) {
	p := gate.GoPolicy("mine", ownFullJitter(time.Second, 30*time.Second, 1))
	rep, err := gate.Run(context.Background(), p, gate.Config{Steps: gate.Checks | gate.Replay | gate.Comparison, Replay: sim.Config{Runs: 3}, Checks: properties.Config{Cap: 30 * time.Second}})
	require.NoError(t, err)
	require.Len(t, rep.Comparisons, 1)
	c := rep.Comparisons[0]
	assert.Contains(t, c.Note, "at the policy's scale")
	assert.Contains(t, c.Note, "the cap is 30s, the policy's declared cap")
	i := slices.IndexFunc(c.Policies, func(s string) bool { return strings.HasPrefix(s, "full:") })
	require.GreaterOrEqual(t, i, 1, "columns %q", c.Policies)
	s, err := kit.ParseSpec(c.Policies[i])
	require.NoError(t, err)
	// The devices' first delays are uniform on [0, 1s): the mean of 1,000
	// of them is within 5 standard errors (0.29/√1000 ≈ 9ms each) of 0.5s,
	// so the base that gives full jitter that mean is within 0.1s of 1s.
	assert.InDelta(t, 1.0, s.Base.Seconds(), 0.1, "the built-in full jitter's base")
	assert.Equal(t, 30*time.Second, s.Cap)
}

// gate runs the case's gate and returns its report.
func (tc corpusCase) gate(t *testing.T, dir string) reports.Report {
	t.Helper()
	if tc.policy != nil {
		rep, err := gate.Run(context.Background(), *tc.policy, tc.cfg)
		require.NoError(t, err)
		return rep
	}
	out := filepath.Join(dir, "report-"+strings.ReplaceAll(tc.name, " ", "-"))
	r := jitterkit(t, context.Background(), append(append([]string{"gate"}, tc.args...), "--report", out)...)
	if tc.mayPass && r.code == exitPass {
		return readReport(t, filepath.Join(out, "report.json"))
	}
	require.Equal(t, exitFail, r.code, "exit code; stderr %q", r.stderr)
	return readReport(t, filepath.Join(out, "report.json"))
}

// A regated is the verdict of a change gated again, and why.
type regated struct {
	Verdict verdict.Status
	reason  string
}

// regate gates the change fix again as the user would: the same flags or
// configuration at seed, with the changed policy in place of the source.
func (tc corpusCase) regate(t *testing.T, dir string, fix reports.Fix, seed uint64) regated {
	t.Helper()
	need := neededCap(t, fix)
	if tc.policy != nil {
		p := *tc.policy
		switch {
		case fix.Spec != "":
			s, err := kit.ParseSpec(fix.Spec)
			require.NoError(t, err)
			p = gate.SpecPolicy(s)
		default:
			p.Factory = gate.Scale(p.Factory, fix.Scale)
		}
		cfg := tc.cfg
		cfg.Seed, cfg.Steps = seed, gate.Checks|gate.Replay
		if need > 0 {
			cfg.Checks.Cap = need
		}
		rep, err := gate.Run(context.Background(), p, cfg)
		require.NoError(t, err)
		return regated{rep.Verdict, verdictReason(rep)}
	}
	args := tc.regateArgs(t, dir, fix, need)
	args = append(append([]string{"gate"}, args...), "--seed", strconv.FormatUint(seed, 10), "--fix=false")
	r := jitterkit(t, context.Background(), args...)
	v := map[int]verdict.Status{exitPass: verdict.Pass, exitFail: verdict.Fail}[r.code]
	if v == "" {
		v = verdict.Status(fmt.Sprintf("exit %d: %s", r.code, r.stderr))
	}
	first, _, _ := strings.Cut(r.stdout, "\ncheck")
	return regated{v, strings.Join(args, " ") + "\n" + first}
}

// regateArgs returns the case's command line with the change fix made:
// its policy in place of the source, a trace's fleet size kept, and the
// cap it needs declared.
func (tc corpusCase) regateArgs(t *testing.T, dir string, fix reports.Fix, need time.Duration) []string {
	if fix.Server != "" {
		return serverArgs(tc.args, fix.Server)
	}
	var args []string
	given := map[string]bool{}
	for i := 0; i < len(tc.args); i++ {
		name := strings.TrimPrefix(tc.args[i], "--")
		value := ""
		if !strings.Contains(name, "=") && i+1 < len(tc.args) {
			value = tc.args[i+1]
			i++
		}
		given[name] = true
		switch {
		case name == "cap" && need > 0:
			value = prose.FormatDuration(need)
		case fix.Spec != "" && (name == "policy" || name == "exec" || name == "trace"):
			if name == "trace" && !given["clients"] {
				args = append(args, "--clients", strconv.Itoa(traceDevices(t, value)))
			}
			name, value = "policy", fix.Spec
		case name == "exec":
			// The program's last argument multiplies every delay.
			fields := strings.Fields(value)
			k, err := strconv.ParseFloat(fields[len(fields)-1], 64)
			require.NoError(t, err)
			fields[len(fields)-1] = strconv.FormatFloat(k*fix.Scale, 'g', -1, 64)
			value = strings.Join(fields, " ")
		case name == "trace":
			value = scaledTrace(t, dir, value, fix.Scale)
		}
		if strings.Contains(name, "=") {
			args = append(args, "--"+name)
		} else {
			args = append(args, "--"+name, value)
		}
	}
	if need > 0 && !given["cap"] {
		args = append(args, "--cap", prose.FormatDuration(need))
	}
	return args
}

// serverArgs returns the command line args with the server change flags
// made, as a user would add them to it: a flag of the change that args
// already give takes the change's value there, the others are added.
func serverArgs(args []string, flags string) []string {
	change := strings.Fields(flags)
	value := map[string]string{}
	var order []string
	for i := 0; i < len(change); i++ {
		name, v := change[i], ""
		if i+1 < len(change) && !strings.HasPrefix(change[i+1], "--") {
			v = change[i+1]
			i++
		}
		value[name] = v
		order = append(order, name)
	}
	var out []string
	for i := 0; i < len(args); i++ {
		name := args[i]
		hasValue := i+1 < len(args) && !strings.HasPrefix(args[i+1], "--")
		v, changed := value[name]
		switch {
		case changed && v != "":
			out = append(out, name, v)
		case changed || !hasValue:
			out = append(out, name)
		default:
			out = append(out, name, args[i+1])
		}
		if hasValue {
			i++
		}
		delete(value, name)
	}
	for _, name := range order {
		if v, ok := value[name]; ok {
			out = append(out, name)
			if v != "" {
				out = append(out, v)
			}
		}
	}
	return out
}

// capClaim finds the cap a change says it needs.
var capClaim = regexp.MustCompile(`needs a cap of at least ([0-9a-zµ.]+); your declared cap is ([0-9a-zµ.]+)`)

// neededCap returns the cap the change says it needs beyond the declared
// one, 0 when it says none.
func neededCap(t *testing.T, fix reports.Fix) time.Duration {
	m := capClaim.FindStringSubmatch(fix.Change)
	if m == nil {
		return 0
	}
	d, err := time.ParseDuration(m[1])
	require.NoError(t, err, "%q", fix.Change)
	return d
}

// checkCapClaim holds a change of a gate with a declared cap to say that
// it needs a larger one exactly when its delays reach beyond it.
func (tc corpusCase) checkCapClaim(t *testing.T, fix reports.Fix) {
	declared := tc.cfg.Checks.Cap
	if i := slices.Index(tc.args, "--cap"); i >= 0 {
		d, err := time.ParseDuration(tc.args[i+1])
		require.NoError(t, err)
		declared = d
	}
	need := neededCap(t, fix)
	switch {
	case declared == 0:
		assert.Zero(t, need, "without a declared cap, no change needs a larger one: %s", fix.Change)
	case fix.Spec != "":
		s, err := kit.ParseSpec(fix.Spec)
		require.NoError(t, err)
		if s.Cap > declared {
			assert.Equal(t, s.Cap, need, "%s", fix.Change)
		} else {
			assert.Zero(t, need, "%s", fix.Change)
		}
	default:
		assert.GreaterOrEqual(t, need, time.Duration(float64(declared)*fix.Scale), "a policy slowed down reaches its cap times the factor: %s", fix.Change)
	}
}

// readReport reads the fields of a report.json the corpus looks at.
func readReport(t *testing.T, path string) reports.Report {
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var r struct {
		Verdict     verdict.Status `json:"verdict"`
		Fixes       []reports.Fix  `json:"fixes"`
		Advice      []string       `json:"advice"`
		Comparisons []struct {
			Policies []string `json:"policies"`
			Note     string   `json:"note"`
		} `json:"comparisons"`
	}
	require.NoError(t, json.Unmarshal(b, &r))
	rep := reports.Report{Verdict: r.Verdict, Fixes: r.Fixes, Advice: r.Advice}
	for _, c := range r.Comparisons {
		rep.Comparisons = append(rep.Comparisons, reports.Comparison{Policies: c.Policies, Note: c.Note})
	}
	return rep
}

// verdictReason says why a report has its verdict: its failed checks and
// its replay.
func verdictReason(rep reports.Report) string {
	var parts []string
	for _, c := range rep.Checks {
		if c.Status == verdict.Fail || c.Status == verdict.Inconclusive {
			parts = append(parts, fmt.Sprintf("%s %s: %s", c.Name, c.Status, c.Detail))
		}
	}
	if p := rep.Replay; p != nil {
		parts = append(parts, fmt.Sprintf("replay %s: %s", p.Status, p.Detail))
	}
	return strings.Join(parts, "; ")
}

// writeTrace records n devices of full jitter from base, capped at cap,
// seeded from each id, for ten attempts.
func writeTrace(t *testing.T, path string, n int, base, cap time.Duration, scale float64) {
	var b strings.Builder
	b.WriteString("device,attempt,delay_s\n")
	f := ownFullJitter(base, cap, scale)
	for i := range n {
		id := fmt.Sprintf("dev-%06d", i)
		ds, err := kit.Delays(f(kit.Device{ID: id}), 10)
		require.NoError(t, err)
		for a, d := range ds {
			fmt.Fprintf(&b, "%s,%d,%s\n", id, a+1, strconv.FormatFloat(d.Seconds(), 'f', -1, 64))
		}
	}
	require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
}

// scaledTrace writes the trace at path with every delay multiplied by k,
// as the devices would record it once slowed down, and returns its path.
func scaledTrace(t *testing.T, dir, path string, k float64) string {
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	for i := 1; i < len(lines); i++ {
		fields := strings.Split(lines[i], ",")
		d, err := strconv.ParseFloat(fields[2], 64)
		require.NoError(t, err)
		fields[2] = strconv.FormatFloat(d*k, 'f', -1, 64)
		lines[i] = strings.Join(fields, ",")
	}
	out := filepath.Join(dir, fmt.Sprintf("scaled-%v-%s", k, filepath.Base(path)))
	require.NoError(t, os.WriteFile(out, []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	return out
}

// traceDevices counts the devices of the trace at path.
func traceDevices(t *testing.T, path string) int {
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	tr, err := kit.ReadTrace(f)
	require.NoError(t, err)
	return len(tr.IDs())
}

// ownFullJitter is full jitter written as a user would: from base, doubling
// up to cap, seeded from the device id, every delay times scale.
func ownFullJitter(base, cap time.Duration, scale float64) kit.Factory {
	return func(d kit.Device) kit.Policy {
		rng := rand.New(rand.NewPCG(kit.HashID(d.ID), 7))
		w := base
		return kittest.PolicyFunc(func() (time.Duration, error) {
			v := time.Duration(scale * rng.Float64() * float64(w))
			w = min(2*w, cap)
			return v, nil
		})
	}
}

// lostAtTheCap is full jitter from 100ms whose delays at the 10s cap are
// the cap itself: the fleet retries in lockstep there, which cap-phase
// finds.
func lostAtTheCap() kit.Factory {
	return func(d kit.Device) kit.Policy {
		rng := rand.New(rand.NewPCG(kit.HashID(d.ID), 1))
		w := 100 * time.Millisecond
		return kittest.PolicyFunc(func() (time.Duration, error) {
			v := time.Duration(rng.Float64() * float64(w))
			if w >= 10*time.Second {
				v = 10 * time.Second
			}
			w = min(2*w, 10*time.Second)
			return v, nil
		})
	}
}

// hasPython reports whether python3 runs here.
func hasPython() bool {
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if _, err := os.Stat(filepath.Join(dir, "python3")); err == nil {
			return true
		}
	}
	return false
}

func ptr[T any](v T) *T { return &v }
