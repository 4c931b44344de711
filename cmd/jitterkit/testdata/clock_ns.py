# Full jitter (base 100ms, cap 10s) from one generator the program seeds
# once, when it starts, from the nanosecond clock: processes started at one
# instant of the clock (as under a frozen clock) draw the same delays. It
# speaks jitterkit's exec protocol.
import json
import random
import sys
import time

rng = random.Random(time.time_ns())
for line in sys.stdin:
    req = json.loads(line)
    delays = [rng.uniform(0, min(10.0, 0.1 * 2**n)) for n in range(req["attempts"])]
    print(json.dumps(delays), flush=True)
