#!/usr/bin/env python3
"""Reference simulation of jitterkit's overload model, in plain Python.

Mirrors sim/overload.go (the doc comment of the overload type) and its
oracle, oracleOverload in sim/overload_oracle_test.go, for the parts the
default scenario uses. It is the straightforward discrete-event version:
one heapq of (time, kind, request, attempt) tuples, times in integer
nanoseconds.

Model. An open-loop Poisson stream of RATE requests a second (over the whole
fleet) starts at t=0; each request is sent by a device chosen at random
among DEVICES. Every attempt waits at most TIMEOUT for its answer. It
reaches the server RTT/2 after it is sent; the answer takes RTT - RTT/2
back. The server has one FIFO queue and one worker that never cancels a
job; a job is one unit of work done at the capacity c(t): CAPACITY jobs a
second, except DIP_FRACTION of it from DIP_AT for DIP_FOR. An answer that
arrives by the deadline is a success; otherwise the attempt times out at
its deadline (a later answer is ignored, though the worker did the work).
After a timeout, a request that has made fewer than 1+RETRIES attempts
waits the next delay of its device's policy and sends its next attempt,
unless that falls at or after the horizon.

The policy is kit's "full" jitter (kit/strategy.go): retry j (from 0)
waits uniform(0, min(cap, base * 2**j)), truncated to the nanosecond. A
kit.Spec's policy is a function of the device, so every request of a
device gets the same delays: device d's j-th delay is drawn once and kept.

Events of one instant go in this order: the worker completes its job (and
starts the next), attempts reach the server, clients learn answers, then
deadlines pass, then attempts are sent; within a kind, by request.

Like `jitterkit replay --scenario overload`, it replays the policy's fleet
and the same fleet without retries (the "no retries" baseline), each for
RUNS runs. Not modelled (the defaults leave them off): --ramp,
--queue-limit, --drop-expired, budgets.

Events are counted as overloadRun.events() counts them (sim/overload.go):
attempts sent + attempts arrived + jobs completed + successes + timeouts
(rejections, skipped jobs and budget events are 0 here).
"""

import argparse
import heapq
import json
import math
import random
import statistics
from collections import deque

NS = 1_000_000_000
# Kinds of events, in their order within an instant.
DONE, ARRIVE, ANSWER, DEADLINE, SEND = range(5)


def finish_time(start, pieces):
    """When a job started at start (ns) completes: the first instant by
    which the capacity has done one job of work. pieces are (from, to,
    jobs per ns), the last one endless."""
    work = 1.0
    t = start
    for lo, hi, rate in pieces:
        if hi <= t:
            continue
        t = max(t, lo)
        if rate > 0:
            if work <= rate * (hi - t):
                return t + round(work / rate)
            work -= rate * (hi - t)
    raise AssertionError("the last piece has no capacity")


def replay(a, seed, retries):
    """Replays one run; returns its figures."""
    rng = random.Random(seed)
    horizon = int(a.horizon * NS)
    out = int(a.rtt * NS) // 2
    back = int(a.rtt * NS) - out
    timeout = int(a.timeout * NS)
    dip_at, dip_end = int(a.dip_at * NS), int((a.dip_at + a.dip_for) * NS)
    pieces = [(0, dip_at, a.capacity / NS),
              (dip_at, dip_end, a.dip * a.capacity / NS),
              (dip_end, math.inf, a.capacity / NS)]
    base, cap = a.base * NS, a.cap * NS
    seconds = -(-horizon // NS)

    device_delays = [[] for _ in range(a.devices)]  # each device's delays so far

    def delay(device, j):
        d = device_delays[device]
        while len(d) <= j:
            d.append(int(rng.uniform(0, min(cap, base * 2 ** len(d)))))
        return d[j]

    # Per request: its device, the attempt under way, whether it has its outcome.
    dev, attempt, resolved, offered = [], [], [], []
    q = []  # the events
    queue = deque()  # jobs waiting: (request, attempt, deadline)
    busy = False
    current_deadline = 0
    n = dict(requests=0, attempts=0, arrived=0, jobs_done=0, late=0,
             successes=0, timeouts=0, exhausted=0,
             attempts_from_trigger=0, requests_from_trigger=0,
             requests_after=0, successes_after=0)
    successes = [0] * seconds
    failures = [0] * seconds

    def new_request(t):
        k = len(dev)
        dev.append(rng.randrange(a.devices))
        attempt.append(0)
        resolved.append(False)
        offered.append(t)
        heapq.heappush(q, (t, SEND, k, 1))

    def next_request(t):
        t += round(rng.expovariate(a.rate) * NS)
        if t < horizon:
            new_request(t)

    def start(t):
        nonlocal busy, current_deadline
        if queue:
            k, att, deadline = queue.popleft()
            done = finish_time(t, pieces)
            busy, current_deadline = True, deadline
            heapq.heappush(q, (done, DONE, k, att))
            if done + back <= deadline:  # the answer arrives in time
                heapq.heappush(q, (done + back, ANSWER, k, att))

    next_request(0)  # the first request, one gap after t=0
    while q:
        t, kind, k, att = heapq.heappop(q)
        if t >= horizon:
            break
        if kind == SEND:
            if att == 1:
                n["requests"] += 1
                if t >= dip_at:
                    n["requests_from_trigger"] += 1
                if t >= dip_end:
                    n["requests_after"] += 1
                next_request(t)
            n["attempts"] += 1
            if t >= dip_at:
                n["attempts_from_trigger"] += 1
            attempt[k], resolved[k] = att, False
            heapq.heappush(q, (t + out, ARRIVE, k, att))
            heapq.heappush(q, (t + timeout, DEADLINE, k, att))
        elif kind == ARRIVE:
            n["arrived"] += 1
            queue.append((k, att, t - out + timeout))
            if not busy:
                start(t)
        elif kind == DONE:
            n["jobs_done"] += 1
            if t + back > current_deadline:
                n["late"] += 1
            busy = False
            start(t)
        elif kind == ANSWER:
            resolved[k] = True
            n["successes"] += 1
            successes[t // NS] += 1
            if offered[k] >= dip_end:
                n["successes_after"] += 1
        elif kind == DEADLINE:
            if attempt[k] != att or resolved[k]:
                continue  # answered in time
            resolved[k] = True
            n["timeouts"] += 1
            failures[t // NS] += 1
            if att == 1 + retries:
                n["exhausted"] += 1
                continue
            d = delay(dev[k], att - 1)
            if d < horizon - t:
                heapq.heappush(q, (t + d, SEND, k, att + 1))

    n["jobs_at_end"] = len(queue) + busy
    n["events"] = n["attempts"] + n["arrived"] + n["jobs_done"] + n["successes"] + n["timeouts"]
    first = -(-dip_end // NS)  # recovery is judged from the dip's end, in whole seconds
    at = recovery(first, seconds, failures, successes)
    n["recovered"] = at is not None
    # jitterkit's recovery_s: from first; a run that never recovers counts horizon - first.
    n["recovery_s"] = (at if at is not None else seconds) - first
    return n


def recovery(first, seconds, failures, successes):
    """The second from which every whole 5s window from first on has at most
    1% failures among the outcomes learned in it, or None (sim/overload.go,
    recovery)."""
    windows = [(sum(failures[s:s + 5]), sum(successes[s:s + 5]))
               for s in range(first, seconds - 4, 5)]
    start = None
    for w in range(len(windows) - 1, -1, -1):
        f, s = windows[w]
        if f * 100 > f + s:
            break
        start = w
    if start is None or sum(s for _, s in windows) == 0:
        return None
    return first + 5 * start


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--devices", type=int, default=200)
    p.add_argument("--rate", type=float, default=70, help="requests a second, the whole fleet")
    p.add_argument("--capacity", type=float, default=100, help="jobs a second (jitterkit's --accept-rate)")
    p.add_argument("--dip", type=float, default=0.1)
    p.add_argument("--dip-at", type=float, default=30)
    p.add_argument("--dip-for", type=float, default=5)
    p.add_argument("--rtt", type=float, default=0.010)
    p.add_argument("--timeout", type=float, default=1)
    p.add_argument("--retries", type=int, default=3)
    p.add_argument("--horizon", type=float, default=300)
    p.add_argument("--base", type=float, default=0.1, help="full jitter's base, seconds")
    p.add_argument("--cap", type=float, default=10, help="full jitter's cap, seconds")
    p.add_argument("--runs", type=int, default=20)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", help="write the per-run figures to this file")
    a = p.parse_args()

    fleets = {"policy": a.retries, "no retries": 0}
    result = {}
    for name, retries in fleets.items():
        # The same run seeds for both fleets, as jitterkit's replay does.
        result[name] = [replay(a, a.seed * 1_000_003 + run, retries) for run in range(a.runs)]
    for name, runs in result.items():
        ev = [r["events"] for r in runs]
        med = lambda key: statistics.median(r[key] for r in runs)
        print(f"{name:>10}: {a.runs} runs, events {sum(ev):,} ({sum(ev) / len(ev):,.0f}/run); "
              f"median attempts {med('attempts'):,}, successes {med('successes'):,}, "
              f"timeouts {med('timeouts'):,}, jobs at end {med('jobs_at_end'):,}; "
              f"recovery_s {med('recovery_s')}; recovered {sum(r['recovered'] for r in runs)}/{a.runs}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(result, f)


if __name__ == "__main__":
    main()
