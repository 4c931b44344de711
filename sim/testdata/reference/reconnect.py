#!/usr/bin/env python3
"""Reference simulation of jitterkit's reconnect model, in plain Python.

Mirrors sim/reconnect.go (the doc comment of the reconnect type) and its
oracle, oracleReconnect in sim/reconnect_oracle_test.go. It is the
straightforward discrete-event version: one heapq of tuples, times in
integer nanoseconds.

Model. At t=0 DEVICES devices lose their sessions and each sends a connect
at a uniform offset in [0, SPREAD). A connect reaches the broker RTT/2
after it is sent; the broker's reply (or its drop of a session) takes
RTT - RTT/2 back. A device has one connect under way at a time.

The broker is down until DOWN (rounded up to a whole second): a connect
that reaches it then is refused at no cost. From then on it has CPU units
in each whole second and handles connects in the order they arrive: one is
accepted if at least HANDSHAKE units are left in the second (it takes
them), otherwise refused (taking min(REFUSAL, the units left)). The units
left at the end of each second go to the warm-up; the broker is warm from
the end of the second by whose end WARM_UP units have gone to it. A
session accepted warm serves its device for the rest of the run; one
accepted cold is dropped COLD_DROP after its accept.

A device that learns of a refusal waits its policy's next delay and
reconnects, unless that is at or after the horizon. A device that learns
its session was dropped: with --on-drop reset (the default) starts its
policy over and reconnects at once; with continue, treats the drop as a
refusal. A device that has sent MAX_ATTEMPTS connects gives up instead.

The policy is kit's "full" jitter (kit/strategy.go): delay j (from 0) is
uniform(0, min(cap, base * 2**j)), truncated to the nanosecond. A
kit.Spec's policy is a function of the device, so a device's policy made
again after a drop gives the same delays from its first: each device's
delays are drawn once and kept, and a reset only moves back to the first.

Events of one instant go in this order: the broker's end of a second,
its drops of sessions, connects reaching it (by send time, then device),
devices learning of drops, devices learning of replies, devices sending.

`jitterkit replay --scenario reconnect` replays the policy's fleet alone
(no baseline fleet), RUNS runs. Not modelled: reset-jitter, budgets.

Events are counted as reconnectRun.events() counts them
(sim/reconnect.go): connects sent + accepted + refused + sessions dropped
+ warm accepts learned + refusals and drops learned.
"""

import argparse
import heapq
import json
import random
import statistics

NS = 1_000_000_000
# Kinds of events, in their order within an instant.
SECOND, DROP, ARRIVE, DROPPED, REPLY, SEND = range(6)


def replay(a, seed):
    """Replays one run; returns its figures."""
    rng = random.Random(seed)
    horizon = int(a.horizon * NS)
    out = int(a.rtt * NS) // 2
    back = int(a.rtt * NS) - out
    down_end = -(-int(a.down * NS) // NS) * NS
    cold_drop = int(a.cold_drop * NS)
    base, cap = a.base * NS, a.cap * NS
    seconds = -(-horizon // NS)

    delays = [[] for _ in range(a.devices)]  # each device's delays so far
    asked = [0] * a.devices  # the delays its current policy has given
    sent = [0] * a.devices  # the connects it has sent

    def next_delay(i):
        d, j = delays[i], asked[i]
        if j == len(d):
            d.append(int(rng.uniform(0, min(cap, base * 2 ** j))))
        asked[i] += 1
        return d[j]

    n = dict(attempts=0, accepted=0, accepted_cold=0, refused=0, dropped=0,
             served=0, gave_up=0, learned_failures=0, warm_at_s=None)
    successes = [0] * seconds
    failures = [0] * seconds

    q = [(s * NS, SECOND, 0, 0, False) for s in range(seconds)]
    for i in range(a.devices):
        t = rng.randrange(int(a.spread * NS)) if a.spread > 0 else 0
        q.append((t, SEND, 0, i, False))
    heapq.heapify(q)

    def failed(i, t):
        """Device i learned of a failure at t: it reconnects after its delay."""
        if sent[i] >= a.max_attempts:
            n["gave_up"] += 1
            return
        d = next_delay(i)
        if d < horizon - t:
            heapq.heappush(q, (t + d, SEND, 0, i, False))

    left = warmed = 0
    warm = False
    while q:
        t, kind, sent_at, i, served = heapq.heappop(q)
        if t >= horizon:
            break
        if kind == SECOND:
            if t < down_end:
                continue
            if not warm:
                if t > down_end:
                    warmed += left  # what the second that ends now left over
                if warmed >= a.warm_up:
                    warm, n["warm_at_s"] = True, t / NS
            left = a.cpu
        elif kind == SEND:
            sent[i] += 1
            n["attempts"] += 1
            heapq.heappush(q, (t + out, ARRIVE, t, i, False))
        elif kind == ARRIVE:
            if t >= down_end and left >= a.handshake and (warm or not a.refuse_cold):
                left -= a.handshake
                n["accepted"] += 1
                if warm:
                    heapq.heappush(q, (t + back, REPLY, 0, i, True))
                else:
                    n["accepted_cold"] += 1
                    heapq.heappush(q, (t + cold_drop, DROP, 0, i, False))
            else:
                if t >= down_end:
                    left -= min(left, a.refusal)
                n["refused"] += 1
                heapq.heappush(q, (t + back, REPLY, 0, i, False))
        elif kind == DROP:
            n["dropped"] += 1
            heapq.heappush(q, (t + back, DROPPED, 0, i, False))
        elif kind == REPLY:
            if served:
                n["served"] += 1
                successes[t // NS] += 1
            else:
                failures[t // NS] += 1
                failed(i, t)
        elif kind == DROPPED:
            failures[t // NS] += 1
            if a.on_drop == "continue":
                failed(i, t)
            elif sent[i] >= a.max_attempts:
                n["gave_up"] += 1
            else:  # reset: a fresh policy, and reconnect at once
                asked[i] = 0
                heapq.heappush(q, (t, SEND, 0, i, False))

    n["learned_failures"] = sum(failures)
    n["events"] = (n["attempts"] + n["accepted"] + n["refused"] + n["dropped"]
                   + n["served"] + n["learned_failures"])
    first = down_end // NS
    at = recovery(first, seconds, failures, successes)
    n["recovered"] = at is not None
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
    p.add_argument("--devices", type=int, default=2000)
    p.add_argument("--spread", type=float, default=0.010)
    p.add_argument("--rtt", type=float, default=0.050)
    p.add_argument("--down", type=float, default=5)
    p.add_argument("--cpu", type=int, default=2000, help="broker's units a second")
    p.add_argument("--handshake", type=int, default=10)
    p.add_argument("--refusal", type=int, default=1)
    p.add_argument("--warm-up", type=int, default=4000)
    p.add_argument("--cold-drop", type=float, default=0.100)
    p.add_argument("--refuse-cold", action="store_true")
    p.add_argument("--on-drop", choices=["reset", "continue"], default="reset")
    p.add_argument("--max-attempts", type=int, default=10_000)
    p.add_argument("--horizon", type=float, default=300)
    p.add_argument("--base", type=float, default=0.1, help="full jitter's base, seconds")
    p.add_argument("--cap", type=float, default=10, help="full jitter's cap, seconds")
    p.add_argument("--runs", type=int, default=20)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", help="write the per-run figures to this file")
    a = p.parse_args()

    runs = [replay(a, a.seed * 1_000_003 + run) for run in range(a.runs)]
    ev = [r["events"] for r in runs]
    med = lambda key: statistics.median(r[key] for r in runs)
    print(f"policy: {a.runs} runs, events {sum(ev):,} ({sum(ev) / len(ev):,.0f}/run); "
          f"median attempts {med('attempts'):,}, accepted {med('accepted'):,}, "
          f"dropped {med('dropped'):,}, refused {med('refused'):,}, served {med('served'):,}; "
          f"warm in {sum(r['warm_at_s'] is not None for r in runs)}/{a.runs}; "
          f"recovery_s {med('recovery_s')}; recovered {sum(r['recovered'] for r in runs)}/{a.runs}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"policy": runs}, f)


if __name__ == "__main__":
    main()
