# Full jitter (base 100ms, cap 10s) from one generator the program seeds
# once, when it starts, from the clock's second: every process started in
# the same second draws the same delays. It speaks jitterkit's exec
# protocol: one JSON request per line in, one JSON array of delays in
# seconds out.
import json
import random
import sys
import time

rng = random.Random(int(time.time()))
for line in sys.stdin:
    req = json.loads(line)
    delays = [rng.uniform(0, min(10.0, 0.1 * 2**n)) for n in range(req["attempts"])]
    print(json.dumps(delays), flush=True)
