package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBadInput runs every kind of bad usage and bad input: each exits 2
// with a message, pinned word for word, that names what is wrong and where
// (the flag, the file and line, the config key, the device and the reply),
// and none does any work first.
func TestBadInput(t *testing.T) {
	tests := []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{`check`, `--policy`, `full:base=1s,cap=soon`}, 2, `jitterkit: --policy: policy spec "full:base=1s,cap=soon": cap: "soon" is not a duration (e.g. 100ms, 10s, 1m30s) (see "jitterkit help check")`},
		{[]string{`check`, `--policy`, `fast`}, 2, `jitterkit: --policy: policy spec "fast": fast: unknown strategy (want none, full, equal or decorrelated) (see "jitterkit help check")`},
		{[]string{`check`, `--policy`, `full:base=1s,,cap=30s`}, 2, `jitterkit: --policy: policy spec "full:base=1s,,cap=30s": "": want key=value (see "jitterkit help check")`},
		{[]string{`check`, `--policy`, `full:jitter=0.5`}, 2, `jitterkit: --policy: policy spec "full:jitter=0.5": jitter: unknown key (want base, cap, multiplier, seed or reset) (see "jitterkit help check")`},
		{[]string{`check`}, 2, `jitterkit: check needs a policy: --policy SPEC, --exec CMD, --trace FILE, or a --config file that names one (see "jitterkit help check")`},
		{[]string{`check`, `--policy`, `full`, `--trace`, `testdata/traces/full-jitter.csv`}, 2, `jitterkit: check checks one policy, got --policy and --trace (see "jitterkit help check")`},
		{[]string{`check`, `--policy`, `full`, `--policy`, `none`}, 2, `jitterkit: check checks one policy, got 2 specs (full:base=100ms,cap=10s; none:base=100ms,cap=10s); compare takes several (see "jitterkit help check")`},
		{[]string{`frobnicate`}, 2, `jitterkit: unknown command "frobnicate": want demo, check, replay, gate, compare, help or version (see "jitterkit help")`},
		{[]string{`gaet`}, 2, `jitterkit: unknown command "gaet" (did you mean gate?): want demo, check, replay, gate, compare, help or version (see "jitterkit help")`},
		{[]string{`version`, `now`}, 2, `jitterkit: version takes no arguments, got "now" (see "jitterkit help")`},
		{[]string{`help`, `frobnicate`}, 2, `jitterkit: no help on "frobnicate": want demo, check, replay, gate, compare, policies or a topic: outage, long-outage, storm, periodic, periodic-aligned, overload, reconnect, contention, budgets, recovery, runs, outputs`},
		{[]string{`check`, `extra`}, 2, `jitterkit: check takes no arguments, got "extra" (see "jitterkit help check")`},
		{[]string{`check`, `--dwon`}, 2, `jitterkit: check does not take --dwon (see "jitterkit help check")`},
		{[]string{`replay`, `--policy`, `full`, `--down`}, 2, `jitterkit: --down needs a value: --down DURATION (see "jitterkit help replay")`},
		{[]string{`replay`, `--policy`, `full`, `--down`, `soon`}, 2, `jitterkit: --down: "soon" is not a duration (e.g. 100ms, 10s, 1m30s) (see "jitterkit help replay")`},
		{[]string{`replay`, `--policy`, `full`, `--down`, `-2s`}, 2, `jitterkit: --down: -2s is not positive (see "jitterkit help replay")`},
		{[]string{`replay`, `--policy`, `full`, `--down`, `2s`, `--down`, `3s`}, 2, `jitterkit: --down is given more than once (see "jitterkit help replay")`},
		{[]string{`replay`, `--policy`, `full`, `--clients`, `0`}, 2, `jitterkit: --clients: 0 is not a positive number (see "jitterkit help replay")`},
		{[]string{`replay`, `--policy`, `full`, `--clients`, `lots`}, 2, `jitterkit: --clients: "lots" is not a whole number (see "jitterkit help replay")`},
		{[]string{`replay`, `--policy`, `full`, `--accept-rate`, `-5`}, 2, `jitterkit: --accept-rate: -5 is not a positive number (see "jitterkit help replay")`},
		{[]string{`replay`, `--policy`, `full`, `--accept-rate`, `NaN`}, 2, `jitterkit: --accept-rate: NaN is not a positive number (see "jitterkit help replay")`},
		{[]string{`replay`, `--policy`, `full`, `--clients`, `10000000000`}, 2, `jitterkit: --clients 10000000000 is more than a replay holds (4294967295) (see "jitterkit help replay")`},
		{[]string{`replay`, `--policy`, `full`, `--clients`, `1000000000`}, 2, `jitterkit: 20 runs of 1,000,000,000 clients over 1h0m0s in 1s windows would need about 50.2 GiB, above the memory limit of 4.0 GiB: one run needs 50.2 GiB; replay fewer clients, over a shorter horizon or in wider windows, or raise the limit with --memory-limit (see "jitterkit help replay")`},
		{[]string{`replay`, `--policy`, `full`, `--horizon`, `87600h`}, 2, `jitterkit: --horizon 87600h0m0s is beyond the longest replay, 744h0m0s (31 days) (see "jitterkit help replay")`},
		{[]string{`replay`, `--policy`, `full`, `--runs`, `2`}, 2, `jitterkit: --runs 2 makes no interval: a replay judges, and compare shows, the median over the runs with its interval, and fewer than 3 runs make none (see "jitterkit help replay")`},
		{[]string{`gate`, `--policy`, `full`, `--runs`, `1`}, 2, `jitterkit: --runs 1 makes no interval: a replay judges, and compare shows, the median over the runs with its interval, and fewer than 3 runs make none (see "jitterkit help gate")`},
		{[]string{`replay`, `--policy`, `full`, `--burst`, `10`}, 2, `jitterkit: --burst applies to the token-bucket server only, not to the per-second server (see "jitterkit help replay")`},
		{[]string{`replay`, `--policy`, `full`, `--period`, `30s`}, 2, `jitterkit: --period applies to the periodic scenarios only, not to the outage scenario (see "jitterkit help replay")`},
		{[]string{`replay`, `--policy`, `full`, `--retries`, `5`}, 2, `jitterkit: --retries does not apply to the outage scenario (see "jitterkit help replay")`},
		{[]string{`replay`, `--policy`, `full`, `--server`, `token-bucket`, `--retry-after`, `2s`}, 2, `jitterkit: --retry-after applies to the retry-after server only, not to the token-bucket server (see "jitterkit help replay")`},
		{[]string{`replay`, `--policy`, `full`, `--server`, `leaky`}, 2, `jitterkit: --server: "leaky" is not a server model (want per-second, token-bucket, retry-after) (see "jitterkit help replay")`},
		{[]string{`demo`, `--fast`}, 2, `jitterkit: demo takes no arguments, got "--fast" (see "jitterkit help")`},
		{[]string{`replay`, `--policy`, `full`, `--runs`, `0`}, 2, `jitterkit: --runs: 0 is not a positive number (see "jitterkit help replay")`},
		{[]string{`replay`, `--policy`, `full`, `--scenario`, `flood`}, 2, `jitterkit: --scenario: "flood" is not a scenario (want outage, long-outage, storm, periodic, periodic-aligned, overload, reconnect, contention) (see "jitterkit help replay")`},
		{[]string{`replay`, `--policy`, `full`, `--seed`, `-1`}, 2, `jitterkit: --seed: "-1" is not a seed (a whole number from 1 to 18446744073709551615) (see "jitterkit help replay")`},
		{[]string{`replay`, `--policy`, `full`, `--seed`, `0`}, 2, `jitterkit: --seed: "0" is not a seed (a whole number from 1 to 18446744073709551615) (see "jitterkit help replay")`},
		{[]string{`replay`, `--policy`, `full`, `--sample`, `100`}, 2, `jitterkit: --sample: "100" is not a sample (1/K, K a whole number of at least 2, such as 1/100) (see "jitterkit help replay")`},
		{[]string{`replay`, `--policy`, `full`, `--clients`, `100000`, `--sample`, `1/100`}, 2, `jitterkit: a sample of 1/100 of 100000 devices holds 1000, fewer than the 10000 whose sampling error was measured: sample less, or replay the whole fleet (see "jitterkit help replay")`},
		{[]string{`replay`, `--policy`, `full`, `--clients`, `1000000`, `--sample`, `1/10`, `--json`, `r.json`}, 2, `jitterkit: --json does not take a sampled replay, whose figures are the sample's; write a report instead, whose files say what the sample stands for (see "jitterkit help replay")`},
		{[]string{`replay`, `--trace`, `testdata/traces/full-jitter.csv`, `--sample`, `1/10`}, 2, `jitterkit: a sample does not apply to a recording, which is replayed whole (see "jitterkit help replay")`},
		{[]string{`compare`, `--runs`, `2`}, 2, `jitterkit: --runs 2 makes no interval: a replay judges, and compare shows, the median over the runs with its interval, and fewer than 3 runs make none (see "jitterkit help compare")`},
		{[]string{`compare`, `--threshold`, `0.1`}, 2, `jitterkit: compare does not take --threshold (replay and gate do) (see "jitterkit help compare")`},
		{[]string{`replay`, `--policy`, `full`, `--json`, `-`}, 2, `jitterkit: --json: "-" is no file: name a file, or /dev/stdout for standard output (see "jitterkit help replay")`},
		{[]string{`replay`, `--policy`, `full`, `--json`, `testdata`}, 2, `jitterkit: --json testdata is a directory; name a file (see "jitterkit help replay")`},
		{[]string{`replay`, `--policy`, `full`, `--scenario`, `overload`, `--threshold`, `0.5`}, 2, `jitterkit: --threshold does not apply to the overload scenario: it is judged on recovery, not on a peak ratio (see "jitterkit help replay")`},
		{[]string{`gate`, `--policy`, `full`, `--scenario`, `reconnect`, `--threshold`, `2`}, 2, `jitterkit: --threshold does not apply to the reconnect scenario: it is judged on recovery, not on a peak ratio (see "jitterkit help gate")`},
		{[]string{`replay`, `--policy`, `full`, `--scenario`, `contention`, `--threshold`, `0.5`}, 2, `jitterkit: --threshold does not apply to the contention scenario: it is judged on its clients' success, not on a peak ratio (see "jitterkit help replay")`},
		{[]string{`replay`, `--policy`, `full`, `--threshold`, `0`}, 2, `jitterkit: --threshold: 0 is not a positive number (see "jitterkit help replay")`},
		{[]string{`check`, `--trace`, `testdata/traces/full-jitter.csv`, `--devices`, `5000`}, 2, `jitterkit: --devices does not apply to a recorded trace: its own devices are checked (see "jitterkit help check")`},
		{[]string{`check`, `--policy`, `full`, `--min-cv`, `0`}, 2, `jitterkit: --min-cv: 0 is not a positive number (see "jitterkit help check")`},
		{[]string{`check`, `--policy`, `full`, `--require-reproducible=maybe`}, 2, `jitterkit: --require-reproducible: "maybe" is not true or false (see "jitterkit help check")`},
		{[]string{`gate`, `--policy`, `full`, `--clients`, `1000,2000`}, 2, `jitterkit: gate replays one fleet size, got --clients 1000,2000; compare takes several (see "jitterkit help gate")`},
		{[]string{`compare`, `--report`, `out`}, 2, `jitterkit: compare does not take --report (check, replay and gate do) (see "jitterkit help compare")`},
		{[]string{`check`, `--trace`, `testdata/traces/missing.csv`}, 2, `jitterkit: --trace: open testdata/traces/missing.csv: no such file or directory`},
		{[]string{`check`, `--trace`, `testdata/traces/no-header.csv`}, 2, `jitterkit: testdata/traces/no-header.csv:1: got "device,delay_s"; want the header device,attempt,delay_s`},
		{[]string{`check`, `--trace`, `testdata/traces/bad-number.csv`}, 2, `jitterkit: testdata/traces/bad-number.csv:3: delay_s: "soon" is not a number of seconds`},
		{[]string{`check`, `--trace`, `testdata/traces/out-of-order.csv`}, 2, `jitterkit: testdata/traces/out-of-order.csv:4: attempt: device "sensor-0001" attempt 3 follows attempt 1 on line 2; want 2`},
		{[]string{`check`, `--trace`, `testdata/traces/duplicate.csv`}, 2, `jitterkit: testdata/traces/duplicate.csv:4: attempt: device "sensor-0001" attempt 2 repeats line 3`},
		{[]string{`check`, `--trace`, `testdata/traces/empty.csv`}, 2, `jitterkit: testdata/traces/empty.csv:1: empty file; want the header device,attempt,delay_s`},
		{[]string{`gate`, `--config`, `testdata/configs/missing.yaml`}, 2, `jitterkit: --config: open testdata/configs/missing.yaml: no such file or directory`},
		{[]string{`gate`, `--config`, `/dev/zero`}, 2, `jitterkit: --config /dev/zero: larger than 1.0 MiB; a config holds a few flags`},
		{[]string{`check`, `--trace`, `/dev/zero`}, 2, `jitterkit: /dev/zero:1: a line longer than 65536 bytes; a trace's lines hold a device id, an attempt and a delay`},
		{[]string{`check`, `--trace`, `testdata/traces/full-jitter.csv`, `--memory-limit`, `1MiB`}, 2, `jitterkit: --trace testdata/traces/full-jitter.csv: larger than 16.0 KiB; raise --memory-limit to read a larger trace`},
		{[]string{`replay`, `--trace`, `testdata/traces/full-jitter.csv`, `--json`, `testdata/traces/full-jitter.csv`}, 2, `jitterkit: --json testdata/traces/full-jitter.csv would be written over testdata/traces/full-jitter.csv, an input of this run; write it elsewhere (see "jitterkit help replay")`},
		{[]string{`check`, `--policy`, `full`, `--memory-limit`, `lots`}, 2, `jitterkit: --memory-limit: "lots" is not a size (a whole number of bytes, or of KiB, MiB, GiB or TiB: e.g. 8GiB) (see "jitterkit help check")`},
		{[]string{`check`, `--policy`, `full`, `--devices`, `100000`, `--memory-limit`, `64MiB`}, 2, `jitterkit: checking 100000 devices over 32 attempts would need about 167.8 MiB, above the memory limit of 64.0 MiB: check fewer devices or fewer attempts, or raise the limit with --memory-limit (see "jitterkit help check")`},
		{[]string{`gate`, `--config`, `testdata/configs/unknown-key.yaml`}, 2, `jitterkit: testdata/configs/unknown-key.yaml:2: unknown key "dwon" (did you mean down?)`},
		{[]string{`gate`, `--config`, `testdata/configs/bad-value.yaml`}, 2, `jitterkit: testdata/configs/bad-value.yaml:3: accept-rate: "lots" is not a number`},
		{[]string{`gate`, `--config`, `testdata/configs/bad-yaml.yaml`}, 2, `jitterkit: testdata/configs/bad-yaml.yaml:1: did not find expected ',' or ']'`},
		{[]string{`gate`, `--config`, `testdata/configs/two-documents.yaml`}, 2, `jitterkit: testdata/configs/two-documents.yaml:2: a second YAML document; a config is one mapping of flag names to values`},
		{[]string{`gate`, `--config`, `testdata/configs/repeated-key.yaml`}, 2, `jitterkit: testdata/configs/repeated-key.yaml:2: policy: given again (first on line 1)`},
		{[]string{`check`, `--policy`, `full:base=1s,,cap=30s`}, 2, `jitterkit: --policy: policy spec "full:base=1s,,cap=30s": "": want key=value (see "jitterkit help check")`},
		{[]string{`check`, `--json`, `out.json`}, 2, `jitterkit: check does not take --json (replay does) (see "jitterkit help check")`},
		{[]string{`check`, `--down`, `2s`}, 2, `jitterkit: check does not take --down (replay, gate and compare do) (see "jitterkit help check")`},
		{[]string{`check`, `--exec`, `read -r line; exit 3`}, 2, `jitterkit: exec "read -r line; exit 3": device "02:1a:7f:01:09:53": it exited (exit status 3) without answering`},
		{[]string{`check`, `--exec`, `while read -r line; do echo hello; done`}, 2, `jitterkit: exec "while read -r line; do echo hello; done": device "02:1a:7f:01:09:53": the reply is not a JSON array of numbers: "hello"`},
		{[]string{`check`, `--exec`, `while read -r line; do echo "[0.1, \"0.2\"]"; done`}, 2, `jitterkit: exec "while read -r line; do echo \"[0.1, \\\"0.2\\\"]\"; done": device "02:1a:7f:01:09:53": the reply's element 2 is not a number: "[0.1, \"0.2\"]"`},
		{[]string{`check`, `--exec`, `while read -r line; do echo "[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50,51,52,53,54,55,56,57,58,59,60,61,62,63,64,65]"; done`}, 2, `jitterkit: exec "while read -r line; do echo \"[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50,51,52,53,54,55,56,57,58,59,60,61,62,63,64,65]\"; done": device "02:1a:7f:01:09:53": the reply has more than the 32 numbers asked for: "[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50,51,52,53,54,55,56,57,58,59,60,61,62,63,64,65]"`},
		{[]string{`check`, `--exec`, `echo "Traceback: ModuleNotFoundError: No module named numpy" >&2; exit 1`}, 2, `jitterkit: exec "echo \"Traceback: ModuleNotFoundError: No module named numpy\" >&2; exit 1": device "02:1a:7f:01:09:53": it exited (exit status 1) without answering
its standard error ends with:
	Traceback: ModuleNotFoundError: No module named numpy`},
		{[]string{`check`, `--exec`, `printf "\033[2J\033]0;owned\007\nline two\n" >&2; exit 1`}, 2, `jitterkit: exec "printf \"\\033[2J\\033]0;owned\\007\\nline two\\n\" >&2; exit 1": device "02:1a:7f:01:09:53": it exited (exit status 1) without answering
its standard error ends with:
	\x1b[2J\x1b]0;owned\a
	line two`},
		{[]string{`check`, `--exec`, `./no-such-policy`}, 2, `jitterkit: exec "./no-such-policy": device "02:1a:7f:01:09:53": it exited (exit status 127) without answering
its standard error ends with:
	sh: 1: ./no-such-policy: not found`},
		{[]string{`check`, `--exec`, `while read -r line; do :; done`, `--exec-timeout`, `300ms`}, 2, `jitterkit: exec "while read -r line; do :; done": device "02:1a:7f:01:09:53": no reply in time: it wrote nothing for 300ms while a request waited for its reply; raise it with --exec-timeout`},
		{[]string{`check`, `--exec`, `trap "" TERM; sleep 1000 & while :; do sleep 1; done`, `--exec-timeout`, `300ms`}, 2, `jitterkit: exec "trap \"\" TERM; sleep 1000 & while :; do sleep 1; done": device "02:1a:7f:01:09:53": no reply in time: it wrote nothing for 300ms while a request waited for its reply; raise it with --exec-timeout`},
		{[]string{`replay`, `--exec`, `while read -r line; do echo "[0.1, 0.2"; done`, `--runs`, `3`}, 2, `jitterkit: exec "while read -r line; do echo \"[0.1, 0.2\"; done": device "dev-00000001-0000000": the reply is not a JSON array of numbers: "[0.1, 0.2"`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			r := jitterkit(t, context.Background(), tt.args...)
			assert.Equal(t, tt.code, r.code, "exit code; stderr:\n%s", r.stderr)
			assert.Equal(t, anyRun(tt.stderr+"\n"), anyRun(r.stderr), "stderr, word for word")
			assert.Empty(t, r.stdout, "stdout")
		})
	}
}

// runOfDevice matches the run's part of a replayed device's id.
var runOfDevice = regexp.MustCompile(`"dev-[0-9a-f]{8}-`)

// anyRun writes every replayed device's id in s without its run: the runs
// of a replay ask an exec program side by side, so which run's request it
// breaks the protocol on first depends on timing. A policy's defect is
// named in the lowest-numbered run, whatever the timing.
func anyRun(s string) string { return runOfDevice.ReplaceAllString(s, `"dev-RUN-`) }

// TestPolicyDefects runs policies whose delays are the policy's own defect:
// NaN, infinite and negative delays from an exec program. Each fails (exit
// 1) with the device and the attempt in the summary, never a crash.
func TestPolicyDefects(t *testing.T) {
	tests := []struct {
		args []string
		want []string // in the summary
	}{
		{[]string{"check", "--exec", `while read -r line; do echo "[NaN, 1]"; done`},
			[]string{"FAIL    bounds", `device "01b53362-41b8-4125-8781-742b4583b6dc" attempt 1: delay NaN s is not a duration`}},
		{[]string{"check", "--exec", `while read -r line; do echo "[0.5, -Infinity]"; done`},
			[]string{"FAIL    bounds", "attempt 2: delay -Inf s is not a duration"}},
		{[]string{"replay", "--exec", `while read -r line; do echo "[Infinity]"; done`, "--runs", "3"},
			[]string{"replay  FAIL", `the replay stopped at device "dev-00000001-0000000", delay 1: delay +Inf s is not a duration (bad delay)`,
				`replay: jitterkit replay --exec 'while read -r line; do echo "[Infinity]"; done' --runs 3 --seed 1`}},
		// With runs in parallel, the lowest-numbered failing run names its
		// device, whatever the number of CPUs.
		{[]string{"replay", "--exec", `while read -r line; do echo "[Infinity]"; done`},
			[]string{"replay  FAIL", `the replay stopped at device "dev-00000001-0000000", delay 1: delay +Inf s is not a duration (bad delay)`,
				`replay: jitterkit replay --exec 'while read -r line; do echo "[Infinity]"; done' --runs 3 --seed 1`}},
		{[]string{"replay", "--exec", `while read -r line; do echo "[-1]"; done`, "--runs", "3"},
			[]string{"replay  FAIL", "delay -1s is negative (bad delay)"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			r := jitterkit(t, context.Background(), tt.args...)
			assert.Equal(t, exitFail, r.code, "exit code; stderr %q", r.stderr)
			for _, w := range tt.want {
				// A status and a name are separated by the table's padding.
				re := regexp.MustCompile(strings.Join(strings.Fields(regexp.QuoteMeta(w)), `\s+`))
				assert.Regexp(t, re, r.stdout, "summary lacks %q", w)
			}
		})
	}
}

// TestJSONReplacesOnlyAReplaysJSON refuses, before any work, a --json that
// would replace a file the kit did not write, such as the exec policy's
// own script, and leaves it as it was.
func TestJSONReplacesOnlyAReplaysJSON(t *testing.T) {
	script := filepath.Join(t.TempDir(), "policy.sh")
	body := "while read -r line; do echo '[1]'; done\n"
	require.NoError(t, os.WriteFile(script, []byte(body), 0o644))
	r := jitterkit(t, context.Background(), "replay", "--exec", "sh "+script, "--runs", "3", "--json", script)
	assert.Equal(t, exitUsage, r.code)
	assert.Contains(t, r.stderr, "holds a file that is not a replay's JSON")
	b, err := os.ReadFile(script)
	require.NoError(t, err)
	assert.Equal(t, body, string(b))
}
