# Full jitter (base 100ms, cap 10s) from Python's module-level generator,
# which the runtime seeds from the operating system's randomness in every
# process: devices spread, in one process or many, but no device's delays
# can be drawn again. It speaks jitterkit's exec protocol.
import json
import random
import sys

for line in sys.stdin:
    req = json.loads(line)
    delays = [random.uniform(0, min(10.0, 0.1 * 2**n)) for n in range(req["attempts"])]
    print(json.dumps(delays), flush=True)
