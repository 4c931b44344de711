#!/usr/bin/env python3
"""Reference simulation of jitterkit's contention model, in plain Python.

Mirrors sim/contention.go (the doc comment of the contention type) and its
oracle, oracleContention in sim/contention_test.go: the optimistic-
concurrency model of the AWS Architecture Blog's backoff simulator
(awslabs/aws-arch-backoff-simulator, src/backoff_simulator.py). One
heapq of (time, client) tuples, times in integer nanoseconds.

Model. The server holds one row whose version is 0 at t=0. Each of CLIENTS
clients updates it once: it reads the row, learning version v, then writes
it on condition that the version is still v when the write reaches the
server, which then increments it; otherwise the write fails. A client
that learns its write failed backs off and reads again, until it
succeeds. Every message (read, write, and each reply) takes a network
delay |N(mean, sd)|, rounded to the nanosecond, drawn when it is sent.
So an attempt is four events: the read reaches the server (the version is
read), its reply reaches the client, which sends its write at once; the
write reaches the server (checked and applied), its reply reaches the
client. At t=0 every client sends its first read. After a failure learned
at t the next read reaches the server at t + n + d: n its network delay,
d the client's backoff. Events of one instant go in client order. A client
whose next read would reach the server at or after the horizon is left
unfinished.

`jitterkit replay --scenario contention` replays the policy's clients and,
as baselines, the same clients with the simulator's five strategies
(sim/contentionmodel.go, baselines; awsBackoff in sim/contention.go) at a
base of 5ms and a cap of 2s, where expo(n) = min(cap, 2**n * base) with n
the attempt counter, 1 at the first backoff:
  no backoff    0
  exponential   expo(n)
  full jitter   uniform(0, expo(n))
  equal jitter  expo(n)/2 + uniform(0, expo(n)/2)
  decorrelated  sleep = min(cap, uniform(base, 3 * sleep)), from sleep = base
The policy is kit's "full" jitter (kit/strategy.go), base 100ms and cap
10s by default: backoff j (from 0) is uniform(0, min(cap, base * 2**j)),
truncated to the nanosecond.

Events are counted as contentionRun.Events counts them: every message that
arrives (reads and writes at the server, replies at the clients).
"""

import argparse
import heapq
import json
import random
import statistics

NS = 1_000_000_000
READ, READ_REPLY, WRITE, WRITE_REPLY = range(4)  # a client's message in flight
AWS_BASE, AWS_CAP = 0.005 * NS, 2 * NS


def kit_full(rng, base, cap):
    """kit's full jitter, base and cap in ns."""
    window = base
    while True:
        yield int(rng.uniform(0, min(window, cap)))
        window *= 2


def aws(strategy, rng):
    """The simulator's strategy, as awsBackoff gives it."""
    n, sleep = 0, AWS_BASE
    while True:
        n += 1
        expo = min(AWS_CAP, 2 ** n * AWS_BASE)
        if strategy == "no backoff":
            d = 0
        elif strategy == "exponential":
            d = expo
        elif strategy == "full jitter":
            d = rng.uniform(0, expo)
        elif strategy == "equal jitter":
            d = expo / 2 + rng.uniform(0, expo / 2)
        else:  # decorrelated jitter
            sleep = min(AWS_CAP, rng.uniform(AWS_BASE, sleep * 3))
            d = sleep
        yield round(d)


def replay(a, seed, backoff):
    """Replays one run, each client's backoffs from backoff(rng)."""
    net_rng, jitter_rng = random.Random(seed), random.Random(seed + 1)
    mean, sd = a.latency * NS, a.latency_sd * NS
    horizon = int(a.horizon * NS)

    def net():
        return round(abs(net_rng.gauss(mean, sd)))

    policy = [backoff(jitter_rng) for _ in range(a.clients)]
    phase = [READ] * a.clients
    read_version = [0] * a.clients
    ok = [False] * a.clients
    version = 0
    n = dict(calls=0, failures=0, reads=0, successes=0, unfinished=0, events=0, last_success_s=0.0)
    q = [(net(), c) for c in range(a.clients)]
    heapq.heapify(q)
    while q:
        t, c = heapq.heappop(q)
        if t >= horizon:
            n["unfinished"] += 1 + len(q)
            break
        n["events"] += 1
        p = phase[c]
        if p == READ:
            n["reads"] += 1
            read_version[c] = version
        elif p == WRITE:
            n["calls"] += 1
            ok[c] = read_version[c] == version
            if ok[c]:
                version += 1
            else:
                n["failures"] += 1
        elif p == WRITE_REPLY:
            if ok[c]:
                n["successes"] += 1
                n["last_success_s"] = t / NS
                continue
            at = t + net()
            d = next(policy[c])
            if at >= horizon or d >= horizon - at:
                n["unfinished"] += 1
                continue
            phase[c] = READ
            heapq.heappush(q, (at + d, c))
            continue
        phase[c] = p + 1
        heapq.heappush(q, (t + net(), c))
    return n


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--clients", type=int, default=100)
    p.add_argument("--latency", type=float, default=0.010, help="mean network delay, seconds")
    p.add_argument("--latency-sd", type=float, default=0.002)
    p.add_argument("--horizon", type=float, default=3600)
    p.add_argument("--base", type=float, default=0.1, help="the policy's (full jitter) base, seconds")
    p.add_argument("--cap", type=float, default=10, help="the policy's cap, seconds")
    p.add_argument("--runs", type=int, default=20)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", help="write the per-run figures to this file")
    a = p.parse_args()

    fleets = {"policy": lambda rng: kit_full(rng, a.base * NS, a.cap * NS)}
    for name in ["no backoff", "exponential", "full jitter", "equal jitter", "decorrelated jitter"]:
        fleets[name] = lambda rng, name=name: aws(name, rng)
    result = {}
    for name, backoff in fleets.items():
        # The same run seeds for every fleet: the same network draws at first.
        result[name] = [replay(a, a.seed * 1_000_003 + 2 * run, backoff) for run in range(a.runs)]
    total = 0
    for name, runs in result.items():
        ev = [r["events"] for r in runs]
        total += sum(ev)
        med = lambda key: statistics.median(r[key] for r in runs)
        print(f"{name:>19}: {a.runs} runs, events {sum(ev):,} ({sum(ev) / len(ev):,.0f}/run); "
              f"median writes {med('calls'):,}, reads {med('reads'):,}, "
              f"last success {med('last_success_s'):.3f}s; unfinished {sum(r['unfinished'] for r in runs)}")
    print(f"{'all six fleets':>19}: events {total:,} ({total / a.runs:,.0f}/run)")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(result, f)


if __name__ == "__main__":
    main()
