#!/usr/bin/env bash
# measure.sh: CPU time (user+sys) of jitterkit's engines against plain-Python
# reference simulations of the same models doing the same work, at 10x the
# defaults.
#
#   sim/testdata/reference/measure.sh [N]     N alternations (default 3)
#
# Environment: PYTHON (default /usr/bin/python3 if present, else python3 on
# the PATH), WORK (a directory for the outputs; default a new one under
# /tmp), EXACT=0 to skip the exact count of jitterkit's events (below),
# MODELS to measure some models only (default "overload reconnect
# contention").
#
# For each model it runs the Python program and `jitterkit replay`
# alternately N times, one process at a time, measures each process's CPU
# (user+sys, children included, with /usr/bin/time), and prints the median
# of each and the ratio Python/jitterkit. The pairs (jitterkit's command line
# and the Python run that does the same work) are:
#
#   overload, 10x: 2,000 devices (default 200), 700 requests/s (default 70)
#   into 1,000 jobs/s (default 100), so that the load (70%) and the dip (to
#   10%, 5s at 30s) are the default's; 20 runs; full jitter 100ms..10s.
#   Both replay the policy's fleet and the "no retries" baseline fleet.
#     jitterkit replay --scenario overload --policy full --clients 2000 \
#         --rate 700 --accept-rate 1000 --fix=false --quiet --json F
#     python3 overload.py --devices 2000 --rate 700 --capacity 1000 --runs 20
#
#   reconnect, 10x: 20,000 devices (default 2,000), broker CPU 20,000 units/s
#   (default 2,000); 20 runs; full jitter 100ms..10s. The policy's fleet only
#   (the reconnect model has no baseline fleet).
#     jitterkit replay --scenario reconnect --policy full --clients 20000 \
#         --cpu 20000 --fix=false --quiet --json F
#     python3 reconnect.py --devices 20000 --cpu 20000 --runs 20
#
#   contention, 10x: 200 runs (default 20) of 100 clients; the policy's
#   clients (full jitter 100ms..10s) and the five baselines (the AWS
#   simulator's none, exponential, full, equal and decorrelated jitter at
#   5ms..2s), each 200 runs.
#     jitterkit replay --scenario contention --policy full --runs 200 \
#         --fix=false --quiet --json F
#     python3 contention.py --runs 200
#
# The work is seen to match by the events (as the Go benchmarks count them,
# sim/*_bench_test.go) and the headline figures of both. jitterkit's JSON
# has each run's figures but not its events: they are derived from them
# (the overload's arrivals taken as its attempts, and the reconnect's
# outcomes learned as its refusals and drops, both off by the few attempts
# still in flight at the horizon), and from the medians for the baselines,
# whose runs the JSON does not list. jitterkit is built from a snapshot of
# the module taken at the start (WORK/module), since the tree may change
# while the measurements run. With EXACT=1 (the default) the script also
# adds engine_events_test.go.in to the snapshot as a test, and replays the
# same fleets on the engines alone, one run after the other, to print the
# exact events per run (checking that each run's attempts equal the
# JSON's: the same seeds give the same runs) and the CPU of the simulation
# alone, without what a replay does beyond it. Nothing under the module's
# own tree is written.
set -euo pipefail

N=${1:-3}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
WORK=${WORK:-$(mktemp -d /tmp/jkmeasure.XXXXXX)}
mkdir -p "$WORK"
if [[ -z ${PYTHON:-} ]]; then
	if [[ -x /usr/bin/python3 ]]; then PYTHON=/usr/bin/python3; else PYTHON=$(command -v python3); fi
fi
EXACT=${EXACT:-1}
MODELS=${MODELS:-"overload reconnect contention"}
JK=$WORK/jitterkit

declare -A JKARGS PYARGS ENGINE_ENV
JKARGS[overload]="--scenario overload --policy full --clients 2000 --rate 700 --accept-rate 1000"
PYARGS[overload]="overload.py --devices 2000 --rate 700 --capacity 1000 --runs 20"
ENGINE_ENV[overload]="JK_REF_MODEL=overload JK_REF_CLIENTS=2000 JK_REF_RATE=700 JK_REF_ACCEPT=1000 JK_REF_RUNS=20"
JKARGS[reconnect]="--scenario reconnect --policy full --clients 20000 --cpu 20000"
PYARGS[reconnect]="reconnect.py --devices 20000 --cpu 20000 --runs 20"
ENGINE_ENV[reconnect]="JK_REF_MODEL=reconnect JK_REF_CLIENTS=20000 JK_REF_CPU=20000 JK_REF_RUNS=20"
JKARGS[contention]="--scenario contention --policy full --runs 200"
PYARGS[contention]="contention.py --runs 200"
ENGINE_ENV[contention]="JK_REF_MODEL=contention JK_REF_CLIENTS=100 JK_REF_RUNS=200"

# A snapshot of the module, from which both jitterkit and the exact count
# are built: the tree may change while the measurements run.
rm -rf "$WORK/module"
mkdir -p "$WORK/module"
(cd "$ROOT" && tar --exclude=.git -cf - .) | tar -xf - -C "$WORK/module"
if commit=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null); then
	changed=$(git -C "$ROOT" --no-optional-locks diff --name-only HEAD -- . | wc -l)
	echo "module: $ROOT at $commit, $changed tracked files changed since (snapshot in $WORK/module)"
else
	echo "module: $ROOT, not a git checkout (snapshot in $WORK/module)"
fi
echo "building jitterkit into $JK"
(cd "$WORK/module" && go build -o "$JK" ./cmd/jitterkit)
echo "go: $(go version | cut -d' ' -f3-)   python: $PYTHON $("$PYTHON" -c 'import sys; print(sys.version.split()[0])')"
echo "cpus: $(nproc)   load: $(cut -d' ' -f1-3 /proc/loadavg)   outputs: $WORK"
echo

# cpu OUT CMD...: runs CMD, its stdout to OUT, and appends "user sys wall
# maxrss_kb" to OUT.time. jitterkit exits 1 when the policy fails its
# replay, as these do: only an exit code above 1 is an error.
cpu() {
	local out=$1
	shift
	local rc=0
	/usr/bin/time -f "%U %S %e %M" -a -o "$out.time" "$@" >"$out" 2>"$out.err" || rc=$?
	if ((rc > 1)); then
		echo "failed ($rc): $*" >&2
		cat "$out.err" >&2
		exit 1
	fi
}

for m in $MODELS; do
	rm -f "$WORK/$m.py.out.time" "$WORK/$m.jk.out.time"
	echo "== $m"
	echo "   jitterkit replay ${JKARGS[$m]} --fix=false --quiet --json $WORK/$m.json"
	echo "   $PYTHON ${PYARGS[$m]} --json $WORK/$m.py.json"
	for i in $(seq 1 "$N"); do
		(cd "$HERE" && cpu "$WORK/$m.py.out" "$PYTHON" ${PYARGS[$m]} --json "$WORK/$m.py.json")
		# shellcheck disable=SC2086
		cpu "$WORK/$m.jk.out" "$JK" replay ${JKARGS[$m]} --fix=false --quiet --json "$WORK/$m.json"
		echo "   run $i (load $(cut -d" " -f1 /proc/loadavg)): python $(tail -1 "$WORK/$m.py.out.time" | awk '{printf "%.2fs cpu (%.2fs wall)", $1+$2, $3}'), jitterkit $(tail -1 "$WORK/$m.jk.out.time" | awk '{printf "%.2fs cpu (%.2fs wall)", $1+$2, $3}')"
	done
	sed 's/^/   python: /' "$WORK/$m.py.out"
done

if [[ $EXACT == 1 ]]; then
	echo
	echo "== exact events, on jitterkit's engines alone (the snapshot in $WORK/module)"
	cp "$HERE/engine_events_test.go.in" "$WORK/module/sim/zz_reference_events_test.go"
	(cd "$WORK/module" && go test -c -o "$WORK/sim.test" ./sim)
	for m in $MODELS; do
		# shellcheck disable=SC2086
		(cd "$WORK/module/sim" && env ${ENGINE_ENV[$m]} "$WORK/sim.test" -test.run '^TestReferenceEngineEvents$' -test.count=1) | grep '^engine' >"$WORK/$m.engine.out"
	done
fi

echo
"$PYTHON" - "$WORK" "$MODELS" <<'EOF'
import json, os, statistics, sys

work, models = sys.argv[1], sys.argv[2].split()


def times(path):
    # GNU time also writes "Command exited with non-zero status 1" lines.
    rows = [list(map(float, l.split())) for l in open(path) if l[:1].isdigit()]
    return statistics.median(r[0] + r[1] for r in rows), statistics.median(r[3] for r in rows) / 1024, len(rows)


def engine(m):
    """fleet -> (events, per-run events, per-run attempts, cpu) from the exact count, if made."""
    path = f"{work}/{m}.engine.out"
    out = {}
    if not os.path.exists(path):
        return out
    for line in open(path):
        parts = line.split()
        if "runs" in parts:
            i = parts.index("runs")
            fleet = " ".join(parts[1:i])
            out.setdefault(fleet, {}).update(events=int(parts[i + 3]), cpu=float(parts[i + 7]))
        else:
            key = next(p for p in parts if p.endswith("_per_run"))
            i = parts.index(key)
            fleet = " ".join(parts[1:i])
            out.setdefault(fleet, {})[key] = json.loads(",".join(" ".join(parts[i + 1:]).split()))
    return out


def jk_events(m, fig):
    """Events of a run (or of the medians) of model m from jitterkit's figures."""
    if m == "overload":  # attempts + arrived + jobs done (arrived - jobs at end) + successes + timeouts
        return 3 * fig["attempts"] - fig["jobs_at_end"] + fig["served"] + fig["timeouts"]
    if m == "reconnect":  # sent + accepted + refused + dropped + served + refusals and drops learned
        return fig["attempts"] + fig["sessions_accepted"] + 2 * fig["connects_refused"] + 2 * fig["sessions_dropped"] + fig["served"]
    return 2 * fig["attempts"] + 2 * fig["reads"]  # contention: reads, writes, and a reply to each


def med(summary, key):
    return summary[key]["median"]


rows = []
for m in models:
    py_cpu, py_rss, n = times(f"{work}/{m}.py.out.time")
    jk_cpu, jk_rss, _ = times(f"{work}/{m}.jk.out.time")
    jk = json.load(open(f"{work}/{m}.json"))
    py = json.load(open(f"{work}/{m}.py.json"))
    ex = engine(m)
    print(f"== {m}: events (as sim/*_bench_test.go count them) and headline figures, Python against jitterkit")
    # jitterkit's fleets: the policy's runs, listed, and the baselines' medians.
    jk_fleets = {"policy": ("runs", jk["runs"], jk["summary"])}
    for b in jk.get("baselines", []):
        jk_fleets[b["name"]] = ("medians", None, b["summary"])
    total_py = total_jk = total_ex = 0
    ex_cpu = 0.0
    for fleet, (kind, runs, summary) in jk_fleets.items():
        pr = py[fleet]
        pe = [r["events"] for r in pr]
        total_py += sum(pe)
        if kind == "runs":
            je = [jk_events(m, r) for r in runs]
            jtot = sum(je)
            how = "derived from each run's figures"
        else:
            medfig = {k: v["median"] for k, v in summary.items()}
            jtot = jk_events(m, medfig) * len(jk["runs"])
            how = "derived from the median figures x runs"
        total_jk += jtot
        line = f"  {fleet:>19}: events/run python {statistics.mean(pe):>12,.0f}   jitterkit {jtot / len(jk['runs']):>12,.0f} ({how})"
        if fleet in ex:
            e = ex[fleet]
            total_ex += e["events"]
            ex_cpu += e["cpu"]
            line += f"   exact {e['events'] / len(e['events_per_run']):>12,.0f}"
            if kind == "runs":
                same = e["attempts_per_run"] == [r["attempts"] for r in runs]
                line += " (attempts run by run " + ("= the JSON's)" if same else "DIFFER from the JSON's!)")
        print(line)
        # Headline figures: medians over the runs.
        if m == "overload":
            keys = [("attempts", "attempts"), ("successes", "served"), ("timeouts", "timeouts"), ("jobs_at_end", "jobs_at_end"), ("recovery_s", "recovery_s")]
        elif m == "reconnect":
            keys = [("attempts", "attempts"), ("accepted", "sessions_accepted"), ("dropped", "sessions_dropped"), ("served", "served"), ("recovery_s", "recovery_s")]
        else:
            keys = [("calls", "attempts"), ("reads", "reads"), ("last_success_s", "all_served_s")]
        heads = "; ".join(f"{jkk} {statistics.median(r[pk] for r in pr):,.4g} / {med(summary, jkk):,.4g}" for pk, jkk in keys)
        print(f"  {'':>19}  medians python / jitterkit: {heads}")
    print(f"  {'all fleets':>19}: events python {total_py:,}   jitterkit {total_jk:,.0f}" + (f"   exact {total_ex:,}" if ex else ""))
    rows.append((m, n, py_cpu, jk_cpu, total_py, total_jk, total_ex, ex_cpu, py_rss, jk_rss))
    print()

print(f"median CPU (user+sys) over N alternations; python: {sys.version.split()[0]} at {sys.executable}")
print(f"{'model':<11} {'N':>2} {'python s':>9} {'jitterkit s':>11} {'ratio':>7} {'py ns/event':>11} {'jk ns/event':>11} {'engines s':>9} {'ratio':>7} {'py MiB':>7} {'jk MiB':>7}")
for m, n, pc, jc, tp, tj, te, ec, pr, jr in rows:
    eng = f"{ec:>9.2f} {pc / ec:>7.0f}" if te else f"{'-':>9} {'-':>7}"
    print(f"{m:<11} {n:>2} {pc:>9.2f} {jc:>11.2f} {pc / jc:>7.1f} {pc * 1e9 / tp:>11.0f} {jc * 1e9 / (te or tj):>11.0f} {eng} {pr:>7.0f} {jr:>7.0f}")
print("ratio = python CPU / jitterkit CPU (the whole `jitterkit replay` process);")
print("engines s = CPU of jitterkit's engines alone replaying the same fleets, one run after the other,")
print("  without the replay's summary (bootstrap intervals, recovery judgement, report, JSON), and its ratio python / engines.")
EOF
